/**
 * Shared links (docs/ARCHITECTURE.md, "Sharing"): made, listed and revoked through API v1; a
 * link opens its website's statistics pages read-only — every view and CSV, its links staying
 * under the link — with or without a password, framed when embedded, and nothing once revoked.
 * A link's password guesses are counted per link and address (docs/SECURITY.md).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { type Browser, csrfFrom, newBrowser, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { openSharedLink, visit } from '../../support/tokens.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let other: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
const DAY = '2026-05-04';
const range = `range=custom&from=${DAY}&to=${DAY}`;

beforeAll(async () => {
  owner = await makeOwner('shared');
  other = await makeOwner('shared-other');
  // Private: only the owner, and now whoever holds a link.
  site = await makeWebsite(owner.key, { domain: 'shared.example.com', privacy: '1' });
  freezeAt(`${DAY}T10:00:00Z`);
  for (const page of ['/', '/pricing', '/pricing'])
    expect(
      (await sendHit({ page: `https://${site.domain}${page}` }, { ua: CHROME_WINDOWS })).status,
    ).toBe(202);
  vi.useRealTimers();
});

afterAll(() => {
  vi.useRealTimers();
});

const make = async (body: Record<string, string>, key = owner.key, id = site.id) =>
  call(`/api/v1/websites/${id}/shared-links`, { method: 'POST', key, body: { json: body } });

/** The url of a link just made. */
const urlOf = (res: { json: Record<string, unknown> }) => (res.json.data as { url: string }).url;

/** A browser that opened a link's url, and the token-free address it was sent to. */
async function opened(url: string, browser: Browser = newBrowser()) {
  const page = await visit(browser, url);
  expect(page.status).toBe(200);
  return { browser, path: page.path.split('?')[0] ?? '', page };
}

