/**
 * Response headers across the whole Worker, and what failures give away:
 *
 * - the hit endpoints are open to any origin and never to credentials (docs/ARCHITECTURE.md, The HTTP contract);
 * - the API answers cross-origin requests with no CORS headers at all (same-origin only, by
 *   decision), so no credentialed cross-origin read is ever allowed;
 * - the pages pages-headers.test.ts does not reach (statistics, password form, unsubscribe,
 *   the API reference, 404s and error responses) carry the pages' security headers;
 * - a failing database never shows SQL, driver messages or stack traces in a response.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { unsubscribeToken } from '../../../src/reports/send.ts';
import { afterChange } from '../../../src/websites/cache.ts';
import { call, db, makeOwner, makeWebsite, ORIGIN } from '../../support/api.ts';
import {
  type Browser,
  CROSS_SITE_ORIGIN,
  csrfFrom,
  newBrowser,
  type PageResponse,
  signedIn,
} from '../../support/browser-session.ts';
import {
  D1_MESSAGE,
  exceptAuth,
  type Fault,
  injectD1Failure,
  leaksIn,
} from '../../support/d1-faults.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { injectLogFailure } from '../../support/log-faults.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
type Site = Awaited<ReturnType<typeof makeWebsite>>;

const ORIGINS = [
  'https://shop.example.com',
  CROSS_SITE_ORIGIN,
  'null',
  'http://localhost:5173',
  ORIGIN,
];
const SERVER_ERROR = { message: 'Server Error.', status: 500 };
const NOT_STORED = { message: 'The hit could not be stored; try again.', status: 503 };
const SITE_PASSWORD = 'site password 1234';

let owner: Owner;
let publicSite: Site;
let privateSite: Site;
let passwordSite: Site;
let browser: Browser;
let csrf: string;

beforeAll(async () => {
  owner = await makeOwner('headers-cors');
  publicSite = await makeWebsite(owner.key, { privacy: '0' });
  privateSite = await makeWebsite(owner.key, { privacy: '1' });
  passwordSite = await makeWebsite(owner.key, { privacy: '2', password: SITE_PASSWORD });
  // One stored hit, so that the statistics pages have figures to render.
  await sendHit({ page: `https://${publicSite.domain}/` });
  browser = await signedIn(owner);
  csrf = csrfFrom((await browser.get('/account')).text);
});

let fault: Fault | undefined;
beforeEach(() => {
  // The Worker logs every failure; logging.test.ts checks what it logs.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  fault?.restore();
  fault = undefined;
  vi.restoreAllMocks();
});

/** A request to the Worker with exactly the headers given. */
const raw = (
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => call(path, { method, headers, ...(body === undefined ? {} : { body: { raw: body } }) });

/** Every `Access-Control-*` header of a response. */
const corsHeaders = (headers: Headers) =>
  Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));

function expectOpenWithoutCredentials(headers: Headers, label: string) {
  expect(headers.get('access-control-allow-origin'), label).toBe('*');
  expect(headers.get('access-control-allow-credentials'), label).toBeNull();
  expect(headers.getSetCookie(), label).toEqual([]);
  // `*` is never replaced by the requesting origin, so caches need no `Vary: Origin`.
  expect(headers.get('vary') ?? '', label).not.toMatch(/origin/i);
}

