/**
 * The statistics page's filters matched to the range's values (docs/ARCHITECTURE.md,
 * "Filters"), so that a value typed as people read it finds what is stored: an `is` or `not`
 * filter's value that is no value of the range, but one in any case or the name a value shows,
 * is that value (`Germany` → `DE:Germany`, `chrome` → `Chrome`, `united states` →
 * `US:United States`); one that matches nothing stays, and is said to (`unmatched`), never a
 * silent zero. Each value is looked up once, in the range's values of its dimension (a search
 * of the statistic or listing that holds them), all of them together.
 */
import type { StatName } from '../../counting/statistics.ts';
import {
  type Filter,
  filteredProperty,
  GOAL_FILTER,
  isLogListing,
  type LogListing,
  SEGMENT_FILTER,
  valuesOf,
} from '../parse/v1.ts';
import { isUnavailable, type Source } from './numbers.ts';
import { valueLabel } from './readable.ts';

/** How many of the range's values containing a typed value are compared with it. */
const LOOKED_AT = 50;

/** A filter of the page, and those of its values that match nothing in the range. */
export type MatchedFilter = { filter: Filter; unmatched: string[] };

/** The statistic, listing or property that holds a filter's values; null: none to look in. */
function holderOf(f: Filter): StatName | LogListing | { property: string } | null {
  if (f.dimension === GOAL_FILTER || f.dimension === SEGMENT_FILTER) return null;
  if (f.operator === 'contains') return null;
  const property = filteredProperty(f.dimension);
  if (property !== null) return { property };
  return isLogListing(f.dimension) ? f.dimension : (f.dimension as StatName);
}

/**
 * One typed value matched to the range's values: the stored one, or null for none. A value of
 * a statistic is first looked up as it is (a value clicked in a panel always is: the roll-ups
 * read its rows alone), then searched.
 */
async function matched(
  unfiltered: Source,
  holder: NonNullable<ReturnType<typeof holderOf>>,
  dimension: string,
  value: string,
  range: { from: string; to: string },
): Promise<string | null> {
  const ask = (exact: boolean) =>
    unfiltered.page({
      ...(typeof holder === 'string'
        ? { name: holder }
        : { name: 'property' as const, property: holder.property }),
      from: range.from,
      to: range.to,
      search: value,
      ...(exact ? { exact } : {}),
      sortBy: 'count',
      sort: 'desc',
      limit: exact ? 1 : LOOKED_AT,
      offset: 0,
    });
  if (typeof holder === 'string' && !isLogListing(holder)) {
    const found = await ask(true);
    if (!isUnavailable(found) && found.rows.length > 0) return value;
  }
  const page = await ask(false);
  if (isUnavailable(page)) return value;
  const rows = page.rows.map((r) => r.value);
  if (rows.includes(value)) return value;
  const typed = value.toLowerCase();
  const found = rows.find(
    (stored) =>
      stored.toLowerCase() === typed || valueLabel(dimension, stored).toLowerCase() === typed,
  );
  return found ?? null;
}

/**
 * The filters with each typed value matched to the range's (`unfiltered`: the website's
 * numbers under no filter), and the values that match nothing.
 */
export async function matchedFilters(
  unfiltered: Source,
  range: { from: string; to: string },
  filters: Filter[],
): Promise<MatchedFilter[]> {
  return Promise.all(
    filters.map(async (filter) => {
      const holder = holderOf(filter);
      if (holder === null) return { filter, unmatched: [] };
      const values = valuesOf(filter);
      const found = await Promise.all(
        values.map((v) => matched(unfiltered, holder, filter.dimension, v, range)),
      );
      const kept = found.map((f, i) => f ?? (values[i] as string));
      const unmatched = values.filter((_, i) => found[i] === null);
      const [first = filter.value] = kept;
      return {
        filter: { ...filter, value: first, ...(kept.length > 1 ? { values: kept } : {}) },
        unmatched,
      };
    }),
  );
}
