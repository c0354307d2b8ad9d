/**
 * The answer of `POST /api/v2/query` (Plausible's Stats API v2; docs/ARCHITECTURE.md, "Stats
 * API v2"): the question asked of the query engine, and its rows as Plausible returns them —
 * `{"results": [{"metrics": […], "dimensions": […]}], "meta": {…}, "query": {…}}`, the query
 * echoed with its range as date-times in the website's time zone and its effective order.
 */

import type { FilterNode, GroupQuery } from '../../counting/query.ts';
import { GOAL } from '../../counting/query-dimensions.ts';
import { conversionRate } from '../../counting/query-metrics.ts';
import { sortRows } from '../../counting/row-order.ts';
import { addDays, addMonths, daysBetween, pad2 } from '../../lib/time/dates.ts';
import {
  type Goal,
  goalSplits,
  goalsNamed,
  UnknownGoal,
  withGoals,
  withoutGoals,
} from '../parse/goal-filters.ts';
import { comparedRange, type Result, withComparisons } from '../parse/v2/comparisons.ts';
import { QueryError } from '../parse/v2/query-error.ts';
import type { V2Query } from '../parse/v2/question.ts';
import { type Answer, answer, isUnavailable, type Reader } from '../run/reader.ts';

/** Every bucket of a time dimension over the range (`include.time_labels`). */
function timeLabels(dimension: string, range: { from: string; to: string }): string[] {
  const days = Array.from({ length: daysBetween(range.from, range.to) }, (_, i) =>
    addDays(range.from, i),
  );
  switch (dimension) {
    case 'time:hour':
      return days.flatMap((d) => Array.from({ length: 24 }, (_, h) => `${d} ${pad2(h)}:00:00`));
    case 'time:week': {
      const weeks = days.filter((d, i) => i === 0 || new Date(`${d}T00:00:00Z`).getUTCDay() === 1);
      return weeks;
    }
    case 'time:month': {
      const months: string[] = [];
      for (let m = range.from.slice(0, 7); `${m}-01` <= range.to; m = addMonths(m, 1))
        months.push(`${m}-01`);
      return months;
    }
    default:
      return days;
  }
}

/** Whether an answer included imported history, or why not (Plausible's `meta` keys). */
type ImportsOutcome = { included: boolean; reason?: string };

const IMPORT_WARNINGS: Record<string, string> = {
  unsupported_query:
    'Imported stats are not included in the results because query parameters are not supported. For more information, see: https://plausible.io/docs/stats-api#filtering-imported-stats',
  unsupported_interval:
    'Imported stats are not included because the time dimension (i.e. the interval) is too short.',
};

/** What `include` adds to `meta`. */
function metaOf(q: V2Query, total: number, imports: ImportsOutcome): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const shown = q.include.imports === true || imports.included || imports.reason !== undefined;
  if (q.include.imports !== false && shown) {
    meta.imports_included = imports.included;
    if (!imports.included) {
      const reason = imports.reason ?? 'no_imported_data';
      meta.imports_skip_reason = reason;
      if (IMPORT_WARNINGS[reason]) meta.imports_warning = IMPORT_WARNINGS[reason];
    }
  }
  const time = q.grouped.find((d) => d.startsWith('time:'));
  if (q.include.time_labels && time) meta.time_labels = timeLabels(time, q.range);
  if (q.include.total_rows) meta.total_rows = total;
  return meta;
}

/** The query as the answer echoes it. */
function echoOf(q: V2Query): Record<string, unknown> {
  const include = Object.fromEntries(Object.entries(q.include).filter(([, v]) => v));
  return {
    site_id: q.siteId,
    metrics: q.metrics,
    date_range: q.range.echo,
    filters: q.asked,
    dimensions: q.dimensions,
    order_by: q.order,
    include,
    pagination: q.pagination,
  };
}

/** The metrics worked out from others here: a goal's conversion rates, from its visitors. */
const CONVERSION = ['conversion_rate', 'group_conversion_rate'];
/** The metrics of revenue, in a goal's currency: Plausible's `{value, currency, short, long}`. */
const REVENUE = ['total_revenue', 'average_revenue'];

const WARNINGS = {
  none: {
    code: 'no_revenue_goals_matching',
    warning: 'Revenue metrics are null as there are no matching revenue goals.',
  },
  several: {
    code: 'no_single_revenue_currency',
    warning:
      'Revenue metrics are null as there are multiple currencies for the selected event:goals.',
  },
};

/** An amount of a currency as Plausible writes it: `$96.3M` and `$96,336,315.00`. */
function money(value: number, currency: string) {
  const format = (options: Intl.NumberFormatOptions) =>
    new Intl.NumberFormat('en-US', { style: 'currency', currency, ...options }).format(value);
  return {
    value: Math.round(value * 100) / 100,
    currency,
    short: format({ notation: 'compact', maximumFractionDigits: 1 }),
    long: format({}),
  };
}

