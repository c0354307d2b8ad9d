/**
 * A website's log as the Worker asks it when it is spread over partitions (docs/ARCHITECTURE.md,
 * "When a website outgrows one object"): which partitions a question goes to, asked in
 * parallel, and their answers put together. What an isolate knows of a website's partitions
 * — the closed ones with their dates, and the open one — it learns from the partitions'
 * answers: a partition that answers a read says whether it is closed and which dates it holds,
 * and one that answers a hit "moved" has closed. A closed partition never changes, so what is
 * known of it stays true; the open one is asked every time, and says when it has closed.
 */
import type { Env } from '../env.ts';
import { addDays } from '../lib/dates.ts';
import type { LogRead, PartRead, PartState } from './log-types.ts';
import { websiteLog } from './stub.ts';

type Known = { closed: (PartState & { number: number })[]; open: number };

/** What this isolate knows of each website's partitions. */
const known = new Map<number, Known>();

const knownOf = (websiteId: number): Known => known.get(websiteId) ?? { closed: [], open: 0 };

/** The partition this isolate sends a website's hits to. */
export const openPartition = (websiteId: number) => knownOf(websiteId).open;

/**
 * Notes that partition `number` of a website is closed (with its dates, when known): hits and
 * reads go on to the next.
 */
export function noteClosed(websiteId: number, number: number, state?: PartState): void {
  const k = knownOf(websiteId);
  const was = k.closed.find((p) => p.number === number);
  const dates = { from: state?.from ?? was?.from ?? null, to: state?.to ?? was?.to ?? null };
  const closed = [
    ...k.closed.filter((p) => p.number !== number),
    { number, closed: true, ...dates },
  ];
  known.set(websiteId, { closed, open: Math.max(k.open, number + 1) });
}

/**
 * What the directory says of a website's partitions (`log_positions`), read once by an
 * isolate's first read: every partition but the newest is closed, and holds the dates from
 * its first up to the day before the next one's first (its own last date may be newer than
 * its last flush noted); the newest is open unless it says it has closed.
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
  const closed = results.slice(0, -1).map((p, i) => {
    const next = results[i + 1]?.from ?? null;
    return { number: p.partition, closed: true, from: p.from, to: next && addDays(next, -1) };
  });
  if (newest.closed === 1)
    closed.push({ number: newest.partition, closed: true, from: newest.from, to: null });
  known.set(websiteId, { closed, open: newest.partition + (newest.closed === 1 ? 1 : 0) });
}

/** What an isolate knows of a website's partitions, from the directory when it knows nothing. */
export async function learnPartitions(env: Env, websiteId: number): Promise<void> {
  if (!known.has(websiteId)) await learnFromDirectory(env, websiteId);
}

/** A partition's dates overlap a range (a partition of unknown dates always does). */
const overlaps = (p: PartState, range: { from: string; to: string } | null) =>
  !range || p.from === null || p.to === null || (p.from <= range.to && p.to >= range.from);

/**
 * Asks every partition of a website a range touches, in parallel (`many`: more than one is
 * asked), and puts their answers together with `merge`; a partition that answers that it
 * has closed sends the question to the next as well. A partition that cannot answer the
 * range (retention deleted its start) answers the read.
 */
export async function askParts<T, R>(
  env: Env,
  websiteId: number,
  range: { from: string; to: string } | null,
  ask: (log: ReturnType<typeof websiteLog>, many: boolean) => Promise<PartRead<T>>,
  merge: (values: T[], many: boolean) => R | Promise<R>,
): Promise<LogRead<R>> {
  await learnPartitions(env, websiteId);
  for (;;) {
    const k = knownOf(websiteId);
    // Oldest first: an answer that lists them (the storage) keeps their order.
    const closed = k.closed.filter((p) => overlaps(p, range)).map((p) => p.number);
    const numbers = [...closed.sort((a, b) => a - b), k.open];
    const many = numbers.length > 1;
    const answers = await Promise.all(numbers.map((n) => ask(websiteLog(env, websiteId, n), many)));
    // What the closed partitions said of their dates is kept (it never changes).
    answers.forEach((a, i) => {
      const n = numbers[i] as number;
      if (a.ok && a.part?.closed) noteClosed(websiteId, n, a.part);
    });
    if (answers.at(-1)?.part?.closed) continue;
    // A failure first; else the log starts where its newest partition that cannot answer the
    // range says it does (older ones were dropped whole by retention: ./retention.ts).
    const failures = answers.filter((a) => !a.ok);
    const failed = failures.find((a) => !a.firstDate) ?? failures.at(-1);
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
    return { ok: true, value: await merge(values, many), rowsRead, chunks };
  }
}

/** Forgets what this isolate knows of a website's partitions, as a new isolate knows nothing. */
export function forgetPartitions(websiteId: number): void {
  known.delete(websiteId);
}

/** Each of a website's partitions, oldest first, as far as this isolate knows them. */
export function partitionNumbers(websiteId: number): number[] {
  const k = knownOf(websiteId);
  return [...k.closed.map((p) => p.number).sort((a, b) => a - b), k.open];
}
