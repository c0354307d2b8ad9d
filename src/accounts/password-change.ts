/**
 * The password change, as the account page asks it: a throttled check of the current
 * password, the rules for the new one, then the new hash and the end of every session (a
 * stolen one too). The page renders what this returns and signs the browser in again.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { owners, sessions } from '../db/schema.ts';
import type { FieldErrors } from '../lib/errors.ts';
import { validateNewPassword } from './owners.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { clearFailures, consumeAttempt } from './throttle.ts';

export interface PasswordChange {
  current: string;
  password: string;
  confirmation: string;
}

export type PasswordChangeResult =
  | { ok: true }
  | { ok: false; errors: FieldErrors; retryAfter?: number };

/**
 * What is wrong with a change: a current password that does not match (a right one clears
 * the throttle's failures), a new one the rules refuse, or a confirmation that differs.
 */
async function changeErrors(
  db: Database,
  ownerId: number,
  throttleKey: string[],
  change: PasswordChange,
): Promise<FieldErrors> {
  const row = await db.select().from(owners).where(eq(owners.id, ownerId)).get();
  const errors: FieldErrors = {};
  if (!row || !(await verifyPassword(change.current, row.passwordHash))) {
    errors.current_password = ['The current password is incorrect.'];
  } else {
    await clearFailures(db, throttleKey);
  }
  const problems = validateNewPassword(change.password);
  if (problems) errors.password = problems;
  else if (change.password !== change.confirmation) {
    errors.password_confirmation = ['The password confirmation does not match.'];
  }
  return errors;
}

/**
 * Changes an owner's password, or says why not: `retryAfter` seconds when the throttle
 * refuses the attempt, field errors otherwise. On success every session of the owner ends.
 */
export async function changePassword(
  db: Database,
  ownerId: number,
  change: PasswordChange,
  now = Date.now(),
): Promise<PasswordChangeResult> {
  const key = ['password', String(ownerId)];
  const wait = await consumeAttempt(db, key);
  if (wait > 0) {
    return {
      ok: false,
      retryAfter: wait,
      errors: { current_password: ['Too many attempts. Try again later.'] },
    };
  }
  const errors = await changeErrors(db, ownerId, key, change);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  await db
    .update(owners)
    .set({ passwordHash: await hashPassword(change.password), updatedAt: now })
    .where(eq(owners.id, ownerId))
    .run();
  await db.delete(sessions).where(eq(sessions.ownerId, ownerId)).run();
  return { ok: true };
}
