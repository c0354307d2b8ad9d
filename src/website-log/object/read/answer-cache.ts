/**
 * The answers a partition of a website's log keeps (docs/ARCHITECTURE.md, "When a website
 * outgrows one object"). A closed partition takes no more hits, so its answer to a question
 * never changes — until a hit is sent back to it or retention deletes some of its events,
 * which forgets them all; the open one keeps its answers for the dates before its newest,
 * forgotten by a hit of an older date (./methods.ts). A question asked again is answered from
 * here, with one row read instead of its range's. Kept: the `KEPT` most recent questions.
 *
 * Forgetting moves the partition's epoch on, in the transaction that changes its events: a
 * read keeps its answer only when the epoch has not moved while it read (a hit may come
 * between its chunks), and the open partition's memory of the closed partitions' groups
 * (`ClosedGroups`) holds under their epochs.
 */
import type { LogDb } from '../tables/log-db.ts';

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

/** Forgets every answer (the partition's events changed), moving its epoch on. */
export function forgetAnswers(db: LogDb): void {
  db.rows('DELETE FROM answers');
  db.setMeta('answers_epoch', answersEpoch(db) + 1);
}

/** The partition's epoch: it moves on each time its answers are forgotten. */
export const answersEpoch = (db: LogDb) => db.meta('answers_epoch');

/** The most rows (groups, paths) the open partition keeps in memory for the closed partitions. */
const MOST_ROWS = 150_000;

/** The most keys of questions asked without an entry remembered (`askedBefore`). */
const MOST_ASKED = 10_000;

/**
 * The closed partitions' values added together — a question's groups, a journey's paths — as
 * the open partition keeps them in memory for a question asked again (./methods.ts
 * `overClosed`): by the question, its range cut to the closed partitions' dates, and each
 * closed partition's number and epoch — so that an entry never outlives what it was added up
 * from — once a question is asked a second time. At most `MOST_ROWS` rows (`rowsOf`); the
 * least recently asked go first.
 */
export class ClosedValues<T> {
  private readonly kept = new Map<string, T>();
  private rows = 0;
  /** The keys asked without an entry, the most recent `MOST_ASKED`. */
  private readonly asked = new Set<string>();

  constructor(private readonly rowsOf: (value: T) => number) {}

  /**
   * Whether `key` was asked before without an entry (and notes that it was now): only a
   * question asked again is worth keeping — a question asked once (a filter never used
   * again) would cost the open partition the closed ones' values for nothing.
   */
  askedBefore(key: string): boolean {
    if (this.asked.has(key)) return true;
    if (this.asked.size >= MOST_ASKED) this.asked.clear();
    this.asked.add(key);
    return false;
  }

  get(key: string): T | undefined {
    const value = this.kept.get(key);
    if (value !== undefined) {
      this.kept.delete(key);
      this.kept.set(key, value);
    }
    return value;
  }

  keep(key: string, value: T): void {
    const rows = this.rowsOf(value);
    if (rows > MOST_ROWS || this.kept.has(key)) return;
    for (const [oldest, v] of this.kept) {
      if (this.rows + rows <= MOST_ROWS) break;
      this.kept.delete(oldest);
      this.rows -= this.rowsOf(v);
    }
    this.kept.set(key, value);
    this.rows += rows;
  }
}