describe('the hit endpoints: any origin, never credentials', () => {
  const hitHeaders = (origin: string, type = 'text/plain') => ({
    origin,
    'content-type': type,
    'cf-connecting-ip': '198.51.100.41',
    // What a credentialed cross-origin fetch would carry; it must change nothing.
    cookie: 'sl_session=abc; other=1',
    authorization: `Bearer ${owner.key}`,
  });

  it.each(ORIGINS)('answers preflights from %s with *, no credentials', async (origin) => {
    for (const [path, requested] of [
      ['/api/event', 'content-type'],
      ['/api/send', 'content-type, x-umami-cache'],
      ['/api/event', 'content-type, authorization, cookie'],
    ] as const) {
      const res = await raw(path, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': requested,
        },
      });
      const label = `${path} ${requested}`;
      expect(res.status, label).toBe(204);
      expect(res.text, label).toBe('');
      expectOpenWithoutCredentials(res.headers, label);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      expect(allowed, label).toContain('content-type');
      // Credentials are never invited: neither header is allowed, whatever is asked for.
      expect(allowed, label).not.toContain('authorization');
      expect(allowed, label).not.toContain('cookie');
      if (path === '/api/send') expect(allowed, label).toContain('x-umami-cache');
    }
  });

  it.each(ORIGINS)('answers every kind of hit from %s with *, no credentials', async (origin) => {
    const page = `https://${publicSite.domain}/cors`;
    const responses = {
      stored: await raw('/api/event', {
        method: 'POST',
        headers: hitHeaders(origin),
        body: JSON.stringify({ page }),
      }),
      dropped: await raw('/api/event', {
        method: 'POST',
        headers: hitHeaders(origin),
        body: JSON.stringify({ page: 'https://unknown-cors.example.net/' }),
      }),
      malformed: await raw('/api/event', {
        method: 'POST',
        headers: hitHeaders(origin),
        body: '{not json',
      }),
      'wrong type': await raw('/api/event', {
        method: 'POST',
        headers: hitHeaders(origin, 'application/x-www-form-urlencoded'),
        body: 'page=x',
      }),
      'too large': await raw('/api/event', {
        method: 'POST',
        headers: hitHeaders(origin),
        body: JSON.stringify({ page, pad: 'x'.repeat(17 * 1024) }),
      }),
      umami: await raw('/api/send', {
        method: 'POST',
        headers: hitHeaders(origin, 'application/json'),
        body: JSON.stringify({
          type: 'event',
          payload: { hostname: publicSite.domain, url: '/umami', website: 'x' },
        }),
      }),
      'umami malformed': await raw('/api/send', {
        method: 'POST',
        headers: hitHeaders(origin, 'application/json'),
        body: JSON.stringify({ type: 'event' }),
      }),
    };
    expect(Object.fromEntries(Object.entries(responses).map(([k, r]) => [k, r.status]))).toEqual({
      stored: 202,
      dropped: 202,
      malformed: 400,
      'wrong type': 415,
      'too large': 413,
      umami: 200,
      'umami malformed': 400,
    });
    for (const [label, res] of Object.entries(responses)) {
      expectOpenWithoutCredentials(res.headers, label);
    }
    expect(responses.dropped.headers.get('x-drop-reason')).toBe('unknown_site');
  });

  it('answers a rate-limited hit with *, no credentials', async () => {
    vi.spyOn(env.RATE_LIMIT_EVENTS as RateLimit, 'limit').mockResolvedValue({ success: false });
    const res = await raw('/api/event', {
      method: 'POST',
      // A browser's hit: a bot's would be dropped before the limit.
      headers: { ...hitHeaders(CROSS_SITE_ORIGIN), 'user-agent': CHROME_WINDOWS },
      body: JSON.stringify({ page: `https://${publicSite.domain}/` }),
    });
    expect(res.status).toBe(429);
    expectOpenWithoutCredentials(res.headers, '429');
  });

  it('answers a hit its log could not store with *, no credentials', async () => {
    const logFault = injectLogFailure({ methods: ['record'] });
    for (const path of ['/api/event', '/api/send']) {
      const res = await raw(path, {
        method: 'POST',
        headers: {
          ...hitHeaders(CROSS_SITE_ORIGIN, 'application/json'),
          'user-agent': CHROME_WINDOWS,
        },
        body: JSON.stringify(
          path === '/api/event'
            ? { page: `https://${publicSite.domain}/` }
            : { type: 'event', payload: { hostname: publicSite.domain, url: '/' } },
        ),
      });
      expect(res.status, path).toBe(503);
      expect(res.json, path).toEqual(NOT_STORED);
      expectOpenWithoutCredentials(res.headers, path);
    }
    expect(logFault.calls).toEqual(['record', 'record']);
  });
});

