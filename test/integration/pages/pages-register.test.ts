/**
 * Signing up on the web. D1 is fresh for this file, so the first owner does not exist until
 * the test that registers them; the tests run in order and build on each other.
 */
import { describe, expect, it } from 'vitest';
import { call, snapshot } from '../../support/api.ts';
import { CROSS_SITE_ORIGIN, labelFor, login, newBrowser } from '../../support/browser-session.ts';

const EMAIL = 'First.Owner@Example.com';
const PASSWORD = 'the very first password';

describe('/register before anyone has an account', () => {
  it('shows the form, and the login page links to it', async () => {
    const b = newBrowser();
    const page = await b.get('/register');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post" action="/register"');
    expect(labelFor(page.text, 'email')).toContain('id="email"');
    expect(labelFor(page.text, 'password')).toContain('id="password"');
    expect((await b.get('/login')).text).toContain('href="/register"');
  });

  it('refuses a cross-site sign-up with 403 and creates nobody', async () => {
    const b = newBrowser();
    const res = await b.post(
      '/register',
      { email: EMAIL, password: PASSWORD },
      { origin: CROSS_SITE_ORIGIN },
    );
    expect(res.status).toBe(403);
    expect(b.cookies.size).toBe(0);
    expect(await snapshot('owners')).toEqual([]);
    expect(await snapshot('api_keys')).toEqual([]);
  });

  it('answers invalid input with 422 and the messages next to the fields', async () => {
    const b = newBrowser();
    const res = await b.post('/register', { email: 'not an e-mail', password: 'short' });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'email')).toContain('The email field must be a valid email address.');
    expect(labelFor(res.text, 'password')).toContain(
      'The password field must be at least 8 characters.',
    );
    // What was typed is kept (except the password).
    expect(labelFor(res.text, 'email')).toContain('value="not an e-mail"');
    expect(res.text).not.toContain('value="short"');
    expect(b.cookies.size).toBe(0);
    expect(await snapshot('owners')).toEqual([]);
  });

  it('lets the first owner sign up: 201, the API key once, and a secure session cookie', async () => {
    const b = newBrowser();
    const res = await b.post('/register', { email: EMAIL, password: PASSWORD });
    expect(res.status).toBe(201);

    const apiKey = res.text.match(/<pre id="api-key">(sl_[A-Za-z0-9_-]{43})<\/pre>/)?.[1];
    expect(apiKey).toBeDefined();
    expect(res.text.split('sl_').length - 1).toBe(1);
    expect(res.headers.get('cache-control')).toBe('private, no-store');

    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = (cookies[0] ?? '').split(';').map((s) => s.trim());
    expect(pair).toMatch(/^sl_session=[A-Za-z0-9_-]{43}$/);
    const lower = attributes.map((a) => a.toLowerCase());
    expect(lower).toContain('httponly');
    expect(lower).toContain('secure');
    expect(lower).toContain('samesite=lax');
    expect(lower).toContain('path=/');

    // The key works with the API; the cookie signs the browser in.
    const list = await call('/api/v1/websites', { key: apiKey as string });
    expect(list.status).toBe(200);
    const websites = await b.get('/websites');
    expect(websites.status).toBe(200);
    expect(websites.text).toContain('<h1>Websites</h1>');

    // The e-mail is stored normalised; the key is never shown again.
    expect((await snapshot('owners')).map((o) => o.email)).toEqual(['first.owner@example.com']);
    const account = await b.get('/account');
    expect(account.status).toBe(200);
    expect(account.text).not.toContain(apiKey);
    expect(account.text).not.toContain('id="api-key"');
  });

  it('the new owner can log in with the password chosen at sign-up', async () => {
    const b = newBrowser();
    await login(b, 'first.owner@example.com', PASSWORD);
    expect((await b.get('/websites')).status).toBe(200);
  });
});

describe('/register once an owner exists (REGISTRATION is not "open")', () => {
  it('is closed: GET and POST answer 403 and nobody is created', async () => {
    const before = await snapshot('owners');
    const keys = await snapshot('api_keys');
    const b = newBrowser();
    const page = await b.get('/register');
    expect(page.status).toBe(403);
    expect(page.text).toContain('Registration is closed.');
    expect(page.text).not.toContain('action="/register"');

    const res = await b.post('/register', { email: 'second@example.com', password: PASSWORD });
    expect(res.status).toBe(403);
    expect(b.cookies.size).toBe(0);
    expect(await snapshot('owners')).toEqual(before);
    expect(await snapshot('api_keys')).toEqual(keys);
  });

  it('cannot be used to learn whether an e-mail is registered', async () => {
    const b = newBrowser();
    const taken = await b.post('/register', { email: EMAIL, password: PASSWORD });
    const free = await b.post('/register', { email: 'free@example.com', password: PASSWORD });
    expect(taken.status).toBe(403);
    expect(free.status).toBe(403);
    expect(taken.text).toBe(free.text);
    expect(taken.text).not.toContain('already been taken');
  });

  it('the login page no longer links to it', async () => {
    const page = await newBrowser().get('/login');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('href="/register"');
  });
});
