/**
 * Access ends with the member (docs/ARCHITECTURE.md, "Members"): the shared links and the
 * invitations an admin made are revoked when the admin is removed, leaves or becomes a
 * viewer — in the same batch as that change — or handed over, by the remover's choice, to
 * the person removing them (to the owner when they leave). The lists name who made each.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, listOf, makeOwner, makeWebsite, oneOf, websiteApi } from '../../support/api.ts';
import { csrfFrom, newBrowser, signedIn } from '../../support/browser-session.ts';
import { injectD1Failure } from '../../support/d1-faults.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { openInvitation, openSharedLink } from '../../support/tokens.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;
let owner: Owner;
let site: { id: number; domain: string };

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('access-owner');
  site = await makeWebsite(owner.key, { privacy: '1' });
});
afterAll(() => box.close());

const api = websiteApi(() => site.id);

/** An admin of the website who made a shared link and sent an invitation. */
async function adminWithThings(label: string) {
  const admin = await makeOwner(label);
  const memberId = await addMember(box, owner.key, site.id, admin, 'admin');
  const link = oneOf(await api('/shared-links', admin.key, 'POST', { name: `${label} link` })).data;
  const invitee = `${label}-invitee-${crypto.randomUUID().slice(0, 6)}@example.com`;
  const invitation = oneOf(
    await api('/members', admin.key, 'POST', { email: invitee, role: 'admin' }),
  ).data;
  return {
    admin,
    memberId,
    link: { id: Number(link.id), url: String(link.url) },
    invitation: { id: Number(invitation.id), email: invitee, url: box.linkTo(invitee) },
  };
}

const linkRows = async () =>
  (await env.DB.prepare('SELECT id FROM shared_links WHERE website_id = ?').bind(site.id).all())
    .results;
const opens = async (url: string) => (await openSharedLink(newBrowser(), url)).status === 200;

