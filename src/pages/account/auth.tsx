/**
 * Signing up, in and out. The first owner can always sign up; more only when the
 * `REGISTRATION` variable is `open`. Failed logins are throttled per client address and per
 * e-mail from that address; the messages never tell whether an e-mail is registered.
 */
import { type Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { createOwner, normalizeEmail, validateOwnerInput } from '../../accounts/owners.ts';
import { checkLogin, registerOpenly, registrationOpen } from '../../accounts/sign-in.ts';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { clearSessionCookie, requireCsrf, signIn } from '../../http/session.ts';
import { deleteSession, SESSION_COOKIE } from '../../http/sessions.ts';
import type { FieldErrors } from '../../lib/errors.ts';
import { clientAddressKey } from '../../lib/ip.ts';
import { render } from '../layout/layout.tsx';
import { EmailField, PasswordField, ShownApiKey } from './credential-fields.tsx';

function LoginForm({ email, error }: { email?: string; error?: string }) {
  return (
    <form method="post" action="/login" class="stack card" novalidate>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <EmailField value={email} />
      <PasswordField label="Password" name="password" autocomplete="current-password" />
      <div class="actions">
        <button type="submit">Log in</button>
      </div>
    </form>
  );
}

function RegisterForm({ email, errors }: { email?: string; errors?: FieldErrors }) {
  return (
    <form method="post" action="/register" class="stack card" novalidate>
      <EmailField value={email} error={errors?.email} />
      <PasswordField
        label="Password"
        name="password"
        autocomplete="new-password"
        minLength={8}
        hint="8 to 128 characters."
        error={errors?.password}
      />
      <div class="actions">
        <button type="submit">Create account</button>
      </div>
    </form>
  );
}

async function loginPage(
  c: Context<AppEnv>,
  form: { email?: string; error?: string; registered?: boolean },
  status: 200 | 422 | 429 = 200,
) {
  const open = await registrationOpen(createDb(c.env.DB), c.env.REGISTRATION);
  return render(
    c,
    {
      title: 'Log in',
      children: (
        <>
          <h1>Log in</h1>
          {form.registered ? (
            <p class="notice" role="status">
              Thank you. Sign in with your e-mail address and password. If the address already had
              an account, sign in with that account's password.
            </p>
          ) : null}
          <LoginForm {...form} />
          {open ? (
            <p>
              No account yet? <a href="/register">Create one</a>.
            </p>
          ) : null}
        </>
      ),
    },
    status,
  );
}

function registrationClosedPage(c: Context<AppEnv>) {
  return render(
    c,
    {
      title: 'Sign up',
      children: (
        <>
          <h1>Sign up</h1>
          <p>
            Registration is closed. Ask the owner of this Sightline to create an account for you.
          </p>
        </>
      ),
    },
    403,
  );
}

function registerPage(
  c: Context<AppEnv>,
  form: { email?: string; errors?: FieldErrors },
  status: 200 | 422 = 200,
) {
  return render(
    c,
    {
      title: 'Sign up',
      children: (
        <>
          <h1>Create your account</h1>
          <RegisterForm {...form} />
        </>
      ),
    },
    status,
  );
}

/** The first owner's welcome: their API key, shown only this once. */
function welcomePage(c: Context<AppEnv>, apiKey: string) {
  return render(
    c,
    {
      title: 'Welcome',
      children: (
        <>
          <h1>Welcome to Sightline</h1>
          <div class="card">
            <p>
              Your API key — shown only now. Store it safely; you can make a new one on your account
              page.
            </p>
            <ShownApiKey apiKey={apiKey} />
          </div>
          <p>
            <a class="button" href="/websites/new">
              Add your first website
            </a>
          </p>
        </>
      ),
    },
    201,
  );
}

/** `POST /login`: a throttled password check (src/accounts/sign-in.ts), then a session. */
async function logIn(c: Context<AppEnv>) {
  const body = await c.req.parseBody();
  const email = normalizeEmail(formText(body.email));
  const db = createDb(c.env.DB);
  const login = await checkLogin(db, email, formText(body.password), clientAddressKey(c));
  if (!login.ok && login.retryAfter) {
    c.header('Retry-After', String(login.retryAfter));
    const minutes = Math.ceil(login.retryAfter / 60);
    return loginPage(
      c,
      { email, error: `Too many attempts. Try again in ${minutes} minutes.` },
      429,
    );
  }
  if (!login.ok)
    return loginPage(c, { email, error: 'These credentials do not match our records.' }, 422);
  await signIn(c, login.owner);
  return c.redirect('/websites', 303);
}

/** `POST /register`: a new owner, when registration is open or no owner exists yet. */
async function register(c: Context<AppEnv>) {
  const db = createDb(c.env.DB);
  if (!(await registrationOpen(db, c.env.REGISTRATION))) return registrationClosedPage(c);
  const body = await c.req.parseBody();
  const email = formText(body.email);
  const password = formText(body.password);
  const errors = validateOwnerInput(email, password);
  if (Object.keys(errors).length > 0) return registerPage(c, { email, errors }, 422);
  if (c.env.REGISTRATION === 'open') {
    await registerOpenly(db, email, password);
    return c.redirect('/login?registered=1', 303);
  }
  // The first owner: "only if no owner exists yet" is part of the insert itself.
  const created = await createOwner(db, { email, password }, Date.now(), { onlyFirst: true });
  if (created === null) return registrationClosedPage(c);
  await signIn(c, created);
  return welcomePage(c, created.apiKey);
}

/** `POST /logout`: ends this session (a signed-in one only after its CSRF token is checked). */
async function logOut(c: Context<AppEnv>) {
  const token = getCookie(c, SESSION_COOKIE);
  if (token && c.get('owner')) {
    await requireCsrf(c);
    await deleteSession(createDb(c.env.DB), token);
  }
  clearSessionCookie(c);
  return c.redirect('/login', 303);
}

export function createAuthPages() {
  const auth = new Hono<AppEnv>();
  auth.get('/login', async (c) =>
    c.get('owner')
      ? c.redirect('/websites', 303)
      : loginPage(c, { registered: c.req.query('registered') === '1' }),
  );
  auth.post('/login', logIn);
  auth.get('/register', async (c) =>
    (await registrationOpen(createDb(c.env.DB), c.env.REGISTRATION))
      ? registerPage(c, {})
      : registrationClosedPage(c),
  );
  auth.post('/register', register);
  auth.post('/logout', logOut);
  return auth;
}
