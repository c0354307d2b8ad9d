/**
 * A website's log as the Worker reaches it (docs/ARCHITECTURE.md, "The path of a number" and
 * "When a website outgrows one object"): the object of each of its partitions (`websiteLog`);
 * which partitions there are, as this isolate knows them — the closed ones with their first
 * dates, and the open one, learnt from the directory (`log_positions`) and from the
 * partitions' answers (a partition that answers a read says whether it is closed and the first
 * date it holds; one that answers a hit "moved" on has closed; a closed partition's first date
 * never moves back, so what is known of it stays true) — and the reads: read-your-writes first
 * (before a reader sums roll-ups, the website's log rolls up whatever it holds:
 * `flushBeforeReading`), then every partition a range touches asked in parallel and their
 * answers put together (`readLog`), and the visitors of the last minutes (`realtimeVisitors`).
 * A log that cannot answer makes a read a 503; a question it refuses for its cost, a 400.
 * Apart from the object's class, so that code run outside the Workers runtime (the
 * command-line tools) can name a log.
 */
import type { Env } from '../../env.ts';
import { ApiError, tryAgainSoon } from '../../lib/errors.ts';
import { logError } from '../../lib/log.ts';
import { addDays } from '../../lib/time/dates.ts';
import type { LogRead, PartRead } from '../answers.ts';
import type { WebsiteLog } from '../object/durable-object.ts';
import { logName } from '../object/partition.ts';

/** The object of a partition of a website's log (named by `logName`, ../object/partition.ts). */
export function websiteLog(env: Env, websiteId: number, partition = 0) {
  // The binding's class is this folder's (../object/durable-object.ts): src/env.ts, below every folder,
  // names none.
  const logs = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  return logs.get(logs.idFromName(logName(websiteId, partition)));
}

/**
 * A website's partitions as an isolate knows them: the closed ones, each with its first date
 * when known, the open one's number and first date. A partition holds the dates from its first
 * up to the day before the next one's first (the first one, any date before as well): a hit
 * reaches a closed partition only for a date older than the next one's first (../object/partition.ts).
 */
type Known = {
  closed: { number: number; from: string | null }[];
  open: number;
  openFrom: string | null;
};

/** What this isolate knows of each website's partitions. */
const known = new Map<number, Known>();

const knownOf = (websiteId: number): Known =>
  known.get(websiteId) ?? { closed: [], open: 0, openFrom: null };

/** The partition this isolate sends a website's hits to. */
export const openPartition = (websiteId: number) => knownOf(websiteId).open;

/**
 * Notes that partition `number` of a website is closed (with its first date, when known):
 * hits and reads go on to the next.
 */
export function noteClosed(websiteId: number, number: number, from?: string | null): void {
  const k = knownOf(websiteId);
  const was = k.closed.find((p) => p.number === number);
  const closed = [
    ...k.closed.filter((p) => p.number !== number),
    { number, from: from ?? was?.from ?? null },
  ].sort((a, b) => a.number - b.number);
  const opens = number + 1 > k.open;
  known.set(websiteId, {
    closed,
    open: Math.max(k.open, number + 1),
    openFrom: opens ? null : k.openFrom,
  });
}

/** Notes the first date of a website's open partition, as it answered. */
function noteOpenFrom(websiteId: number, number: number, from: string | null): void {
  const k = knownOf(websiteId);
  if (k.open === number && from !== null) known.set(websiteId, { ...k, openFrom: from });
}

/**
 * What the directory says of a website's partitions (`log_positions`), read once by an
 * isolate's first read: every partition but the newest is closed; the newest is open unless
 * it says it has closed.
 */
async function learnFromDirectory(env: Env, websiteId: number): Promise<void> {
  const { results } = await env.DB.prepare(
    `SELECT partition, first_date AS "from", closed FROM log_positions
    WHERE website_id = ? ORDER BY partition`,
  )
    .bind(websiteId)
    .all<{ partition: number; from: string | null; closed: number }>();
  if (known.has(websiteId) || results.length === 0) return;
  const newest = results.at(-1) as (typeof results)[number];
  const open = newest.closed === 1 ? null : newest;
  known.set(websiteId, {
    closed: results.filter((p) => p !== open).map((p) => ({ number: p.partition, from: p.from })),
    open: newest.partition + (open ? 0 : 1),
    openFrom: open?.from ?? null,
  });
}

/** What an isolate knows of a website's partitions, from the directory when it knows nothing. */
export async function learnPartitions(env: Env, websiteId: number): Promise<void> {
  if (!known.has(websiteId)) await learnFromDirectory(env, websiteId);
}

/**
 * The closed partitions whose dates a range touches (null: all of them), oldest first: each
 * holds from its first date (the first partition, from any date) up to the day before the
 * next one's first (unknown: to any date).
 */
