/**
 * The tables of a website's event log (docs/ARCHITECTURE.md, "The event log"): made by its
 * first hit, brought up to date from an older version when the object starts. The columns of
 * `log`: ./columns.ts; its rows and the statement that writes one: ./rows.ts.
 */
import { addedLogColumns, createLogTable } from './columns.ts';
import type { LogDb } from './log-db.ts';

/** The version of the tables `SCHEMA` makes, kept in `meta` under `schema`. */
const SCHEMA_VERSION = 11;

/** The answers a closed partition keeps (../read/answer-cache.ts). */
const ANSWERS = 'CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL);';

/**
 * Changes to a visit's duration made by an engagement after its page view was rolled up
 * (../write/engagement.ts, `event` its page view): positioned among the events, so that the flush
 * rolls each up once.
 */
const LATE_DURATIONS =
  'CREATE TABLE IF NOT EXISTS late_durations (id INTEGER PRIMARY KEY, event INTEGER NOT NULL, day INTEGER NOT NULL, seconds INTEGER NOT NULL, time INTEGER NOT NULL);';

const SCHEMA = `
${createLogTable(SCHEMA_VERSION, true)}
CREATE TABLE IF NOT EXISTS dict (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS visitors (
  hash TEXT PRIMARY KEY,
  date TEXT NOT NULL,
  number INTEGER NOT NULL,
  visit INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  visit_referrer TEXT NOT NULL,
  visit_start INTEGER,
  attrs TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS days (
  first INTEGER PRIMARY KEY,
  date TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS salts (
  date TEXT PRIMARY KEY,
  salt TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS staged (
  token TEXT PRIMARY KEY,
  hit TEXT NOT NULL,
  staged_at INTEGER NOT NULL,
  hash TEXT,
  leader INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settled (
  token TEXT PRIMARY KEY,
  outcome TEXT NOT NULL,
  at INTEGER NOT NULL
) WITHOUT ROWID;
${ANSWERS}
${LATE_DURATIONS}
`;

/**
 * The oldest version of the tables a log can be brought up from: version 6, the log as 0.1.0
 * keeps it (`log` and `dict`). The versions before it were a development format that no
 * release wrote; an object holding one refuses to start rather than read it wrongly.
 */
const OLDEST_UPGRADABLE = 6;

/** What brings the tables of an older version up to date, by the version it reaches. */
const UPGRADES: Record<number, string> = {
  // Version 7: what the query engine's dimensions read beyond the roll-ups'; version 8: a
  // hit's custom properties and revenue (./columns.ts).
  7: addedLogColumns(7),
  8: addedLogColumns(8),
  // The answers a closed partition keeps (../read/answer-cache.ts).
  9: ANSWERS,
  // A page view's engagement (../write/engagement.ts). Answers kept before have none of its sums.
  10: `${addedLogColumns(10)}\nDELETE FROM answers;`,
  // A visit's duration counts its last page view's engaged time (../write/engagement.ts).
  11: LATE_DURATIONS,
};

/** Makes the tables (on the log's first hit). */
export function createTables(db: LogDb): void {
  db.script(SCHEMA);
  db.setMeta('schema', SCHEMA_VERSION);
}

/**
 * Brings tables made by an older version up to date, in one transaction; why not, for tables
 * older than `OLDEST_UPGRADABLE` (null: up to date).
 */
export function upgradeTables(db: LogDb, transaction: (work: () => void) => void): string | null {
  const from = db.meta('schema') || 1;
  if (from >= SCHEMA_VERSION) return null;
  if (from < OLDEST_UPGRADABLE)
    return `a log of version ${from}, a development format no release wrote, cannot be opened`;
  transaction(() => {
    for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
      const statements = UPGRADES[version];
      if (statements) db.script(statements);
    }
    db.setMeta('schema', SCHEMA_VERSION);
  });
  return null;
}

/**
 * The id the next event (or change to a duration: `late_durations`) gets: one more than any
 * event ever stored, those retention deleted included, so that positions never go backwards; a partition's first is past its `id_base` (../partition.ts) — SQLite alone would hand out the ids of deleted events again, below the flush
 * position (../retention.ts).
 */
export function nextEventId(db: LogDb): number {
  const newest =
    db.one<{ id: number | null }>(
      'SELECT max(id) AS id FROM (SELECT max(id) AS id FROM log UNION ALL SELECT max(id) FROM late_durations)',
    ).id ?? 0;
  return Math.max(newest, db.meta('deleted_through'), db.meta('flushed'), db.meta('id_base')) + 1;
}