describe('removing an admin', () => {
  it('revokes their shared links and pending invitations at once', async () => {
    const t = await adminWithThings('removed-admin');
    expect(await opens(t.link.url)).toBe(true);
    const removed = await api(`/members/${t.memberId}`, owner.key, 'DELETE');
    expect(removed.status).toBe(200);
    expect(await opens(t.link.url)).toBe(false);
    const ids = (await linkRows()).map((r) => r.id);
    expect(ids).not.toContain(t.link.id);
    // The invitation they sent is gone: accepting it is refused, and it is no one's row.
    const accept = await openInvitation(newBrowser(), t.invitation.url, 'a new password');
    expect(accept.status).toBe(404);
    const members = listOf(await api('/members?per_page=100', owner.key)).data;
    expect(members.map((m) => m.id)).not.toContain(t.invitation.id);
    const logins = await env.DB.prepare('SELECT id FROM owners WHERE email = ?')
      .bind(t.invitation.email)
      .all();
    expect(logins.results).toEqual([]);
  });

  it('by choice, hands them over to the person removing them instead', async () => {
    const remover = await makeOwner('remover-admin');
    await addMember(box, owner.key, site.id, remover, 'admin');
    const t = await adminWithThings('handed-admin');
    const removed = await api(`/members/${t.memberId}?hand_over=1`, remover.key, 'DELETE');
    expect(removed.status).toBe(200);
    expect(await opens(t.link.url)).toBe(true);
    const links = listOf(await api('/shared-links?per_page=100', owner.key)).data;
    expect(links.find((l) => l.id === t.link.id)?.created_by).toBe(remover.email);
    const members = listOf(await api('/members?per_page=100', owner.key)).data;
    expect(members.find((m) => m.id === t.invitation.id)).toMatchObject({
      status: 'pending',
      created_by: remover.email,
    });
    const accept = await openInvitation(newBrowser(), t.invitation.url, 'a new password');
    expect(accept.status).toBe(303);
  });

  it('a bad hand_over is a 422 naming it, and nothing changes', async () => {
    const t = await adminWithThings('bad-hand-over');
    const res = await api(`/members/${t.memberId}?hand_over=maybe`, owner.key, 'DELETE');
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual(['hand_over']);
    expect(await opens(t.link.url)).toBe(true);
  });

  it('is all or nothing: a failing revocation keeps the member and what they made', async () => {
    const t = await adminWithThings('atomic-admin');
    // The removal itself fails, after the revocations in its batch: none of it may stay.
    const fault = injectD1Failure({
      matches: (sql) => /^\s*delete from "members" where \("members"\."id" = /i.test(sql),
    });
    let status: number;
    try {
      status = (await api(`/members/${t.memberId}`, owner.key, 'DELETE')).status;
    } finally {
      fault.restore();
    }
    expect(status).toBeGreaterThanOrEqual(500);
    expect(fault.failed.length).toBeGreaterThan(0);
    const members = listOf(await api('/members?per_page=100', owner.key)).data;
    expect(members.map((m) => m.id)).toEqual(expect.arrayContaining([t.memberId, t.invitation.id]));
    expect(await opens(t.link.url)).toBe(true);
  });
});

describe('an admin who leaves, or becomes a viewer', () => {
  it('leaving revokes what they made; handing over gives it to the owner', async () => {
    const a = await adminWithThings('leaving-admin');
    expect((await api(`/members/${a.memberId}`, a.admin.key, 'DELETE')).status).toBe(200);
    expect(await opens(a.link.url)).toBe(false);
    const b = await adminWithThings('leaving-handing-admin');
    const left = await api(`/members/${b.memberId}?hand_over=1`, b.admin.key, 'DELETE');
    expect(left.status).toBe(200);
    expect(await opens(b.link.url)).toBe(true);
    const links = listOf(await api('/shared-links?per_page=100', owner.key)).data;
    expect(links.find((l) => l.id === b.link.id)?.created_by).toBe(owner.email);
  });

  it('leaving through the websites page revokes what they made', async () => {
    const t = await adminWithThings('page-leaver');
    const b = await signedIn(t.admin);
    const list = await b.get('/websites');
    const left = await b.post(`/websites/${site.id}/leave`, { _csrf: csrfFrom(list.text) });
    expect(left.status).toBe(303);
    expect(await opens(t.link.url)).toBe(false);
  });

  it('admin → viewer revokes their links and invitations, or hands them over', async () => {
    const t = await adminWithThings('demoted-admin');
    const patched = await api(`/members/${t.memberId}`, owner.key, 'PATCH', { role: 'viewer' });
    expect(oneOf(patched).data.role).toBe('viewer');
    expect(await opens(t.link.url)).toBe(false);
    expect((await openInvitation(newBrowser(), t.invitation.url, 'a new password')).status).toBe(
      404,
    );
    const u = await adminWithThings('demoted-handing-admin');
    await api(`/members/${u.memberId}`, owner.key, 'PATCH', { role: 'viewer', hand_over: 1 });
    expect(await opens(u.link.url)).toBe(true);
    const links = listOf(await api('/shared-links?per_page=100', owner.key)).data;
    expect(links.find((l) => l.id === u.link.id)?.created_by).toBe(owner.email);
  });
});

describe('who made what', () => {
  it('the API lists name the maker of each link and invitation', async () => {
    const t = await adminWithThings('listed-admin');
    const own = oneOf(await api('/shared-links', owner.key, 'POST', { name: 'Owner link' })).data;
    const links = listOf(await api('/shared-links?per_page=100', owner.key)).data;
    expect(links.find((l) => l.id === t.link.id)?.created_by).toBe(t.admin.email);
    expect(links.find((l) => l.id === own.id)?.created_by).toBe(owner.email);
    const members = listOf(await api('/members?per_page=100', owner.key)).data;
    expect(members.find((m) => m.id === t.invitation.id)?.created_by).toBe(t.admin.email);
    expect(members.find((m) => m.id === t.memberId)?.created_by).toBe(owner.email);
  });

  it('the settings page shows the makers and offers the hand-over on removal', async () => {
    const t = await adminWithThings('paged-admin');
    const b = await signedIn(owner);
    const links = await b.get(`/websites/${site.id}/sharing`);
    const linkRow = links.text.slice(links.text.indexOf('paged-admin link'));
    expect(linkRow.slice(0, linkRow.indexOf('</tr>'))).toContain(t.admin.email);
    const page = await b.get(`/websites/${site.id}/members`);
    expect(page.text).toContain('name="hand_over"');
    const removed = await b.post(`/websites/${site.id}/members/${t.memberId}/delete`, {
      _csrf: csrfFrom(page.text),
      hand_over: '1',
    });
    expect(removed.status).toBe(303);
    expect(await opens(t.link.url)).toBe(true);
    const again = await b.get(`/websites/${site.id}/sharing`);
    const row = again.text.slice(again.text.indexOf('paged-admin link'));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain(owner.email);
  });

  it('links made before makers were recorded count as the owner’s and stay', async () => {
    const t = await adminWithThings('legacy-admin');
    await env.DB.prepare('UPDATE shared_links SET created_by = NULL WHERE id = ?')
      .bind(t.link.id)
      .run();
    const listed = listOf(await api('/shared-links?per_page=100', owner.key)).data;
    expect(listed.find((l) => l.id === t.link.id)?.created_by).toBeNull();
    await api(`/members/${t.memberId}`, owner.key, 'DELETE');
    expect(await opens(t.link.url)).toBe(true);
  });
});

describe('whatever changed a role', () => {
  it('a link or an invitation works only while its maker is the owner or an admin', async () => {
    const t = await adminWithThings('bypassed-admin');
    // A role changed without the routes (by hand in D1): nothing was revoked.
    await env.DB.prepare("UPDATE members SET role = 'viewer' WHERE id = ?").bind(t.memberId).run();
    expect(await opens(t.link.url)).toBe(false);
    expect((await openInvitation(newBrowser(), t.invitation.url, 'a new password')).status).toBe(
      404,
    );
    await env.DB.prepare("UPDATE members SET role = 'admin' WHERE id = ?").bind(t.memberId).run();
    expect(await opens(t.link.url)).toBe(true);
  });
});