describe('the API: no CORS, so no credentialed cross-origin read', () => {
  /** One request of each outcome, named by what it is. */
  async function apiResponses(origin: string) {
    const throwaway = await makeWebsite(owner.key);
    const session = `sl_session=${browser.cookies.get('sl_session')}`;
    const h = (extra: Record<string, string> = {}) => ({ origin, ...extra });
    const preflight = (method: string, requested: string) =>
      h({ 'access-control-request-method': method, 'access-control-request-headers': requested });
    return {
      'list (200)': await call('/api/v1/websites', { key: owner.key, headers: h() }),
      'list with key and cookie (200)': await call('/api/v1/websites', {
        key: owner.key,
        headers: h({ cookie: session }),
      }),
      'list with a session cookie only (401)': await call('/api/v1/websites', {
        headers: h({ cookie: session }),
      }),
      'list with a wrong key (401)': await call('/api/v1/websites', {
        key: `sl_${'A'.repeat(43)}`,
        headers: h(),
      }),
      'show (200)': await call(`/api/v1/websites/${publicSite.id}`, {
        key: owner.key,
        headers: h(),
      }),
      'show missing (404)': await call('/api/v1/websites/999999', {
        key: owner.key,
        headers: h(),
      }),
      'create invalid (422)': await call('/api/v1/websites', {
        method: 'POST',
        key: owner.key,
        headers: h({ cookie: session }),
        body: { form: { domain: 'not a domain' } },
      }),
      'update (200)': await call(`/api/v1/websites/${publicSite.id}`, {
        method: 'PUT',
        key: owner.key,
        headers: h(),
        body: { form: { exclude_bots: '1' } },
      }),
      'stats (200)': await call(
        `/api/v1/stats/${publicSite.id}?name=browser&from=2020-01-01&to=2029-12-31`,
        { key: owner.key, headers: h() },
      ),
      'stats invalid (422)': await call(`/api/v1/stats/${publicSite.id}?name=nope`, {
        key: owner.key,
        headers: h(),
      }),
      'delete (200)': await call(`/api/v1/websites/${throwaway.id}`, {
        method: 'DELETE',
        key: owner.key,
        headers: h(),
      }),
      'preflight of a GET with authorization (401)': await call('/api/v1/websites', {
        method: 'OPTIONS',
        headers: preflight('GET', 'authorization'),
      }),
      'preflight of a DELETE with authorization (401)': await call(
        `/api/v1/websites/${publicSite.id}`,
        { method: 'OPTIONS', headers: preflight('DELETE', 'authorization, content-type') },
      ),
      'OpenAPI document with a cookie (200)': await call('/api/v1/openapi.json', {
        headers: h({ cookie: session }),
      }),
      'reference page with a cookie (200)': await call('/api/v1/docs', {
        headers: h({ cookie: session }),
      }),
    };
  }

  it.each([CROSS_SITE_ORIGIN, 'null', ORIGIN])('with Origin %s', async (origin) => {
    const responses = await apiResponses(origin);
    for (const [label, res] of Object.entries(responses)) {
      expect(res.status, label).toBe(Number(label.match(/\((\d{3})\)$/)?.[1]));
      expect(res.headers.get('access-control-allow-origin'), label).not.toBe('*');
      expect(res.headers.get('access-control-allow-origin'), label).not.toBe(origin);
      expect(res.headers.get('access-control-allow-credentials'), label).toBeNull();
      // The decision: the API sends no CORS headers at all (its callers are servers and
      // same-origin pages). A change to that must be deliberate, and change this test.
      expect(corsHeaders(res.headers), label).toEqual({});
      expect(res.headers.getSetCookie(), label).toEqual([]);
    }
  });

  it('with Origin, a failing request (500) has no CORS headers either', async () => {
    fault = injectD1Failure({ matches: exceptAuth });
    const res = await call('/api/v1/websites', {
      key: owner.key,
      headers: { origin: CROSS_SITE_ORIGIN, cookie: 'sl_session=x' },
    });
    expect(res.status).toBe(500);
    expect(corsHeaders(res.headers)).toEqual({});
  });
});

/** The security headers of every page (src/http/security-headers.ts). */
function expectPageSecurityHeaders(res: { headers: Headers }, label: string) {
  const csp = res.headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([directive = '', ...sources]) => [directive, sources]),
  );
  expect(directives.get('default-src'), label).toEqual(["'none'"]);
  expect(directives.get('script-src'), label).toEqual(["'self'"]);
  expect(directives.get('frame-ancestors'), label).toEqual(["'none'"]);
  expect(directives.get('base-uri'), label).toEqual(["'none'"]);
  expect(directives.get('form-action'), label).toEqual(["'self'"]);
  expect(csp, label).not.toContain('unsafe-inline');
  expect(csp, label).not.toContain('unsafe-eval');
  expect(csp, label).not.toContain('*');
  expect(res.headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), label).toBe('same-origin');
  expect(res.headers.get('x-frame-options'), label).toBe('DENY');
  expect(res.headers.get('cache-control'), label).toBe('private, no-store');
}

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

