/**
 * Members on the pages (docs/ARCHITECTURE.md, "Members"): the settings page's "Members"
 * section (invite by e-mail with a role, change a role, remove a member or cancel an
 * invitation — the owner and admins) and leaving a website (a member, from the websites
 * list). Accepting an invitation is ../mail-links/invitations.tsx.
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { linkOrigin } from '../../http/origin.ts';
import { signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors, validationFailed } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { inviteByMail, ROLE_MEANING } from '../../members/invitation-mail.ts';
import { readHandOver } from '../../members/made.ts';
import {
  changeMemberRole,
  checkInvitation,
  checkRole,
  leaveWebsite,
  listMembers,
  type MemberRecord,
  removeMember,
} from '../../members/members.ts';
import { MEMBER_ROLES, type Role } from '../../websites/queries.ts';
import { FieldError, SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** What the section shows after a form: the form's messages and values. */
export type MembersState = { values?: { email: string; role: string }; errors?: FieldErrors };

const RoleSelect: FC<{ id: string; value?: string | undefined }> = ({ id, value }) => (
  <select id={id} name="role">
    {MEMBER_ROLES.map((role) => (
      <option value={role} selected={role === (value ?? 'viewer')}>
        {role}
      </option>
    ))}
  </select>
);

/** The choice to keep what a member made: handed over to the person acting (src/members/members.ts). */
const HandOver: FC<{ what: string }> = ({ what }) => (
  <label class="check hint">
    <input type="checkbox" name="hand_over" value="1" /> {what}
  </label>
);

/** A member's role, with the form that changes it. */
const RoleForm: FC<{ site: WebsiteRow; member: MemberRecord; csrf: string }> = ({
  site,
  member: m,
  csrf,
}) => (
  <form method="post" action={`/websites/${site.id}/members/${m.id}/role`} class="inline">
    <input type="hidden" name="_csrf" value={csrf} />
    <label for={`member-role-${m.id}`} class="sr-only">
      Role of {m.email}
    </label>
    <RoleSelect id={`member-role-${m.id}`} value={m.role} />{' '}
    <button type="submit" class="secondary">
      Change
    </button>
    {m.status === 'active' && m.role === 'admin' ? (
      <HandOver what="as viewer: keep their links and invitations (handed to me)" />
    ) : null}
  </form>
);

/** Where a member stands, in words. */
const statusOf = (m: MemberRecord) =>
  m.status === 'active'
    ? 'member'
    : m.status === 'pending'
      ? `invited, until ${m.expires_at?.slice(0, 16).replace('T', ' ')} UTC`
      : 'invitation expired';

export const MembersSection: FC<{
  site: WebsiteRow;
  members: MemberRecord[];
  csrf: string;
  state?: MembersState | undefined;
}> = ({ site, members, csrf, state = {} }) => (
  <SettingsSection
    id="members"
    title="Members"
    hint={
      <>
        People who sign in with their own login to this website. A viewer may {ROLE_MEANING.viewer}.
        An admin may {ROLE_MEANING.admin}. Only the owner can delete the website. An invitation is
        an e-mail with a link that works once, for 72 hours. When you remove a member or make an
        admin a viewer, the shared links and invitations they made stop working, unless you choose
        to keep them (they become yours). A dash under Invited by: who invited them is not known,
        and it counts as the owner's.
      </>
    }
    csrf={csrf}
    table={{
      head: ['E-mail', 'Role', 'Status', 'Invited by'],
      rows: members.map((m) => ({
        cells: [
          m.email,
          <RoleForm site={site} member={m} csrf={csrf} />,
          statusOf(m),
          m.created_by ?? '—',
        ],
        remove: {
          action: `/websites/${site.id}/members/${m.id}/delete`,
          what: m.email,
          label: m.status === 'active' ? 'Remove' : 'Cancel',
          fields:
            m.status === 'active' ? (
              <HandOver what="keep their links and invitations (handed to me)" />
            ) : null,
        },
      })),
    }}
    empty="No members yet."
    add={{
      action: `/websites/${site.id}/members`,
      button: 'Send an invitation',
      class: 'stack',
      fields: (
        <>
          <label>
            E-mail <input name="email" type="email" value={state.values?.email ?? ''} required />
          </label>
          <FieldError errors={state.errors} field="email" />
          <label for="invite-role">Role</label>
          <RoleSelect id="invite-role" value={state.values?.role} />
          <FieldError errors={state.errors} field="role" />
        </>
      ),
    }}
  />
);

/** The settings page again, with the section's state. */
type Reshow = (state: MembersState, status: 409 | 422) => Promise<Response>;

/**
 * `POST /websites/:id/members` (invite), `…/members/:member/role` (change a role),
 * `…/members/:member/delete` (remove, cancel) — the owner's and admins' — and
 * `POST /websites/:id/leave` (a member leaving), each after the form's CSRF check.
 */
export function registerMemberPages(
  pages: Hono<AppEnv>,
  accessOf: (c: Context<AppEnv>, need: Role) => Promise<{ website: WebsiteRow; role: Role }>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  const settings = (site: WebsiteRow, done: string) =>
    settingsPath(site.id, 'members', `member=${done}`);
  pages.post('/:id/members', async (c) => {
    const { website: site } = await accessOf(c, 'admin');
    const body = await formBody(c);
    const fields = { email: formText(body.email), role: formText(body.role) };
    const db = createDb(c.env.DB);
    try {
      await inviteByMail(c.env, db, site, checkInvitation(fields), {
        inviter: signedInOwner(c),
        origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
      });
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 409)) throw err;
      const errors = err.errors ?? { email: [err.message] };
      return reshow(c, site)({ values: fields, errors }, err.status);
    }
    return c.redirect(settings(site, 'invited'), 303);
  });
  pages.post('/:id/members/:member/role', async (c) => {
    const { website: site } = await accessOf(c, 'admin');
    const body = await formBody(c);
    const id = parseId(c.req.param('member'));
    const { role, handOver } = checkRole({ role: formText(body.role), hand_over: body.hand_over });
    const handTo = handOver ? signedInOwner(c).id : null;
    if (id === null || !(await changeMemberRole(createDb(c.env.DB), site.id, id, role, handTo)))
      throw new ApiError(404, 'There is no such member.');
    return c.redirect(settings(site, 'changed'), 303);
  });
  pages.post('/:id/members/:member/delete', async (c) => {
    const { website: site } = await accessOf(c, 'admin');
    const handOver = readHandOver((await formBody(c)).hand_over);
    if (!handOver.ok) throw validationFailed({ hand_over: [handOver.message] });
    const handTo = handOver.value ? signedInOwner(c).id : null;
    const id = parseId(c.req.param('member'));
    if (id === null || !(await removeMember(createDb(c.env.DB), site.id, id, handTo)))
      throw new ApiError(404, 'There is no such member.');
    return c.redirect(settings(site, 'removed'), 303);
  });
  pages.post('/:id/leave', async (c) => {
    const { website: site, role } = await accessOf(c, 'viewer');
    await formBody(c);
    if (role === 'owner') throw new ApiError(403, 'The owner cannot leave their own website.');
    await leaveWebsite(createDb(c.env.DB), site.id, signedInOwner(c).id);
    return c.redirect('/websites?left=1', 303);
  });
}

/** The members the settings page lists. */
export const membersOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listMembers(createDb(c.env.DB), site.id);