describe('the API', () => {
  it('makes a link with an unguessable token, lists it without, and revokes it', async () => {
    const res = await make({ name: 'Client' });
    expect(res.status, res.text).toBe(201);
    const data = res.json.data as Record<string, unknown>;
    expect(data).toMatchObject({ name: 'Client', has_password: false });
    expect(data.url).toMatch(/^http:\/\/localhost:8787\/share#[A-Za-z0-9_-]{43}$/);
    const token = String(data.url).split('#')[1] ?? '';
    const list = await call(`/api/v1/websites/${site.id}/shared-links`, { key: owner.key });
    expect(list.status).toBe(200);
    const listed = list.json.data as Record<string, unknown>[];
    expect(listed.map((l) => l.id)).toContain(data.id);
    expect(JSON.stringify(list.json)).not.toContain(token);
    const { browser, path } = await opened(String(data.url));
    expect(path).toBe(`/share/${data.id}`);
    expect((await browser.get(`${path}?${range}`)).status).toBe(200);
    const gone = await call(`/api/v1/websites/${site.id}/shared-links/${data.id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(gone.json).toEqual({ id: data.id, object: 'shared_link', deleted: true, status: 200 });
    // Revoked: it opens nothing, at once — neither its address nor its token.
    expect((await browser.get(`${path}?${range}`)).status).toBe(404);
    expect((await visit(newBrowser(), String(data.url))).status).toBe(404);
  });

  it('checks the fields and keeps other owners out', async () => {
    const bad = await make({ name: '', password: 'short' });
    expect(bad.status).toBe(422);
    expect(Object.keys((bad.json as { errors: object }).errors).sort()).toEqual([
      'name',
      'password',
    ]);
    expect((await make({ name: 'Theirs' }, other.key)).status).toBe(404);
    const made = await make({ name: 'Mine' });
    const id = (made.json.data as { id: number }).id;
    const theirs = await makeWebsite(other.key, { domain: 'shared-other.example.com' });
    // Another website's link through one's own website is the 404 of a missing one.
    const through = await call(`/api/v1/websites/${theirs.id}/shared-links/${id}`, {
      method: 'DELETE',
      key: other.key,
    });
    expect(through.status).toBe(404);
    expect(
      (await call(`/api/v1/websites/${site.id}/shared-links`, { key: other.key })).status,
    ).toBe(404);
  });
});

describe('a link', () => {
  it("opens the private website's statistics read-only, every link staying under it", async () => {
    const { browser: b, path } = await opened(urlOf(await make({ name: 'Read-only' })));
    const overview = await b.get(`${path}?${range}`);
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('/pricing');
    expect(overview.text).toContain(`href="${path}/page?`);
    expect(overview.text).not.toContain('/stats/shared.example.com');
    expect(overview.text).not.toContain(`/websites/${site.id}`);
    const full = await b.get(`${path}/page?${range}`);
    expect(full.status).toBe(200);
    const csv = await b.get(`${path}/page.csv?${range}`);
    // Its columns named by their metrics; a page no visit scrolled has no scroll depth.
    expect(csv.text).toBe(
      'page,visitors,page_views,bounce_rate,time_on_page,scroll_depth\r\n/,1,1,0,0,\r\n/pricing,1,2,0,0,\r\n',
    );
    const filtered = await b.get(`${path}?${range}&filter[page]=/pricing`);
    expect(filtered.status).toBe(200);
    // The website itself stays private, and the link opens no settings.
    expect((await b.get(`/stats/${site.domain}?${range}`)).status).toBe(404);
    expect((await b.get(`${path}x`)).status).toBe(404);
    // Its address opens nothing for a browser that does not hold the link.
    expect((await newBrowser().get(`${path}?${range}`)).status).toBe(404);
  });

  it('asks for its password once, throttled, then opens', async () => {
    const url = urlOf(await make({ name: 'Locked', password: 'a link password' }));
    const { browser: b, path, page: form } = await opened(url);
    expect(form.text).toContain(`action="${path}/password"`);
    expect(form.text).not.toContain('/pricing');
    const wrong = await b.post(`${path}/password`, { password: 'not it at all' });
    expect(wrong.status).toBe(422);
    const right = await b.post(`${path}/password`, { password: 'a link password' });
    expect([right.status, right.location]).toEqual([303, path]);
    const page = await b.get(`${path}?${range}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('/pricing');
    // Another browser that holds the link, without the password's cookie, is asked again.
    const again = await opened(url);
    expect((await again.browser.get(`${path}?${range}`)).text).not.toContain('/pricing');
  });

  it('embeds without the chrome, framed by any page; nothing else may be framed', async () => {
    const made = (await make({ name: 'Embed' })).json.data as { id: number; embed_url: string };
    expect(made.embed_url).toMatch(/^http:\/\/localhost:8787\/embed#[A-Za-z0-9_-]{43}$/);
    const { browser: b, path } = await opened(made.embed_url);
    expect(path).toBe(`/embed/${made.id}`);
    const embed = await b.get(`${path}?${range}`);
    expect(embed.status).toBe(200);
    expect(embed.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(embed.headers.get('x-frame-options')).toBeNull();
    expect(embed.text).not.toContain('class="top"');
    expect(embed.text).toContain(`href="${path}/page?`);
    // The same link's share address keeps frames out.
    const share = await opened(made.embed_url.replace('/embed#', '/share#'));
    const shared = await share.browser.get(`${share.path}?${range}`);
    expect(shared.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(shared.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('the settings page', () => {
  it('makes a link, shows its address and embed once, lists it, and revokes it', async () => {
    const b = await signedIn(owner);
    const settings = `/websites/${site.id}`;
    const page = await b.get(`${settings}/sharing`);
    expect(page.text).toContain('<h2 id="sharing">Shared links</h2>');
    const bad = await b.post(`${settings}/shared-links`, { _csrf: csrfFrom(page.text), name: '' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The name field is required.');
    const made = await b.post(`${settings}/shared-links`, {
      _csrf: csrfFrom(page.text),
      name: 'Agency',
    });
    expect(made.status).toBe(200);
    const url = /http:\/\/localhost:8787\/share#[A-Za-z0-9_-]{43}/.exec(made.text)?.[0] ?? '';
    expect(url).not.toBe('');
    const token = url.split('#')[1] ?? '';
    expect(made.text).toContain(`&lt;iframe src=&quot;http://localhost:8787/embed#${token}&quot;`);
    const { browser, path } = await opened(url);
    expect((await browser.get(`${path}?${range}`)).status).toBe(200);
    // Listed without its address; revoked from the list.
    const again = await b.get(`${settings}/sharing`);
    expect(again.text).toContain('Agency');
    expect(again.text).not.toContain(token);
    const id = new RegExp(`/websites/${site.id}/shared-links/(\\d+)/delete`).exec(again.text)?.[1];
    const revoked = await b.post(`${settings}/shared-links/${id}/delete`, {
      _csrf: csrfFrom(again.text),
    });
    expect([revoked.status, revoked.location]).toEqual([303, `${settings}/sharing?link=deleted`]);
  });
});

describe('password guesses', () => {
  const LINK_PASSWORD = 'the link password';
  const SITE_PASSWORD = 'the site password';
  let guarded: { id: number; domain: string };

  beforeAll(async () => {
    guarded = await makeWebsite(owner.key, { privacy: '2', password: SITE_PASSWORD });
  });

  /** A password link of the guarded website, and where its password form posts. */
  async function passwordLink() {
    const res = await make({ name: 'Guarded', password: LINK_PASSWORD }, owner.key, guarded.id);
    const url = (res.json.data as { url: string }).url;
    return url;
  }

  /** A guess at a link's password from `browser`: the form opened through the link, then posted. */
  async function guess(browser: Browser, url: string, password: string) {
    const form = await openSharedLink(browser, url);
    const action = /action="([^"]*\/password)"/.exec(form.text)?.[1];
    if (!action) throw new Error(`no password form: ${form.status}`);
    return (await browser.post(action, { password })).status;
  }
  const siteGuess = async (browser: Browser, password: string) =>
    (await browser.post(`/stats/${guarded.domain}/password`, { password })).status;

  it("one address's wrong guesses lock only that address out of that link", async () => {
    const [first, second] = [await passwordLink(), await passwordLink()];
    const attacker = newBrowser();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await guess(attacker, first, `wrong ${i}`));
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
    // The same address on another link of the website, and on the website's own form.
    expect(await guess(attacker, second, LINK_PASSWORD)).toBe(303);
    expect(await siteGuess(attacker, SITE_PASSWORD)).toBe(303);
    // Another address on the same link.
    expect(await guess(newBrowser(), first, LINK_PASSWORD)).toBe(303);
  });

  it('many addresses against one link: others stay open, and its guesses stay bounded', async () => {
    const [attacked, other] = [await passwordLink(), await passwordLink()];
    const guessers = Array.from({ length: 40 }, () => newBrowser());
    const derive = vi.spyOn(crypto.subtle, 'deriveBits');
    const statuses: number[] = [];
    for (const [i, b] of guessers.entries()) statuses.push(await guess(b, attacked, `wrong ${i}`));
    expect(statuses).toEqual(Array(40).fill(422));
    // Under attack, an address that failed for the link gets no further guess (and no hash).
    const calls = derive.mock.calls.length;
    expect(await guess(guessers[0] as Browser, attacked, LINK_PASSWORD)).toBe(429);
    expect(derive.mock.calls.length).toBe(calls);
    derive.mockRestore();
    // An address without failures gets its guess; other links and the website's form are open.
    expect(await guess(newBrowser(), attacked, LINK_PASSWORD)).toBe(303);
    expect(await guess(newBrowser(), other, LINK_PASSWORD)).toBe(303);
    expect(await siteGuess(newBrowser(), SITE_PASSWORD)).toBe(303);
  });
});