describe('security headers on the pages pages-headers.test.ts does not reach', () => {
  const pages = new Map<string, PageResponse>();
  const expected: Record<string, number> = {};
  const others = new Map<string, PageResponse>();
  const otherExpected: Record<string, number> = {};

  beforeAll(async () => {
    const anonymous = newBrowser();
    const add = (name: string, status: number, res: PageResponse) => {
      pages.set(name, res);
      expected[name] = status;
    };
    const subscribed = await makeWebsite(owner.key, { email: '1' });
    const token = await unsubscribeToken(db(), subscribed.id);
    const unsubscribe = `/reports/unsubscribe/${subscribed.id}/${token}`;

    add('API reference /api/v1/docs', 200, await anonymous.get('/api/v1/docs'));
    add('public statistics', 200, await anonymous.get(`/stats/${publicSite.domain}`));
    add(
      'a statistic in full',
      200,
      await anonymous.get(`/stats/${publicSite.domain}/browser?range=30d`),
    );
    add('statistics of the owner', 200, await browser.get(`/stats/${privateSite.domain}`));
    add('statistics password form', 200, await anonymous.get(`/stats/${passwordSite.domain}`));
    add(
      'statistics wrong password',
      422,
      await anonymous.post(`/stats/${passwordSite.domain}/password`, { password: 'wrong' }),
    );
    add('private statistics (404)', 404, await anonymous.get(`/stats/${privateSite.domain}`));
    add('unknown statistics (404)', 404, await anonymous.get('/stats/unknown-site.example.net'));
    add(
      'unknown statistic (404)',
      404,
      await anonymous.get(`/stats/${publicSite.domain}/no_such_stat`),
    );
    add('unsubscribe form', 200, await newBrowser().get(unsubscribe));
    add(
      'unsubscribe wrong token (404)',
      404,
      await newBrowser().get(`/reports/unsubscribe/${subscribed.id}/${'0'.repeat(32)}`),
    );
    add('unsubscribe done', 200, await newBrowser().post(unsubscribe, {}, { origin: null }));
    add(
      'unsubscribe already done with wrong token (404)',
      404,
      await newBrowser().post(
        `/reports/unsubscribe/${subscribed.id}/${'f'.repeat(32)}`,
        {},
        { origin: null },
      ),
    );

    // Responses of the pages' paths that are not HTML pages: errors, redirects, CSV.
    const other = (name: string, status: number, res: PageResponse) => {
      others.set(name, res);
      otherExpected[name] = status;
    };
    other('unknown page (404)', 404, await anonymous.get('/no-such-page'));
    other('unknown page of a signed-in owner (404)', 404, await browser.get('/websites/x/y/z'));
    other('unknown unsubscribe link (404)', 404, await anonymous.get('/reports/unsubscribe/x'));
    other('root redirect', 303, await anonymous.get('/'));
    other('signed-out redirect', 303, await anonymous.get('/websites'));
    other(
      'cross-site form post (403)',
      403,
      await browser.post('/account/api-key', { _csrf: csrf }, { origin: CROSS_SITE_ORIGIN }),
    );
    other(
      'form without its token (403)',
      403,
      await browser.post('/account/api-key', { _csrf: 'nope' }),
    );
    other(
      'form too large (413)',
      413,
      await anonymous.post('/login', { email: 'x@example.com', password: 'x'.repeat(70_000) }),
    );
    other('CSV export', 200, await anonymous.get(`/stats/${publicSite.domain}/browser.csv`));
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    fault = injectD1Failure({ matches: exceptAuth });
    other('login page, database failing (500)', 500, await anonymous.get('/login'));
    other('websites page, database failing (500)', 500, await browser.get('/websites'));
    other(
      'statistics, database failing (500)',
      500,
      await anonymous.get(`/stats/${publicSite.domain}`),
    );
    fault.restore();
    fault = undefined;
    quiet.mockRestore();
  });

  it('answer as expected', () => {
    const statuses = (m: Map<string, { status: number }>) =>
      Object.fromEntries([...m].map(([name, res]) => [name, res.status]));
    expect(statuses(pages)).toEqual(expected);
    expect(statuses(others)).toEqual(otherExpected);
  });

  it('HTML pages are HTML documents with every security header', () => {
    for (const [name, res] of pages) {
      expect(res.headers.get('content-type'), name).toMatch(/^text\/html;\s*charset=utf-8$/i);
      expect(res.text.trimStart(), name).toMatch(/^<!doctype html>/i);
      expectPageSecurityHeaders(res, name);
    }
  });

  it('the other responses of page paths (errors, redirects, CSV) carry them too', () => {
    for (const [name, res] of others) expectPageSecurityHeaders(res, name);
  });

  it('the pages have no inline scripts; the only inline style is allowed by its hash', async () => {
    for (const [name, res] of pages) {
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const [, content] of res.text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
        expect(content, name).toBe('');
      }
      expect(res.text, name).not.toMatch(/<[a-z][^>]*\s(on[a-z]+|style)=/i);
      const styles = [...res.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
      const styleSrc = csp.match(/style-src ([^;]*)/)?.[1]?.split(/\s+/) ?? [];
      expect(styleSrc[0], name).toBe("'self'");
      for (const style of styles) {
        expect(styleSrc, name).toContain(`'sha256-${await sha256Base64(style)}'`);
      }
      if (name.startsWith('API reference')) expect(styles).toHaveLength(1);
      else expect(styles, name).toEqual([]);
    }
  });
});

