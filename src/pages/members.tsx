/**
 * Members on the pages (docs/ARCHITECTURE.md, "Members"): the settings page's "Members"
 * section (invite by e-mail with a role, change a role, remove a member or cancel an
 * invitation — the owner and admins), leaving a website (a member, from the websites list),
 * and `/invitations/{token}`, where the invitation's link is accepted: with the session of
 * the invited address, its login's password, or a password chosen for a new login.
 */
import type { Context, Hono } from 'hono';
import { Hono as Router } from 'hono';
import type { FC } from 'hono/jsx';
import { findOwnerByEmail, validateNewPassword } from '../accounts/owners.ts';
import { hashPassword, verifyPassword } from '../accounts/password.ts';
import { consumeLoginAttempt, loginSucceeded } from '../accounts/throttle.ts';
import { createDb, type Database } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import { ApiError, type FieldErrors, validationFailed } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { readHandOver } from '../members/made.ts';
import { inviteByMail, ROLE_MEANING } from '../members/mail.ts';
import {
  acceptInvitation,
  acceptWithNewLogin,
  changeMemberRole,
  checkInvitation,
  checkRole,
  type Invitation,
  invitationOf,
  leaveWebsite,
  listMembers,
  type MemberRecord,
  parseMemberId,
  removeMember,
} from '../members/members.ts';
import { linkOrigin } from '../sharing/links.ts';
import { MEMBER_ROLES, type MemberRole, type Role } from '../websites/queries.ts';
import { PasswordField } from './credential-fields.tsx';
import { formText } from './form.ts';
import { DeleteButton, render } from './layout.tsx';
import { csrfToken, requireCsrf, signedInOwner, signIn } from './session.ts';

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

/** The choice to keep what a member made: handed over to the person acting (./members.ts). */
const HandOver: FC<{ what: string }> = ({ what }) => (
  <label class="check hint">
    <input type="checkbox" name="hand_over" value="1" /> {what}
  </label>
);

