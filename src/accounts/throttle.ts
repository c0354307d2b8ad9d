/**
 * Throttling password guesses: at most `THROTTLE_LIMIT` attempts per key in a window; then
 * attempts are refused until the window ends. Keys are hashed (an IP or an e-mail is never
 * stored). Attempts are counted before the password is checked, in one statement per key,
 * so that concurrent guesses cannot all slip past the limit.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { throttles } from '../db/schema.ts';
import { sha256Hex } from '../lib/crypto.ts';

const THROTTLE_LIMIT = 5;
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/**
 * Log-in failures for one e-mail, from all addresses together, past which the e-mail counts
 * as under attack: then an address that already failed for it gets no further guess until
 * its window ends. An address without failures is never refused because of the e-mail.
 */
const LOGIN_UNDER_ATTACK = 20;

const keyOf = (parts: string[]) => sha256Hex(`throttle\u0000${parts.join('\u0000')}`);

/** A key's attempts in its current window, the one just counted included. */
type Attempts = { failures: number; resetAt: number };

/**
 * Counts an attempt against each key, all in one transaction, and returns each key's count.
 * A new window starts for a key whose old one is over.
 */
async function countAttempts(
  db: Database,
  keys: string[][],
  now = Date.now(),
  windowMs = THROTTLE_WINDOW_MS,
): Promise<Attempts[]> {
  const hashed = await Promise.all(keys.map(keyOf));
  // Built after the hashing: a query builder is a thenable, so an `await` would run it.
  const statements = hashed.map((key) =>
    db
      .insert(throttles)
      .values({ key, failures: 1, resetAt: now + windowMs })
      .onConflictDoUpdate({
        target: throttles.key,
        set: {
          failures: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN 1 ELSE ${throttles.failures} + 1 END`,
          resetAt: sql`CASE WHEN ${throttles.resetAt} <= ${now} THEN ${now + windowMs} ELSE ${throttles.resetAt} END`,
        },
      })
      .returning({ failures: throttles.failures, resetAt: throttles.resetAt }),
  );
  const [first, ...rest] = statements;
  if (!first) return [];
  const results = await db.batch([first, ...rest]);
  return results.map((rows) => rows[0] ?? { failures: 0, resetAt: now });
}

/** Seconds to wait when `attempts` is over `limit`, else 0. */
const waitFor = (attempts: Attempts, limit: number, now: number) =>
  attempts.failures > limit ? Math.max(1, Math.ceil((attempts.resetAt - now) / 1000)) : 0;

/**
 * Counts an attempt and returns the seconds to wait when it is over the limit (0 when it
 * may go ahead): by default 5 attempts in 15 minutes, else `rule`'s.
 */
export async function consumeAttempt(
  db: Database,
  parts: string[],
  now = Date.now(),
  rule = { limit: THROTTLE_LIMIT, windowMs: THROTTLE_WINDOW_MS },
): Promise<number> {
  const [attempts] = await countAttempts(db, [parts], now, rule.windowMs);
  return attempts ? waitFor(attempts, rule.limit, now) : 0;
}

/**
 * The log-in form's throttle keys: the client address (an IPv6 client by its /64, see
 * `addressKey`), the e-mail from that address, and the e-mail from everywhere.
 */
const loginKeys = (email: string, address: string) => ({
  address: ['ip', address],
  pair: ['login', email, address],
  email: ['login-email', email],
});

/**
 * Counts a log-in attempt before its password is checked and returns the seconds to wait
 * (0 when it may go ahead). Refused: an address past the limit (whatever e-mails it tried),
 * and an address past the limit for this e-mail — a limit of one failure while the e-mail is
 * under attack from many addresses. Never refused: an address without failures, however
 * many other addresses failed for the e-mail, so strangers cannot lock an owner out.
 */
export async function consumeLoginAttempt(
  db: Database,
  email: string,
  address: string,
  now = Date.now(),
): Promise<number> {
  const keys = loginKeys(email, address);
  const [perAddress, perPair, perEmail] = await countAttempts(
    db,
    [keys.address, keys.pair, keys.email],
    now,
  );
  if (!perAddress || !perPair || !perEmail) return 0;
  const pairLimit = perEmail.failures > LOGIN_UNDER_ATTACK ? 1 : THROTTLE_LIMIT;
  return Math.max(waitFor(perAddress, THROTTLE_LIMIT, now), waitFor(perPair, pairLimit, now));
}

/**
 * After a successful log-in: the e-mail's failures from this address are forgotten, and the
 * attempt just counted is given back to the address and to the e-mail's total.
 */
export async function loginSucceeded(db: Database, email: string, address: string) {
  const keys = loginKeys(email, address);
  await Promise.all([
    clearFailures(db, keys.pair),
    refundAttempt(db, keys.address),
    refundAttempt(db, keys.email),
  ]);
}

/**
 * Wrong guesses at one statistics password — a website's or one shared link's — from all
 * addresses together, past which the password counts as under attack: then an address that
 * already failed for it gets no further guess until its window ends. As for log-ins, an
 * address without failures is never refused because of others, so no one can lock the
 * website's form, or a link, for everyone (see docs/SECURITY.md).
 */
const STATS_PASSWORD_UNDER_ATTACK = 30;

/** What a statistics password guards: a website's pages, or one shared link. */
export type StatsPassword = { kind: 'site' | 'link'; id: number };

const statsPasswordKeys = (guarded: StatsPassword, address: string) => ({
  pair: ['stats', guarded.kind, String(guarded.id), address],
  all: ['stats-all', guarded.kind, String(guarded.id)],
});

/**
 * Counts a guess at a statistics password before the password is hashed and returns the
 * seconds to wait (0 when it may go ahead): at most 5 per address (an IPv6 client by its
 * /64) and password in a window — one while the password is under attack.
 */
export async function consumeStatsPasswordAttempt(
  db: Database,
  guarded: StatsPassword,
  address: string,
  now = Date.now(),
): Promise<number> {
  const keys = statsPasswordKeys(guarded, address);
  const [perPair, perPassword] = await countAttempts(db, [keys.pair, keys.all], now);
  if (!perPair || !perPassword) return 0;
  const limit = perPassword.failures > STATS_PASSWORD_UNDER_ATTACK ? 1 : THROTTLE_LIMIT;
  return waitFor(perPair, limit, now);
}

/** After the right statistics password: the address's failures are forgotten, the attempt given back. */
export async function statsPasswordSucceeded(
  db: Database,
  guarded: StatsPassword,
  address: string,
) {
  const keys = statsPasswordKeys(guarded, address);
  await Promise.all([clearFailures(db, keys.pair), refundAttempt(db, keys.all)]);
}

/** Gives back an attempt that turned out to be a success (the IP's count after a login). */
async function refundAttempt(db: Database, parts: string[]): Promise<void> {
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