describe('a failing database shows nothing of itself in any response', () => {
  type Answer = { status: number; headers: Headers; text: string };
  type Route = [name: string, send: () => Promise<Answer>];

  const key = () => owner.key;
  const hit = (path: '/api/event' | '/api/send') => () =>
    call(path, {
      method: 'POST',
      headers: { 'cf-connecting-ip': '198.51.100.42', 'user-agent': CHROME_WINDOWS },
      body: {
        raw:
          path === '/api/event'
            ? JSON.stringify({ page: `https://${publicSite.domain}/`, event: 'signup' })
            : JSON.stringify({ type: 'event', payload: { hostname: publicSite.domain, url: '/' } }),
        type: 'text/plain',
      },
    });
  const api = (method: string, path: () => string, form?: Record<string, string>) => () =>
    call(path(), { method, key: key(), ...(form ? { body: { form } } : {}) });

  const API: Route[] = [
    ['API list', api('GET', () => '/api/v1/websites?page=1')],
    ['API show', api('GET', () => `/api/v1/websites/${publicSite.id}`)],
    ['API create', api('POST', () => '/api/v1/websites', { domain: 'fault-create.example.com' })],
    ['API update', api('PUT', () => `/api/v1/websites/${publicSite.id}`, { exclude_bots: '1' })],
    ['API delete', api('DELETE', () => `/api/v1/websites/${privateSite.id}`)],
    [
      'API stats',
      api('GET', () => `/api/v1/stats/${publicSite.id}?name=browser&from=2020-01-01&to=2030-01-01`),
    ],
  ];
  const anonymous = () => newBrowser();
  const PAGES: Route[] = [
    ['GET /login', () => anonymous().get('/login')],
    [
      'POST /login',
      () => anonymous().post('/login', { email: owner.email, password: OWNER_PASSWORD }),
    ],
    ['GET /register', () => anonymous().get('/register')],
    [
      'POST /register',
      () => anonymous().post('/register', { email: 'new@example.com', password: 'long password' }),
    ],
    ['GET /websites', () => browser.get('/websites')],
    ['GET /websites/:id', () => browser.get(`/websites/${publicSite.id}`)],
    [
      'POST /websites',
      () =>
        browser.post('/websites', {
          _csrf: csrf,
          domain: 'fault-page.example.com',
          timezone: 'UTC',
        }),
    ],
    [
      'POST /websites/:id',
      () => browser.post(`/websites/${publicSite.id}`, { _csrf: csrf, timezone: 'UTC' }),
    ],
    ['GET /websites/:id/delete', () => browser.get(`/websites/${publicSite.id}/delete`)],
    [
      'POST /websites/:id/delete',
      () => browser.post(`/websites/${publicSite.id}/delete`, { _csrf: csrf }),
    ],
    [
      'POST /account/api-key',
      () => browser.post('/account/api-key', { _csrf: csrf, confirm: '1' }),
    ],
    ['POST /logout', () => browser.post('/logout', { _csrf: csrf })],
    [
      'POST /account/password',
      () =>
        browser.post('/account/password', {
          _csrf: csrf,
          current_password: OWNER_PASSWORD,
          password: 'another long password',
          password_confirmation: 'another long password',
        }),
    ],
    ['GET /stats/:domain', () => anonymous().get(`/stats/${publicSite.domain}`)],
    ['GET /stats/:domain (owner)', () => browser.get(`/stats/${privateSite.domain}`)],
    ['GET /stats/:domain/:name', () => anonymous().get(`/stats/${publicSite.domain}/browser`)],
    [
      'GET /stats/:domain/:name.csv',
      () => anonymous().get(`/stats/${publicSite.domain}/browser.csv`),
    ],
    [
      'POST /stats/:domain/password',
      () => anonymous().post(`/stats/${passwordSite.domain}/password`, { password: SITE_PASSWORD }),
    ],
    [
      'POST /reports/unsubscribe/:id/:token',
      async () =>
        anonymous().post(
          `/reports/unsubscribe/${publicSite.id}/${await unsubscribeToken(db(), publicSite.id)}`,
          {},
          { origin: null },
        ),
    ],
  ];

  /** A page's error: the HTML error page (in the site's layout), generic, leaking nothing. */
  function expectServerErrorPage(res: Answer, label: string) {
    expect(res.headers.get('content-type'), label).toMatch(/^text\/html/);
    expect(res.text, label).toContain('<h1>Something went wrong</h1>');
    expect(res.text, label).toContain('Something went wrong on our side. Try again in a moment.');
    expect(leaksIn(res.text), label).toEqual([]);
    expect(res.text, label).not.toContain(owner.email);
  }

  function expectGeneric(res: Answer, body: object, label: string) {
    expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
    expect(JSON.parse(res.text), label).toEqual(body);
    expect(leaksIn(res.text), label).toEqual([]);
    expect(res.text, label).not.toContain(owner.email);
  }

  for (const mode of ['execute', 'prepare'] as const) {
    describe(`a ${mode === 'execute' ? 'failing query' : 'throwing prepare()'}`, () => {
      it.each(API)('%s answers the generic 500', async (label, send) => {
        fault = injectD1Failure({ mode, matches: exceptAuth });
        const res = await send();
        expect(fault.failed.length, label).toBeGreaterThan(0);
        expect(res.status, label).toBe(500);
        expectGeneric(res, SERVER_ERROR, label);
      });

      it('the API answers the generic 500 when the key lookup itself fails', async () => {
        fault = injectD1Failure({ mode });
        const res = await call('/api/v1/websites', { key: key() });
        expect(res.status).toBe(500);
        expectGeneric(res, SERVER_ERROR, 'key lookup');
      });

      it.each([
        ['/api/event', hit('/api/event')],
        ['/api/send', hit('/api/send')],
      ] as const)('%s answers its 503', async (label, send) => {
        // Not from the hit endpoints' cache of websites, which needs no D1.
        await afterChange(Promise.resolve());
        fault = injectD1Failure({ mode });
        const res = await send();
        expect(res.status, label).toBe(503);
        expect(res.headers.get('retry-after'), label).toBe('5');
        expectGeneric(res, NOT_STORED, label);
      });

      it("/api/event answers its 503 when only the website's event log fails", async () => {
        const logFault = injectLogFailure({ methods: ['record', 'stage'], message: D1_MESSAGE });
        try {
          const res = await hit('/api/event')();
          expect(logFault.calls.length).toBeGreaterThan(0);
          expect(res.status).toBe(503);
          expectGeneric(res, NOT_STORED, 'write');
        } finally {
          logFault.restore();
        }
      });

      it.each(PAGES)(
        '%s answers the generic 500 with the security headers',
        async (label, send) => {
          fault = injectD1Failure({ mode, matches: exceptAuth });
          const res = await send();
          expect(fault.failed.length, label).toBeGreaterThan(0);
          expect(res.status, label).toBe(500);
          expectServerErrorPage(res, label);
          expectPageSecurityHeaders(res, label);
          expect(res.headers.getSetCookie(), label).toEqual([]);
        },
      );

      it('a page answers the generic 500 when the session lookup itself fails', async () => {
        fault = injectD1Failure({ mode });
        const res = await browser.get('/websites');
        expect(res.status).toBe(500);
        expectServerErrorPage(res, 'session lookup');
        expectPageSecurityHeaders(res, 'session lookup');
      });
    });
  }

  it('the injected error is the kind that would leak (a check of the check)', () => {
    expect(leaksIn(`Error: ${D1_MESSAGE}\n    at x (src/lib/errors.ts:1:2)`)).toEqual(
      expect.arrayContaining(['SQLITE', 'D1_', ' at ', '.ts:', 'Error:']),
    );
  });
});
