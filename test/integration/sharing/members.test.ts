/**
 * Members (docs/ARCHITECTURE.md, "Members"): invitations by e-mail, accepting them (a new
 * login whatever REGISTRATION says, an existing login, the signed-in person), once only and
 * for 72 hours; viewers and admins through the API and the pages; removing, leaving, and
 * losing access on the next request. The role matrix is test/integration/security/roles-matrix.test.ts.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  call,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  oneOf,
} from '../../support/api.ts';
import { type Browser, csrfFrom, newBrowser, signedIn } from '../../support/browser-session.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';
import { visit } from '../../support/tokens.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;
let owner: Owner;
let site: { id: number; domain: string };

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('members-owner');
  site = await makeWebsite(owner.key, { privacy: '1' });
});
afterAll(() => box.close());

const invite = (email: string, role: string, key = owner.key, id = site.id) =>
  call(`/api/v1/websites/${id}/members`, {
    method: 'POST',
    key,
    body: { json: { email, role } },
  });

/** Posts an invitation's page form: the token of `link` (after its `#`) and `fields`. */
const acceptWith = (b: Browser, link: string, fields: Record<string, string>) =>
  b.post('/invitations', { code: link.split('#')[1] ?? '', accept: '1', ...fields });

const rows = async (table: string, where = '1') =>
  (await env.DB.prepare(`SELECT * FROM ${table} WHERE ${where}`).all()).results;

