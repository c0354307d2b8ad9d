/**
 * The Worker's side of the event log: the website's object, and read-your-writes — before a
 * reader sums roll-ups, the website's log rolls up whatever it holds (docs/ARCHITECTURE.md,
 * The path of a number).
 */
import type { Env } from '../env.ts';
import { tryAgainSoon } from '../lib/errors.ts';
import { logError } from '../lib/log.ts';
import type { LogHit } from './events.ts';
import type { LogRead } from './log-types.ts';

/** The event log of a website: its Durable Object, named by the website's id. */
export function websiteLog(env: Env, websiteId: number) {
  return env.WEBSITE_LOG.get(env.WEBSITE_LOG.idFromName(`website:${websiteId}`));
}

/** Tries of a commit: its stage is durable, so a passing failure is worth another try. */
const COMMIT_TRIES = 3;

/**
 * Stores the hits of one tracker call, each in its website's log, answering once every one
 * is durable. One hit: `record`. Several (a call naming several websites): every log stages
 * its hit, then — only once all have — commits it; a failure before that aborts the staged
 * ones, so the call counts in every log or in none (docs/ARCHITECTURE.md, The event log) —
 * but for one gap: a commit that still fails after its tries while another log's commit
 * went through leaves the call counted there (logged; the caller answers 503).
 * A failure throws: the caller answers 503.
 */
export async function storeInLogs(env: Env, hits: LogHit[]): Promise<void> {
  const [only] = hits;
  if (hits.length === 1 && only) {
    if (!(await websiteLog(env, only.websiteId).record(only)).ok) throw new LogRefused('record');
    return;
  }
  const token = crypto.randomUUID();
  const logs = hits.map((hit) => websiteLog(env, hit.websiteId));
  try {
    const staged = await Promise.all(hits.map((hit, i) => logs[i]?.stage(token, hit)));
    if (!staged.every((s) => s?.ok)) throw new LogRefused('stage');
  } catch (err) {
    await Promise.allSettled(logs.map((log) => log.abort(token)));
    throw err;
  }
  await Promise.all(
    logs.map(async (log) => {
      for (let attempt = 1; ; attempt++) {
        let ok = false;
        try {
          ok = (await log.commit(token)).ok;
        } catch (err) {
          if (attempt >= COMMIT_TRIES) throw err;
        }
        if (ok) return;
        if (attempt >= COMMIT_TRIES) throw new LogRefused('commit');
      }
    }),
  );
}

/** A log answered that it could not store a hit (it logged why). */
class LogRefused extends Error {
  constructor(step: string) {
    super(`the event log could not ${step} the hit`);
  }
}

/** Deletes everything a deleted website's log stores (the purge of its data). */
export async function destroyLog(env: Env, websiteId: number): Promise<void> {
  await websiteLog(env, websiteId).destroy();
}

/**
 * Reads the website's log (`statistic`, `sums`): the value, or the first date it holds
 * whole when the range starts earlier. A log that cannot answer makes the read a 503.
 */
export async function readLog<T>(
  env: Env,
  websiteId: number,
  read: (log: ReturnType<typeof websiteLog>) => Promise<LogRead<T>>,
): Promise<{ ok: true; value: T; rowsRead: number } | { ok: false; firstDate: string }> {
  let answer: LogRead<T> = { ok: false };
  try {
    answer = await read(websiteLog(env, websiteId));
  } catch (err) {
    logError('event log not reached', { websiteId }, err);
  }
  if (answer.ok) return answer;
  if (answer.firstDate) return { ok: false, firstDate: answer.firstDate };
  throw tryAgainSoon('The statistics could not be read; try again in a moment.');
}

/**
 * Rolls the website's log up into D1 before its statistics are read, so that every hit
 * answered 202 is in the answer. A log that cannot flush (D1 or the object unreachable) makes
 * the read a 503 with `Retry-After`: an answer without those hits would be wrong.
 */
export async function flushBeforeReading(env: Env, websiteId: number): Promise<void> {
  let ok = false;
  try {
    ok = (await websiteLog(env, websiteId).flush()).ok;
  } catch (err) {
    logError('event log not reached', { websiteId }, err);
  }
  if (!ok) throw tryAgainSoon('The statistics are being updated; try again in a moment.');
}
