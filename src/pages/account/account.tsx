/**
 * `/account`: rotate the API key and change the password, with the same rules as the CLI.
 * Making a new key asks first (the old one stops working at once); the key is then shown once,
 * after a redirect, so reloading the page shows it no more and never makes another: it goes
 * from the POST to the GET in a cookie of its own, read and deleted by that GET. Changing the
 * password ends every other session; wrong current passwords are throttled like logins.
 */
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { rotateApiKey } from '../../accounts/api-keys.ts';
import { changePassword } from '../../accounts/password-change.ts';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { csrfToken, requireCsrf, requireOwner, signedInOwner, signIn } from '../../http/session.ts';
import type { FieldErrors } from '../../lib/errors.ts';
import { render } from '../layout/layout.tsx';
import { PasswordField, ShownApiKey } from './credential-fields.tsx';

type Notice = { apiKey?: string; saved?: boolean; errors?: FieldErrors };

function ApiKeySection({ apiKey }: { apiKey?: string | undefined }) {
  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">API key</h2>
      {apiKey ? (
        <>
          <p class="notice" role="status">
            Your new API key — shown only now. The previous key, if any, no longer works.
          </p>
          <ShownApiKey apiKey={apiKey} />
        </>
      ) : (
        <p>
          The API reads your websites with your key. It is stored only as a hash, so it is shown
          only when made: make one if you have none (a login made by an invitation starts without
          one) or if it was lost.
        </p>
      )}
      <p class="actions">
        <a href="/account/api-key" class="button secondary">
          Make a new API key…
        </a>
      </p>
    </section>
  );
}

/** The cookie that carries a new key from the POST that made it to the page that shows it. */
const NEW_KEY_COOKIE = 'sl_new_key';
const NEW_KEY_PATH = '/account';

/** `GET /account/api-key`: what making a new key does, and the button that does it. */
async function confirmRotation(c: Context<AppEnv>) {
  return render(c, {
    title: 'Make a new API key',
    children: (
      <>
        <h1>Make a new API key?</h1>
        <p>
          Your current API key stops working at once: every script, integration or assistant that
          uses it gets <code>401 Unauthenticated</code> until it is given the new one. The new key
          is shown once, on the next page.
        </p>
        <form method="post" action="/account/api-key" class="actions">
          <input type="hidden" name="_csrf" value={await csrfToken(c)} />
          <input type="hidden" name="confirm" value="1" />
          <button type="submit" class="danger">
            Make a new key and stop the current one
          </button>
          <a href="/account">Cancel</a>
        </form>
      </>
    ),
  });
}

function PasswordSection({ csrf, notice }: { csrf: string; notice: Notice }) {
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      {notice.saved ? (
        <p class="notice" role="status">
          Password changed. Other sessions were signed out.
        </p>
      ) : null}
      <form method="post" action="/account/password" class="stack" novalidate>
        <input type="hidden" name="_csrf" value={csrf} />
        <PasswordField
          label="Current password"
          name="current_password"
          autocomplete="current-password"
          error={notice.errors?.current_password}
        />
        <PasswordField
          label="New password"
          name="password"
          autocomplete="new-password"
          minLength={8}
          hint="8 to 128 characters."
          error={notice.errors?.password}
        />
        <PasswordField
          label="Repeat the new password"
          name="password_confirmation"
          autocomplete="new-password"
          error={notice.errors?.password_confirmation}
        />
        <div class="actions">
          <button type="submit">Change password</button>
        </div>
      </form>
    </section>
  );
}

async function accountPage(c: Context<AppEnv>, notice: Notice = {}, status: 200 | 422 | 429 = 200) {
  const csrf = await csrfToken(c);
  return render(
    c,
    {
      title: 'Account',
      children: (
        <>
          <h1>Account</h1>
          <p>Signed in as {signedInOwner(c).email}.</p>
          <ApiKeySection apiKey={notice.apiKey} />
          <PasswordSection csrf={csrf} notice={notice} />
        </>
      ),
    },
    status,
  );
}

/**
 * `POST /account/api-key` (from the confirmation: `confirm=1`, else the confirmation again): a
 * new key, the old one stopped at once; then the account page, which shows it once.
 */
async function rotateKey(c: Context<AppEnv>) {
  const body = await c.req.parseBody();
  await requireCsrf(c);
  if (body.confirm !== '1') return confirmRotation(c);
  const apiKey = await rotateApiKey(createDb(c.env.DB), signedInOwner(c).id);
  setCookie(c, NEW_KEY_COOKIE, apiKey, {
    httpOnly: true,
    secure: true,
    sameSite: 'Strict',
    path: NEW_KEY_PATH,
    maxAge: 300,
  });
  return c.redirect('/account?key=new', 303);
}

/** `GET /account`: the page, with the new key when one was just made (then never again). */
function showAccount(c: Context<AppEnv>) {
  const apiKey = getCookie(c, NEW_KEY_COOKIE);
  if (apiKey !== undefined) deleteCookie(c, NEW_KEY_COOKIE, { path: NEW_KEY_PATH, secure: true });
  return accountPage(c, {
    saved: c.req.query('saved') === '1',
    ...(apiKey?.startsWith('sl_') ? { apiKey } : {}),
  });
}

/** `POST /account/password`: the change (src/accounts/password-change.ts), then a fresh session. */
async function changePasswordPage(c: Context<AppEnv>) {
  const body = await c.req.parseBody();
  await requireCsrf(c);
  const owner = signedInOwner(c);
  const result = await changePassword(createDb(c.env.DB), owner.id, {
    current: formText(body.current_password),
    password: formText(body.password),
    confirmation: formText(body.password_confirmation),
  });
  if (!result.ok) {
    if (result.retryAfter) c.header('Retry-After', String(result.retryAfter));
    return accountPage(c, { errors: result.errors }, result.retryAfter ? 429 : 422);
  }
  // Every session has ended (a stolen one too); this browser gets a fresh one.
  await signIn(c, owner);
  return c.redirect('/account?saved=1', 303);
}

export function createAccountPages() {
  const account = new Hono<AppEnv>();
  account.use('*', requireOwner());
  account.get('/', showAccount);
  account.get('/api-key', confirmRotation);
  account.post('/api-key', rotateKey);
  account.post('/password', changePasswordPage);
  return account;
}
