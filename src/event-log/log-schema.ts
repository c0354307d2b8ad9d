/**
 * The tables of a website's event log (docs/ARCHITECTURE.md, "The event log"): made by its
 * first hit, brought up to date from an older version when the object starts; and the one
 * statement that writes an event.
 */
import type { EventDimensions, LoggedEvent, LogHit } from './events.ts';
import type { LogDb } from './log-db.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  time INTEGER NOT NULL,
  date TEXT NOT NULL,
  hour TEXT NOT NULL,
  visitor INTEGER NOT NULL,
  visit INTEGER NOT NULL,
  new_visitor INTEGER NOT NULL,
  new_visit INTEGER NOT NULL,
  page TEXT NOT NULL,
  referrer TEXT NOT NULL,
  campaign TEXT,
  country TEXT,
  continent TEXT,
  city TEXT,
  language TEXT,
  browser TEXT NOT NULL,
  os TEXT NOT NULL,
  device TEXT NOT NULL,
  resolution TEXT,
  event TEXT,
  visit_views INTEGER,
  previous_page TEXT,
  visit_seconds INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS visitors (
  hash TEXT PRIMARY KEY,
  date TEXT NOT NULL,
  number INTEGER NOT NULL,
  visit INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  visit_referrer TEXT NOT NULL,
  visit_start INTEGER
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
`;

/** The version of the tables `SCHEMA` makes, kept in `meta` under `schema`. */
const SCHEMA_VERSION = 5;

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
  // Where each local date's events are, for the queries that read the log (`idsOf`).
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
};

/** A row of `events`: the dimensions under their own names, the rest as its columns. */
export type EventRow = EventDimensions & {
  id: number;
  kind: string;
  time: number;
  date: string;
  hour: string;
  visitor: number;
  visit: number;
  new_visitor: number;
  new_visit: number;
  visit_views: number | null;
  previous_page: string | null;
  visit_seconds: number;
};

/** A row of `visitors`, as a page view reads it. */
export type VisitorRow = {
  number: number;
  visit: number;
  visit_referrer: string;
  visit_start: number | null;
};

export function toLoggedEvent(row: EventRow): LoggedEvent {
  const { kind, new_visitor, new_visit, visit_views, previous_page, visit_seconds, ...rest } = row;
  return {
    ...rest,
    kind: kind === 'event' ? 'event' : 'pageview',
    newVisitor: new_visitor === 1,
    newVisit: new_visit === 1,
    visitViews: visit_views,
    previousPage: previous_page,
    visitSeconds: visit_seconds,
  };
}

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

/** A page view's place in its visit, as its event row keeps it. */
export type VisitFacts = Pick<LoggedEvent, 'visitViews' | 'previousPage' | 'visitSeconds'>;

/** Who a hit's visitor and visit are, as decided when it was stored. */
export type Decided = { visitor: number; visit: number; newVisitor: boolean; newVisit: boolean };

/**
 * The id the next event gets: one more than any event ever stored, those retention deleted
 * included (`deleted_through`), so that positions never go backwards — SQLite alone would
 * hand out the ids of deleted events again, below the flush position (./retention.ts).
 */
export function nextEventId(db: LogDb): number {
  const newest = db.one<{ id: number | null }>('SELECT max(id) AS id FROM events').id ?? 0;
  return Math.max(newest, db.meta('deleted_through'), db.meta('flushed')) + 1;
}

/** Writes one event row under `id` (`nextEventId`). */
export function insertEvent(
  db: LogDb,
  id: number,
  hit: LogHit,
  decided: Decided,
  visit: VisitFacts,
): void {
  db.rows(
    `INSERT INTO events (id, kind, time, date, hour, visitor, visit, new_visitor, new_visit, page,
        referrer, campaign, country, continent, city, language, browser, os, device,
        resolution, event, visit_views, previous_page, visit_seconds)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    hit.kind,
    hit.time,
    hit.date,
    hit.hour,
    decided.visitor,
    decided.visit,
    decided.newVisitor ? 1 : 0,
    decided.newVisit ? 1 : 0,
    hit.page,
    hit.referrer,
    hit.campaign,
    hit.country,
    hit.continent,
    hit.city,
    hit.language,
    hit.browser,
    hit.os,
    hit.device,
    hit.resolution,
    hit.event,
    visit.visitViews,
    visit.previousPage,
    visit.visitSeconds,
  );
}
