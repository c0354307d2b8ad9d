/**
 * Signing in and signing up, as the log-in, registration and invitation pages ask them: a
 * throttled password check (src/accounts/throttle.ts) and who may register. The pages render
 * what these return and start the session.
 */
import { count } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { owners } from '../db/schema.ts';
import { createOwner, EmailTakenError, findOwnerByEmail, normalizeEmail } from './owners.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { consumeLoginAttempt, loginSucceeded } from './throttle.ts';

/** A well-formed hash no password matches, verified for unknown e-mails to even out timing. */
const UNKNOWN_OWNER_HASH =
  'pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export type LoginCheck =
  | { ok: true; owner: { id: number; email: string } }
  | { ok: false; retryAfter?: number };

/**
 * Whether `password` is the password of the login of `email`, asked from `address`. Every
 * attempt is counted before the password is checked, so concurrent guesses cannot all get
 * past the limit; refusals are per address and per (e-mail, address), so failures from
 * other addresses never refuse the owner (see consumeLoginAttempt). The password is verified
 * even for an unknown e-mail, so the answer takes as long either way.
 */
export async function checkLogin(
  db: Database,
  rawEmail: string,
  password: string,
  address: string,
): Promise<LoginCheck> {
  const email = normalizeEmail(rawEmail);
  const wait = await consumeLoginAttempt(db, email, address);
  if (wait > 0) return { ok: false, retryAfter: wait };
  const owner = email ? await findOwnerByEmail(db, email) : undefined;
  const ok = await verifyPassword(password, owner?.passwordHash ?? UNKNOWN_OWNER_HASH);
  if (!owner || !ok) return { ok: false };
  await loginSucceeded(db, email, address);
  return { ok: true, owner: { id: owner.id, email: owner.email } };
}

/** Whether anyone may register: when registration is open, or while no owner exists. */
export async function registrationOpen(db: Database, setting: string | undefined) {
  if (setting === 'open') return true;
  const row = await db.select({ n: count() }).from(owners).get();
  return (row?.n ?? 0) === 0;
}

/**
 * Open registration: one answer whether or not the address already has an account, at the
 * same cost (a password hash either way), so sign-up tells nobody which addresses exist.
 */
export async function registerOpenly(db: Database, email: string, password: string) {
  try {
    await createOwner(db, { email, password });
  } catch (err) {
    if (!(err instanceof EmailTakenError)) throw err;
    await hashPassword(password);
  }
}