describe('inviting', () => {
  it('answers 201 with the invitation and sends the e-mail with a 72-hour link', async () => {
    const before = Date.now();
    const res = await invite('New.Person@Example.com', 'viewer');
    const after = Date.now();
    expect(res.status).toBe(201);
    const data = oneOf(res).data;
    expect(data).toEqual({
      id: expect.any(Number),
      email: 'new.person@example.com',
      role: 'viewer',
      status: 'pending',
      created_by: owner.email,
      created_at: expect.any(String),
      expires_at: expect.any(String),
      accepted_at: null,
    });
    const expires = Date.parse(String(data.expires_at).replace(/(\.\d{3})\d+Z$/, '$1Z'));
    // 72 hours after the moment the invitation was made, between `before` and `after`.
    expect(expires - before).toBeGreaterThanOrEqual(72 * 3600 * 1000 - 1000);
    expect(expires - after).toBeLessThanOrEqual(72 * 3600 * 1000 + 1000);
    const mail = box.mails.at(-1);
    expect(mail?.to).toBe('new.person@example.com');
    expect(mail?.from).toBe('reports@example.com');
    expect(mail?.text).toContain(`invites you to the statistics of ${site.domain} as a viewer`);
    // Under PUBLIC_URL, a 256-bit token after `#` (never sent), kept only as its hash.
    const link = box.linkTo('new.person@example.com');
    expect(link).toMatch(/^http:\/\/localhost:8787\/invitations#[A-Za-z0-9_-]{43}$/);
    const token = link.split('#').at(-1) ?? '';
    expect(JSON.stringify(await rows('members'))).not.toContain(token);
  });

  it('answers the same whether or not the address has a login here', async () => {
    const known = await makeOwner('members-known');
    const a = await invite(known.email, 'admin');
    const b = await invite(`nobody-${crypto.randomUUID().slice(0, 6)}@example.com`, 'admin');
    expect([a.status, b.status]).toEqual([201, 201]);
    const shape = (r: typeof a) => {
      const { id, email, created_at, expires_at, ...rest } = oneOf(r).data;
      return { keys: Object.keys(oneOf(r).data), rest, headers: [...r.headers.keys()] };
    };
    expect(shape(a)).toEqual(shape(b));
  });

  it('names every bad field (422) and keeps nothing', async () => {
    const before = await rows('members');
    const res = await invite('not an address', 'owner');
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual(['email', 'role']);
    expect(errorOf(res).errors.role).toEqual(['The selected role is invalid: viewer or admin.']);
    const empty = await call(`/api/v1/websites/${site.id}/members`, {
      method: 'POST',
      key: owner.key,
      body: { json: {} },
    });
    expect(errorOf(empty).errors).toEqual({
      email: ['The email field is required.'],
      role: ['The role field is required.'],
    });
    expect(await rows('members')).toEqual(before);
  });

  it('without e-mail set up, or when the send fails: a 503 and no invitation', async () => {
    const before = await rows('members');
    box.fail(true);
    try {
      const res = await invite('unsent@example.com', 'viewer');
      expect(res.status).toBe(503);
      expect(errorOf(res).message).toContain('could not be sent');
    } finally {
      box.fail(false);
    }
    const bindings = env as { MAIL_FROM?: string };
    const from = bindings.MAIL_FROM;
    bindings.MAIL_FROM = undefined;
    try {
      const res = await invite('unsent@example.com', 'viewer');
      expect(res.status).toBe(503);
      expect(errorOf(res).message).toContain('set the EMAIL binding and MAIL_FROM');
    } finally {
      bindings.MAIL_FROM = from;
    }
    expect(await rows('members')).toEqual(before);
  });

  it('a second invitation to the same address renews it: the old link stops working', async () => {
    const email = `renew-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const first = oneOf(await invite(email, 'viewer')).data;
    const oldLink = box.linkTo(email);
    const second = oneOf(await invite(email, 'admin')).data;
    expect(second.id).toBe(first.id);
    expect(second.role).toBe('admin');
    expect((await visit(newBrowser(), oldLink)).status).toBe(404);
    const page = await visit(newBrowser(), box.linkTo(email));
    expect(page.status).toBe(200);
    expect(page.text).toContain('as an admin');
  });
});

describe('accepting', () => {
  it('makes a login for a new address, whatever REGISTRATION says, and signs it in', async () => {
    expect(env.REGISTRATION).toBe('closed');
    const email = `fresh-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await invite(email, 'viewer');
    const b = newBrowser();
    const page = await visit(b, box.linkTo(email));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Choose a password');
    const short = await acceptWith(b, box.linkTo(email), { password: 'short' });
    expect(short.status).toBe(422);
    expect(short.text).toContain('at least 8 characters');
    const res = await acceptWith(b, box.linkTo(email), { password: 'a new password' });
    expect([res.status, res.location]).toEqual([303, `/websites?joined=${site.id}`]);
    const list = await b.get(res.location ?? '');
    expect(list.text).toContain(`You joined ${site.domain} as viewer.`);
    expect((await b.get(`/stats/${site.domain}`)).status).toBe(200);
    // The login works with its password from now on.
    const again = await signedIn({ email }, 'a new password');
    expect((await again.get('/websites')).text).toContain(site.domain);
  });

  it('adds the website to an existing login after its password', async () => {
    const person = await makeOwner('members-existing');
    await invite(person.email, 'viewer');
    const link = box.linkTo(person.email);
    const b = newBrowser();
    expect((await visit(b, link)).text).toContain(`Sign in as <strong>${person.email}</strong>`);
    const wrong = await acceptWith(b, link, { password: 'not the password' });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('The password is incorrect.');
    const res = await acceptWith(b, link, { password: OWNER_PASSWORD });
    expect(res.status).toBe(303);
    const listed = await call('/api/v1/websites', { key: person.key });
    expect(listOf(listed).data.map((w) => [w.id, w.role])).toEqual([[site.id, 'viewer']]);
  });

  it('the signed-in invited person accepts with one button (and its form token)', async () => {
    const person = await makeOwner('members-signed-in');
    await invite(person.email, 'admin');
    const link = box.linkTo(person.email);
    const b = await signedIn(person);
    const page = await visit(b, link);
    expect(page.text).not.toContain('name="password"');
    expect((await acceptWith(b, link, {})).status).toBe(403);
    const res = await acceptWith(b, link, { _csrf: csrfFrom(page.text) });
    expect([res.status, res.location]).toEqual([303, `/websites?joined=${site.id}`]);
    expect((await b.get(`/websites/${site.id}`)).status).toBe(200);
  });

  it('works once: a used link is a 404, and two at once make one member', async () => {
    const email = `once-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await invite(email, 'viewer');
    const link = box.linkTo(email);
    const answers = await Promise.all(
      [1, 2, 3].map(() => acceptWith(newBrowser(), link, { password: 'a new password' })),
    );
    expect(answers.filter((r) => r.status === 303)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 404)).toHaveLength(2);
    expect(await rows('owners', `email = '${email}'`)).toHaveLength(1);
    expect((await visit(newBrowser(), link)).status).toBe(404);
    const replay = await acceptWith(newBrowser(), link, { password: 'a new password' });
    expect(replay.status).toBe(404);
    expect(replay.text).toContain('it was used, cancelled or has expired');
  });

  it('an invitation past its 72 hours is a 404, shown as expired to the owner', async () => {
    const email = `late-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const made = oneOf(await invite(email, 'viewer')).data;
    const link = box.linkTo(email);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 72 * 3600 * 1000 + 1000 });
    try {
      expect((await visit(newBrowser(), link)).status).toBe(404);
      expect((await acceptWith(newBrowser(), link, { password: 'a new password' })).status).toBe(
        404,
      );
      const list = await call(`/api/v1/websites/${site.id}/members?per_page=100`, {
        key: owner.key,
      });
      const row = listOf(list).data.find((m) => m.id === made.id);
      expect(row?.status).toBe('expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a made-up or malformed token is the same 404', async () => {
    for (const token of ['A'.repeat(43), 'short', 'A'.repeat(44)]) {
      expect((await visit(newBrowser(), `https://x.test/invitations#${token}`)).status).toBe(404);
      expect((await newBrowser().get(`/invitations/${token}`)).status).toBe(404);
    }
  });

  it("the owner's own address is refused (422): the owner has every right already", async () => {
    const before = await rows('members');
    const res = await invite(owner.email.toUpperCase(), 'viewer');
    expect([res.status, errorOf(res).errors]).toEqual([
      422,
      { email: ['This address is the owner of the website.'] },
    ]);
    expect(await rows('members')).toEqual(before);
    const me = await call(`/api/v1/websites/${site.id}`, { key: owner.key });
    expect(oneOf(me).data.role).toBe('owner');
  });
});

describe('roles, removal and leaving', () => {
  let viewer: Owner;
  let admin: Owner;
  let viewerId: number;
  let adminId: number;

  beforeAll(async () => {
    viewer = await makeOwner('members-viewer');
    admin = await makeOwner('members-admin');
    viewerId = await addMember(box, owner.key, site.id, viewer, 'viewer');
    adminId = await addMember(box, owner.key, site.id, admin, 'admin');
  });

  it('a viewer reads with their own key and changes nothing (403)', async () => {
    const show = await call(`/api/v1/websites/${site.id}`, { key: viewer.key });
    expect(oneOf(show).data.role).toBe('viewer');
    const stats = await call(`/api/v1/stats/${site.id}/summary?from=2026-01-01&to=2026-01-31`, {
      key: viewer.key,
    });
    expect(stats.status).toBe(200);
    const put = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key: viewer.key,
      body: { json: { privacy: 0 } },
    });
    expect([put.status, put.json]).toEqual([
      403,
      { message: 'Your role on this website only lets you read its statistics.', status: 403 },
    ]);
    // A viewer lists only their own membership.
    const list = await call(`/api/v1/websites/${site.id}/members`, { key: viewer.key });
    expect(listOf(list).data.map((m) => m.id)).toEqual([viewerId]);
    expect((await invite('x@example.com', 'viewer', viewer.key)).status).toBe(403);
  });

  it('an admin changes settings, goals and members, but cannot delete the website', async () => {
    const put = await call(`/api/v1/websites/${site.id}`, {
      method: 'PATCH',
      key: admin.key,
      body: { json: { timezone: 'Europe/Berlin' } },
    });
    expect([put.status, oneOf(put).data.role, oneOf(put).data.timezone]).toEqual([
      200,
      'admin',
      'Europe/Berlin',
    ]);
    const goal = await call(`/api/v1/websites/${site.id}/goals`, {
      method: 'POST',
      key: admin.key,
      body: { json: { event: 'Signup' } },
    });
    expect(goal.status).toBe(201);
    const list = await call(`/api/v1/websites/${site.id}/members?per_page=100`, {
      key: admin.key,
    });
    expect(listOf(list).data.map((m) => m.id)).toContain(viewerId);
    const patch = await call(`/api/v1/websites/${site.id}/members/${viewerId}`, {
      method: 'PATCH',
      key: admin.key,
      body: { json: { role: 'admin' } },
    });
    expect(oneOf(patch).data.role).toBe('admin');
    expect((await call(`/api/v1/websites/${site.id}`, { key: viewer.key })).json).toMatchObject({
      data: { role: 'admin' },
    });
    await call(`/api/v1/websites/${site.id}/members/${viewerId}`, {
      method: 'PATCH',
      key: admin.key,
      body: { json: { role: 'viewer' } },
    });
    const bad = await call(`/api/v1/websites/${site.id}/members/${viewerId}`, {
      method: 'PATCH',
      key: admin.key,
      body: { json: { role: 'owner' } },
    });
    expect(bad.status).toBe(422);
    const del = await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key: admin.key });
    expect([del.status, errorOf(del).message]).toEqual([
      403,
      'Only the owner of this website may do this.',
    ]);
    // The pages: the settings page opens, deleting it does not.
    const b = await signedIn(admin);
    expect((await b.get(`/websites/${site.id}`)).status).toBe(200);
    expect((await b.get(`/websites/${site.id}/delete`)).status).toBe(403);
  });

  it('a member removed loses access on the next request: key and session alike', async () => {
    const person = await makeOwner('members-removed');
    const id = await addMember(box, owner.key, site.id, person, 'admin');
    const b = await signedIn(person);
    expect((await b.get(`/stats/${site.domain}`)).status).toBe(200);
    expect((await call(`/api/v1/websites/${site.id}`, { key: person.key })).status).toBe(200);
    const removed = await call(`/api/v1/websites/${site.id}/members/${id}`, {
      method: 'DELETE',
      key: adminId ? admin.key : owner.key,
    });
    expect(removed.json).toEqual({ id, object: 'member', deleted: true, status: 200 });
    expect((await call(`/api/v1/websites/${site.id}`, { key: person.key })).json).toEqual(
      NOT_FOUND,
    );
    expect((await b.get(`/stats/${site.domain}`)).status).toBe(404);
    expect((await b.get(`/websites/${site.id}`)).status).toBe(404);
    expect((await b.get('/websites')).text).not.toContain(site.domain);
  });

  it('a member leaves through the API; another member cannot be removed by a viewer', async () => {
    const person = await makeOwner('members-leaver');
    const id = await addMember(box, owner.key, site.id, person, 'viewer');
    const other = await call(`/api/v1/websites/${site.id}/members/${adminId}`, {
      method: 'DELETE',
      key: person.key,
    });
    expect(other.status).toBe(403);
    const left = await call(`/api/v1/websites/${site.id}/members/${id}`, {
      method: 'DELETE',
      key: person.key,
    });
    expect(left.status).toBe(200);
    expect((await call(`/api/v1/websites/${site.id}`, { key: person.key })).status).toBe(404);
  });

  it('the pages: invite, change a role, remove, leave', async () => {
    const b = await signedIn(owner);
    const settings = await b.get(`/websites/${site.id}/members`);
    expect(settings.text).toContain('id="members"');
    expect(settings.text).toContain(viewer.email);
    const csrf = csrfFrom(settings.text);
    const email = `paged-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const sent = await b.post(`/websites/${site.id}/members`, {
      _csrf: csrf,
      email,
      role: 'admin',
    });
    expect([sent.status, sent.location]).toEqual([
      303,
      `/websites/${site.id}/members?member=invited`,
    ]);
    expect(box.linkTo(email)).toContain('/invitations#');
    const bad = await b.post(`/websites/${site.id}/members`, {
      _csrf: csrf,
      email: 'nope',
      role: 'viewer',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The email field must be a valid email address.');
    const dup = await b.post(`/websites/${site.id}/members`, {
      _csrf: csrf,
      email: viewer.email,
      role: 'viewer',
    });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('This address is a member of the website already.');
    const changed = await b.post(`/websites/${site.id}/members/${viewerId}/role`, {
      _csrf: csrf,
      role: 'admin',
    });
    expect(changed.location).toBe(`/websites/${site.id}/members?member=changed`);
    expect(oneOf(await call(`/api/v1/websites/${site.id}`, { key: viewer.key })).data.role).toBe(
      'admin',
    );
    // The member leaves from the websites list.
    const v = await signedIn(viewer);
    const list = await v.get('/websites');
    expect(list.text).toContain(`action="/websites/${site.id}/leave"`);
    const left = await v.post(`/websites/${site.id}/leave`, { _csrf: csrfFrom(list.text) });
    expect([left.status, left.location]).toEqual([303, '/websites?left=1']);
    expect((await v.get(`/stats/${site.domain}`)).status).toBe(404);
    // The owner cannot leave.
    const ownerLeaves = await b.post(`/websites/${site.id}/leave`, { _csrf: csrf });
    expect(ownerLeaves.status).toBe(403);
  });

  it("a viewer's pages: statistics yes, settings no", async () => {
    const person = await makeOwner('members-viewer-pages');
    await addMember(box, owner.key, site.id, person, 'viewer');
    const b = await signedIn(person);
    const list = await b.get('/websites');
    expect(list.text).toContain(site.domain);
    expect(list.text).not.toContain(`href="/websites/${site.id}"`);
    expect((await b.get(`/stats/${site.domain}`)).status).toBe(200);
    const settings = await b.get(`/websites/${site.id}`);
    expect(settings.status).toBe(403);
    expect(settings.text).toContain('only lets you read its statistics');
  });
});

describe('housekeeping', () => {
  it('a deleted website takes its members and invitations with it', async () => {
    const other = await makeWebsite(owner.key);
    const person = await makeOwner('members-cascade');
    await addMember(box, owner.key, other.id, person, 'viewer');
    await invite('pending-cascade@example.com', 'viewer', owner.key, other.id);
    expect(await rows('members', `website_id = ${other.id}`)).toHaveLength(2);
    await call(`/api/v1/websites/${other.id}`, { method: 'DELETE', key: owner.key });
    expect(await rows('members', `website_id = ${other.id}`)).toEqual([]);
  });
});
