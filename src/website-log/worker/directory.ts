/**
 * What an isolate knows of a website's partitions (docs/ARCHITECTURE.md, "When a website
 * outgrows one object"): the closed ones with their first dates, and the open one. It learns
 * them from the directory (`log_positions`) and from the partitions' answers: a partition that
 * answers a read says whether it is closed and the first date it holds, and one that answers a
 * hit "moved" on has closed. A closed partition's first date never moves back, so what is
 * known of it stays true; the open one is asked every time, and says when it has closed.
 */
import type { Env } from '../../env.ts';
import { addDays } from '../../lib/time/dates.ts';
import type { PartRead } from '../answers.ts';

/**
 * A website's partitions as an isolate knows them: the closed ones, each with its first date
 * when known, the open one's number and first date. A partition holds the dates from its first
 * up to the day before the next one's first (the first one, any date before as well): a hit
 * reaches a closed partition only for a date older than the next one's first (../object/partition.ts).
 */
export type Known = {
  closed: { number: number; from: string | null }[];
  open: number;
  openFrom: string | null;
};

/** What this isolate knows of each website's partitions. */
const known = new Map<number, Known>();

export const knownOf = (websiteId: number): Known =>
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
export function closedTouched(k: Known, range: { from: string; to: string } | null): number[] {
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
export function noteParts(
  websiteId: number,
  numbers: number[],
  answers: PartRead<unknown>[],
): void {
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
