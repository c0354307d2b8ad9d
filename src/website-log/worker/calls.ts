/**
 * The Worker's calls of a website's log besides its reads (./partitions.ts): a hit to its
 * website's open partition, or staged in several websites' logs; an engagement; the export of
 * its events; what it keeps; and its deletion (docs/ARCHITECTURE.md, "The path of a hit" and
 * "When a website outgrows one object").
 */
import type { Env } from '../../env.ts';
import { tryAgainSoon } from '../../lib/errors.ts';
import { logError } from '../../lib/log.ts';
import type { LogHit } from '../events.ts';
import type { DroppedHit } from '../object/dropped.ts';
import type { Moved } from '../object/partition.ts';
import type { LogStorage } from '../object/read/storage-used.ts';
import type { Settlement } from '../object/write/staged-calls.ts';
import {
  askLog,
  flushBeforeReading,
  LogRefused,
  learnPartitions,
  noteClosed,
  openPartition,
  partitionNumbers,
  readLog,
  websiteLog,
} from './partitions.ts';

/** Tries of a commit: its stage is durable, so a passing failure is worth another try. */
const COMMIT_TRIES = 3;

/**
 * Stores the hits of one tracker call, each in its website's log, answering once every one
 * is durable. One hit: `record`. Several (a call naming several websites): each log stages
 * its hit, then the first website's log — the leader — commits its own, which decides the
 * call (../object/write/staged-calls.ts, docs/ARCHITECTURE.md "A call that names several websites"). Once the
 * leader has committed, the call is counted everywhere: the others commit now or, failing
 * that, learn it from the leader a minute later; the call is answered 202. A stage that fails,
 * or a leader that aborted, drops the call everywhere; a failure throws (the caller answers
 * 503) and nothing is counted — but when the leader's answer itself is lost, which the
 * others then follow whichever way it went. Answers `too_fast` when the one hit's log dropped
 * it, its visitor sending page views faster than a person can (../object/write/too-fast.ts);
 * a log that drops its hit of a call naming several websites does so on its own.
 */
export async function storeInLogs(env: Env, hits: LogHit[]): Promise<'too_fast' | null> {
  const [only] = hits;
  if (!only) return null;
  const limit = partitionLimit(env);
  if (hits.length === 1) {
    const answer = await inOpenPartition(env, only.websiteId, async (log, number, back) => {
      const answer = await log.record({ ...only, partition: { number, limit, back } });
      if (!answer.ok && !('moved' in answer)) throw new LogRefused('record the hit');
      return answer;
    });
    return answer.ok && 'dropped' in answer ? answer.dropped : null;
  }
  const token = crypto.randomUUID();
  // Each hit in its website's open partition; the followers name the leader's.
  const leading = openPartition(only.websiteId);
  const asked: ReturnType<typeof websiteLog>[] = [];
  const staged: ReturnType<typeof websiteLog>[] = [];
  try {
    await Promise.all(
      hits.map((hit, i) =>
        inOpenPartition(env, hit.websiteId, async (log, number) => {
          asked.push(log);
          const partition = { number, limit, leader: leading };
          const answer = await log.stage(token, { ...hit, partition }, only.websiteId);
          if (answer.ok) staged[i] = log;
          else if (!('moved' in answer)) throw new LogRefused('stage the hit');
          return answer;
        }),
      ),
    );
    // The leader's partition closed meanwhile: the followers named the one before it.
    if (openPartition(only.websiteId) !== leading) throw new LogRefused('stage the hit');
  } catch (err) {
    await Promise.allSettled(asked.map((log) => log.abort(token)));
    throw err;
  }
  const [leader, ...others] = staged;
  if (!leader) return null;
  const abortOthers = () => Promise.allSettled(others.map((log) => log.abort(token)));
  // A leader not reached leaves the others staged: they will follow whatever it did.
  if ((await commitTrying(leader, token)) !== 'committed') {
    await abortOthers();
    throw new LogRefused('commit the hit');
  }
  const committed = await Promise.allSettled(others.map((log) => commitTrying(log, token)));
  for (const c of committed)
    if (c.status === 'rejected')
      logError('staged hit left to settle with its leader', { leader: only.websiteId }, c.reason);
  return null;
}

/**
 * Writes an engagement onto its page view in its website's log (../object/write/engagement.ts), through
 * the partitions as a hit goes: `engaged`, or why not — no such page view, or all it brought
 * cut (a time past the page view's age). A failure throws (the caller answers 503).
 */
export async function engageInLog(
  env: Env,
  hit: LogHit,
): Promise<'engaged' | 'no_page_view' | 'engagement_cut' | 'too_fast'> {
  const limit = partitionLimit(env);
  const answer = await inOpenPartition(env, hit.websiteId, async (log, number, back) => {
    const engaged = await log.engage({ ...hit, partition: { number, limit, back } });
    if (!engaged.ok && !('moved' in engaged)) throw new LogRefused('store the engagement');
    return engaged;
  });
  if (answer.ok && answer.tooFast) return 'too_fast';
  if (!answer.ok || !answer.engaged) return 'no_page_view';
  return answer.cut ? 'engagement_cut' : 'engaged';
}

/**
 * Counts a hit its website's pipeline dropped in the website's open partition (the hit's one
 * call of its log: ../object/dropped.ts); a failure throws (the caller logs it: the hit is
 * answered as dropped either way).
 */
