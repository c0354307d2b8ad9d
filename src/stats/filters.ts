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
import {
  foldingsOf,
  MAX_FOLDED_LETTERS,
  MAX_FOLDINGS_PER_QUESTION,
  needsTooManyFoldings,
} from '../db/contains-text.ts';
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
 * twice, more than `MAX_FILTERS` (then `filters` holds the first ten), a `contains` text
 * with more letters to compare in any case than one question may have
 * (`MAX_FOLDINGS_PER_QUESTION`, counted in the order given). Parameters that are not
 * `filter[…]` are not looked at. The API refuses any error; the statistics page says which
 * filters it could not use and shows the others. `foldings`: what the filters used of that
 * budget (the search of the question has what is left).
 */
export function parseFilters(params: URLSearchParams): {
  filters: Filter[];
  errors: Record<string, string[]>;
  foldings: number;
} {
  const filters: Filter[] = [];
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  let foldings = 0;
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
    if (operator === 'contains') {
      const problem = foldingProblem(key, value, foldings);
      if (problem) {
        errors[key] = [problem];
        continue;
      }
      foldings += foldingsOf(value);
    }
    filters.push({
      dimension,
      operator: operator as FilterOperator,
      value,
    });
  }
  if (seen.size > MAX_FILTERS) errors.filter = [`At most ${MAX_FILTERS} filters can be combined.`];
  return { filters: filters.slice(0, MAX_FILTERS), errors, foldings };
}

/**
 * Why a text compared in any case (a `contains` filter's, the search's) cannot join a
 * question whose other texts fold `used` spellings; null when it can.
 */
export function foldingProblem(name: string, text: string, used: number): string | null {
  if (needsTooManyFoldings(text))
    return `The ${name} field must not contain more than ${MAX_FOLDED_LETTERS} different letters outside ASCII.`;
  if (used + foldingsOf(text) > MAX_FOLDINGS_PER_QUESTION)
    return `The ${name} field has more letters outside ASCII than one question may compare in any case: at most ${MAX_FOLDINGS_PER_QUESTION} spellings in all, with the other filters and the search.`;
  return null;
}
