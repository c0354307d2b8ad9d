/**
 * The dates a log holds. `days` notes the id where each run of one local date's events
 * starts (a row at each local midnight), so that a read scans only its dates' events.
 */
import type { LogDb } from './log-db.ts';

/** The local date of the newest event (null before the first). */
export function newestDate(db: LogDb): string | null {
  return (
    db.rows<{ date: string }>('SELECT date FROM days ORDER BY first DESC LIMIT 1')[0]?.date ?? null
  );
}

/** The latest local date the log holds events of (null before the first). */
export function latestDate(db: LogDb): string | null {
  return db.one<{ date: string | null }>('SELECT max(date) AS date FROM days').date;
}

/** Notes that a run of events of `date` starts at event `id`. */
export function noteDayStart(db: LogDb, id: number, date: string): void {
  db.rows('INSERT INTO days (first, date) VALUES (?, ?)', id, date);
}

/** A date as `meta` keeps it: `2026-03-10` is 20260310. */
export function compactDate(date: string): number {
  return Number(date.replaceAll('-', ''));
}

/**
 * The first date from which the log holds every event: null while it has deleted none (it
 * holds every date since its first hit). Retention deletes whole dates (../retention.ts) and
 * notes the day after the newest it deleted, so every date from then on is whole.
 */
export function keptFrom(db: LogDb): string | null {
  const value = db.meta('kept_from');
  if (!value) return null;
  const digits = String(value).padStart(8, '0');
  return `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}`;
}
