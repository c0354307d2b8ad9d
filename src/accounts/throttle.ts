/**
 * Throttling password guesses: at most `THROTTLE_LIMIT` attempts per key in a window; then
 * attempts are refused until the window ends. Keys are hashed (an IP or an e-mail is never
 * stored). Attempts are counted before the password is checked, in one statement, so that
 * concurrent guesses cannot all slip past the limit.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { throttles } from '../db/schema.ts';
import { sha256Hex } from '../lib/crypto.ts';

const THROTTLE_LIMIT = 5;
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

const keyOf = (parts: string[]) => sha256Hex(`throttle\u0000${parts.join('\u0000')}`);

/**
 * Counts an attempt and returns the seconds to wait when it is over the limit (0 when it
 * may go ahead). A new window starts when the old one is over.
 */
export async function consumeAttempt(
  db: Database,
  parts: string[],
  now = Date.now(),
): Promise<number> {
  const row = await db
    .insert(throttles)
    .values({ key: await keyOf(parts), failures: 1, resetAt: now + THROTTLE_WINDOW_MS })
    .onConflictDoUpdate({
      target: throttles.key,
      set: {
        failures: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN 1 ELSE ${throttles.failures} + 1 END`,
        resetAt: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN ${now + THROTTLE_WINDOW_MS} ELSE ${throttles.resetAt} END`,
      },
    })
    .returning()
    .get();
  return row && row.failures > THROTTLE_LIMIT ? Math.ceil((row.resetAt - now) / 1000) : 0;
}

/** Gives back an attempt that turned out to be a success (the IP's count after a login). */
export async function refundAttempt(db: Database, parts: string[]): Promise<void> {
  await db
    .update(throttles)
    .set({ failures: sql`max(${throttles.failures} - 1, 0)` })
    .where(eq(throttles.key, await keyOf(parts)))
    .run();
}

/** Forgets a key's attempts (after a success). */
export async function clearFailures(db: Database, parts: string[]): Promise<void> {
  await db
    .delete(throttles)
    .where(eq(throttles.key, await keyOf(parts)))
    .run();
}
