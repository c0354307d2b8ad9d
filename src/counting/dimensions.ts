/**
 * The dimensions API v1's filters narrow (docs/ARCHITECTURE.md, "Filters"), each one of the
 * query engine's (./query-dimensions.ts, through src/stats/engine/v1.ts):
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

/**
 * A custom property's filter, `filter[props:<name>]`: the hits that carry the property with
 * that value (src/counting/query-dimensions.ts, "Custom properties").
 */
type PropertyFilterDimension = `props:${string}`;

const PROPERTY_FILTER_PREFIX = 'props:';

/** The property a filter's dimension names, or null. */
export function filteredProperty(dimension: string): string | null {
  return dimension.startsWith(PROPERTY_FILTER_PREFIX)
    ? dimension.slice(PROPERTY_FILTER_PREFIX.length)
    : null;
}

/** A goal's filter, `filter[goal]=<name>`: the hits that complete it (src/stats/goals.ts). */
export const GOAL_FILTER = 'goal';

export type Filter = {
  dimension: FilterDimension | PropertyFilterDimension | typeof GOAL_FILTER;
  operator: FilterOperator;
  value: string;
};

/** At most this many filters narrow one question. */
export const MAX_FILTERS = 10;

/** A filter's value is at most this long (the longest value a statistic keeps is 255). */
export const MAX_FILTER_LENGTH = 255;
