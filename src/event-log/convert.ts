/**
 * The events an older version wrote (the legacy `events`: every value as text, each row with
 * its own values) converted into `log` (integers, each row with its visit's and visitor's
 * values: ./log-rows.ts), newest first and at a bounded pace (docs/ARCHITECTURE.md, "The
 * event log"): the newest `AT_UPGRADE` rows when the object first starts after the upgrade,
 * then `PER_RUN` an hour, so that a long log costs no more rows written a day than a free
 * plan allows. Ids stay as they were (they are the log's positions). `legacy` in `meta` is
 * the highest id not converted yet; the legacy rows stay where they are until all are
 * converted, then the table goes. Filtered reads answer for the dates converted whole.
 */
import { addDays } from '../lib/dates.ts';
import type { Dictionary } from './dictionary.ts';
import type { LogHit } from './events.ts';
import type { LogDb } from './log-db.ts';
import {
  type EventRow,
  insertEvent,
  type VisitorValues,
  type VisitValues,
  visitorValuesOf,
  visitValuesOf,
} from './log-rows.ts';

/** Legacy rows converted when the object first starts after the upgrade: the live part. */
export const AT_UPGRADE = 20_000;
/** Legacy rows converted at each hourly maintenance, at most (48,000 a day). */
export const PER_RUN = 2_000;
/** Rows converted per transaction. */
const CHUNK = 2_000;

/** A legacy row read for converting: its own values, as a hit had them. */
type Legacy = EventRow;

/** The visitors' and visits' values of one date, from their first page views. */
type DateValues = {
  visitors: Map<number, VisitorValues>;
  visits: Map<string, VisitValues>;
};

/**
 * Converts up to `limit` legacy rows, the newest first (whole runs of a date are read for
 * their first page views); answers how many. Drops the legacy table once all are converted.
 */
export function convertLegacy(
  db: LogDb,
  dict: Dictionary,
  transaction: (work: () => void) => void,
  limit: number,
): number {
  let converted = 0;
  const dates = new Map<string, DateValues>();
  const valuesOf = (date: string) => {
    let known = dates.get(date);
    if (!known) {
      known = valuesOfDate(db, date);
      dates.set(date, known);
    }
    return known;
  };
  while (converted < limit && db.meta('legacy') > 0) {
    // The newest row not converted (retention may have deleted those above it), and the
    // start of its run of one date.
    const cursor = db.one<{ id: number | null }>(
      'SELECT max(id) AS id FROM events WHERE id <= ?',
      db.meta('legacy'),
    ).id;
    if (cursor === null) {
      finish(db);
      break;
    }
    const first =
      db.rows<{ first: number }>(
        'SELECT first FROM days WHERE first <= ? ORDER BY first DESC LIMIT 1',
        cursor,
      )[0]?.first ?? 1;
    const low = Math.max(first, cursor - Math.min(CHUNK, limit - converted) + 1);
    const rows = db.rows<Legacy>('SELECT * FROM events WHERE id BETWEEN ? AND ?', low, cursor);
    transaction(() => {
      for (const row of rows) convertRow(db, dict, row, valuesOf(row.date));
      db.setMeta('legacy', low - 1);
    });
    converted += rows.length;
  }
  if (db.meta('legacy') === 0 && db.hasTable('events')) finish(db);
  return converted;
}

/** All legacy rows are converted: the table goes. */
function finish(db: LogDb): void {
  db.script('DROP TABLE IF EXISTS events');
  db.setMeta('legacy', 0);
}

/** Whether the log holds rows an older version wrote that are not converted yet. */
const holdsLegacy = (db: LogDb) => db.meta('legacy') > 0;

/**
 * When the object starts: a log an older version wrote, none of it converted yet, has its
 * newest rows (`AT_UPGRADE`) converted now by `convert`. Answers whether rows are left to
 * convert (by the alarm, hourly).
 */
export function convertAtUpgrade(db: LogDb, convert: (limit: number) => unknown): boolean {
  if (holdsLegacy(db) && db.meta('legacy') === db.meta('legacy_max')) convert(AT_UPGRADE);
  return holdsLegacy(db);
}

/**
 * A legacy row as a hit: the dimensions added since it was written are empty, but an event's
 * name, read from its label (`name` or `name:value:unit`).
 */
function hitOf(row: Legacy): LogHit {
  const kind = row.kind === 'event' ? ('event' as const) : ('pageview' as const);
  const parts = (row.event ?? '').split(':');
  const name =
    kind === 'pageview'
      ? 'pageview'
      : parts.length >= 3
        ? parts.slice(0, -2).join(':')
        : (row.event ?? '');
  return {
    ...row,
    websiteId: 0,
    kind,
    ip: '',
    userAgent: '',
    hostname: '',
    name,
    utmSource: null,
    utmMedium: null,
    utmContent: null,
    utmTerm: null,
    source: row.referrer === '' ? '' : row.referrer.replace(/^www\./, ''),
    channel: '',
    browserVersion: null,
    osVersion: null,
    region: null,
  };
}

/** One legacy row into `log`, under its own id, with its visitor's and visit's values. */
function convertRow(db: LogDb, dict: Dictionary, row: Legacy, date: DateValues): void {
  const hit = hitOf(row);
  const visitor = (row.visitor > 0 && date.visitors.get(row.visitor)) || visitorValuesOf(hit);
  const visit =
    row.visit > 0 ? (date.visits.get(`${row.visitor} ${row.visit}`) ?? visitValuesOf(hit)) : null;
  insertEvent(
    db,
    dict,
    row.id,
    hit,
    {
      visitor: row.visitor,
      visit: row.visit,
      newVisitor: row.new_visitor === 1,
      newVisit: row.new_visit === 1,
    },
    {
      visitViews: row.visit_views,
      previousPage: row.previous_page,
      visitSeconds: row.visit_seconds,
    },
    { visitor, visit },
  );
}

/** The first page views of a date's visitors and visits, from every run of that date. */
function valuesOfDate(db: LogDb, date: string): DateValues {
  const visitors = new Map<number, VisitorValues>();
  const visits = new Map<string, VisitValues>();
  const runs = db.rows<{ first: number; last: number | null }>(
    `SELECT d.first, (SELECT min(n.first) FROM days n WHERE n.first > d.first) - 1 AS last
      FROM days d WHERE d.date = ?`,
    date,
  );
  for (const run of runs) {
    const firsts = db.rows<Legacy>(
      `SELECT * FROM events WHERE id BETWEEN ? AND ? AND kind = 'pageview'
        AND (new_visitor = 1 OR new_visit = 1)`,
      run.first,
      run.last ?? Number.MAX_SAFE_INTEGER,
    );
    for (const row of firsts) {
      const hit = hitOf(row);
      if (row.new_visitor === 1) visitors.set(row.visitor, visitorValuesOf(hit));
      if (row.new_visit === 1) visits.set(`${row.visitor} ${row.visit}`, visitValuesOf(hit));
    }
  }
  return { visitors, visits };
}

/**
 * The first date from which every event of the log is converted (null: all are): the day
 * after the newest date that still has a row not converted.
 */
export function convertedFrom(db: LogDb): string | null {
  const cursor = db.meta('legacy');
  if (cursor <= 0) return null;
  const newest = db.rows<{ date: string | null }>(
    'SELECT max(date) AS date FROM days WHERE first <= ?',
    cursor,
  )[0]?.date;
  return newest ? addDays(newest, 1) : null;
}