function closedTouched(k: Known, range: { from: string; to: string } | null): number[] {
  return k.closed
    .filter((p, i) => {
      if (!range) return true;
      const next = i + 1 < k.closed.length ? (k.closed[i + 1]?.from ?? null) : k.openFrom;
      const from = p.number === 0 ? null : p.from;
      const to = next === null ? null : addDays(next, -1);
      return (from === null || from <= range.to) && (to === null || to >= range.from);
    })
    .map((p) => p.number);
}

/** Notes what partitions said of themselves: closed or not, and their first dates. */
function noteParts(websiteId: number, numbers: number[], answers: PartRead<unknown>[]): void {
  answers.forEach((a, i) => {
    const n = numbers[i] as number;
    if (!a.ok || !a.part) return;
    if (a.part.closed) noteClosed(websiteId, n, a.part.from);
    else noteOpenFrom(websiteId, n, a.part.from);
  });
}

/** Forgets what this isolate knows of a website's partitions, as a new isolate knows nothing. */
export function forgetPartitions(websiteId: number): void {
  known.delete(websiteId);
}

/** Each of a website's partitions, oldest first, as far as this isolate knows them. */
export function partitionNumbers(websiteId: number): number[] {
  const k = knownOf(websiteId);
  return [...k.closed.map((p) => p.number), k.open];
}

/** A log answered that it could not do something (it logged why). */
export class LogRefused extends Error {
  constructor(step: string) {
    super(`the event log could not ${step}`);
  }
}

/**
 * Asks a website's log something; a log that cannot be reached or answers a failure is
 * logged and makes the request a 503 with `Retry-After` (`message`), never a 500.
 */
export async function askLog<T>(
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
    async () => {
      // Every partition that may hold events not rolled up: the open one, and each closed one
      // until it has flushed once after closing (this isolate learns them as it goes).
      for (let n = 0; n <= openPartition(websiteId); n++) {
        if (flushedWhenClosed.has(`${websiteId}:${n}`)) continue;
        const outcome = await websiteLog(env, websiteId, n).flush();
        if (!outcome.ok) throw new LogRefused('flush');
        if (outcome.closed) {
          flushedWhenClosed.add(`${websiteId}:${n}`);
          noteClosed(websiteId, n);
        }
      }
    },
  );
}

/** Closed partitions (`website:partition`) that have flushed since they closed: all is in D1. */
const flushedWhenClosed = new Set<string>();
/**
 * Reads the website's log over a range (null: all of it) — every partition the range
 * touches, in parallel (above), their answers put together by `merge` (`many`: more
 * than one answered) — the value, or the first date it holds whole when the range starts
 * earlier; `over`: the open partition keeps the closed ones' values added together
 * (above). A log that cannot answer makes the read a 503.
 */
export async function readLog<T, R>(
  env: Env,
  websiteId: number,
  range: { from: string; to: string } | null,
  read: (log: ReturnType<typeof websiteLog>, many: boolean) => Promise<PartRead<T>>,
  merge: (values: T[], many: boolean) => R | Promise<R>,
  over?: OverClosed<T, R>,
): Promise<{ ok: true; value: R; rowsRead: number } | { ok: false; firstDate: string }> {
  let answer: Awaited<ReturnType<typeof askParts<T, R>>>;
  try {
    answer = await askParts(env, websiteId, range, read, merge, over);
  } catch (err) {
    logError('event log not reached', { websiteId }, err);
    throw tryAgainSoon('The statistics could not be read; try again in a moment.');
  }
  if (answer.ok) return answer;
  // A question the log would not take (its patterns' work): the asker's to change.
  if (answer.refused) throw new ApiError(400, answer.refused);
  if (answer.firstDate) return { ok: false as const, firstDate: answer.firstDate };
  logError('event log not reached', { websiteId }, new LogRefused('read'));
  throw tryAgainSoon('The statistics could not be read; try again in a moment.');
}

/** The only value of a read of one partition (a read that is not added up). */
export const onlyOne = <T>(values: T[]): T => {
  if (values.length !== 1) throw new Error('a read of one partition answered by several');
  return values[0] as T;
};

type Log = ReturnType<typeof websiteLog>;

/**
 * How a read of many partitions is answered when the open partition keeps the closed ones'
 * values added together (../object/read/methods.ts `overClosed`): asked with their numbers and epochs
 * (../object/read/answer-cache.ts), it answers whole; or with its own value, keeping none — the closed ones are
 * then asked, their values `add`ed together and, when it says it would keep them (a question
 * asked before), handed to it to `keep`.
 */
