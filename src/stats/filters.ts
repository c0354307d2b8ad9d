/**
 * Filters (docs/ARCHITECTURE.md, "Filters"): `filter[<dimension>]=<value>`,
 * `filter[<dimension>][not]=<value>` and `filter[<dimension>][contains]=<text>`, combined
 * with AND. What each dimension narrows:
 *
 * - `page`, `event`: the hits that match (page views of that page, custom events of that
 *   name or `name:value:unit`);
 * - `landing_page`, `exit_page`, `referrer`, `campaign`: every hit of the visits that have
 *   that value (their first page view's page, referrer and campaign; their last page view's
 *   page);
 * - `country`, `continent`, `city`, `language`, `browser`, `os`, `device`, `resolution`:
 *   every hit of the visitors that have it, that day (as their first page view of the day).
 *
 * Values are compared exactly as the Stats API returns them; `contains` ignores case.
 */
import type { StatName } from './names.ts';

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

const FILTER_OPERATORS = ['is', 'not', 'contains'] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type Filter = { dimension: FilterDimension; operator: FilterOperator; value: string };

/** At most this many filters narrow one question. */
export const MAX_FILTERS = 10;

/** A filter's value is at most this long (the longest value a statistic keeps is 255). */
export const MAX_FILTER_LENGTH = 255;

/** Which rows of the log a dimension is a property of. */
export type FilterLevel = 'hit' | 'visit' | 'visitor';

export function levelOf(dimension: FilterDimension): FilterLevel {
  if (dimension === 'page' || dimension === 'event') return 'hit';
  if (
    dimension === 'landing_page' ||
    dimension === 'exit_page' ||
    dimension === 'referrer' ||
    dimension === 'campaign'
  )
    return 'visit';
  return 'visitor';
}

/** The query parameter that states a filter (`filter[page]`, `filter[page][not]`). */
export function filterParam(filter: Pick<Filter, 'dimension' | 'operator'>): string {
  return filter.operator === 'is'
    ? `filter[${filter.dimension}]`
    : `filter[${filter.dimension}][${filter.operator}]`;
}

const PARAM = /^filter\[([^\]]*)\](?:\[([^\]]*)\])?$/;

/**
 * The filters of a query string, and the errors that name each bad one (empty when there is
 * none): an unknown dimension or operator, an empty or too long value, a filter stated
 * twice, more than `MAX_FILTERS` (then `filters` holds the first ten). Parameters that are
 * not `filter[…]` are not looked at. The API refuses any error; the statistics page says
 * which filters it could not use and shows the others.
 */
export function parseFilters(params: URLSearchParams): {
  filters: Filter[];
  errors: Record<string, string[]>;
} {
  const filters: Filter[] = [];
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (key !== 'filter' && !key.startsWith('filter[')) continue;
    const match = PARAM.exec(key);
    const dimension = match?.[1];
    const operator = match?.[2] ?? 'is';
    if (!match || !dimension || !isFilterDimension(dimension)) {
      errors[key] = [
        `The ${key} filter is unknown: filter by one of ${FILTER_DIMENSIONS.join(', ')}.`,
      ];
      continue;
    }
    if (!FILTER_OPERATORS.includes(operator as FilterOperator) || match[2] === 'is') {
      errors[key] = [`The ${key} filter has an unknown operator: use [not] or [contains].`];
      continue;
    }
    if (seen.has(key)) {
      errors[key] = [`The ${key} filter is given more than once.`];
      continue;
    }
    seen.add(key);
    if (value === '' || value.length > MAX_FILTER_LENGTH) {
      errors[key] = [`The ${key} filter must be a value of 1 to ${MAX_FILTER_LENGTH} characters.`];
      continue;
    }
    filters.push({
      dimension,
      operator: operator as FilterOperator,
      value,
    });
  }
  if (seen.size > MAX_FILTERS) errors.filter = [`At most ${MAX_FILTERS} filters can be combined.`];
  return { filters: filters.slice(0, MAX_FILTERS), errors };
}
