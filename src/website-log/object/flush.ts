/**
 * Flushing a website's log into D1's daily roll-ups, exactly once (docs/ARCHITECTURE.md,
 * "The flush"). A flush covers the events after the last flushed position up to a new one,
 * `(from, to]`, and is one D1 `batch()` — a transaction, written by `applyFlush`
 * (src/rollups/increments.ts) — of two kinds of statement:
 *
 * 1. the guard: `log_positions` of the website moves from `from` to `to`, and the statement
 *    fails (a NOT NULL violation) when the stored position is not `from` — or, when there is
 *    none, unless `from` is 0 (malformed JSON: an error SQLite raises from an expression) —
 *    which rolls the whole batch back: a flush that was already applied, or raced by another,
 *    adds nothing;
 * 2. the increments, summed per (statistic, date, value), as `INSERT … ON CONFLICT DO UPDATE`
 *    from one JSON parameter each (D1 binds at most 100 values per statement); those of a
 *    month already compacted into month and year rows are added to them too
 *    (src/rollups/compaction.ts), by two more statements that write nothing otherwise.
 *
 * Both write only while D1 has the website: a log that outlives its website (a hit that
 * found it in an isolate's cache after it was deleted, src/websites/cache.ts) adds nothing,
 * and learns that it can delete itself.
 *
 * So D1 holds a position exactly when it holds the roll-ups of every event up to it. A flush
 * whose commit was not seen by the object (a lost answer, an eviction) is recognised on the
 * next one: D1's position is ahead of the object's, and the object adopts it. A D1 restored to
 * an earlier state is behind the object: the object adopts its position too, and rolls up
 * again what it still holds after it.
 */

import { type Increment, rollupOf, type Seen } from '../../counting/statistics.ts';
import { logError } from '../../lib/log.ts';
import {
  type Applied,
  appliedPosition,
  applyFlush,
  type FlushCost,
  NO_COST,
  type PartitionFigures,
} from '../../rollups/increments.ts';
import type { LoggedEvent } from '../events.ts';
import { isClosed } from './partition.ts';
import type { Dictionary } from './tables/dictionary.ts';
import type { LogDb } from './tables/log-db.ts';
import { eventsAfter } from './tables/rows.ts';
import { countedBefore, forgetSeen, keepSeen, seenBefore } from './visitors-seen.ts';
import { lateDurations } from './write/engagement.ts';

/** Events per D1 batch of a flush; a longer backlog is flushed in several. */
const FLUSH_BATCH = 20_000;

/**
 * A log flushes once `FLUSH_EVENTS` events wait — a D1 batch's worth — or once the oldest has
 * waited `FLUSH_WITHIN_MS`. Readers flush first anyway (read-your-writes), so this decides
 * only how many events a flush sums, and so how many D1 rows each page view shares: one per
 * distinct (statistic, date, value) of the flush, the fewer the more page views share them.
 * A quiet website flushes once a day, as cheaply per page view as a busy one (measured in
 * test/integration/website-log/website-log-cost.test.ts and the benchmark: docs/BENCHMARKS.md).
 */
export const FLUSH_EVENTS = FLUSH_BATCH;
export const FLUSH_WITHIN_MS = 86_400_000;

/** The events waiting for a flush: how many, and when the oldest came (null: none). */
export type Waiting = { count: number; oldest: number | null };

/** When the events waiting are due to be flushed (null: none waits). */
export function flushDueAt(waiting: Waiting): number | null {
  if (waiting.count === 0 || waiting.oldest === null) return null;
  return waiting.count >= FLUSH_EVENTS ? 0 : waiting.oldest + FLUSH_WITHIN_MS;
}

/** What a flush did: events rolled up, the position reached, and D1's exact cost. */
export type Flushed = { events: number; position: number; cost: FlushCost };

/**
 * Rolls every event after the log's flush position up into D1, in batches, moving the
 * position with each; `websiteGone` when D1 no longer has the website (nothing written).
 * With `verify`, a log with nothing to flush also compares its position with D1's: a D1
 * restored to an earlier state is found by the next flush that has events, or by this.
 */
