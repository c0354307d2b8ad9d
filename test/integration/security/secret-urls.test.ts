/**
 * Secrets out of addresses (docs/ARCHITECTURE.md, "Secrets out of addresses"): a request log
 * (`wrangler dev` prints each request's method and path; Workers Logs keep each request's
 * URL) never holds the token of a shared link, an invitation or an unsubscribe link when it
 * is followed the way Sightline hands it out — the token travels after `#`, in a form's body
 * and in a cookie. A link in the old form (the token in the path) still works, and its token
 * is in exactly one request: the one that trades it for a cookie and a token-free address.
 */
import { env } from 'cloudflare:workers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { unsubscribeToken } from '../../../src/reports/send.ts';
import { call, db, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { mailbox } from '../../support/mailbox.ts';
import { fragmentForm, openInvitation, recordingBrowser, visit } from '../../support/tokens.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
let box: ReturnType<typeof mailbox>;
const logged: string[] = [];

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('secrets');
  site = await makeWebsite(owner.key, { privacy: '1', email: '1' });
  await sendHit({ page: `https://${site.domain}/secret-page` }, { ua: CHROME_WINDOWS });
  vi.spyOn(console, 'error').mockImplementation((...args) => {
    logged.push(JSON.stringify(args));
  });
  vi.spyOn(console, 'log').mockImplementation((...args) => {
    logged.push(JSON.stringify(args));
  });
});
afterAll(() => {
  box.close();
  vi.restoreAllMocks();
});
afterEach(() => {
  logged.length = 0;
});

const makeLink = async (fields: Record<string, string> = {}) => {
  const res = await call(`/api/v1/websites/${site.id}/shared-links`, {
    method: 'POST',
    key: owner.key,
    body: { json: { name: 'Secret', ...fields } },
  });
  expect(res.status).toBe(201);
  const data = oneOf(res).data as { id: number; url: string; embed_url: string };
  return { ...data, token: data.url.split('#')[1] ?? '' };
};

/** No request sent, no log line written, carries `token`. */
function expectNowhere(token: string, sent: string[]) {
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$|^[0-9a-f]{32}$/);
  for (const path of sent) expect(path).not.toContain(token);
  for (const line of logged) expect(line).not.toContain(token);
}