type Row = { metrics: (number | null)[]; dimensions: string[] };

/** Asks the engine one question of the range: its groupings under filters, in a currency. */
type Ask = (groups: GroupQuery[], filters: FilterNode[], currency?: string) => Promise<Answer[]>;

/** Rows of the question, how many there are, and the currency of each row's revenue. */
type Found = { rows: Row[]; total: number; currencyOf: (row: Row) => string | null };

/**
 * Asks the engine and answers as Plausible does; a range before the log's first date is a
 * 400. Goals (docs/ARCHITECTURE.md, "Goals"): an `event:goal` filter is the hits that complete
 * the goals it names; a grouping by `event:goal` is one question per goal (its hits), their
 * rows joined, sorted and paged here; a conversion rate divides a row's visitors by the
 * visitors of the range under the filters but those on goals and properties (one question
 * more; per group of the other dimensions for `group_conversion_rate`); revenue is counted in
 * the currency of the goals asked about (per goal by `event:goal`; else theirs when they have
 * one, or none, with a warning).
 */
export async function answerQuery(
  readerFor: (imports: boolean) => Reader,
  q: V2Query,
  goals: Goal[] = [],
): Promise<Record<string, unknown>> {
  let reader = readerFor(q.include.imports !== false);
  let answer = await answerWith(reader, q, goals);
  let imports: ImportsOutcome = { included: reader.imports.included };
  if (reader.imports.skipped) {
    // Some of its groupings cannot include imported history (a filter, a dimension the
    // imports do not hold): the whole answer leaves it out, so that its parts agree.
    if (reader.imports.included) {
      reader = readerFor(false);
      answer = await answerWith(reader, q, goals);
    }
    const hourly = q.grouped.some((d) => d === 'time:hour' || d === 'time:minute');
    imports = { included: false, reason: hourly ? 'unsupported_interval' : 'unsupported_query' };
  }
  let { results, query } = answer;
  if (q.include.comparisons) {
    // Asked again over the compared range, every row of it, by the same reader.
    const range = comparedRange(q.range, q.include.comparisons);
    const all = { offset: 0, limit: 10_000 };
    const then = { ...q, range: { ...range, echo: q.range.echo }, pagination: all };
    const compared = await answerWith(reader, then, goals);
    results = withComparisons(results as Result[], compared.results as Result[], q.metrics);
    query = { ...(query as object), comparison_date_range: [range.from, range.to] };
  }
  return { results, meta: { ...metaOf(q, answer.total, imports), ...answer.meta }, query };
}

/** The answer of one reader: results and the metric warnings (`meta` is the caller's). */
async function answerWith(
  reader: Reader,
  q: V2Query,
  goals: Goal[],
): Promise<{ results: unknown[]; meta: Record<string, unknown>; query: unknown; total: number }> {
  const filters = goalFilters(q.filters, goals);
  const ask: Ask = async (groups, questionFilters, currency) => {
    const answers = await answer(reader, {
      from: q.range.from,
      to: q.range.to,
      ...(q.range.between ? { between: q.range.between } : {}),
      filters: questionFilters,
      groups,
      ...(currency ? { currency } : {}),
    });
    if (isUnavailable(answers))
      throw new QueryError(
        `Invalid date_range: the website's events are kept from ${answers.firstDate}; a question with filters or these dimensions must start then or later.`,
      );
    return answers;
  };
  const warnings: Record<string, (typeof WARNINGS)[keyof typeof WARNINGS]> = {};
  const found =
    q.grouped.indexOf(GOAL) < 0
      ? await plainRows(q, goals, filters, ask, warnings)
      : await rowsByGoal(q, goals, filters, ask);
  let rows = found.rows;
  const others = q.grouped.filter((d) => d !== GOAL);
  if (q.metrics.some((m) => CONVERSION.includes(m)))
    rows = await withConversionRates(q, rows, others, (groups) =>
      ask(groups, withGoals(withoutGoals(q.filters), goals)),
    );
  if (q.grouped.includes(GOAL)) {
    sortRows({ order: q.order, dimensions: q.grouped, metrics: q.metrics }, rows);
    rows = rows.slice(q.pagination.offset, q.pagination.offset + q.pagination.limit);
  }
  const meta: Record<string, unknown> = {};
  if (Object.keys(warnings).length > 0) meta.metric_warnings = warnings;
  return {
    total: found.total,
    results: rows.map((row) => {
      const currency = found.currencyOf(row);
      return {
        metrics: row.metrics.map((value, i) =>
          REVENUE.includes(q.metrics[i] as string)
            ? currency === null || value === null
              ? null
              : money(value, currency)
            : value,
        ),
        dimensions: row.dimensions,
      };
    }),
    meta,
    query: echoOf(q),
  };
}

