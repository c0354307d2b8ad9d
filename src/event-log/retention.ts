/**
 * What a log forgets, and when (docs/ARCHITECTURE.md, "The event log"): visitor hashes 48
 * hours after they were last seen, salts after 72, and — when `EVENT_RETENTION_DAYS` is set —
 * rolled-up events older than that many days, by whole local dates.
 */
import { utcDate } from '../lib/dates.ts';
import type { LogDb } from './log-db.ts';

/** Visitor hashes are forgotten 48 hours after they were last seen, salts after 72. */
const VISITOR_TTL_MS = 48 * 3_600_000;
const SALT_TTL_MS = 72 * 3_600_000;

/** `EVENT_RETENTION_DAYS` as a whole number of days, or null to keep every event. */
export function retentionDays(setting: string | undefined): number | null {
  if (setting === undefined || setting === '') return null;
  const days = Number(setting);
  return Number.isInteger(days) && days > 0 ? days : null;
}

/** Deletes the visitors, salts and (with a retention) rolled-up events past their time. */
export function forgetExpired(db: LogDb, now: number, days: number | null): void {
  db.rows('DELETE FROM visitors WHERE last_seen < ?', now - VISITOR_TTL_MS);
  db.rows('DELETE FROM salts WHERE created_at < ?', now - SALT_TTL_MS);
  if (days === null) return;
  const before = db.io.rowsWritten;
  // Whole local dates at a time, so that the oldest date left is whole (`firstDate`).
  db.rows(
    'DELETE FROM events WHERE date < ? AND id <= ?',
    utcDate(now - days * 86_400_000),
    db.meta('flushed'),
  );
  if (db.io.rowsWritten > before) db.setMeta('pruned', 1);
}

/** Whether the log holds anything that time will make it forget. */
export function holdsAnythingToForget(db: LogDb, days: number | null): boolean {
  const held = db.one<{ held: number }>(
    `SELECT EXISTS (SELECT 1 FROM visitors) OR EXISTS (SELECT 1 FROM salts)
      OR EXISTS (SELECT 1 FROM staged) AS held`,
  ).held;
  return held === 1 || (days !== null && db.rows('SELECT 1 FROM events LIMIT 1').length > 0);
}