describe('a shared link', () => {
  it('carries its token after #: opening it and reading the statistics never sends it', async () => {
    const link = await makeLink();
    expect(link.url).toMatch(/^http:\/\/localhost:8787\/share#[A-Za-z0-9_-]{43}$/);
    expect(link.embed_url).toBe(`http://localhost:8787/embed#${link.token}`);
    const b = recordingBrowser();
    const page = await visit(b, link.url);
    expect([page.status, page.path]).toEqual([200, `/share/${link.id}`]);
    expect(page.text).toContain('/secret-page');
    expect(page.text).not.toContain(link.token);
    // Its pages, CSV and live figure are read by the cookie, under the token-free address.
    for (const path of [`/share/${link.id}/page`, `/share/${link.id}/page.csv`]) {
      expect((await b.get(`${path}?range=today`)).status).toBe(200);
    }
    expect((await b.get(`/share/${link.id}/live.json`)).status).toBe(200);
    expectNowhere(link.token, b.sent);
  });

  it('its cookie is HttpOnly, Secure, SameSite=Lax and scoped to the link', async () => {
    const link = await makeLink();
    const b = newBrowser();
    const opener = await b.get('/share');
    const form = fragmentForm(opener.text);
    expect(form).toMatchObject({ action: '/share', auto: true });
    const traded = await b.post('/share', { [form?.field ?? '']: link.token });
    expect([traded.status, traded.location]).toEqual([303, `/share/${link.id}`]);
    const cookie = traded.headers.getSetCookie().join('\n');
    expect(cookie).toMatch(new RegExp(`^sl_share_${link.id}=[0-9a-f]{64};`));
    expect(cookie).toContain(`Path=/share/${link.id}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });

  it('the token-free address opens nothing without the cookie, or with another link’s', async () => {
    const [a, other] = [await makeLink(), await makeLink()];
    expect((await newBrowser().get(`/share/${a.id}`)).status).toBe(404);
    const b = newBrowser();
    await visit(b, other.url);
    b.cookies.set(`sl_share_${a.id}`, b.cookies.get(`sl_share_${other.id}`) ?? '');
    expect((await b.get(`/share/${a.id}`)).status).toBe(404);
    // A made-up or revoked token is the same 404, and sets no cookie.
    const made = await newBrowser().post('/share', { code: 'A'.repeat(43) });
    expect([made.status, made.headers.getSetCookie()]).toEqual([404, []]);
  });

  it('revoked, its cookie opens nothing at once', async () => {
    const link = await makeLink();
    const b = newBrowser();
    expect((await visit(b, link.url)).status).toBe(200);
    await call(`/api/v1/websites/${site.id}/shared-links/${link.id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect((await b.get(`/share/${link.id}`)).status).toBe(404);
  });

  it('with a password: the form posts to the token-free address', async () => {
    const link = await makeLink({ password: 'a link password' });
    const b = recordingBrowser();
    const form = await visit(b, link.url);
    expect(form.text).toContain(`action="/share/${link.id}/password"`);
    const right = await b.post(`/share/${link.id}/password`, { password: 'a link password' });
    expect([right.status, right.location]).toEqual([303, `/share/${link.id}`]);
    expect((await b.get(`/share/${link.id}`)).text).toContain('/secret-page');
    expectNowhere(link.token, b.sent);
  });

  it('embedded: the same, framed by any page, with a partitioned cookie', async () => {
    const link = await makeLink();
    const b = recordingBrowser();
    const opener = await b.get('/embed?range=today');
    expect(opener.headers.get('content-security-policy')).toContain('frame-ancestors *');
    const form = fragmentForm(opener.text);
    expect(form).toMatchObject({ action: '/embed?range=today', auto: true });
    const traded = await b.post(form?.action ?? '', { code: link.token });
    expect([traded.status, traded.location]).toEqual([303, `/embed/${link.id}?range=today`]);
    const cookie = traded.headers.getSetCookie().join('\n');
    expect(cookie).toMatch(/SameSite=None/);
    expect(cookie).toMatch(/Partitioned/);
    expect(cookie).toContain(`Path=/embed/${link.id}`);
    const page = await b.get(`/embed/${link.id}?range=today`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(page.text).toContain(`href="/embed/${link.id}/page?`);
    expectNowhere(link.token, b.sent);
  });

  it('a link in the old form still opens: its token is sent once, traded for a cookie', async () => {
    const link = await makeLink();
    const b = recordingBrowser();
    const first = await b.get(`/share/${link.token}/page?range=today`);
    expect([first.status, first.location]).toEqual([303, `/share/${link.id}/page?range=today`]);
    const page = await b.get(first.location ?? '');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/secret-page');
    expect(b.sent.filter((path) => path.includes(link.token))).toHaveLength(1);
    // The old embed addresses too: `/embed/{token}` and `/share/{token}?embed=true`.
    for (const old of [
      `/embed/${link.token}?range=today`,
      `/share/${link.token}?embed=true&range=today`,
    ]) {
      const e = newBrowser();
      const res = await e.get(old);
      expect([res.status, res.location]).toEqual([303, `/embed/${link.id}?range=today`]);
      expect(res.headers.getSetCookie().join('\n')).toMatch(/Partitioned/);
      expect((await e.get(res.location ?? '')).status).toBe(200);
    }
  });
});

describe('an invitation', () => {
  it('carries its token after #: accepting it never sends the token', async () => {
    const email = `secret-invitee-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const invited = await call(`/api/v1/websites/${site.id}/members`, {
      method: 'POST',
      key: owner.key,
      body: { json: { email, role: 'viewer' } },
    });
    expect(invited.status).toBe(201);
    const url = box.linkTo(email);
    expect(url).toMatch(/^http:\/\/localhost:8787\/invitations#[A-Za-z0-9_-]{43}$/);
    const token = url.split('#')[1] ?? '';
    const b = recordingBrowser();
    const accepted = await openInvitation(b, url, 'a new password');
    expect([accepted.status, accepted.location]).toEqual([303, `/websites?joined=${site.id}`]);
    expectNowhere(token, b.sent);
  });

  it('a link in the old form still opens, and its page posts without the token', async () => {
    const email = `old-invitee-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await call(`/api/v1/websites/${site.id}/members`, {
      method: 'POST',
      key: owner.key,
      body: { json: { email, role: 'viewer' } },
    });
    const token = box.linkTo(email).split('#')[1] ?? '';
    const b = recordingBrowser();
    const accepted = await openInvitation(
      b,
      `http://localhost:8787/invitations/${token}`,
      'a new password',
    );
    expect(accepted.status).toBe(303);
    expect(b.sent.filter((path) => path.includes(token))).toHaveLength(1);
  });
});

describe('an unsubscribe link', () => {
  it("in the report's text carries its token after #; unsubscribing never sends it", async () => {
    const token = await unsubscribeToken(db(), site.id);
    const b = recordingBrowser();
    const page = await visit(b, `http://localhost:8787/reports/unsubscribe#${site.id}.${token}`);
    expect(page.status).toBe(200);
    // A person confirms: the form is not sent by itself.
    const form = fragmentForm(page.text);
    expect(form).toMatchObject({ action: '/reports/unsubscribe', auto: false });
    const done = await b.post(form?.action ?? '', { [form?.field ?? '']: `${site.id}.${token}` });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Unsubscribed');
    const row = await env.DB.prepare('SELECT email FROM websites WHERE id = ?')
      .bind(site.id)
      .first();
    expect(row?.email).toBe(0);
    expectNowhere(token, b.sent);
    await call(`/api/v1/websites/${site.id}`, {
      method: 'PATCH',
      key: owner.key,
      body: { json: { email: 1 } },
    });
  });

  it('a link in the old form shows the page, whose form posts without the token', async () => {
    const token = await unsubscribeToken(db(), site.id);
    const page = await newBrowser().get(`/reports/unsubscribe/${site.id}/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/reports/unsubscribe"');
  });
});
