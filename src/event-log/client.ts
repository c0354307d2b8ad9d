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
import type { Settlement } from './staging.ts';
import type { LogStorage } from './storage-reads.ts';
import { websiteLog } from './stub.ts';

/** Tries of a commit: its stage is durable, so a passing failure is worth another try. */
const COMMIT_TRIES = 3;

/**
 * Stores the hits of one tracker call, each in its website's log, answering once every one
 * is durable. One hit: `record`. Several (a call naming several websites): each log stages
 * its hit, then the first website's log — the leader — commits its own, which decides the
 * call (./staging.ts, docs/ARCHITECTURE.md "A call that names several websites"). Once the
 * leader has committed, the call is counted everywhere: the others commit now or, failing
 * that, learn it from the leader a minute later; the call is answered 202. A stage that fails,
 * or a leader that aborted, drops the call everywhere; a failure throws (the caller answers
 * 503) and nothing is counted — but when the leader's answer itself is lost, which the
 * others then follow whichever way it went.
 */
export async function storeInLogs(env: Env, hits: LogHit[]): Promise<void> {
  const [only] = hits;
  if (hits.length === 1 && only) {
    if (!(await websiteLog(env, only.websiteId).record(only)).ok)
      throw new LogRefused('record the hit');
    return;
  }
  const token = crypto.randomUUID();
  const logs = hits.map((hit) => websiteLog(env, hit.websiteId));
  const [leader, ...others] = logs;
  if (!leader || !only) return;
  const abortOthers = () => Promise.allSettled(others.map((log) => log.abort(token)));
  try {
    const staged = await Promise.all(
      hits.map((hit, i) => logs[i]?.stage(token, hit, only.websiteId)),
    );
    if (!staged.every((s) => s?.ok)) throw new LogRefused('stage the hit');
  } catch (err) {
    await Promise.allSettled([leader.abort(token), abortOthers()]);
    throw err;
  }
  // A leader not reached leaves the others staged: they will follow whatever it did.
  if ((await commitTrying(leader, token)) !== 'committed') {
    await abortOthers();
    throw new LogRefused('commit the hit');
  }
  const committed = await Promise.allSettled(others.map((log) => commitTrying(log, token)));
  for (const c of committed)
    if (c.status === 'rejected')
      logError('staged hit left to settle with its leader', { leader: only.websiteId }, c.reason);
}

/** Commits a staged hit, trying again on a failure; its outcome, or the last failure thrown. */
async function commitTrying(
  log: ReturnType<typeof websiteLog>,
  token: string,
): Promise<Settlement | 'unknown'> {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await log.commit(token);
      if (answer.ok) return answer.outcome;
      if (attempt >= COMMIT_TRIES) throw new LogRefused('commit the hit');
    } catch (err) {
      if (attempt >= COMMIT_TRIES) throw err;
    }
  }
}

/** A log answered that it could not do something (it logged why). */
class LogRefused extends Error {
  constructor(step: string) {
    super(`the event log could not ${step}`);
  }
}

/**
 * Asks a website's log something; a log that cannot be reached or answers a failure is
 * logged and makes the request a 503 with `Retry-After` (`message`), never a 500.
 */
async function askLog<T>(
  env: Env,
  websiteId: number,
  message: string,
  ask: (log: ReturnType<typeof websiteLog>) => Promise<T>,
): Promise<T> {
  try {
    return await ask(websiteLog(env, websiteId));
  } catch (err) {
    logError('event log not reached', { websiteId }, err);
    throw tryAgainSoon(message);
  }
}

/** Visitors of the website of the last five minutes (its log's visits under way). */
export function realtimeVisitors(env: Env, websiteId: number, now: number): Promise<number> {
  return askLog(env, websiteId, 'The statistics could not be read; try again in a moment.', (log) =>
    log.realtime(now),
  );
}

/** The website's events, oldest first, as a stream of NDJSON or CSV lines (./export-reads.ts). */
export function exportLog(
  env: Env,
  websiteId: number,
  format: 'ndjson' | 'csv',
): Promise<ReadableStream<Uint8Array>> {
  return askLog(env, websiteId, 'The events could not be read; try again in a moment.', (log) =>
    log.exportEvents(format),
  );
}

/**
 * What the website's log keeps: its events, bytes and dates (./storage-reads.ts). A log that
 * cannot answer makes it a 503.
 */
export async function storageOf(env: Env, websiteId: number): Promise<LogStorage> {
  const read = await readLog(env, websiteId, (log) => log.storage());
  if (!read.ok) throw new LogRefused('read its storage');
  return read.value;
}

/** Deletes everything a deleted website's log stores (the purge of its data). */
export async function destroyLog(env: Env, websiteId: number): Promise<void> {
  await askLog(env, websiteId, 'The website could not be deleted; try again in a moment.', (log) =>
    log.destroy(),
  );
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
  return askLog(
    env,
    websiteId,
    'The statistics could not be read; try again in a moment.',
    async (log) => {
      const answer = await read(log);
      if (answer.ok) return answer;
      if (answer.firstDate) return { ok: false as const, firstDate: answer.firstDate };
      throw new LogRefused('read');
    },
  );
}

/**
 * Rolls the website's log up into D1 before its statistics are read, so that every hit
 * answered 202 is in the answer. A log that cannot flush (D1 or the object unreachable) makes
 * the read a 503 with `Retry-After`: an answer without those hits would be wrong.
 */
export async function flushBeforeReading(env: Env, websiteId: number): Promise<void> {
  await askLog(
    env,
    websiteId,
    'The statistics are being updated; try again in a moment.',
    async (log) => {
      if (!(await log.flush()).ok) throw new LogRefused('flush');
    },
  );
}
