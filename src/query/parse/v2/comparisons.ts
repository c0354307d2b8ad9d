/**
 * Comparisons in the Stats API v2 (docs/API.md, "The Stats API v2"): Plausible's dashboard asks
 * for them as `include.comparisons` (internal in Plausible's public API; Sightline answers it
 * as its own): `{"mode": "previous_period" | "year_over_year" | "custom", "date_range":
 * [from, to]}` (the dates with `custom` only). The question is asked again over the compared
 * range (src/query/present/comparison.ts), and each result row gains `comparison`: the row of the
 * same dimensions there (zeros when it has none) and each metric's `change` — a rate's
 * (`bounce_rate`, the conversion rates) in points, one decimal; any other's in whole percent,
 * 100 from nothing and 0 from nothing to nothing. Questions grouped by time are not compared:
 * their rows are other dates in the compared range.
 */
import { isCalendarDate } from '../../../lib/time/dates.ts';
import { type Comparison, comparisonOf } from '../../present/comparison.ts';
import { QueryError } from './query-error.ts';

const MODES = { previous_period: 'previous', year_over_year: 'year', custom: 'custom' } as const;
export type ComparisonsInclude = { mode: keyof typeof MODES; date_range?: [string, string] };

/** Metrics whose change is in points: they are percentages already. */
const RATES = ['bounce_rate', 'conversion_rate', 'group_conversion_rate', 'scroll_depth'];

/** `include.comparisons` checked: a 400 saying what is wrong. */
export function comparisonsOf(value: unknown, grouped: string[]): ComparisonsInclude {
  const bad = () => new QueryError(`Invalid include.comparisons '${JSON.stringify(value)}'.`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad();
  const { mode, date_range: dates, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof mode !== 'string' || !(mode in MODES)) throw bad();
  if (mode === 'custom') {
    if (
      !Array.isArray(dates) ||
      dates.length !== 2 ||
      !dates.every((d) => typeof d === 'string' && isCalendarDate(d))
    )
      throw new QueryError(
        'Invalid include.comparisons: a custom comparison needs a date_range of two dates (YYYY-MM-DD).',
      );
  } else if (dates !== undefined) throw bad();
  if (grouped.some((d) => d.startsWith('time')))
    throw new QueryError(
      'Invalid include.comparisons: Sightline compares questions without a time dimension (ask the compared range on its own).',
    );
  return value as ComparisonsInclude;
}

/** The range a question over `range` is compared with. */
export function comparedRange(
  range: { from: string; to: string },
  c: ComparisonsInclude,
): Comparison {
  const [from, to] = c.date_range ?? [];
  const found = comparisonOf(range, { compare: MODES[c.mode], from, to });
  if ('errors' in found)
    throw new QueryError(
      `Invalid include.comparisons: ${Object.values(found.errors)[0]?.[0] ?? 'its date_range cannot be used.'}`,
    );
  return found;
}

/** A result row of the answer. */
export type Result = { dimensions: unknown[]; metrics: unknown[] };

/** A metric's value as a number (a revenue's `value`), or null. */
const numberOf = (v: unknown): number | null =>
  typeof v === 'number'
    ? v
    : typeof v === 'object' && v !== null && 'value' in v
      ? Number(v.value)
      : null;

function changeOf(metric: string, before: unknown, now: unknown): number | null {
  const a = numberOf(before);
  const b = numberOf(now);
  if (a === null || b === null) return null;
  if (RATES.includes(metric)) return Math.round((b - a) * 10) / 10;
  if (a === 0) return b === 0 ? 0 : 100;
  return Math.round(((b - a) / a) * 100);
}

/** Each result row with its `comparison`: the compared range's row of the same dimensions. */
export function withComparisons(
  results: Result[],
  compared: Result[],
  metrics: string[],
): unknown[] {
  const key = (row: Result) => JSON.stringify(row.dimensions);
  const byKey = new Map(compared.map((row) => [key(row), row]));
  return results.map((row) => {
    const then = byKey.get(key(row)) ?? {
      dimensions: row.dimensions,
      metrics: metrics.map(() => 0),
    };
    return {
      ...row,
      comparison: {
        dimensions: then.dimensions,
        metrics: then.metrics,
        change: metrics.map((m, i) => changeOf(m, then.metrics[i], row.metrics[i])),
      },
    };
  });
}
