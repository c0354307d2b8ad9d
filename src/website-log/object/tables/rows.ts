/**
 * The rows of a website's event log (docs/ARCHITECTURE.md, "The event log"): a row of `log`
 * (integers, its texts in `dict`: ./dictionary.ts) as the logged event the roll-ups count;
 * the values every row of a visitor and of a visit carries; and the one statement that
 * writes a row.
 */

import type { EventDimensions, LogOnlyDimensions } from '../../../counting/statistics.ts';
import { dateOfDay, dayNumber, pad2 } from '../../../lib/time/dates.ts';
import type { LoggedEvent, LogHit } from '../../events.ts';
import type { LogColumn, LogRow } from './columns.ts';
import type { Dictionary } from './dictionary.ts';
import type { LogDb } from './log-db.ts';

/**
 * A visitor's values, from their first page view of the day: every row of theirs that day
 * carries them, so that a filter on them is a condition on the row (docs/ARCHITECTURE.md,
 * "The event log").
 */
export type VisitorValues = Pick<
  EventDimensions,
  'country' | 'continent' | 'city' | 'language' | 'browser' | 'os' | 'device' | 'resolution'
> &
  Pick<LogOnlyDimensions, 'browserVersion' | 'osVersion' | 'region'> & { hour: string };

/** A visit's values, from its first page view: every row of the visit carries them. */
export type VisitValues = {
  hour: string;
  landing: string;
  /** The host name of the landing page. */
  landingHost: string;
  referrer: string;
  campaign: string | null;
} & Pick<
  LogOnlyDimensions,
  'source' | 'channel' | 'utmSource' | 'utmMedium' | 'utmContent' | 'utmTerm'
>;

/** The visitor's values a hit would give them, were it their first page view of the day. */
export function visitorValuesOf(hit: LogHit): VisitorValues {
  const { hour, country, continent, city, language, browser, os, device, resolution } = hit;
  const { browserVersion, osVersion, region } = hit;
  return {
    hour,
    country,
    continent,
    city,
    language,
    browser,
    os,
    device,
    resolution,
    browserVersion,
    osVersion,
    region,
  };
}

/** The visit's values a page view gives the visit it starts. */
export function visitValuesOf(hit: LogHit): VisitValues {
  const { source, channel, utmSource, utmMedium, utmContent, utmTerm } = hit;
  return {
    hour: hit.hour,
    landing: hit.page,
    landingHost: hit.hostname,
    referrer: hit.referrer,
    campaign: hit.campaign,
    source,
    channel,
    utmSource,
    utmMedium,
    utmContent,
    utmTerm,
  };
}

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

/** The columns of `log` holding ids of `dict` that a logged event reads. */
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
] as const satisfies readonly LogColumn[];

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

/**
 * A hit's custom properties as its row keeps them: `{"<name's id>": <value's id>}` (ids of
 * `dict`, so that a question reads a property by a number and groups and filters its values
 * as it does every other text); null for none.
 */
function propsOf(dict: Dictionary, props: LogHit['props']): string | null {
  if (!props || props.length === 0) return null;
  const ids: Record<string, number> = {};
  for (const [name, value] of props) ids[String(dict.encode(name))] = dict.encode(value);
  return JSON.stringify(ids);
}

/**
 * Writes one row of `log` under `id` (`nextEventId`), its texts encoded by `dict`: the hit's
 * own values, its visit's and its visitor's (a custom event without a visit carries its own;
 * values a visitor's row of an older version did not keep are empty).
 */
export function insertEvent(
  db: LogDb,
  dict: Dictionary,
  id: number,
  hit: LogHit,
  decided: Decided,
  facts: VisitFacts,
  values: { visitor: VisitorValues; visit: VisitValues | null },
): void {
  const { visitor } = values;
  const visit: Partial<VisitValues> = values.visit ?? {
    referrer: hit.referrer,
    campaign: hit.campaign,
    source: hit.source,
    channel: hit.channel,
    utmSource: hit.utmSource,
    utmMedium: hit.utmMedium,
    utmContent: hit.utmContent,
    utmTerm: hit.utmTerm,
  };
  const code = (value: string | null | undefined) => dict.encodeMaybe(value ?? null);
  const row: LogRow = {
    id,
    kind: hit.kind === 'event' ? 1 : 0,
    time: hit.time,
    day: dayNumber(hit.date),
    hour: Number(hit.hour),
    visitor: decided.visitor,
    visit: decided.visit,
    firsts: (decided.newVisitor ? 1 : 0) | (decided.newVisit ? 2 : 0),
    page: code(hit.page),
    event: code(hit.event),
    visit_views: facts.visitViews,
    previous_page: code(facts.previousPage),
    visit_seconds: facts.visitSeconds,
    visit_hour: values.visit ? Number(values.visit.hour) : null,
    landing: values.visit ? code(values.visit.landing) : null,
    referrer: code(visit.referrer),
    campaign: code(visit.campaign),
    visitor_hour: Number(visitor.hour),
    country: code(visitor.country),
    continent: code(visitor.continent),
    city: code(visitor.city),
    language: code(visitor.language),
    browser: code(visitor.browser),
    os: code(visitor.os),
    device: code(visitor.device),
    resolution: code(visitor.resolution),
    hostname: code(hit.hostname),
    name: code(hit.name),
    landing_host: values.visit ? code(values.visit.landingHost) : null,
    source: code(visit.source),
    channel: code(visit.channel),
    utm_source: code(visit.utmSource),
    utm_medium: code(visit.utmMedium),
    utm_content: code(visit.utmContent),
    utm_term: code(visit.utmTerm),
    browser_version: code(visitor.browserVersion),
    os_version: code(visitor.osVersion),
    region: code(visitor.region),
    props: propsOf(dict, hit.props),
    revenue: hit.revenue?.amount ?? null,
    currency: code(hit.revenue?.currency),
    engaged: null,
    scroll: null,
  };
  const columns = Object.keys(row);
  db.rows(
    `INSERT INTO log (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    ...Object.values(row),
  );
}

/**
 * The events after position `from`, in order, at most `limit`, as logged events, their texts
 * read from the dictionary.
 */
export function eventsAfter(
  db: LogDb,
  dict: Dictionary,
  from: number,
  limit: number,
): LoggedEvent[] {
  const rows = db.rows<LogRow>('SELECT * FROM log WHERE id > ? ORDER BY id LIMIT ?', from, limit);
  const texts = dict.decodeAll(new Set(rows.flatMap(idsOfRow)));
  return rows.map((row) =>
    toLoggedEvent(row, (id) => (id === null ? null : (texts.get(id) ?? null))),
  );
}
