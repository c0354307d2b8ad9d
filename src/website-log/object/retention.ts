/**
 * What a log forgets, and when (docs/ARCHITECTURE.md, "The event log"): visitor hashes 48
 * hours after they were last seen, salts after 72, and — when `EVENT_RETENTION_DAYS` is set —
 * rolled-up events older than that many days, by whole local dates, found through `days`; a
 * closed partition whose dates are all past it, whole.
 */
import { addDays, dayNumber, utcDate } from '../../lib/time/dates.ts';
import { isClosed } from './partition.ts';
import { forgetAnswers } from './read/answer-cache.ts';
import { compactDate, keptFrom, newestDate } from './tables/days.ts';
import type { LogDb } from './tables/log-db.ts';
import { forgetSettled } from './write/staged-calls.ts';

/**
 * Visitors, salts and settled calls are forgotten hourly (each deletion scans its table): the
 * alarm runs at least this often while there is anything to forget.
 */
export const MAINTENANCE_INTERVAL_MS = 3_600_000;

/**
 * Events retention deletes per alarm, at most (a few tens of milliseconds); a longer backlog
 * (retention switched on for a long log) goes on at the next alarm, soon after.
 */
const RETENTION_PER_ALARM = 10_000;

/** How long after its last replayed hit a log counts as being loaded. */
const LOADING_MS = 10 * 60_000;

/** Visitor hashes are forgotten 48 hours after they were last seen, salts after 72. */
const VISITOR_TTL_MS = 48 * 3_600_000;
const SALT_TTL_MS = 72 * 3_600_000;

/** Events deleted per statement (and transaction): a few milliseconds of the object's time. */
const RETENTION_CHUNK = 2_000;

/** `EVENT_RETENTION_DAYS` as a whole number of days, or null to keep every event. */
export function retentionDays(setting: string | undefined): number | null {
  if (setting === undefined || setting === '') return null;
  const days = Number(setting);
  return Number.isInteger(days) && days > 0 ? days : null;
}

/** Deletes the visitors and salts past their time. */
function forgetVisitors(db: LogDb, now: number): void {
  db.rows('DELETE FROM visitors WHERE last_seen < ?', now - VISITOR_TTL_MS);
  db.rows('DELETE FROM salts WHERE created_at < ?', now - SALT_TTL_MS);
}

/**
 * Deletes the rolled-up events of the local dates before `days` days ago, answering how many
 * (at most `limit`: a longer backlog is left for the next call). Each run of one date's
 * events (a row of `days`) is a range of ids, deleted by that range, `RETENTION_CHUNK` at a
 * time, each chunk one transaction with its `days` row and the log's `meta`: the highest id
 * ever deleted (`deleted_through`, so that ids never go backwards: ./tables/versions.ts
 * `nextEventId`) and the first date the log still holds whole (`kept_from`, ./tables/days.ts).
 * Events not rolled up yet are kept for a later call.
 */
export function forgetExpired(
  db: LogDb,
  now: number,
  days: number,
  transaction: (work: () => void) => void,
  limit = Number.POSITIVE_INFINITY,
): number {
  const before = utcDate(now - days * 86_400_000);
  const flushed = db.meta('flushed');
  // Changes to durations rolled up (./write/engagement.ts): their page views hold them too.
  db.rows('DELETE FROM late_durations WHERE day < ? AND id <= ?', dayNumber(before), flushed);
  const whole = dropWhole(db, before, flushed, transaction);
  if (whole !== null) return whole;
  const runs = db.rows<{ first: number; date: string; next: number | null }>(
    `SELECT first, date, (SELECT min(n.first) FROM days n WHERE n.first > d.first) AS next
      FROM days d WHERE d.date < ? ORDER BY first`,
    before,
  );
  let deleted = 0;
  for (const run of runs) {
    // Only what is rolled up: a run with events after the flush position loses the others.
    const last = Math.min(run.next === null ? lastEventId(db) : run.next - 1, flushed);
    for (let from = run.first; from <= last && deleted < limit; ) {
      const to = Math.min(last, from + RETENTION_CHUNK - 1, from + (limit - deleted) - 1);
      transaction(() => {
        deleted += db.rows(
          'DELETE FROM log WHERE id BETWEEN ? AND ? RETURNING id',
          from,
          to,
        ).length;
        forgetAnswers(db);
        if (to === last) db.rows('DELETE FROM days WHERE first = ?', from);
        else db.rows('UPDATE days SET first = ? WHERE first = ?', to + 1, from);
        db.setMeta('deleted_through', Math.max(db.meta('deleted_through'), to));
        const held = keptFrom(db);
        if (held === null || held <= run.date)
          db.setMeta('kept_from', compactDate(addDays(run.date, 1)));
      });
      from = to + 1;
    }
    if (deleted >= limit) break;
  }
  return deleted;
}