export type OverClosed<T, R> = {
  ask: (open: Log, closed: string) => Promise<PartRead<{ answer: R } | { own: T; keep: boolean }>>;
  keep: (open: Log, closed: string, added: T) => Promise<unknown>;
  add: (values: T[]) => T;
};

/**
 * Asks every partition of a website a range touches, in parallel (`many`: more than one is
 * asked), and puts their answers together with `merge`; a partition that answers that it
 * has closed sends the question to the next as well. A partition that cannot answer the
 * range (retention deleted its start) answers the read. With `over`, a question asked again
 * reads the closed partitions' epochs and the open partition alone.
 */
async function askParts<T, R>(
  env: Env,
  websiteId: number,
  range: { from: string; to: string } | null,
  ask: (log: Log, many: boolean) => Promise<PartRead<T>>,
  merge: (values: T[], many: boolean) => R | Promise<R>,
  over?: OverClosed<T, R>,
): Promise<LogRead<R>> {
  await learnPartitions(env, websiteId);
  const log = (n: number) => websiteLog(env, websiteId, n);
  for (;;) {
    const k = knownOf(websiteId);
    // Oldest first: an answer that lists them (the storage) keeps their order.
    const closed = closedTouched(k, range);
    const numbers = [...closed, k.open];
    if (!over || closed.length === 0) {
      const many = numbers.length > 1;
      const answers = await Promise.all(numbers.map((n) => ask(log(n), many)));
      const read = await combined(websiteId, numbers, answers, (values) => merge(values, many));
      if (read) return read;
      continue;
    }
    const epochs = await Promise.all(closed.map((n) => log(n).epoch()));
    noteParts(websiteId, closed, epochs);
    if (epochs.some((e) => !e.ok)) return { ok: false };
    const key = JSON.stringify(epochs.map((e, i) => [closed[i], e.ok ? e.value : null]));
    const first = await over.ask(log(k.open), key);
    if (first.ok && 'answer' in first.value) {
      noteParts(websiteId, [k.open], [first]);
      const rowsRead = epochs.reduce((sum, e) => sum + (e.ok ? e.rowsRead : 0), first.rowsRead);
      return { ok: true, value: first.value.answer, rowsRead, chunks: first.chunks };
    }
    // Keeping none: its own value, and whether it would keep the closed ones'.
    const mine = first.ok ? (first.value as { own: T; keep: boolean }) : undefined;
    const own: PartRead<T> = first.ok ? { ...first, value: (mine as { own: T }).own } : first;
    const answers = [...(await Promise.all(closed.map((n) => ask(log(n), true)))), own];
    const read = await combined(websiteId, numbers, answers, async (values) => {
      const added = over.add(values.slice(0, -1));
      const kept = mine?.keep
        ? over.keep(log(k.open), key, added).catch((err: unknown) => {
            logError("closed partitions' values not kept", { websiteId }, err);
          })
        : undefined;
      const value = await merge([added, values.at(-1) as T], true);
      await kept;
      return value;
    });
    if (read) return read;
  }
}

/**
 * The partitions' answers put together (the last, the open one's), or undefined when it
 * answered that it has closed (the question goes on to the next). A failure first; else the
 * log starts where its newest partition that cannot answer the range says it does (older
 * ones were dropped whole by retention: ../object/retention.ts).
 */
async function combined<T, R>(
  websiteId: number,
  numbers: number[],
  answers: PartRead<T>[],
  merge: (values: T[]) => R | Promise<R>,
): Promise<LogRead<R> | undefined> {
  noteParts(websiteId, numbers, answers);
  if (answers.at(-1)?.part?.closed) return undefined;
  const failures = answers.filter((a) => !a.ok);
  const failed =
    failures.find((a) => !a.ok && a.refused) ??
    failures.find((a) => !a.firstDate) ??
    failures.at(-1);
  if (failed && !failed.ok) return failed;
  const values: T[] = [];
  let rowsRead = 0;
  let chunks = 0;
  for (const a of answers)
    if (a.ok) {
      values.push(a.value);
      rowsRead += a.rowsRead;
      chunks += a.chunks;
    }
  return { ok: true, value: await merge(values), rowsRead, chunks };
}

/**
 * Visitors of the website of the last five minutes (its log's visits under way): those of
 * its open partition, and of the one before (a visit of the minutes before it closed).
 */
export function realtimeVisitors(env: Env, websiteId: number, now: number): Promise<number> {
  return askLog(
    env,
    websiteId,
    'The statistics could not be read; try again in a moment.',
    async () => {
      await learnPartitions(env, websiteId);
      const recent = partitionNumbers(websiteId).slice(-2);
      const visitors = await Promise.all(
        recent.map((n) => websiteLog(env, websiteId, n).realtime(now)),
      );
      return visitors.reduce((sum, n) => sum + n, 0);
    },
  );
}