export async function noteDropped(env: Env, hit: DroppedHit): Promise<void> {
  const answer = await websiteLog(env, hit.websiteId, openPartition(hit.websiteId)).noteDropped(
    hit,
  );
  if (!answer.ok) throw new LogRefused('count the dropped hit');
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

/** The events past which a partition closes at the next local date (0: never). */
function partitionLimit(env: Env): number {
  const limit = Number(env.LOG_PARTITION_EVENTS ?? 0);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

/** The most partitions a hit passes on its way to the open one. */
const MOST_MOVES = 1_000;

/**
 * Runs `attempt` on the website's open partition, following "moved" (../object/partition.ts) to
 * the next until one takes it — or back, for a date older than a partition's, to the one that
 * holds it (`back`) — its answer.
 */
async function inOpenPartition<A extends { ok: boolean }>(
  env: Env,
  websiteId: number,
  attempt: (
    log: ReturnType<typeof websiteLog>,
    number: number,
    back: boolean,
  ) => Promise<A | Moved>,
): Promise<A> {
  let number = openPartition(websiteId);
  let back = false;
  for (let moves = 0; moves < MOST_MOVES; moves++) {
    const answer = await attempt(websiteLog(env, websiteId, number), number, back);
    if (!('moved' in answer)) return answer;
    back = answer.moved < number;
    // An isolate that knew nothing of the partitions learns the open one from the directory
    // (one D1 read) rather than walking every partition from the first.
    if (!back && moves === 0) await learnPartitions(env, websiteId);
    if (!back) noteClosed(websiteId, number);
    number = back ? answer.moved : openPartition(websiteId);
  }
  throw new LogRefused('find its open partition');
}

/**
 * The website's events of a range of its local dates (`from`, `to`: `YYYY-MM-DD`, inclusive;
 * none: all of them), oldest first, as a stream of NDJSON or CSV lines
 * (../object/read/event-lines.ts) — each partition's in turn, a CSV's header once — or as one
 * Parquet file, which the Parquet Worker encodes from the lines (`parquetOf`).
 */
export async function exportLog(
  env: Env,
  websiteId: number,
  as: 'ndjson' | 'csv' | 'parquet',
  range?: { from: string; to: string },
): Promise<ReadableStream<Uint8Array>> {
  await flushBeforeReading(env, websiteId);
  const numbers = partitionNumbers(websiteId);
  const lines = as === 'parquet' ? 'ndjson' : as;
  const events = await askLog(
    env,
    websiteId,
    'The events could not be read; try again in a moment.',
    async () => {
      const streams = await Promise.all(
        numbers.map((n, i) =>
          websiteLog(env, websiteId, n).exportEvents(lines, i === 0, range ?? null),
        ),
      );
      return concatenated(streams as unknown as ReadableStream<Uint8Array>[]);
    },
  );
  return as === 'parquet' ? parquetOf(env, websiteId, events) : events;
}

/**
 * NDJSON events as a Parquet file, encoded by the Parquet Worker (src/parquet/, reached by
 * the `PARQUET` service binding: docs/ARCHITECTURE.md, "Exports") as the lines stream in.
 */
async function parquetOf(
  env: Env,
  websiteId: number,
  events: ReadableStream<Uint8Array>,
): Promise<ReadableStream<Uint8Array>> {
  try {
    const response = await env.PARQUET.fetch('https://parquet.invalid/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events,
    });
    if (response.ok && response.body) return response.body;
    logError('Parquet Worker refused', { websiteId }, new Error(`status ${response.status}`));
  } catch (err) {
    logError('Parquet Worker not reached', { websiteId }, err);
  }
  await events.cancel().catch(() => {});
  throw tryAgainSoon('The events could not be encoded; try again in a moment.');
}

/** Streams one after another. */
function concatenated(streams: ReadableStream<Uint8Array>[]): ReadableStream<Uint8Array> {
  if (streams.length === 1) return streams[0] as ReadableStream<Uint8Array>;
  let at = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const stream = streams[at];
        if (!stream) return controller.close();
        reader ??= stream.getReader();
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        reader = undefined;
        at++;
      }
    },
  });
}

/**
 * What the website's log keeps: each partition's events, bytes and dates
 * (../object/read/storage-used.ts), oldest first; the last is the open one. A log that cannot answer
 * makes it a 503.
 */
export async function storageOf(
  env: Env,
  websiteId: number,
): Promise<(LogStorage & { closed: boolean })[]> {
  const read = await readLog(
    env,
    websiteId,
    null,
    (log) => log.storage(),
    (parts) => parts.map((part, i) => ({ ...part, closed: i < parts.length - 1 })),
  );
  if (!read.ok) throw new LogRefused('read its storage');
  return read.value;
}

/**
 * Deletes everything a deleted website's log stores (the purge of its data): every partition
 * the directory or this isolate knows, and the one after the last (which a hit may have begun).
 */
export async function destroyLog(env: Env, websiteId: number): Promise<void> {
  const row = await env.DB.prepare(
    'SELECT max(partition) AS last FROM log_positions WHERE website_id = ?',
  )
    .bind(websiteId)
    .first<{ last: number | null }>();
  const last = Math.max(row?.last ?? 0, openPartition(websiteId)) + 1;
  await askLog(env, websiteId, 'The website could not be deleted; try again in a moment.', () =>
    Promise.all(
      Array.from({ length: last + 1 }, (_, n) => websiteLog(env, websiteId, n).destroy()),
    ),
  );
}
