/**
 * Filters in words, as the statistics page writes them: a filter's chip (`Country is
 * Germany`), a saved segment's (its name, then each of its filters: `German blog readers:
 * Country is Germany · Page contains /blog`), the dimensions and operators a filter is chosen
 * from (the filter menu's, a segment's form's, ../settings/segments-section.tsx), and a saved
 * segment's filters as that form's rows and back.
 *
 * @example
 * filterWords({ dimension: 'page', operator: 'contains', value: '/blog' }) // "Page contains /blog"
 * savedFiltersWords([['contains', 'sl:page', ['/blog'], { case_sensitive: false }]]) // ["Page contains /blog"]
 */
import { storedEventName } from '../../counting/statistics.ts';
import type { FieldErrors } from '../../lib/errors.ts';
import {
  FILTER_DIMENSIONS,
  type Filter,
  type FilterDimension,
  filteredProperty,
  GOAL_FILTER,
  SEGMENT_FILTER,
  V1_FILTER_LABELS,
  type V1FilterOperator,
  v1FilterTree,
  valuesOf,
} from '../../query/parse/v1.ts';
import { filterParam, parseV1Filters } from '../../query/parse/v1-filters.ts';
import { valueLabel } from '../../query/present/readable.ts';

/** The choice of a custom property among a filter's dimensions, named in a field beside. */
export const PROPERTY = 'property';

/** The dimensions a filter is chosen from, as their chips name them; the goals; a property. */
export const FILTER_CHOICES: [FilterDimension | typeof GOAL_FILTER | typeof PROPERTY, string][] = [
  ...FILTER_DIMENSIONS.map((d): [FilterDimension, string] => [d, V1_FILTER_LABELS[d].chip]),
  [GOAL_FILTER, 'Goal'],
  [PROPERTY, 'Custom property'],
];

/** The dimension of a filter chosen from `FILTER_CHOICES`: a custom property's is `props:<name>`. */
export const chosenDimension = (choice: string, property: string) =>
  (choice === PROPERTY ? `props:${property.trim()}` : choice) as Filter['dimension'];

/** The operators a filter is chosen with, as its chip says them. */
export const OPERATOR_LABELS: Record<V1FilterOperator, string> = {
  is: 'is',
  not: 'is not',
  contains: 'contains',
};

/** A filter's dimension as a chip reads it: a custom property by its name. */
export function dimensionLabel(dimension: Filter['dimension']): string {
  if (dimension === GOAL_FILTER) return 'Goal';
  if (dimension === SEGMENT_FILTER) return 'Segment';
  const property = filteredProperty(dimension);
  return property === null
    ? V1_FILTER_LABELS[dimension as FilterDimension].chip
    : `Property ${property}`;
}

/** A filter's values as people read them: `Germany`, `Germany or France` (`not`: `nor`). */
export function valueWords(f: Filter): string {
  return valuesOf(f)
    .map((v) => valueLabel(f.dimension, v))
    .join(f.operator === 'not' ? ' nor ' : ' or ');
}

/** A filter in words, a segment's as its name and what it holds. */
export function filterWords(f: Filter): string {
  if (f.segment) return segmentWords(f.segment.name, f.segment.saved);
  return `${dimensionLabel(f.dimension)} ${OPERATOR_LABELS[f.operator]} ${valueWords(f)}`;
}

/** A saved segment in words: `German blog readers: Country is Germany · Page contains /blog`. */
const segmentWords = (name: string, saved: unknown[]) =>
  `${name}: ${savedFiltersWords(saved).join(' · ')}`;

/** The Stats API v2's operators of the filters the page writes, as the page's own. */
const PAGE_OPERATORS: Record<string, V1FilterOperator> = {
  is: 'is',
  is_not: 'not',
  contains: 'contains',
};

/**
 * A saved filter (the Stats API v2's JSON) as a filter of the statistics page, when it is one
 * the page writes — the page's filter saved gives this very JSON back — else null (a filter
 * made through the API: `["is", "visit:device", ["Mobile"]]`, a tree, a pattern).
 */
function pageFilterOf(node: unknown): Filter | null {
  if (!Array.isArray(node) || typeof node[1] !== 'string' || !Array.isArray(node[2])) return null;
  const operator = PAGE_OPERATORS[String(node[0])];
  const clauses = node[2].filter((v): v is string => typeof v === 'string');
  if (!operator || clauses.length === 0 || clauses.length !== node[2].length) return null;
  // An event's name is saved also as the log keeps it (`storedEventName`): once here.
  const values = clauses.filter((v) => !clauses.some((u) => u !== v && storedEventName(u) === v));
  const property = node[1].startsWith('sl:props:') ? node[1].slice('sl:props:'.length) : null;
  const dimensions: Filter['dimension'][] =
    property === null ? [...FILTER_DIMENSIONS, GOAL_FILTER] : [`props:${property}`];
  const saved = JSON.stringify([node]);
  for (const dimension of dimensions) {
    const f: Filter = {
      dimension,
      operator,
      value: values[0] as string,
      ...(values.length > 1 ? { values } : {}),
    };
    if (JSON.stringify(v1FilterTree([f])) === saved) return f;
  }
  return null;
}

