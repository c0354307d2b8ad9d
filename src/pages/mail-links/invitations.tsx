/**
 * Accepting an invitation (docs/ARCHITECTURE.md, "Members"): with the session of the invited
 * address, its login's password, or a password chosen for a new login. The e-mail's link is
 * `/invitations#{token}`: the token after `#` is never sent, and travels on in the forms'
 * bodies (docs/ARCHITECTURE.md, "Secrets out of addresses"). A link of the old form,
 * `/invitations/{token}`, still opens the same page.
 */
import type { Context } from 'hono';
import { Hono as Router } from 'hono';
import type { FC } from 'hono/jsx';
import { checkLogin } from '../../accounts/sign-in.ts';
import { createDb, type Database } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { csrfToken, requireCsrf, signedInOwner, signIn } from '../../http/session.ts';
import { ApiError } from '../../lib/errors.ts';
import { clientAddressKey } from '../../lib/ip.ts';
import { ROLE_MEANING } from '../../members/invitation-mail.ts';
import {
  acceptInvitation,
  acceptWithNewLogin,
  type Invitation,
  invitationOf,
} from '../../members/members.ts';
import type { MemberRole } from '../../websites/queries.ts';
import { PasswordField } from '../account/credential-fields.tsx';
import { CODE_FIELD, FragmentForm } from '../layout/fragment-form.tsx';
import { render } from '../layout/layout.tsx';

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

/** The invitation's page: its form posts the token in its body, never in its address. */
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
          <form method="post" action="/invitations" class="stack card" novalidate>
            <input type="hidden" name={CODE_FIELD} value={token} />
            <input type="hidden" name="accept" value="1" />
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
 * The login of the invited address, proven by its password (checked as a log-in is:
 * src/accounts/sign-in.ts); else the page again with the reason.
 */
async function passwordLogin(
  c: Context<AppEnv>,
  db: Database,
  token: string,
  invitation: Invitation,
  password: string,
): Promise<number | Response> {
  const login = await checkLogin(db, invitation.member.email, password, clientAddressKey(c));
  if (!login.ok && login.retryAfter) {
    c.header('Retry-After', String(login.retryAfter));
    return invitationPage(c, token, invitation, ['Too many attempts. Try again later.'], 429);
  }
  if (!login.ok) return invitationPage(c, token, invitation, ['The password is incorrect.'], 422);
  return login.owner.id;
}

/** The invited person proves who they are, then joins. */
async function accept(c: Context<AppEnv>, db: Database, token: string, invitation: Invitation) {
  const email = invitation.member.email;
  const joined = `/websites?joined=${invitation.site.id}`;
  const way = wayOf(c, invitation);
  const password = formText((await c.req.parseBody()).password);
  if (way === 'new') {
    const made = await acceptWithNewLogin(db, invitation, token, password);
    if (typeof made === 'object')
      return invitationPage(c, token, invitation, made.passwordErrors, 422);
    if (made === 'gone') throw unusable();
    // The address got a login meanwhile: it is accepted with that login's password.
    if (made === 'taken') return opened(c, db, token);
    await signIn(c, { id: made, email });
    return c.redirect(joined, 303);
  }
  let personId: number;
  if (way === 'session') {
    await requireCsrf(c);
    personId = signedInOwner(c).id;
  } else {
    const login = await passwordLogin(c, db, token, invitation, password);
    if (login instanceof Response) return login;
    personId = login;
  }
  if ((await acceptInvitation(db, invitation, token, personId)) === 'gone') throw unusable();
  if (way === 'password') await signIn(c, { id: personId, email });
  return c.redirect(joined, 303);
}

/** The page of the invitation `token` opens; the 404 when it opens none (any more). */
async function opened(c: Context<AppEnv>, db: Database, token: string) {
  const invitation = await invitationOf(db, token);
  if (!invitation) throw unusable();
  return invitationPage(c, token, invitation);
}

/**
 * `GET /invitations` (the e-mail's link: the page that sends the token after `#` on),
 * `POST /invitations` (the token, and with `accept` the invited person's proof), and
 * `GET /invitations/{token}` (a link of the old form).
 */
export function createInvitationPages() {
  const pages = new Router<AppEnv>();
  pages.get('/', (c) =>
    render(c, {
      title: 'Invitation',
      children: (
        <>
          <h1>Invitation</h1>
          <FragmentForm
            action="/invitations"
            label="The code of the invitation (after # in the e-mail's link)"
            button="Open the invitation"
            auto
          />
        </>
      ),
    }),
  );
  pages.post('/', async (c) => {
    const db = createDb(c.env.DB);
    const body = await c.req.parseBody();
    const token = formText(body[CODE_FIELD]).trim();
    if (formText(body.accept) !== '1') return opened(c, db, token);
    const invitation = await invitationOf(db, token);
    if (!invitation) throw unusable();
    return accept(c, db, token, invitation);
  });
  pages.get('/:token', (c) => opened(c, createDb(c.env.DB), c.req.param('token')));
  return pages;
}
