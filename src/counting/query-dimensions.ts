/**
 * The query engine's dimensions (docs/ARCHITECTURE.md, "The query engine"): what each one
 * groups and filters by in the event log — the SQL over a row of `log` that gives its value,
 * its level (which rows share the value), and how a stored text reads. Plausible's Stats API
 * v2 names (`event:page`, `visit:source`, `time:day`, …), Sightline's own additions
 * (`visit:language`, `visit:resolution`, `visit:continent`), and the forms API v1's statistics
 * read (`sl:…`: values as v1 returns them, no row for an unknown value).
 *
 * Levels: `hit` — the row's own value (a page view's page); `visit` — the same on every row of
 * a visit (its first page view's); `visitor` — the same on every row of a visitor that day;
 * `date` — a function of the local date. A visit and a visitor never cross a local date, so
 * every level but `hit` puts all of a visitor-day's or a visit's rows in one group.
 */

type Level = 'hit' | 'visit' | 'visitor' | 'date';

/** How a stored text of the dictionary reads as a dimension's value; null: it has no row. */
type Label = (stored: string) => string | null;

export type QueryDimension = {
  level: Level;
  /**
   * The SQL over a row of `log` giving the value: a column of dictionary ids (`text`), or an
   * integer (`number`: dates and hours); for goals, the goal a hit completes, which a
   * grouping's goals give (`goal`: `GroupQuery.goals`).
   */
  sql: string;
  kind: 'text' | 'number' | 'goal';
  /**
   * The SQL giving the value a visit is grouped by for the visit metrics (bounce rate,
   * duration, views per visit): the entry page for `event:page` (as Plausible does), the hour
   * the visit began for `time:hour`; undefined where those metrics cannot be grouped by it.
   */
  session?: string;
  /** How a stored text reads (default: as stored). */
  label?: Label;
  /**
   * Stored texts that read as something they do not contain (`Linux` reads `GNU/Linux`):
   * a filter's value is found in the dictionary by what it contains, and these are added.
   */
  renamed?: ReadonlyMap<string, string | null>;
  /** What a row without a value reads as; undefined: such rows have no group. */
  none?: string;
  /** The value is worked out per visit from its last page view (exit pages). */
  exit?: 'page' | 'hostname';
  /** A filter on it keeps page views only (API v1's `page`: a custom event's page is none). */
  pageViews?: true;
  /**
   * A custom event has a value of its own (its name, its properties): a grouping by it reads
   * the custom events too, whatever its metrics (src/website-log/object/read/question-sql.ts).
   */
  events?: true;
  /**
   * Several stored values may read alike (cities of one name; an empty text and none; the
   * days of a week), so groups are added together by what they read.
   */
  merges?: true;
};

/** The dimension of goals: a goal's name (`GroupQuery.goals`). */
export const GOAL = 'event:goal';

const NOT_SET = '(not set)';
const DIRECT = 'Direct / None';

/** `US:United States` → `US`; `US-TX:Texas` → `US-TX`. */
const code: Label = (stored) => stored.split(':', 1)[0] || null;
/** `US:United States` → `United States`. */
const name: Label = (stored) => {
  const at = stored.indexOf(':');
  return at < 0 ? stored : stored.slice(at + 1) || null;
};
/** `US:Austin, TX` → `Austin` (the region code Cloudflare gave is left out). */
const cityName: Label = (stored) => {
  const city = name(stored);
  return city === null ? null : city.replace(/, [A-Za-z0-9]{1,3}$/, '');
};
export const DEVICES = new Map([
  ['desktop', 'Desktop'],
  ['mobile', 'Mobile'],
  ['tablet', 'Tablet'],
  ['tv', 'TV'],
]);
const device: Label = (stored) => DEVICES.get(stored) ?? (stored === 'Unknown' ? null : stored);
/** Browsers and systems by the names Plausible gives them; an unknown one has no value. */
export const PLAUSIBLE_NAMES = new Map<string, string | null>([
  ['Edge', 'Microsoft Edge'],
  ['macOS', 'Mac'],
  ['Linux', 'GNU/Linux'],
  ['Unknown', null],
]);
const plausibleName: Label = (stored) =>
  PLAUSIBLE_NAMES.has(stored) ? (PLAUSIBLE_NAMES.get(stored) ?? null) : stored;
