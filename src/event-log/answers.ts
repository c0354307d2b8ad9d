/**
 * The answers a closed partition of a website's log keeps (docs/ARCHITECTURE.md, "When a
 * website outgrows one object"): a closed partition takes no more hits, so its answer to a
 * question never changes — until retention deletes some of its events, which forgets them
 * all. A question asked again is answered from here, with one row read instead of its
 * range's. Kept: the `KEPT` most recent questions.
 */
import type { LogDb } from './log-db.ts';

/** The most answers a partition keeps; the oldest go first. */
const KEPT = 1_000;

/** The answer kept for `key`, if any. */
export function keptAnswer<T>(db: LogDb, key: string): T | undefined {
  const row = db.rows<{ value: string }>('SELECT value FROM answers WHERE key = ?', key)[0];
  return row ? (JSON.parse(row.value) as T) : undefined;
}

/** Keeps an answer (the oldest beyond `KEPT` forgotten). */
export function keepAnswer(db: LogDb, key: string, value: unknown): void {
  db.rows('INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)', key, JSON.stringify(value));
  db.rows('DELETE FROM answers WHERE rowid <= (SELECT max(rowid) FROM answers) - ?', KEPT);
}

/** Forgets every answer (retention deleted events of the partition). */
export function forgetAnswers(db: LogDb): void {
  db.rows('DELETE FROM answers');
}
