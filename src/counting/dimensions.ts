/**
 * The dimensions a filter narrows, and at which level of the log each is a property
 * (docs/ARCHITECTURE.md, "Filters"):
 *
 * - `page`, `event`: the hits that match (page views of that page, custom events of that
 *   name or `name:value:unit`);
 * - `landing_page`, `exit_page`, `referrer`, `campaign`: every hit of the visits that have
 *   that value (their first page view's page, referrer and campaign; their last page view's
 *   page);
 * - `country`, `continent`, `city`, `language`, `browser`, `os`, `device`, `resolution`:
 *   every hit of the visitors that have it, that day (as their first page view of the day).
 */
import type { StatName } from './statistics.ts';

export const FILTER_DIMENSIONS = [
  'page',
  'landing_page',
  'exit_page',
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
  'event',
] as const satisfies readonly StatName[];

export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];

export function isFilterDimension(name: string): name is FilterDimension {
  return (FILTER_DIMENSIONS as readonly string[]).includes(name);
}

export const FILTER_OPERATORS = ['is', 'not', 'contains'] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type Filter = { dimension: FilterDimension; operator: FilterOperator; value: string };

/** At most this many filters narrow one question. */
export const MAX_FILTERS = 10;

/** A filter's value is at most this long (the longest value a statistic keeps is 255). */
export const MAX_FILTER_LENGTH = 255;

/** Which rows of the log a dimension is a property of. */
export type FilterLevel = 'hit' | 'visit' | 'visitor';

/**
 * Each dimension's level and the column of the log's `events` that holds its value (a landing
 * or exit page is a page view's `page`): the only place SQL over the log takes a column name
 * from, never from a filter's text.
 */
const DIMENSIONS = new Map<FilterDimension, { level: FilterLevel; column: string }>([
  ['page', { level: 'hit', column: 'page' }],
  ['event', { level: 'hit', column: 'event' }],
  ['landing_page', { level: 'visit', column: 'page' }],
  ['exit_page', { level: 'visit', column: 'page' }],
  ['referrer', { level: 'visit', column: 'referrer' }],
  ['campaign', { level: 'visit', column: 'campaign' }],
  ['country', { level: 'visitor', column: 'country' }],
  ['continent', { level: 'visitor', column: 'continent' }],
  ['city', { level: 'visitor', column: 'city' }],
  ['language', { level: 'visitor', column: 'language' }],
  ['browser', { level: 'visitor', column: 'browser' }],
  ['os', { level: 'visitor', column: 'os' }],
  ['device', { level: 'visitor', column: 'device' }],
  ['resolution', { level: 'visitor', column: 'resolution' }],
]);

function dimensionOf(dimension: FilterDimension) {
  const known = DIMENSIONS.get(dimension);
  if (!known) throw new Error(`not a filter dimension: ${String(dimension).slice(0, 40)}`);
  return known;
}

export function levelOf(dimension: FilterDimension): FilterLevel {
  return dimensionOf(dimension).level;
}

/** The column of the log's `events` that holds a dimension's value. */
export function columnOf(dimension: FilterDimension): string {
  return dimensionOf(dimension).column;
}