/** An empty text is no value. */
const nonEmpty: Label = (stored) => (stored === '' ? null : stored);

const text = (level: Level, sql: string, more: Partial<QueryDimension> = {}): QueryDimension => ({
  level,
  sql,
  kind: 'text',
  session: level === 'hit' ? undefined : sql,
  ...more,
});

/** The hour of a row as a number of hours since 1970-01-01, local. */
const HOUR_OF_DAY = 'day * 24 + hour';

export const QUERY_DIMENSIONS = new Map<string, QueryDimension>([
  ['event:page', text('hit', 'page', { session: 'landing', label: nonEmpty })],
  [GOAL, { level: 'hit', sql: 'goal', kind: 'goal' }],
  ['event:hostname', text('hit', 'hostname', { session: 'landing_host', none: NOT_SET })],
  ['event:name', text('hit', 'name', { events: true })],
  ['visit:entry_page', text('visit', 'landing')],
  ['visit:entry_page_hostname', text('visit', 'landing_host', { none: NOT_SET })],
  ['visit:exit_page', text('visit', 'page', { exit: 'page' })],
  ['visit:exit_page_hostname', text('visit', 'hostname', { exit: 'hostname', none: NOT_SET })],
  ['visit:source', text('visit', 'source', { label: nonEmpty, none: DIRECT, merges: true })],
  ['visit:referrer', text('visit', 'referrer', { label: nonEmpty, none: DIRECT, merges: true })],
  ['visit:channel', text('visit', 'channel', { label: nonEmpty, none: NOT_SET, merges: true })],
  ['visit:utm_source', text('visit', 'utm_source', { none: NOT_SET })],
  ['visit:utm_medium', text('visit', 'utm_medium', { none: NOT_SET })],
  ['visit:utm_campaign', text('visit', 'campaign', { none: NOT_SET })],
  ['visit:utm_content', text('visit', 'utm_content', { none: NOT_SET })],
  ['visit:utm_term', text('visit', 'utm_term', { none: NOT_SET })],
  ['visit:device', text('visitor', 'device', { label: device, none: NOT_SET })],
  ['visit:screen', text('visitor', 'device', { label: device, none: NOT_SET })],
  [
    'visit:browser',
    text('visitor', 'browser', { label: plausibleName, renamed: PLAUSIBLE_NAMES, none: NOT_SET }),
  ],
  ['visit:browser_version', text('visitor', 'browser_version', { none: NOT_SET })],
  [
    'visit:os',
    text('visitor', 'os', { label: plausibleName, renamed: PLAUSIBLE_NAMES, none: NOT_SET }),
  ],
  ['visit:os_version', text('visitor', 'os_version', { none: NOT_SET })],
  ['visit:country', text('visitor', 'country', { label: code, none: NOT_SET })],
  ['visit:country_name', text('visitor', 'country', { label: name, none: NOT_SET })],
  ['visit:region', text('visitor', 'region', { label: code, none: NOT_SET })],
  ['visit:region_name', text('visitor', 'region', { label: name, none: NOT_SET })],
  ['visit:city_name', text('visitor', 'city', { label: cityName, none: NOT_SET, merges: true })],
  ['visit:continent', text('visitor', 'continent', { label: name, none: NOT_SET })],
  ['visit:language', text('visitor', 'language', { none: NOT_SET })],
  ['visit:resolution', text('visitor', 'resolution', { none: NOT_SET })],
  ['time:day', { level: 'date', sql: 'day', kind: 'number', session: 'day' }],
  ['time:week', { level: 'date', sql: 'day', kind: 'number', session: 'day', merges: true }],
  ['time:month', { level: 'date', sql: 'day', kind: 'number', session: 'day', merges: true }],
  [
    'time:hour',
    { level: 'hit', sql: HOUR_OF_DAY, kind: 'number', session: 'day * 24 + visit_hour' },
  ],
  // API v1's statistics: the values as v1 returns them, no row for an unknown one; a page
  // is a page view's (a custom event's page is not one of them).
  ['sl:page', text('hit', 'page', { session: 'landing', pageViews: true })],
  ['sl:referrer', text('visit', 'referrer', { label: nonEmpty })],
  ['sl:campaign', text('visit', 'campaign')],
  ['sl:utm_medium', text('visit', 'utm_medium')],
  ['sl:utm_source', text('visit', 'utm_source')],
  ['sl:utm_term', text('visit', 'utm_term')],
  ['sl:utm_content', text('visit', 'utm_content')],
  ['sl:country', text('visitor', 'country')],
  ['sl:continent', text('visitor', 'continent')],
  ['sl:city', text('visitor', 'city')],
  ['sl:language', text('visitor', 'language')],
  ['sl:resolution', text('visitor', 'resolution')],
  ['sl:device', text('visitor', 'device')],
  ['sl:browser', text('visitor', 'browser')],
  ['sl:os', text('visitor', 'os')],
  ['sl:event', text('hit', 'event')],
  ['sl:hour', { level: 'hit', sql: 'hour', kind: 'number', session: 'visit_hour' }],
  ['sl:visitor_hour', { level: 'visitor', sql: 'visitor_hour', kind: 'number' }],
  ['sl:visit_hour', { level: 'visit', sql: 'visit_hour', kind: 'number', session: 'visit_hour' }],
]);

