/**
 * A partition of a website's log as the log keeps it (docs/ARCHITECTURE.md, "When a website
 * outgrows one object"): its number, noted at its first hit, and whether it is closed. The
 * open partition closes at a local midnight once it holds the events the Worker says it may
 * (`LOG_PARTITION_EVENTS`): the first hit of a newer local date is answered "moved", and so is
 * every hit after, so that every local date — every visit and visitor-day — lies in one
 * partition. A closed partition still answers reads, flushes, settles staged calls and is
 * trimmed by retention; it takes no more hits but those of its own dates sent back to it.
 */
import type { LogHit } from '../events.ts';
import type { LogDb } from './tables/log-db.ts';

/**
 * The name of a partition's object: `website:<id>` for the first (every log made before
 * partitions is its website's first), `website:<id>:<n>` for the others.
 */
export const logName = (websiteId: number, partition: number) =>
  partition === 0 ? `website:${websiteId}` : `website:${websiteId}:${partition}`;

/** The ids a partition numbers its events with: partition n's follow n · 2^40. */
const IDS_PER_PARTITION = 2 ** 40;

/** A hit the log did not take: it goes to partition `moved`. */
export type Moved = { ok: false; moved: number };

/** The events a partition holds, as its ids span them (retention deletes the oldest). */
function eventsHeld(db: LogDb): number {
  return db.one<{ n: number | null }>('SELECT max(id) - min(id) + 1 AS n FROM log').n ?? 0;
}

/** The first local date a partition holds (null before its first hit). */
function firstDate(db: LogDb): string | null {
  return db.one<{ date: string | null }>('SELECT min(date) AS date FROM days').date;
}

/**
 * Whether this partition takes `hit` (null) or sends it on (`Moved`). The open partition
 * closes when it is full and the hit starts a newer local date than `newest` (its newest
 * event's date); the hit goes to the next. A hit of a date older than this partition's first
 * — the website's time zone moved back — goes back to the one before (when `mayGoBack`), which
 * takes it closed or not, so that every local date stays in one partition. A closed
 * partition sends any other hit on. What a hit taken changes of the answers kept,
 * `forgetsAnswers` says.
 */
export function movedFrom(
  db: LogDb,
  hit: LogHit,
  newest: string | null,
  mayGoBack = true,
): Moved | null {
  const number = hit.partition?.number ?? 0;
  if (db.meta('partition') !== number) {
    db.setMeta('partition', number);
    // A new partition's ids follow on from the ones before: the website's events stay
    // numbered in order, each id once (the export's `id`).
    if (number > 0 && newest === null) db.setMeta('id_base', number * IDS_PER_PARTITION);
  }
  if (mayGoBack && number > 0 && newest !== null && hit.date < newest) {
    const first = firstDate(db);
    if (first !== null && hit.date < first) return { ok: false, moved: number - 1 };
  }
  if (db.meta('closed') === 1) return hit.partition?.back ? null : { ok: false, moved: number + 1 };
  const limit = hit.partition?.limit ?? 0;
  if (limit > 0 && newest !== null && hit.date > newest && eventsHeld(db) >= limit) {
    db.setMeta('closed', 1);
    return { ok: false, moved: number + 1 };
  }
  return null;
}

/**
 * Whether storing `hit` forgets the answers the partition kept (./read/answer-cache.ts): a hit sent
 * back to a closed partition, or one of a date older than `latest` (the latest the partition
 * holds: the open one keeps its answers for the dates before it, ./read/methods.ts).
 */
export const forgetsAnswers = (hit: LogHit, latest: string | null) =>
  hit.partition?.back === true || (latest !== null && hit.date < latest);

/** Whether this partition is closed. */
export const isClosed = (db: LogDb) => db.meta('closed') === 1;

/**
 * Whether a hit (or an engagement) was sent back to this partition, closed: it is rolled up at
 * once, since readers no longer flush a partition that has flushed since it closed.
 */
export const sentBack = (db: LogDb, hit: LogHit) => hit.partition?.back === true && isClosed(db);
