/** `/account`: rotating the API key and changing the password. */
import { describe, expect, it } from 'vitest';
import { call, makeOwner, snapshot } from '../../support/api.ts';
import {
  CROSS_SITE_ORIGIN,
  csrfFrom,
  labelFor,
  login,
  newBrowser,
  signedIn,
} from '../../support/browser-session.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const NEW_PASSWORD = 'a brand new passphrase';
const keyWorks = async (key: string) => (await call('/api/v1/websites', { key })).status;

describe('rotating the API key', () => {
  it('shows the new key once; the old key gets 401 and the new one 200', async () => {
    const owner = await makeOwner('rotate');
    const b = await signedIn(owner);
    const page = await b.get('/account');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('sl_');

    // The account page's button opens a confirmation that says what happens; posting without
    // it rotates nothing.
    const confirmation = await b.get('/account/api-key');
    expect(confirmation.text).toContain('Your current API key stops working at once');
    const unconfirmed = await b.post('/account/api-key', { _csrf: csrfFrom(page.text) });
    expect(unconfirmed.text).toContain('Make a new API key?');
    expect(await keyWorks(owner.key)).toBe(200);
    const made = await b.post('/account/api-key', {
      _csrf: csrfFrom(confirmation.text),
      confirm: '1',
    });
    // Post, redirect, get: a reload of the page never makes another key.
    expect([made.status, made.location]).toEqual([303, '/account?key=new']);
    const res = await b.get(made.location as string);
    expect(res.status).toBe(200);
    const newKey = res.text.match(/<pre id="api-key">(sl_[A-Za-z0-9_-]{43})<\/pre>/)?.[1];
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(owner.key);
    expect(res.text).toContain('The previous key, if any, no longer works.');
    // A page holding a secret must not be kept in any cache.
    expect(res.headers.get('cache-control')).toBe('private, no-store');

    expect(await keyWorks(owner.key)).toBe(401);
    expect(await keyWorks(newKey as string)).toBe(200);

    // Shown only that once.
    const again = await b.get('/account');
    expect(again.text).not.toContain(newKey);
    expect(again.text).not.toContain('id="api-key"');
  });

  it('without a valid _csrf or from another site it is 403 and the key keeps working', async () => {
    const owner = await makeOwner('rotate-forged');
    const b = await signedIn(owner);
    const token = csrfFrom((await b.get('/account')).text);
    const keys = await snapshot('api_keys');
    const forged: Record<string, string>[] = [{}, { _csrf: '' }, { _csrf: 'f'.repeat(32) }];
    for (const fields of forged) {
      expect((await b.post('/account/api-key', fields)).status).toBe(403);
    }
    const cross = await b.post('/account/api-key', { _csrf: token }, { origin: CROSS_SITE_ORIGIN });
    expect(cross.status).toBe(403);
    expect(cross.text).not.toContain('sl_');
    expect(await snapshot('api_keys')).toEqual(keys);
    expect(await keyWorks(owner.key)).toBe(200);
  });
});

describe('changing the password', () => {
  const change = async (b: Awaited<ReturnType<typeof signedIn>>, fields: Record<string, string>) =>
    b.post('/account/password', { _csrf: csrfFrom((await b.get('/account')).text), ...fields });

  it('refuses a wrong current password with 422 and keeps the old one', async () => {
    const owner = await makeOwner('wrong-current');
    const b = await signedIn(owner);
    const before = await snapshot('owners');
    const res = await change(b, {
      current_password: 'not my password',
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'current_password')).toContain('The current password is incorrect.');
    expect(await snapshot('owners')).toEqual(before);
    expect((await b.get('/websites')).status).toBe(200);
  });

  it('refuses a confirmation that does not match with 422', async () => {
    const owner = await makeOwner('mismatch');
    const b = await signedIn(owner);
    const before = await snapshot('owners');
    const res = await change(b, {
      current_password: OWNER_PASSWORD,
      password: NEW_PASSWORD,
      password_confirmation: `${NEW_PASSWORD}!`,
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'password_confirmation')).toContain(
      'The password confirmation does not match.',
    );
    expect(await snapshot('owners')).toEqual(before);
  });

  it('refuses a new password that is too short with 422', async () => {
    const owner = await makeOwner('short');
    const b = await signedIn(owner);
    const before = await snapshot('owners');
    const res = await change(b, {
      current_password: OWNER_PASSWORD,
      password: 'short',
      password_confirmation: 'short',
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'password')).toContain(
      'The password field must be at least 8 characters.',
    );
    expect(await snapshot('owners')).toEqual(before);
    // No password ever goes back into the page.
    expect(res.text).not.toContain(OWNER_PASSWORD);
    expect(res.text).not.toContain('value="short"');
  });

  it('without a valid _csrf or from another site it is 403 and nothing changes', async () => {
    const owner = await makeOwner('forged-password');
    const b = await signedIn(owner);
    const token = csrfFrom((await b.get('/account')).text);
    const before = await snapshot('owners');
    const fields = {
      current_password: OWNER_PASSWORD,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    };
    expect((await b.post('/account/password', fields)).status).toBe(403);
    expect((await b.post('/account/password', { ...fields, _csrf: 'nope' })).status).toBe(403);
    const cross = await b.post(
      '/account/password',
      { ...fields, _csrf: token },
      { origin: CROSS_SITE_ORIGIN },
    );
    expect(cross.status).toBe(403);
    expect(await snapshot('owners')).toEqual(before);
    expect((await b.get('/websites')).status).toBe(200);
  });

  it('succeeds: 303 to /account?saved=1, new password only, other sessions signed out', async () => {
    const owner = await makeOwner('success');
    const b = await signedIn(owner);
    const elsewhere = await signedIn(owner);
    const oldCookie = b.cookies.get('sl_session') as string;
    expect((await elsewhere.get('/websites')).status).toBe(200);

    const res = await change(b, {
      current_password: OWNER_PASSWORD,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/account?saved=1');

    // This browser stays signed in with a fresh session …
    expect(b.cookies.get('sl_session')).not.toBe(oldCookie);
    const saved = await b.get('/account?saved=1');
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Password changed.');
    // … its previous cookie and the other session are over.
    const replay = newBrowser();
    replay.cookies.set('sl_session', oldCookie);
    expect((await replay.get('/websites')).location).toBe('/login');
    const other = await elsewhere.get('/websites');
    expect(other.status).toBe(303);
    expect(other.location).toBe('/login');

    // The old password no longer logs in; the new one does.
    const old = await newBrowser().post('/login', { email: owner.email, password: OWNER_PASSWORD });
    expect(old.status).toBe(422);
    await login(newBrowser(), owner.email, NEW_PASSWORD);
    // The API key is not affected.
    expect(await keyWorks(owner.key)).toBe(200);
  });

  it('throttles wrong current passwords: after five, even the right one is refused (429)', async () => {
    const owner = await makeOwner('guessing');
    const b = await signedIn(owner);
    const attempt = (current: string) =>
      change(b, {
        current_password: current,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
    for (let i = 0; i < 5; i++) expect((await attempt(`guess number ${i}`)).status).toBe(422);
    const before = await snapshot('owners');
    const res = await attempt(OWNER_PASSWORD);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await snapshot('owners')).toEqual(before);
  });
});