/**
 * A closed partition (./partition.ts) whose every date is past the retention and rolled up
 * is dropped whole, in one transaction, instead of run by run: its events, `days`
 * and kept answers, its `meta` noting the highest id deleted and that it holds dates from the
 * day after its newest (so a range reaching into them still says where the log starts).
 * Answers the events deleted, or null when the partition is not to be dropped whole.
 */
function dropWhole(
  db: LogDb,
  before: string,
  flushed: number,
  transaction: (work: () => void) => void,
): number | null {
  const newest = newestDate(db);
  const last = lastEventId(db);
  if (!isClosed(db) || newest === null || newest >= before || flushed < last) return null;
  let deleted = 0;
  transaction(() => {
    deleted = db.one<{ n: number }>('SELECT count(*) AS n FROM log').n;
    db.rows('DELETE FROM log');
    db.rows('DELETE FROM days');
    forgetAnswers(db);
    db.setMeta('deleted_through', Math.max(db.meta('deleted_through'), last));
    db.setMeta('kept_from', compactDate(addDays(newest, 1)));
  });
  return deleted;
}

/** The id of the newest event (0 before the first). */
function lastEventId(db: LogDb): number {
  return db.one<{ id: number | null }>('SELECT max(id) AS id FROM log').id ?? 0;
}

/**
 * What a log forgets, run at each alarm: at most hourly — not at every flush of a busy log —
 * the visitors, salts and settled calls past their time; with a retention, the events past it, `RETENTION_PER_ALARM` at most,
 * then again at the next alarm while some are left.
 */
export class Forgetting {
  /** When visitors and salts were last forgotten (0: not since the object started). */
  private forgottenAt = 0;
  /** When it last stored a replayed hit (a log loaded with past days), if ever. */
  private replayedAt = 0;
  /** Retention stopped at its limit, with more to delete. */
  private behind = false;

  constructor(
    private readonly db: LogDb,
    private readonly days: number | null,
    private readonly transaction: (work: () => void) => void,
  ) {}

  /** Notes a replayed hit stored at `now` (src/ingest/replay.ts). */
  noteReplayed(now: number): void {
    this.replayedAt = now;
  }

  /**
   * Whether the log is being loaded with past days (the demo's replay). What it forgets by the
   * clock waits meanwhile: the visitors and visits of the dates it writes would go at moments
   * that depend on how its dates are spread over partitions, not on its hits.
   */
  loading(now: number): boolean {
    return now - this.replayedAt < LOADING_MS;
  }

  /** Whether the hourly part ran, the events deleted, and whether more are left to delete. */
  run(now: number): { hourly: boolean; deleted: number; behind: boolean } {
    if (this.loading(now)) return { hourly: false, deleted: 0, behind: false };
    const hourly = now - this.forgottenAt >= MAINTENANCE_INTERVAL_MS;
    if (hourly) {
      this.forgottenAt = now;
      forgetVisitors(this.db, now);
      forgetSettled(this.db, now);
    }
    if (this.days === null || !(hourly || this.behind))
      return { hourly, deleted: 0, behind: false };
    const deleted = forgetExpired(this.db, now, this.days, this.transaction, RETENTION_PER_ALARM);
    this.behind = deleted >= RETENTION_PER_ALARM;
    return { hourly, deleted, behind: this.behind };
  }
}

/** Whether the log holds anything that time will make it forget. */
export function holdsAnythingToForget(db: LogDb, days: number | null): boolean {
  const held = db.one<{ held: number }>(
    `SELECT EXISTS (SELECT 1 FROM visitors) OR EXISTS (SELECT 1 FROM salts)
      OR EXISTS (SELECT 1 FROM staged) AS held`,
  ).held;
  return held === 1 || (days !== null && db.rows('SELECT 1 FROM days LIMIT 1').length > 0);
}
