/**
 * API v1's statistics and filters as questions of the query engine (docs/ARCHITECTURE.md,
 * "The query engine"): each of the 22 statistics is one dimension and one metric; a v1 filter
 * is a leaf. The values read exactly as v1 has always returned them (`sl:` dimensions of
 * src/counting/query-dimensions.ts).
 */
import {
  type Filter,
  type FilterDimension,
  filteredProperty,
  GOAL_FILTER,
} from '../../counting/dimensions.ts';
import type { FilterNode } from '../../counting/query.ts';
import { GOAL } from '../../counting/query-dimensions.ts';
import type { StatName } from '../../counting/statistics.ts';

/** Each statistic's dimension and metric. */
export const V1_STATISTICS: Record<StatName, { dimension: string; metric: string }> = {
  pageviews: { dimension: 'time:day', metric: 'pageviews' },
  pageviews_hours: { dimension: 'sl:hour', metric: 'pageviews' },
  visitors: { dimension: 'time:day', metric: 'visitors' },
  visitors_hours: { dimension: 'sl:visitor_hour', metric: 'visitors' },
  page: { dimension: 'sl:page', metric: 'pageviews' },
  landing_page: { dimension: 'visit:entry_page', metric: 'visits' },
  referrer: { dimension: 'sl:referrer', metric: 'visits' },
  campaign: { dimension: 'sl:campaign', metric: 'visits' },
  continent: { dimension: 'sl:continent', metric: 'visitors' },
  country: { dimension: 'sl:country', metric: 'visitors' },
  city: { dimension: 'sl:city', metric: 'visitors' },
  language: { dimension: 'sl:language', metric: 'visitors' },
  browser: { dimension: 'sl:browser', metric: 'visitors' },
  os: { dimension: 'sl:os', metric: 'visitors' },
  device: { dimension: 'sl:device', metric: 'visitors' },
  resolution: { dimension: 'sl:resolution', metric: 'visitors' },
  event: { dimension: 'sl:event', metric: 'sl:custom_events' },
  visits: { dimension: 'time:day', metric: 'visits' },
  visits_hours: { dimension: 'sl:visit_hour', metric: 'visits' },
  bounces: { dimension: 'time:day', metric: 'sl:bounces' },
  visit_duration: { dimension: 'time:day', metric: 'sl:duration' },
  exit_page: { dimension: 'visit:exit_page', metric: 'visits' },
};

/** The filters' dimensions as the engine names them. */
const V1_FILTER_DIMENSIONS: Record<FilterDimension, string> = {
  page: 'sl:page',
  event: 'sl:event',
  landing_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  referrer: 'sl:referrer',
  campaign: 'sl:campaign',
  country: 'sl:country',
  continent: 'sl:continent',
  city: 'sl:city',
  language: 'sl:language',
  browser: 'sl:browser',
  os: 'sl:os',
  device: 'sl:device',
  resolution: 'sl:resolution',
};

/** The engine's dimension of a v1 filter's: a custom property's is `sl:props:<name>`. */
function v1FilterDimension(dimension: Filter['dimension']): string {
  if (dimension === GOAL_FILTER) return GOAL;
  const property = filteredProperty(dimension);
  return property === null
    ? V1_FILTER_DIMENSIONS[dimension as FilterDimension]
    : `sl:props:${property}`;
}

/**
 * API v1's `name=property&property=<name>`: a custom property's values, each with the page
 * views and custom events that carry it (none for the hits without it).
 */
export function v1Property(name: string): { dimension: string; metric: string } {
  return { dimension: `sl:props:${name}`, metric: 'events' };
}

/** v1's filters as the engine's: `is` exact, `not` none of it, `contains` in any case. */
export function v1Filters(filters: Filter[]): FilterNode[] {
  return filters.map((f) => ({
    op: f.operator === 'not' ? 'is_not' : f.operator,
    dimension: v1FilterDimension(f.dimension),
    values: [f.value],
    caseSensitive: f.operator !== 'contains',
  }));
}