/** Each of a saved segment's filters in words, in its order. */
export const savedFiltersWords = (saved: unknown[]): string[] =>
  saved.map((node) => savedFilterWords(node, 0));

/** How deep words go into a tree of filters (a saved one is at most 6 deep). */
const MAX_WORDS_DEPTH = 8;

/** The Stats API v2's operators in words. */
const V2_OPERATOR_WORDS: Record<string, string> = {
  is: 'is',
  is_not: 'is not',
  contains: 'contains',
  contains_not: 'does not contain',
  matches: 'matches',
  matches_not: 'does not match',
};

/** The Stats API v2's dimensions that read as one of the page's under another name. */
const V2_DIMENSION_NAMES: Record<string, FilterDimension> = {
  entry_page: 'landing_page',
  name: 'event',
  city_name: 'city',
  country_name: 'country',
  utm_campaign: 'campaign',
  screen: 'device',
};

/** A dimension of the Stats API v2 in words: as the page's chip names it, else as it is. */
function v2DimensionWords(dimension: string): string {
  if (dimension === 'event:goal') return 'Goal';
  const property = /^(?:event|sl):props:(.*)$/.exec(dimension)?.[1];
  if (property !== undefined) return `Property ${property}`;
  const name = dimension.replace(/^(?:event|visit|sl):/, '');
  const page = V2_DIMENSION_NAMES[name] ?? name;
  return Object.hasOwn(V1_FILTER_LABELS, page)
    ? V1_FILTER_LABELS[page as FilterDimension].chip
    : dimension;
}

/** One saved filter in words: the page's as its chip says it, any other as near as it goes. */
function savedFilterWords(node: unknown, depth: number): string {
  const page = pageFilterOf(node);
  if (page) return filterWords(page);
  if (depth > MAX_WORDS_DEPTH) return '…';
  if (!Array.isArray(node)) return JSON.stringify(node) ?? '';
  const [op, first, clauses] = node;
  const inner = (child: unknown) => savedFilterWords(child, depth + 1);
  if ((op === 'and' || op === 'or') && Array.isArray(first))
    return `(${first.map(inner).join(` ${op} `)})`;
  if (op === 'not') return `not (${inner(first)})`;
  if (op === 'has_done') return `has done ${inner(first)}`;
  if (op === 'has_not_done') return `has not done ${inner(first)}`;
  if (typeof first !== 'string' || !Array.isArray(clauses)) return JSON.stringify(node);
  const negative = op === 'is_not' || op === 'contains_not' || op === 'matches_not';
  const operator = V2_OPERATOR_WORDS[String(op)] ?? String(op);
  return `${v2DimensionWords(first)} ${operator} ${clauses.map(String).join(negative ? ' nor ' : ' or ')}`;
}

/** A filter as a form's row: a dimension (a custom property named beside), an operator, a value. */
export type FilterRow = { dimension: string; property: string; operator: string; value: string };

/**
 * A saved segment's filters as a form's rows — one for each value of each filter the page
 * writes — and the others (`kept`), each as its JSON.
 */
export function rowsOfSaved(saved: unknown[]): { kept: string[]; rows: FilterRow[] } {
  const kept: string[] = [];
  const rows: FilterRow[] = [];
  for (const node of saved) {
    const f = pageFilterOf(node);
    if (!f) kept.push(JSON.stringify(node));
    else
      for (const value of valuesOf(f))
        rows.push({ ...rowDimension(f), operator: f.operator, value });
  }
  return { kept, rows };
}

/** A filter's dimension as a row's choice: a custom property's in the field beside. */
function rowDimension(f: Filter): Pick<FilterRow, 'dimension' | 'property'> {
  const property = filteredProperty(f.dimension);
  return property === null
    ? { dimension: f.dimension, property: '' }
    : { dimension: PROPERTY, property };
}

/**
 * The filters of a form's rows as the statistics page saves them (`v1FilterTree`), each row
 * checked as the page checks a filter; what is wrong in `errors` (`filter.<row>`, `filters`).
 */
export function filtersOfRows(rows: FilterRow[], errors: FieldErrors): unknown[] {
  const keys = rows.map((r) =>
    FILTER_CHOICES.some(([name]) => name === r.dimension)
      ? filterParam({
          dimension: chosenDimension(r.dimension, r.property),
          operator: r.operator as Filter['operator'],
        })
      : null,
  );
  rows.forEach((row, i) => {
    const key = keys[i];
    if (key === null || key === undefined) {
      errors[`filter.${i}`] = ['Choose one of the dimensions listed.'];
      return;
    }
    const own = parseV1Filters(new URLSearchParams([[key, row.value]])).errors[key];
    if (own) errors[`filter.${i}`] = own;
  });
  if (Object.keys(errors).some((k) => k.startsWith('filter.'))) return [];
  // Together: rows of one dimension and operator are one filter of any of their values.
  const params = new URLSearchParams(rows.map((r, i) => [keys[i] as string, r.value]));
  const parsed = parseV1Filters(params, { anyOf: true });
  for (const [key, messages] of Object.entries(parsed.errors)) {
    const row = keys.lastIndexOf(key);
    errors[row === -1 ? 'filters' : `filter.${row}`] = messages;
  }
  return v1FilterTree(parsed.filters);
}
