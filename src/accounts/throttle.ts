/**
 * Throttling password guesses: at most `limit` failures per key in a window; then attempts
 * are refused until the window ends. Keys are hashed (an IP or an e-mail is never stored).
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { throttles } from '../db/schema.ts';
import { sha256Hex } from '../lib/crypto.ts';

export const THROTTLE_LIMIT = 5;
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

const keyOf = (parts: string[]) => sha256Hex(`throttle\u0000${parts.join('\u0000')}`);

/** Seconds until `parts` may try again, or 0 when an attempt is allowed now. */
export async function retryAfter(db: Database, parts: string[], now = Date.now()): Promise<number> {
  const row = await db
    .select()
    .from(throttles)
    .where(eq(throttles.key, await keyOf(parts)))
    .get();
  if (!row || row.resetAt <= now || row.failures < THROTTLE_LIMIT) return 0;
  return Math.ceil((row.resetAt - now) / 1000);
}

/** Records a failed attempt (a new window starts when the old one is over). */
export async function recordFailure(
  db: Database,
  parts: string[],
  now = Date.now(),
): Promise<void> {
  const key = await keyOf(parts);
  await db
    .insert(throttles)
    .values({ key, failures: 1, resetAt: now + THROTTLE_WINDOW_MS })
    .onConflictDoUpdate({
      target: throttles.key,
      set: {
        failures: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN 1 ELSE ${throttles.failures} + 1 END`,
        resetAt: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN ${now + THROTTLE_WINDOW_MS} ELSE ${throttles.resetAt} END`,
      },
    })
    .run();
}

export async function clearFailures(db: Database, parts: string[]): Promise<void> {
  await db
    .delete(throttles)
    .where(eq(throttles.key, await keyOf(parts)))
    .run();
}
