/**
 * One error path: the app's one `onError` decides the format of every error. The API and the
 * hit endpoints answer JSON (bodies as always); everything else is an HTML page in the
 * site's layout, with the same status codes, headers and the security headers. Pages throw;
 * they never render an error themselves.
 */
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, listOf, makeOwner, makeWebsite } from '../../support/api.ts';
import {
  CROSS_SITE_ORIGIN,
  newBrowser,
  type PageResponse,
  signedIn,
} from '../../support/browser-session.ts';

const FORM_NOT_VERIFIED =
  'This form could not be verified: it has expired or was not sent from this site. Reload the page and try again.';

/** An HTML error page with its status, heading and message, and every page's headers. */
function expectErrorPage(res: PageResponse, status: number, heading: string, message: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html;\s*charset=utf-8$/i);
  expect(res.text.startsWith('<!DOCTYPE html>')).toBe(true);
  expect(res.text).toContain(`<title>${heading} · Sightline</title>`);
  expect(res.text).toContain(`<h1>${heading}</h1>`);
  expect(res.text).toContain(`<p class="error-message">${message}</p>`);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
}

let key: string;
let owner: Awaited<ReturnType<typeof makeOwner>>;

beforeAll(async () => {
  owner = await makeOwner('errors');
  key = owner.key;
});

describe('unknown addresses', () => {
  it.each(['/nope', '/js/nope.js', '/stats/example.com/a/b/c', '/stats'])(
    'a browser gets the HTML 404 page at %s',
    async (path) => {
      const res = await newBrowser().get(path);
      expectErrorPage(res, 404, 'Not found', 'There is nothing at this address.');
    },
  );

  it("sends a browser asking for /favicon.ico to the pages' icon", async () => {
    const res = await newBrowser().get('/favicon.ico');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/assets/icon.svg');
    const icon = await newBrowser().get('/assets/icon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it.each(['/api/v1/nope', '/api/v1/stats', '/api/nope'])(
    'an API client gets the JSON 404 at %s',
    async (path) => {
      const res = await call(path, { key });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual({ message: 'Not found.', status: 404 });
    },
  );

  it('keeps the API bodies as they were', async () => {
    const unauthenticated = await call('/api/v1/websites');
    expect([unauthenticated.status, unauthenticated.json]).toEqual([
      401,
      { message: 'Unauthenticated.', status: 401 },
    ]);
    const hit = await exports.default.fetch('https://sightline.test/api/event', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{',
    });
    expect(hit.status).toBe(400);
    expect(await hit.json()).toEqual({ message: 'The hit is not valid JSON.', status: 400 });
  });
});

describe('pages that do not exist for this visitor', () => {
  it('a missing, a private and an unknown statistic look alike', async () => {
    const site = await makeWebsite(key, { domain: 'private-errors.example.com', privacy: '1' });
    const stranger = newBrowser();
    const missing = await stranger.get('/stats/not-registered-errors.example.com');
    const hidden = await stranger.get(`/stats/${site.domain}`);
    expectErrorPage(missing, 404, 'Not found', 'There are no statistics here.');
    expect(hidden.text).toBe(missing.text);
    const ownerBrowser = await signedIn(owner);
    const unknownStat = await ownerBrowser.get(`/stats/${site.domain}/nope`);
    expectErrorPage(unknownStat, 404, 'Not found', 'There are no statistics here.');
  });

  it("another owner's website is the 404 page", async () => {
    const other = await makeOwner('errors-other');
    const theirs = await makeWebsite(other.key, { domain: 'theirs-errors.example.com' });
    const res = await (await signedIn(owner)).get(`/websites/${theirs.id}`);
    expectErrorPage(res, 404, 'Not found', 'There is no such website.');
  });

  it('an invalid unsubscribe link is the 404 page', async () => {
    const res = await newBrowser().get(`/reports/unsubscribe/1/${'0'.repeat(32)}`);
    expectErrorPage(
      res,
      404,
      'Not found',
      'This link is not valid. Turn reports off in the website&#39;s settings instead.',
    );
  });
});

describe('forms', () => {
  it('a form over the size limit is the HTML 413 page', async () => {
    const res = await newBrowser().post('/login', {
      email: 'a@example.com',
      password: 'x'.repeat(70_000),
    });
    expectErrorPage(res, 413, 'Too large', 'The form is too large.');
  });

  it('an unreadable form is the HTML 400 page', async () => {
    const res = await exports.default.fetch('https://sightline.test/login', {
      method: 'POST',
      headers: { origin: 'https://sightline.test', 'content-type': 'multipart/form-data' },
      body: 'email=a',
    });
    expectErrorPage(
      { status: res.status, headers: res.headers, text: await res.text(), location: null },
      400,
      'Bad request',
      'The form could not be read.',
    );
  });

  it('a form from another site and a form with a wrong token get the same 403 page', async () => {
    const b = await signedIn(owner);
    const crossSite = await b.post(
      '/websites',
      { domain: 'x-errors.example.com' },
      { origin: CROSS_SITE_ORIGIN },
    );
    expectErrorPage(crossSite, 403, 'Not allowed', FORM_NOT_VERIFIED);
    for (const path of ['/websites', '/account/api-key', '/account/password', '/logout']) {
      const res = await b.post(path, { _csrf: 'wrong', domain: 'y-errors.example.com' });
      expectErrorPage(res, 403, 'Not allowed', FORM_NOT_VERIFIED);
    }
    // Nothing was created, and the session still works.
    const list = await call('/api/v1/websites', { key });
    expect(listOf<{ domain: string }>(list).data.map((w) => w.domain)).not.toContain(
      'y-errors.example.com',
    );
    expect((await b.get('/websites')).status).toBe(200);
  });
});
