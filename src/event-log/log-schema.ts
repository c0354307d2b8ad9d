/**
 * The tables of a website's event log (docs/ARCHITECTURE.md, "The event log"): made by its
 * first hit, brought up to date from an older version when the object starts. The columns of
 * `log`: ./log-columns.ts; its rows and the statement that writes one: ./log-rows.ts.
 */
import { addedLogColumns, createLogTable } from './log-columns.ts';
import type { LogDb } from './log-db.ts';

/** The version of the tables `SCHEMA` makes, kept in `meta` under `schema`. */
const SCHEMA_VERSION = 11;

/** The answers a closed partition keeps (./answers.ts). */
const ANSWERS = 'CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL);';

/**
 * Changes to a visit's duration made by an engagement after its page view was rolled up
 * (./engagement.ts, `event` its page view): positioned among the events, so that the flush
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
 * What brings the tables of an older version up to date, by the version it reaches. Version 2
 * keeps what a visit's bounce, exit page and duration need; the visits under way when a log
 * is upgraded count as visits but not in those three (their page views so far are unknown).
 */
const UPGRADES: Record<number, string> = {
  2: `
ALTER TABLE events ADD COLUMN visit_views INTEGER;
ALTER TABLE events ADD COLUMN previous_page TEXT;
ALTER TABLE events ADD COLUMN visit_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE visitors ADD COLUMN visit_views INTEGER;
ALTER TABLE visitors ADD COLUMN visit_page TEXT;
ALTER TABLE visitors ADD COLUMN visit_start INTEGER;
`,
  // A visit's page views so far and its last page live in memory (`VisitState`), rebuilt
  // from the events after a restart: the visitor's row is written when a visit starts only.
  3: `
ALTER TABLE visitors DROP COLUMN visit_views;
ALTER TABLE visitors DROP COLUMN visit_page;
`,
  // Where each local date's events are, for the reads of the log (./log-reads.ts).
  4: `
CREATE TABLE days (first INTEGER PRIMARY KEY, date TEXT NOT NULL);
INSERT INTO days (first, date)
  SELECT id, date FROM (SELECT id, date, lag(date) OVER (ORDER BY id) AS before FROM events)
  WHERE before IS NULL OR before != date;
`,
  // Staged hits keep their visitor's hash instead of the address and User-Agent, and which
  // log decides their call (./staging.ts). Retention notes the highest id it deleted and the
  // first date held whole, and `days` loses the runs it deleted (./retention.ts).
  5: `
ALTER TABLE staged ADD COLUMN hash TEXT;
ALTER TABLE staged ADD COLUMN leader INTEGER;
CREATE TABLE settled (token TEXT PRIMARY KEY, outcome TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO meta (key, value)
  SELECT 'kept_from', CAST(replace(coalesce((SELECT date FROM events ORDER BY id LIMIT 1), date('now', '+1 day')), '-', '') AS INTEGER)
  FROM meta WHERE key = 'pruned' AND value = 1;
DELETE FROM meta WHERE key = 'pruned';
DELETE FROM days WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id >= days.first
  AND e.id < coalesce((SELECT min(n.first) FROM days n WHERE n.first > days.first), 9223372036854775807));
`,
  // The log: integers, its texts in `dict`, each row with its visit's and visitor's values
  // (./dictionary.ts, docs/ARCHITECTURE.md "The event log"). The events an older version
  // wrote stay in `events`, the newest first converted into `log` (./convert.ts): `legacy`
  // notes the highest id not converted yet.
  6: `
${createLogTable(6)}
CREATE TABLE dict (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
ALTER TABLE visitors ADD COLUMN attrs TEXT;
INSERT INTO meta (key, value) SELECT 'legacy', max(id) FROM events HAVING max(id) IS NOT NULL;
INSERT INTO meta (key, value) SELECT 'legacy_max', max(id) FROM events HAVING max(id) IS NOT NULL;
`,
  // Version 7: what the query engine's dimensions read beyond the roll-ups'; version 8: a
  // hit's custom properties and revenue (./log-columns.ts).
  7: addedLogColumns(7),
  8: addedLogColumns(8),
  // The answers a closed partition keeps (./answers.ts).
  9: ANSWERS,
  // A page view's engagement (./engagement.ts). Answers kept before have none of its sums.
  10: `${addedLogColumns(10)}\nDELETE FROM answers;`,
  // A visit's duration counts its last page view's engaged time (./engagement.ts).
  11: LATE_DURATIONS,
};

/** Makes the tables (on the log's first hit). */
export function createTables(db: LogDb): void {
  db.script(SCHEMA);
  db.setMeta('schema', SCHEMA_VERSION);
}

/** Brings tables made by an older version up to date, in one transaction. */
export function upgradeTables(db: LogDb, transaction: (work: () => void) => void): void {
  const from = db.meta('schema') || 1;
  if (from >= SCHEMA_VERSION) return;
  transaction(() => {
    for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
      const statements = UPGRADES[version];
      if (statements) db.script(statements);
    }
    db.setMeta('schema', SCHEMA_VERSION);
  });
}

/**
 * The id the next event (or change to a duration: `late_durations`) gets: one more than any
 * event ever stored, those retention deleted
 * and those an older version wrote (`legacy`) included, so that positions never go
 * backwards; a partition's first is past its `id_base` (./partitions.ts) — SQLite alone would hand out the ids of deleted events again, below the flush
 * position (./retention.ts).
 */
export function nextEventId(db: LogDb): number {
  const newest =
    db.one<{ id: number | null }>(
      'SELECT max(id) AS id FROM (SELECT max(id) AS id FROM log UNION ALL SELECT max(id) FROM late_durations)',
    ).id ?? 0;
  return (
    Math.max(
      newest,
      db.meta('deleted_through'),
      db.meta('flushed'),
      db.meta('legacy_max'),
      db.meta('id_base'),
    ) + 1
  );
}
