/**
 * Filters of API v1 and the statistics page (docs/ARCHITECTURE.md, "Filters"):
 * `filter[<dimension>]=<value>`, `filter[<dimension>][not]=<value>` and
 * `filter[<dimension>][contains]=<text>`, and `filter[segment]=<id>` (a saved segment's
 * filters: src/query/parse/v2/saved-segments.ts), combined with AND; what each dimension narrows is
 * the counting model's (src/query/parse/v1.ts). Values are compared exactly as the Stats
 * API returns them; `contains` ignores case.
 */

import { MAX_PROP_NAME } from '../../counting/query-dimensions.ts';
import {
  foldingsOf,
  MAX_FOLDED_LETTERS,
  MAX_FOLDINGS_PER_QUESTION,
  needsTooManyFoldings,
} from '../../lib/text/contains-text.ts';
import {
  FILTER_DIMENSIONS,
  type Filter,
  filteredProperty,
  GOAL_FILTER,
  isFilterDimension,
  MAX_FILTER_LENGTH,
  MAX_FILTERS,
  SEGMENT_FILTER,
  V1_FILTER_OPERATORS,
  type V1FilterOperator,
} from './v1.ts';

/** The query parameter that states a filter (`filter[page]`, `filter[page][not]`). */
export function filterParam(filter: Pick<Filter, 'dimension' | 'operator'>): string {
  return filter.operator === 'is'
    ? `filter[${filter.dimension}]`
    : `filter[${filter.dimension}][${filter.operator}]`;
}

const PARAM = /^filter\[([^\]]*)\](?:\[([^\]]*)\])?$/;

/** The values one "is any of" filter of the statistics page takes at most. */
const MAX_VALUES = 10;

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
export function parseV1Filters(
  params: URLSearchParams,
  /** The statistics page's: a filter stated again (`is`, `not`) adds a value ("is any of"). */
  { anyOf = false }: { anyOf?: boolean } = {},
): {
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
    const property = dimension ? filteredProperty(dimension) : null;
    if (property !== null && (property === '' || property.length > MAX_PROP_NAME)) {
      errors[key] = [`The ${key} filter must name a property of 1 to ${MAX_PROP_NAME} characters.`];
      continue;
    }
    const goal = dimension === GOAL_FILTER;
    if (goal && operator === 'not') {
      errors[key] = [`The ${key} filter takes a goal's name, or [contains].`];
      continue;
    }
    const segment = dimension === SEGMENT_FILTER;
    if (segment && (match?.[2] !== undefined || !/^[1-9]\d{0,15}$/.test(value))) {
      errors[key] = [`The ${key} filter takes a saved segment's id.`];
      continue;
    }
    const known = goal || segment || property !== null || isFilterDimension(dimension ?? '');
    if (!match || !dimension || !known) {
      errors[key] = [
        `The ${key} filter is unknown: filter by one of ${FILTER_DIMENSIONS.join(', ')}, or props:<name>.`,
      ];
      continue;
    }
    if (!V1_FILTER_OPERATORS.includes(operator as V1FilterOperator) || match[2] === 'is') {
      errors[key] = [`The ${key} filter has an unknown operator: use [not] or [contains].`];
      continue;
    }
    const again = filters.find((f) => filterParam(f) === key);
    if (anyOf && again && operator !== 'contains' && !goal && !segment) {
      const values = again.values ?? [again.value];
      if (values.length >= MAX_VALUES) {
        errors[key] = [`The ${key} filter takes at most ${MAX_VALUES} values.`];
        continue;
      }
      if (value !== '' && value.length <= MAX_FILTER_LENGTH && !values.includes(value))
        again.values = [...values, value];
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
      dimension: dimension as Filter['dimension'],
      operator: operator as V1FilterOperator,
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