/** The dimensions of Plausible's Stats API v2 that Sightline cannot answer, and why. */
export const UNANSWERED_DIMENSIONS = new Map([
  [
    'visit:city',
    'Sightline knows the city by its name, not by its GeoNames id: use visit:city_name.',
  ],
]);

/**
 * Custom properties (docs/ARCHITECTURE.md, "Custom properties"): a hit's own, kept in the log
 * as `{"<name's id>": <value's id>}` of the dictionary. A question names one by its name —
 * `event:props:<name>` (Plausible's: a hit without it reads `(none)`) or `sl:props:<name>`
 * (API v1's: no row for it) — and the log reads it by its name's id (`prop#<id>`,
 * `sl:prop#<id>`): its SQL holds a number, never the name.
 */
/** Plausible's limits of a hit's properties: how many, and the characters of a name or value. */
export const MAX_PROPS = 30;
export const MAX_PROP_NAME = 300;
export const MAX_PROP_VALUE = 2000;

const PROPERTY_BY_NAME = /^(event|sl):props:(.+)$/s;
const PROPERTY_BY_ID = /^(sl:)?prop#(\d{1,16})$/;

/** A property's name in a dimension `event:props:<name>` or `sl:props:<name>`, else null. */
export function propertyName(key: string): string | null {
  return PROPERTY_BY_NAME.exec(key)?.[2] ?? null;
}

/** The dimension the log reads for a property named by a dimension, by its name's id. */
export function propertyById(key: string, id: number): string {
  return `${key.startsWith('sl:') ? 'sl:' : ''}prop#${id}`;
}

const NONE = '(none)';

function propertyDimension(key: string): QueryDimension | undefined {
  const byId = PROPERTY_BY_ID.exec(key);
  const byName = byId ? null : PROPERTY_BY_NAME.exec(key);
  if (!byId && !byName) return undefined;
  const v1 = byId ? byId[1] !== undefined : byName?.[1] === 'sl';
  return {
    level: 'hit',
    kind: 'text',
    events: true,
    // By name, a question is checked and planned; only by id is it read (src/website-log).
    sql: byId ? `json_extract(props, '$."${byId[2]}"')` : 'NULL',
    ...(v1 ? {} : { none: NONE }),
  };
}

/** Whether `key` names a dimension: one of the registry or a custom property. */
export function isQueryDimension(key: string): boolean {
  return QUERY_DIMENSIONS.has(key) || propertyName(key) !== null;
}

/** A dimension of the registry or a property; throws for any other name (never SQL from a request's text). */
export function queryDimension(key: string): QueryDimension {
  const found = QUERY_DIMENSIONS.get(key) ?? propertyDimension(key);
  if (!found) throw new Error(`not a dimension: ${key.slice(0, 60)}`);
  return found;
}
