/**
 * `/account`: rotate the API key (the new key is shown once; the old one stops working at
 * once) and change the password, with the same rules as the CLI. Changing the password ends
 * every other session; wrong current passwords are throttled like logins.
 */
import { eq } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { rotateApiKey } from '../accounts/api-keys.ts';
import { validateNewPassword } from '../accounts/owners.ts';
import { hashPassword, verifyPassword } from '../accounts/password.ts';
import { deleteOwnerSessions } from '../accounts/sessions.ts';
import { clearFailures, consumeAttempt } from '../accounts/throttle.ts';
import { createDb } from '../db/client.ts';
import { owners } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import type { FieldErrors } from '../lib/errors.ts';
import { Field, render } from './layout.tsx';
import { csrfToken, requireCsrf, requireOwner, signIn } from './session.ts';

type Notice = { apiKey?: string; saved?: boolean; errors?: FieldErrors };

export function createAccountPages() {
  const account = new Hono<AppEnv>();
  account.use('*', requireOwner());
  const owner = (c: Context<AppEnv>) => c.get('owner') as { id: number; email: string };

  const accountPage = async (
    c: Context<AppEnv>,
    notice: Notice = {},
    status: 200 | 422 | 429 = 200,
  ) => {
    const csrf = await csrfToken(c);
    return render(
      c,
      {
        title: 'Account',
        children: (
          <>
            <h1>Account</h1>
            <p>Signed in as {owner(c).email}.</p>
            <section class="card" aria-labelledby="key-title">
              <h2 id="key-title">API key</h2>
              {notice.apiKey ? (
                <>
                  <p class="notice" role="status">
                    Your new API key — shown only now. The previous key no longer works.
                  </p>
                  <pre id="api-key">{notice.apiKey}</pre>
                  <button type="button" class="secondary" data-copy="api-key">
                    Copy
                  </button>
                </>
              ) : (
                <p>
                  Your key is stored only as a hash and cannot be shown again. Make a new one if it
                  was lost.
                </p>
              )}
              <form method="post" action="/account/api-key" class="actions">
                <input type="hidden" name="_csrf" value={csrf} />
                <button type="submit" class="secondary">
                  Make a new API key
                </button>
              </form>
            </section>
            <section class="card" aria-labelledby="password-title">
              <h2 id="password-title">Password</h2>
              {notice.saved ? (
                <p class="notice" role="status">
                  Password changed. Other sessions were signed out.
                </p>
              ) : null}
              <form method="post" action="/account/password" class="stack" novalidate>
                <input type="hidden" name="_csrf" value={csrf} />
                <Field
                  label="Current password"
                  name="current_password"
                  error={notice.errors?.current_password}
                >
                  <input
                    id="current_password"
                    name="current_password"
                    type="password"
                    autocomplete="current-password"
                    required
                  />
                </Field>
                <Field
                  label="New password"
                  name="password"
                  hint="8 to 128 characters."
                  error={notice.errors?.password}
                >
                  <input
                    id="password"
                    name="password"
                    type="password"
                    autocomplete="new-password"
                    required
                    minlength={8}
                  />
                </Field>
                <Field
                  label="Repeat the new password"
                  name="password_confirmation"
                  error={notice.errors?.password_confirmation}
                >
                  <input
                    id="password_confirmation"
                    name="password_confirmation"
                    type="password"
                    autocomplete="new-password"
                    required
                  />
                </Field>
                <div class="actions">
                  <button type="submit">Change password</button>
                </div>
              </form>
            </section>
          </>
        ),
      },
      status,
    );
  };

  account.get('/', (c) => accountPage(c, { saved: c.req.query('saved') === '1' }));

  account.post('/api-key', async (c) => {
    await requireCsrf(c);
    const apiKey = await rotateApiKey(createDb(c.env.DB), owner(c).id);
    return accountPage(c, { apiKey });
  });

  account.post('/password', async (c) => {
    const body = await c.req.parseBody();
    await requireCsrf(c);
    const db = createDb(c.env.DB);
    const key = ['password', String(owner(c).id)];
    const wait = await consumeAttempt(db, key);
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      return accountPage(
        c,
        { errors: { current_password: ['Too many attempts. Try again later.'] } },
        429,
      );
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const row = await db
      .select()
      .from(owners)
      .where(eq(owners.id, owner(c).id))
      .get();
    const errors: FieldErrors = {};
    if (!row || !(await verifyPassword(text(body.current_password), row.passwordHash))) {
      errors.current_password = ['The current password is incorrect.'];
    } else {
      await clearFailures(db, key);
    }
    const problems = validateNewPassword(text(body.password));
    if (problems) errors.password = problems;
    else if (text(body.password) !== text(body.password_confirmation)) {
      errors.password_confirmation = ['The password confirmation does not match.'];
    }
    if (Object.keys(errors).length > 0) return accountPage(c, { errors }, 422);
    const now = Date.now();
    await db
      .update(owners)
      .set({ passwordHash: await hashPassword(text(body.password)), updatedAt: now })
      .where(eq(owners.id, owner(c).id))
      .run();
    // Every session ends (a stolen one too); this browser gets a fresh one.
    await deleteOwnerSessions(db, owner(c).id);
    await signIn(c, owner(c));
    return c.redirect('/account?saved=1', 303);
  });

  return account;
}