export async function flushEvents(
  db: LogDb,
  dict: Dictionary,
  d1: D1Database,
  verify = false,
): Promise<Flushed & { websiteGone: boolean }> {
  const websiteId = db.meta('website');
  const log = { websiteId, partition: db.meta('partition') };
  const total = {
    events: 0,
    position: db.meta('flushed'),
    cost: { ...NO_COST },
    websiteGone: false,
  };
  if (!websiteId) return total;
  let verified = !verify;
  for (;;) {
    const from = db.meta('flushed');
    const rows = eventsAfter(db, dict, from, FLUSH_BATCH);
    const to = flushTo(db, from, rows);
    if (to === null) {
      if (verified) break;
      verified = true;
      const applied = await appliedPosition(d1, log);
      if (applied === from || !(await websiteExists(d1, websiteId))) break;
      adopt(db, websiteId, applied, from);
      continue;
    }
    let cost: Applied;
    try {
      const seen = seenBefore(db, dict, from, rows);
      const counting = db.meta('visitors_counted') === 1 ? null : countingFrom(rows, seen);
      const increments = rollupOf(rows, lateDurations(db, from, to), seen);
      cost = await applyFlush(
        d1,
        log,
        from,
        to,
        counting ? [...increments, ...counting.before] : increments,
        // A flush from the start counts every event the log holds: each of its dates.
        { ...figuresOf(db, rows.length), visitorsFrom: from === 0 ? '' : (counting?.from ?? null) },
      );
      keepSeen(db, to, seen);
      if (counting && !cost.websiteGone) db.setMeta('visitors_counted', 1);
    } catch (err) {
      forgetSeen(db);
      const applied = await appliedPosition(d1, log);
      if (applied === from) throw err;
      adopt(db, websiteId, applied, from);
      continue;
    }
    verified = true;
    if (cost.websiteGone) {
      total.websiteGone = true;
      break;
    }
    db.setMeta('flushed', to);
    total.events += rows.length;
    total.position = to;
    total.cost.rowsWritten += cost.rowsWritten;
    total.cost.rowsRead += cost.rowsRead;
    total.cost.statements += cost.statements;
  }
  return total;
}

/**
 * The first flush of a log that counts the visitors of pages and referrers (a log older than
 * them: `visitors_counted` unset) counts those its dates' events before it had too (`seen`),
 * so that D1 holds them all from its first date on (`visitorsFrom`). A flush of no events
 * waits for one.
 */
function countingFrom(
  rows: LoggedEvent[],
  seen: Seen,
): { from: string; before: Increment[] } | null {
  const first = rows.reduce<string | null>((d, r) => (d === null || r.date < d ? r.date : d), null);
  if (first === null) return null;
  return { from: first, before: countedBefore(seen) };
}

/**
 * Where a flush of `rows` (the events after `from`) takes the position: their last event,
 * or past the changes to durations waiting after it too when no event follows (./write/engagement.ts,
 * `late_durations`, positioned among the events); null when nothing waits.
 */
function flushTo(db: LogDb, from: number, rows: LoggedEvent[]): number | null {
  const last = rows.at(-1)?.id ?? from;
  // More events may follow a full batch.
  if (rows.length === FLUSH_BATCH) return last;
  const late = db.one<{ id: number | null }>(
    'SELECT max(id) AS id FROM late_durations WHERE id > ?',
    last,
  ).id;
  const to = Math.max(last, late ?? 0);
  return to > from ? to : null;
}

/** What the directory notes of the log at a flush of `events` events (`PartitionFigures`). */
function figuresOf(db: LogDb, events: number): PartitionFigures {
  const dates = db.one<{ first: string | null; last: string | null }>(
    'SELECT min(date) AS first, max(date) AS last FROM days',
  );
  return {
    firstDate: dates.first,
    lastDate: dates.last,
    events,
    bytes: db.bytes,
    closed: isClosed(db),
  };
}

/**
 * Takes D1's position as the log's: D1's roll-ups hold exactly the events up to it. D1 ahead:
 * a flush committed without this object learning it (an answer lost, an eviction between the
 * commit and the note). D1 behind: D1 was restored (Time Travel) or repaired by hand; the
 * events after its position are rolled up again (`noteBehind`).
 */
function adopt(db: LogDb, websiteId: number, applied: number, from: number): void {
  if (applied < from) noteBehind(db, websiteId, applied, from);
  db.setMeta('flushed', applied);
}

/** Whether D1 has the website (a log that outlives it adds nothing: `applyFlush`). */
async function websiteExists(d1: D1Database, websiteId: number): Promise<boolean> {
  return (await d1.prepare('SELECT 1 FROM websites WHERE id = ?').bind(websiteId).first()) !== null;
}

/**
 * D1's roll-ups are behind the log: the next flush rolls up again every event after D1's
 * position that the log still holds. Events retention deleted meanwhile cannot be: their
 * roll-ups are lost for good. Both are logged (docs/ARCHITECTURE.md, "The flush").
 */
function noteBehind(db: LogDb, websiteId: number, applied: number, from: number): void {
  const deleted = db.meta('deleted_through');
  const lost = deleted > applied ? Math.min(deleted, from) - applied : 0;
  logError(
    lost > 0 ? 'roll-ups lost: D1 is behind the log' : 'D1 is behind the log: rolling up again',
    { website: websiteId, d1Position: applied, logPosition: from, lostEvents: lost },
    new Error(`D1 holds the roll-ups up to position ${applied}, the log had flushed to ${from}`),
  );
}

/** The events not rolled up into D1 yet, as the log holds them, and the changes to durations. */
export function waitingIn(db: LogDb): Waiting {
  const flushed = db.meta('flushed');
  const rows = db.one<{ n: number | null; oldest: number | null }>(
    `SELECT sum(n) AS n, min(oldest) AS oldest FROM (
      SELECT count(*) AS n, min(time) AS oldest FROM log WHERE id > ?1
      UNION ALL SELECT count(*), min(time) FROM late_durations WHERE id > ?1)`,
    flushed,
  );
  return { count: rows.n ?? 0, oldest: rows.oldest };
}