/** The question's filters with its goals' made the hits that complete them (else a 400). */
function goalFilters(filters: FilterNode[], goals: Goal[]): FilterNode[] {
  try {
    return withGoals(filters, goals);
  } catch (err) {
    if (err instanceof UnknownGoal)
      throw new QueryError(
        `Invalid filters. ${err.message} Find out how to configure goals in Sightline's README ("Goals").`,
      );
    throw err;
  }
}

/** The metrics and order the engine is asked for: visitors where a conversion rate is. */
function engineQuestion(q: V2Query) {
  return {
    metrics: q.metrics.map((m) => (CONVERSION.includes(m) ? 'visitors' : m)),
    order: q.order.map(([k, d]): [string, 'asc' | 'desc'] => [
      CONVERSION.includes(k) ? 'visitors' : k,
      d,
    ]),
  };
}

/** A question without `event:goal` among its dimensions: one grouping, paged by the engine. */
async function plainRows(
  q: V2Query,
  goals: Goal[],
  filters: FilterNode[],
  ask: Ask,
  warnings: Record<string, (typeof WARNINGS)[keyof typeof WARNINGS]>,
): Promise<Found> {
  const currencies = [
    ...new Set(goalsNamed(q.filters, goals).flatMap((g) => (g.currency ? [g.currency] : []))),
  ];
  const currency = currencies.length === 1 ? (currencies[0] as string) : null;
  if (currency === null)
    for (const m of q.metrics.filter((m) => REVENUE.includes(m)))
      warnings[m] = currencies.length === 0 ? WARNINGS.none : WARNINGS.several;
  const [first] = await ask(
    [
      {
        dimensions: q.grouped,
        ...engineQuestion(q),
        limit: q.pagination.limit,
        offset: q.pagination.offset,
      },
    ],
    filters,
    currency ?? undefined,
  );
  return { rows: first?.rows ?? [], total: first?.total ?? 0, currencyOf: () => currency };
}

/**
 * A question by `event:goal`: one grouping by goals, each goal's hits (its revenue in its
 * currency) paged as its own question would be — enough rows of each goal for the page.
 */
async function rowsByGoal(
  q: V2Query,
  goals: Goal[],
  filters: FilterNode[],
  ask: Ask,
): Promise<Found> {
  const goalAt = q.grouped.indexOf(GOAL);
  const others = q.grouped.filter((d) => d !== GOAL);
  const { metrics, order } = engineQuestion(q);
  const [a] = await ask(
    [
      {
        dimensions: q.grouped,
        metrics,
        order,
        limit: q.pagination.offset + q.pagination.limit,
        offset: 0,
        goals: goalSplits(goals),
      },
    ],
    filters,
  );
  // A goal without a conversion has no row (nor one whose metrics are all zero).
  const rows = (a?.rows ?? []).filter(
    (row) => others.length > 0 || row.metrics.some((m) => m !== 0),
  );
  const byName = new Map(goals.map((g) => [g.displayName, g]));
  return {
    rows,
    total: others.length > 0 ? (a?.total ?? 0) : rows.length,
    currencyOf: (row) => byName.get(row.dimensions[goalAt] as string)?.currency ?? null,
  };
}

/** The rows with their conversion rates: visitors ÷ the base's visitors × 100. */
async function withConversionRates(
  q: V2Query,
  rows: Row[],
  others: string[],
  askBase: (groups: GroupQuery[]) => Promise<{ rows: Row[] }[]>,
): Promise<Row[]> {
  const grouped = q.metrics.includes('group_conversion_rate') && others.length > 0;
  const [all, perGroup] = await askBase([
    { dimensions: [], metrics: ['visitors'], order: [], limit: 1, offset: 0 },
    ...(grouped
      ? [{ dimensions: others, metrics: ['visitors'], order: [], limit: 10_000, offset: 0 }]
      : []),
  ]);
  const base = all?.rows[0]?.metrics[0] ?? 0;
  const bases = new Map(
    (perGroup?.rows ?? []).map((row) => [row.dimensions.join('\u0000'), row.metrics[0] ?? 0]),
  );
  const goalAt = q.grouped.indexOf(GOAL);
  return rows.map((row) => ({
    dimensions: row.dimensions,
    metrics: q.metrics.map((m, i) => {
      const value = row.metrics[i] ?? 0;
      if (!CONVERSION.includes(m)) return row.metrics[i] ?? null;
      const key = row.dimensions.filter((_, at) => at !== goalAt).join('\u0000');
      const of = m === 'group_conversion_rate' && grouped ? (bases.get(key) ?? 0) : base;
      return conversionRate(value, of);
    }),
  }));
}
