/**
 * The rows of a website's event log (docs/ARCHITECTURE.md, "The event log"): a row of `log`
 * (integers, its texts in `dict`: ./dictionary.ts) and of the legacy `events` an older
 * version wrote (texts), each as the logged event the roll-ups count; the values every row
 * of a visitor and of a visit carries; and the one statement that writes a row.
 */

import type { EventDimensions } from '../counting/statistics.ts';
import { dateOfDay, dayNumber } from '../lib/dates.ts';
import type { Dictionary } from './dictionary.ts';
import type { LoggedEvent, LogHit } from './events.ts';
import type { LogDb } from './log-db.ts';

/** A row of `events`, as versions before 6 wrote it: every value as text. */
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

/** A legacy row (`events`) as a logged event. */
function legacyToLoggedEvent(row: EventRow): LoggedEvent {
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

/**
 * A visitor's values, from their first page view of the day: every row of theirs that day
 * carries them, so that a filter on them is a condition on the row (docs/ARCHITECTURE.md,
 * "The event log").
 */
export type VisitorValues = Pick<
  EventDimensions,
  'country' | 'continent' | 'city' | 'language' | 'browser' | 'os' | 'device' | 'resolution'
> & { hour: string };

/** A visit's values, from its first page view: every row of the visit carries them. */
export type VisitValues = {
  hour: string;
  landing: string;
  referrer: string;
  campaign: string | null;
};

/** The visitor's values a hit would give them, were it their first page view of the day. */
export function visitorValuesOf(hit: LogHit): VisitorValues {
  const { hour, country, continent, city, language, browser, os, device, resolution } = hit;
  return { hour, country, continent, city, language, browser, os, device, resolution };
}

/** The visit's values a page view gives the visit it starts. */
export function visitValuesOf(hit: LogHit): VisitValues {
  return { hour: hit.hour, landing: hit.page, referrer: hit.referrer, campaign: hit.campaign };
}

/** A row of `log`: integers, its texts as ids of `dict` (./dictionary.ts). */
type LogRow = {
  id: number;
  /** 0 a page view, 1 a custom event. */
  kind: number;
  time: number;
  /** The local date, as days since 1970-01-01 (`dayNumber`). */
  day: number;
  hour: number;
  visitor: number;
  visit: number;
  /** 1: the visitor's first page view of the day; 2: the first of a visit; 3: both. */
  firsts: number;
  page: number | null;
  event: number | null;
  visit_views: number | null;
  previous_page: number | null;
  visit_seconds: number;
  visit_hour: number | null;
  landing: number | null;
  referrer: number | null;
  campaign: number | null;
  visitor_hour: number | null;
  country: number | null;
  continent: number | null;
  city: number | null;
  language: number | null;
  browser: number | null;
  os: number | null;
  device: number | null;
  resolution: number | null;
};

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * A row of `log` as the logged event it records (what `rollupOf` counts): the texts of its
 * ids, and its own values where the roll-ups read them (a visitor's first page view carries
 * the visitor's values, a visit's first its visit's: its own).
 */
function toLoggedEvent(row: LogRow, text: (id: number | null) => string | null): LoggedEvent {
  return {
    id: row.id,
    kind: row.kind === 1 ? 'event' : 'pageview',
    time: row.time,
    date: dateOfDay(row.day),
    hour: pad2(row.hour),
    visitor: row.visitor,
    visit: row.visit,
    newVisitor: (row.firsts & 1) === 1,
    newVisit: (row.firsts & 2) === 2,
    page: text(row.page) ?? '',
    referrer: text(row.referrer) ?? '',
    campaign: text(row.campaign),
    country: text(row.country),
    continent: text(row.continent),
    city: text(row.city),
    language: text(row.language),
    browser: text(row.browser) ?? '',
    os: text(row.os) ?? '',
    device: text(row.device) ?? '',
    resolution: text(row.resolution),
    event: text(row.event),
    visitViews: row.visit_views,
    previousPage: text(row.previous_page),
    visitSeconds: row.visit_seconds,
  };
}

/** The ids of `dict` a row refers to. */
function idsOfRow(row: LogRow): number[] {
  const ids: number[] = [];
  for (const key of TEXT_COLUMNS) {
    const id = row[key];
    if (id !== null) ids.push(id);
  }
  return ids;
}

/** The columns of `log` that hold ids of `dict`. */
const TEXT_COLUMNS = [
  'page',
  'event',
  'previous_page',
  'landing',
  'referrer',
  'campaign',
  'country',
  'continent',
  'city',
  'language',
  'browser',
  'os',
  'device',
  'resolution',
] as const satisfies readonly (keyof LogRow)[];

/** A row of `visitors`, as a page view reads it. */
export type VisitorRow = {
  number: number;
  visit: number;
  visit_referrer: string;
  visit_start: number | null;
  /** JSON: `{visitor, visit}` values (none for a row an older version wrote). */
  attrs: string | null;
};

/** A page view's place in its visit, as its event row keeps it. */
export type VisitFacts = Pick<LoggedEvent, 'visitViews' | 'previousPage' | 'visitSeconds'>;

/** Who a hit's visitor and visit are, as decided when it was stored. */
export type Decided = { visitor: number; visit: number; newVisitor: boolean; newVisit: boolean };

/** Writes one row of `log` under `id` (`nextEventId`), its texts encoded by `dict`. */
export function insertEvent(
  db: LogDb,
  dict: Dictionary,
  id: number,
  hit: LogHit,
  decided: Decided,
  facts: VisitFacts,
  values: { visitor: VisitorValues; visit: VisitValues | null },
): void {
  const { visitor, visit } = values;
  const code = (value: string | null) => dict.encodeMaybe(value);
  db.rows(
    `INSERT INTO log (id, kind, time, day, hour, visitor, visit, firsts, page, event, visit_views,
        previous_page, visit_seconds, visit_hour, landing, referrer, campaign, visitor_hour,
        country, continent, city, language, browser, os, device, resolution)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    hit.kind === 'event' ? 1 : 0,
    hit.time,
    dayNumber(hit.date),
    Number(hit.hour),
    decided.visitor,
    decided.visit,
    (decided.newVisitor ? 1 : 0) | (decided.newVisit ? 2 : 0),
    code(hit.page),
    code(hit.event),
    facts.visitViews,
    code(facts.previousPage),
    facts.visitSeconds,
    visit ? Number(visit.hour) : null,
    visit ? code(visit.landing) : null,
    code(visit ? visit.referrer : hit.referrer),
    code(visit ? visit.campaign : hit.campaign),
    Number(visitor.hour),
    code(visitor.country),
    code(visitor.continent),
    code(visitor.city),
    code(visitor.language),
    code(visitor.browser),
    code(visitor.os),
    code(visitor.device),
    code(visitor.resolution),
  );
}

/**
 * The events after position `from`, in order, at most `limit`, as logged events: from the
 * legacy `events` while some there are not converted yet (up to `legacy` in `meta`), then
 * from `log`, their texts read from the dictionary.
 */
export function eventsAfter(
  db: LogDb,
  dict: Dictionary,
  from: number,
  limit: number,
): LoggedEvent[] {
  const legacy = db.meta('legacy');
  if (from < legacy) {
    const rows = db.rows<EventRow>(
      'SELECT * FROM events WHERE id > ? AND id <= ? ORDER BY id LIMIT ?',
      from,
      legacy,
      limit,
    );
    if (rows.length > 0) return rows.map(legacyToLoggedEvent);
  }
  const rows = db.rows<LogRow>('SELECT * FROM log WHERE id > ? ORDER BY id LIMIT ?', from, limit);
  const texts = dict.decodeAll(new Set(rows.flatMap(idsOfRow)));
  return rows.map((row) =>
    toLoggedEvent(row, (id) => (id === null ? null : (texts.get(id) ?? null))),
  );
}