const MemberTable: FC<{ site: WebsiteRow; members: MemberRecord[]; csrf: string }> = ({
  site,
  members,
  csrf,
}) => (
  <table>
    <thead>
      <tr>
        <th scope="col">E-mail</th>
        <th scope="col">Role</th>
        <th scope="col">Status</th>
        <th scope="col">Invited by</th>
        <th scope="col">
          <span class="sr-only">Actions</span>
        </th>
      </tr>
    </thead>
    <tbody>
      {members.map((m) => (
        <tr>
          <td>{m.email}</td>
          <td>
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
          </td>
          <td>
            {m.status === 'active'
              ? 'member'
              : m.status === 'pending'
                ? `invited, until ${m.expires_at?.slice(0, 16).replace('T', ' ')} UTC`
                : 'invitation expired'}
          </td>
          <td>{m.created_by ?? '—'}</td>
          <td class="actions">
            <DeleteButton
              action={`/websites/${site.id}/members/${m.id}/delete`}
              csrf={csrf}
              label={m.status === 'active' ? 'Remove' : 'Cancel'}
              what={m.email}
            >
              {m.status === 'active' ? (
                <HandOver what="keep their links and invitations (handed to me)" />
              ) : null}
            </DeleteButton>
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);

export const MembersSection: FC<{
  site: WebsiteRow;
  members: MemberRecord[];
  csrf: string;
  state?: MembersState | undefined;
}> = ({ site, members, csrf, state = {} }) => (
  <section aria-labelledby="members">
    <h2 id="members">Members</h2>
    <p class="hint">
      People with their own login to this website: a viewer may {ROLE_MEANING.viewer}; an admin may{' '}
      {ROLE_MEANING.admin}. Only the owner may delete the website. An invitation is an e-mail with a
      link that works once, for 72 hours. Removing a member, or making an admin a viewer, revokes
      the shared links and invitations they made, unless you keep them (they are then yours). A
      dash: sent before Sightline recorded inviters (counted as the owner's).
    </p>
    {members.length > 0 ? (
      <MemberTable site={site} members={members} csrf={csrf} />
    ) : (
      <p class="hint">No members yet.</p>
    )}
    <form method="post" action={`/websites/${site.id}/members`} class="stack">
      <input type="hidden" name="_csrf" value={csrf} />
      <label>
        E-mail <input name="email" type="email" value={state.values?.email ?? ''} required />
      </label>
      {state.errors?.email?.[0] ? <p class="error">{state.errors.email[0]}</p> : null}
      <label for="invite-role">Role</label>
      <RoleSelect id="invite-role" value={state.values?.role} />
      {state.errors?.role?.[0] ? <p class="error">{state.errors.role[0]}</p> : null}
      <button type="submit">Send an invitation</button>
    </form>
  </section>
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
    `/websites/${site.id}?member=${done}#members`;
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
    const id = parseMemberId(c.req.param('member'));
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
    const id = parseMemberId(c.req.param('member'));
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

// ---------------------------------------------------------------------------------------
// `/invitations/{token}`: accepting an invitation
// ---------------------------------------------------------------------------------------

const unusable = () =>
  new ApiError(
    404,
    'This invitation cannot be used: it was used, cancelled or has expired. Ask for a new one.',
  );

const roleName = (role: string) => (role === 'admin' ? 'an admin' : 'a viewer');

/** How the invited person proves who they are: their session, their password, or a new one. */
type Way = 'session' | 'password' | 'new';

function wayOf(c: Context<AppEnv>, invitation: Invitation): Way {
  if (c.get('owner')?.email === invitation.member.email) return 'session';
  return invitation.loginId === null ? 'new' : 'password';
}

/** Whose session accepting makes, when another person is signed in. */
const SignedInAs: FC<{ as: string | undefined; invited: string }> = ({ as, invited }) =>
  as ? (
    <>
      {' '}
      (you are signed in as {as}: accepting signs you in as {invited})
    </>
  ) : null;

async function invitationPage(
  c: Context<AppEnv>,
  token: string,
  invitation: Invitation,
  error?: string[],
  status: 200 | 422 | 429 = 200,
) {
  const { member, site } = invitation;
  const way = wayOf(c, invitation);
  const signedInAs = c.get('owner')?.email;
  return render(
    c,
    {
      title: `Join ${site.domain}`,
      children: (
        <>
          <h1>Join {site.domain}</h1>
          <p>
            You are invited to {site.domain} as {roleName(member.role)}: you may{' '}
            {ROLE_MEANING[member.role as MemberRole]}.
          </p>
          <form method="post" action={`/invitations/${token}`} class="stack card" novalidate>
            {way === 'session' ? (
              <input type="hidden" name="_csrf" value={await csrfToken(c)} />
            ) : null}
            {way === 'session' ? null : (
              <>
                <p>
                  {way === 'password' ? 'Sign in as ' : 'Choose a password for your login as '}
                  <strong>{member.email}</strong>
                  {way === 'password' ? ' to accept' : ''}
                  <SignedInAs as={signedInAs} invited={member.email} />.
                </p>
                <PasswordField
                  label="Password"
                  name="password"
                  autocomplete={way === 'password' ? 'current-password' : 'new-password'}
                  minLength={way === 'new' ? 8 : undefined}
                  hint={way === 'new' ? '8 to 128 characters.' : undefined}
                  error={error}
                />
              </>
            )}
            <div class="actions">
              <button type="submit">Accept the invitation</button>
            </div>
          </form>
        </>
      ),
    },
    status,
  );
}

/**
 * The login of the invited address, proven by its password (counted before it is checked, as
 * a log-in is: src/accounts/throttle.ts); else the page again with the reason.
 */
async function passwordLogin(
  c: Context<AppEnv>,
  db: Database,
  token: string,
  invitation: Invitation,
  password: string,
): Promise<number | Response> {
  const email = invitation.member.email;
  const address = clientAddressKey(c);
  const wait = await consumeLoginAttempt(db, email, address);
  if (wait > 0) {
    c.header('Retry-After', String(wait));
    return invitationPage(c, token, invitation, ['Too many attempts. Try again later.'], 429);
  }
  const login = await findOwnerByEmail(db, email);
  if (!login || !(await verifyPassword(password, login.passwordHash)))
    return invitationPage(c, token, invitation, ['The password is incorrect.'], 422);
  await loginSucceeded(db, email, address);
  return login.id;
}

/** `POST /invitations/{token}`: the invited person proves who they are, then joins. */
async function accept(c: Context<AppEnv>) {
  const db = createDb(c.env.DB);
  const token = c.req.param('token') ?? '';
  const invitation = await invitationOf(db, token);
  if (!invitation) throw unusable();
  const email = invitation.member.email;
  const joined = `/websites?joined=${invitation.site.id}`;
  const way = wayOf(c, invitation);
  if (way === 'new') {
    const password = formText((await c.req.parseBody()).password);
    const errors = validateNewPassword(password);
    if (errors) return invitationPage(c, token, invitation, errors, 422);
    const made = await acceptWithNewLogin(db, invitation, token, await hashPassword(password));
    if (made === 'gone') throw unusable();
    // The address got a login meanwhile: it is accepted with that login's password.
    if (made === 'taken') return c.redirect(`/invitations/${token}`, 303);
    await signIn(c, { id: made, email });
    return c.redirect(joined, 303);
  }
  let personId: number;
  if (way === 'session') {
    await requireCsrf(c);
    personId = signedInOwner(c).id;
  } else {
    const password = formText((await c.req.parseBody()).password);
    const login = await passwordLogin(c, db, token, invitation, password);
    if (login instanceof Response) return login;
    personId = login;
  }
  if ((await acceptInvitation(db, invitation, token, personId)) === 'gone') throw unusable();
  if (way === 'password') await signIn(c, { id: personId, email });
  return c.redirect(joined, 303);
}

export function createInvitationPages() {
  const pages = new Router<AppEnv>();
  pages.get('/:token', async (c) => {
    const token = c.req.param('token');
    const invitation = await invitationOf(createDb(c.env.DB), token);
    if (!invitation) throw unusable();
    return invitationPage(c, token, invitation);
  });
  pages.post('/:token', accept);
  return pages;
}
