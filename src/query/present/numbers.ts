/**
 * API v1's statistics, the summary and the chart, as questions of the query engine
 * (../run/reader.ts; docs/ARCHITECTURE.md, "The path of a number"): an unfiltered question
 * sums D1's roll-ups once the website's log has flushed (read-your-writes); a filtered one is
 * answered by the website's event log, which holds every hit with all its dimensions. With
 * no filter both give the same answers (test/integration/query/filters.test.ts). Everything API v1,
 * the statistics page and the reports show is built here from a `Source`'s reads.
 */

import type { FilterNode, GroupQuery } from '../../counting/query.ts';
import { GOAL } from '../../counting/query-dimensions.ts';
import type { StatName } from '../../counting/statistics.ts';
import type { Database } from '../../db/client.ts';
import type { Env } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { type ImportRecord, importsWithin } from '../../imports/store.ts';
import { previousPeriod, type SeriesUnit } from '../../lib/time/dates.ts';
import { firstImportedDate } from '../../rollups/imported.ts';
import { firstRollupDate, type StatsPage, type StatsQuery } from '../../rollups/sums.ts';
import type { PropertyName } from '../../website-log/object/read/property-names.ts';
import { flushBeforeReading, realtimeVisitors } from '../../website-log/worker/partitions.ts';
import { type Goal, goalSplits, withGoals } from '../parse/goal-filters.ts';
import { type Filter, GOAL_FILTER, type LogListing, v1Filters, v1Grouping } from '../parse/v1.ts';
import {
  type Answer,
  isUnavailable,
  type Reader,
  readerOf,
  type Unavailable,
} from '../run/reader.ts';
import { carried, type EventName, eventsOf } from './custom-events.ts';
import {
  FIGURES,
  type Figures,
  figuresFrom,
  type SeriesPoint,
  type Summary,
  seriesFrom,
  seriesQuestions,
} from './figures.ts';
import { propertyNamesOf } from './properties.ts';
import { VISITORS } from './recent.ts';

export { isUnavailable, type Unavailable };

/** Local dates, inclusive; `between`: only the instants within them (today's hours so far). */
export type Dates = { from: string; to: string; between?: [number, number] };

/**
 * A page of one statistic, without the website (the source knows it), or of a custom
 * property's values (`name: 'property'`, `property` its name).
 */
type PageQuery = Omit<StatsQuery, 'websiteId' | 'through' | 'name'> &
  ({ name: StatName | LogListing | 'goal' } | { name: 'property'; property: string }) & {
    /**
     * What the rows count instead of the statistic's own metric (`visitors`, then more: the
     * statistics page's), sorted by the first; a goal's rows are its converting visitors.
     */
    metrics?: readonly string[];
  };

/** A value and what it counts: its first metric's `count`, and the others' figures. */
export type ListedRow = { value: string; count: number; more?: (number | null)[] };

/** A page of a statistic's values (`StatsPage`, with its rows' other metrics). */
export type Listing = { rows: ListedRow[]; total: number; rowsRead: number };

/**
 * What a website's numbers are read from, as API v1's statistics (src/query/parse/v1.ts):
 * questions of the query engine (`U` = never for the roll-ups alone, which cover every date;
 * `Unavailable` when filters send a question to the log and its range starts before the
 * oldest date the log holds).
 */
export type Source<U = Unavailable> = {
  /** One page of a statistic. */
  page(q: PageQuery): Promise<Listing | U>;
  /**
   * The first page (`limit` values by count) of each of several statistics or listings, each
   * counting `metricOf` its name (default: its own metric).
   */
  tops(
    names: readonly (StatName | LogListing)[],
    range: Dates,
    limit: number,
    metricOf?: (name: StatName | LogListing) => string,
  ): Promise<Listing[] | U>;
  /** The figures of a range (`FIGURES`, ./figures.ts). */
  figures(range: Dates): Promise<Figures | U>;
  /**
   * The chart's points of a range: per hour for one day, else per day, week or month (the
   * range's own unit, `seriesUnitOf`, unless `unit` is another it allows).
   */
  series(range: Dates, unit?: SeriesUnit): Promise<SeriesPoint[] | U>;
  /** Each goal's conversions over a range: unique (visitors), total, and its revenue. */
  conversions(goals: Goal[], range: Dates): Promise<Conversions[] | U>;
  /** These pages' time on page and scroll depth over a range (the event log's). */
  engagement(pages: string[] | 'all', range: Dates): Promise<PageEngagement | U>;
  /** The range's custom events by name, most visitors first: `limit` names (the log's). */
  events(range: Dates, limit: number): Promise<EventName[] | U>;
  /** The visitors of the hits that carry a custom property: its values' shares are of them. */
  carrying(property: string, range: Dates): Promise<number | U>;
};

/** Pages' time on page (seconds per visitor) and scroll depth (percent, null: none sent). */
export type PageEngagement = Record<string, { time: number; scroll: number | null }>;

/** A goal's conversions: visitors who completed it, completions, revenue in its currency. */
export type Conversions = { goal: Goal; visitors: number; events: number; revenue: number };

/** A grouping by goals (one row per goal with conversions) of these metrics. */
const byGoals = (goals: Goal[], metrics: string[]): GroupQuery => ({
  dimensions: [GOAL],
  metrics,
  order: [],
  limit: 1,
  offset: 0,
  goals: goalSplits(goals),
});

/**
 * API v1's `name=goal`: each goal with conversions, its name and its converting visitors
 * (one grouping by goals), searched, sorted and paged as every statistic is.
 */
async function goalPage(
  q: PageQuery,
  goals: Goal[],
  ask: (groups: GroupQuery[]) => Promise<Answer[] | Unavailable>,
): Promise<StatsPage | Unavailable> {
  const search = q.search?.toLowerCase();
  const searched = goals.filter((g) => !search || g.displayName.toLowerCase().includes(search));
  const answers = searched.length > 0 ? await ask([byGoals(searched, ['visitors'])]) : [];
  if (isUnavailable(answers)) return answers;
  const [first] = answers;
  const rows = (first?.rows ?? [])
    .map((row) => ({ value: row.dimensions[0] as string, count: row.metrics[0] ?? 0 }))
    .filter((row) => row.count > 0);
  const sign = q.sort === 'asc' ? 1 : -1;
  rows.sort((a, b) =>
    q.sortBy === 'value'
      ? sign * (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)
      : sign * (a.count - b.count) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
  );
  return {
    rows: rows.slice(q.offset, q.offset + q.limit),
    total: rows.length,
    rowsRead: first?.rowsRead ?? 0,
  };
}

/** An engine's page of a statistic as API v1 reads it: values and counts (and more metrics). */
const asPage = (a: Answer): Listing => ({
  rows: a.rows.map((row) => {
    const [count, ...more] = row.metrics;
    return {
      value: row.dimensions[0] as string,
      count: count ?? 0,
      ...(more.length > 0 ? { more } : {}),
    };
  }),
  total: a.total,
  rowsRead: a.rowsRead,
});

/**
 * The statistics of a website read by the query engine, under v1's filters (a goal's made
 * the hits that complete it: src/query/parse/goal-filters.ts, so `goals` are the website's when one is).
 */
function engineSource(reader: Reader, filters: Filter[], goals: Goal[] = []): Source {
  const engineFilters = withGoals(v1Filters(filters), goals);
  const ask = (range: Dates, groups: GroupQuery[], more: FilterNode[] = [], currency?: string) =>
    reader.answer({
      from: range.from,
      to: range.to,
      ...(range.between ? { between: range.between } : {}),
      filters: [...engineFilters, ...more],
      groups,
      ...(currency ? { currency } : {}),
    });
  return {
    async page(q) {
      if (q.name === 'goal') return goalPage(q, goals, (groups) => ask(q, groups));
      const name = q.name === 'property' ? { property: q.property } : q.name;
      const answers = await ask(q, [v1Grouping(name, q, q.search, q.metrics)]);
      return isUnavailable(answers) ? answers : asPage(answers[0] as Answer);
    },
    async conversions(list, range) {
      if (list.length === 0) return [];
      const answers = await ask(range, [byGoals(list, ['visitors', 'events', 'total_revenue'])]);
      if (isUnavailable(answers)) return answers;
      const byName = new Map((answers[0]?.rows ?? []).map((row) => [row.dimensions[0], row]));
      return list.map((goal) => {
        const [visitors, events, revenue] = byName.get(goal.displayName)?.metrics ?? [];
        return { goal, visitors: visitors ?? 0, events: events ?? 0, revenue: revenue ?? 0 };
      });
    },
    async engagement(pages, range) {
      if (pages.length === 0) return {};
      const every = pages === 'all';
      const group = {
        dimensions: ['sl:page'],
        metrics: ['time_on_page', 'scroll_depth'],
        order: [],
        limit: every ? 100_000 : pages.length,
        offset: 0,
      };
      const only = every
        ? []
        : [{ op: 'is' as const, dimension: 'sl:page', values: pages, caseSensitive: true }];
      const answers = await ask(range, [group], only);
      if (isUnavailable(answers)) return answers;
      return Object.fromEntries(
        (answers[0]?.rows ?? []).map((row) => [
          row.dimensions[0] as string,
          { time: row.metrics[0] ?? 0, scroll: row.metrics[1] ?? null },
        ]),
      );
    },
    events: (range, limit) =>
      eventsOf((groups, more) => ask(range, groups, more), limit, engineFilters.length > 0),
    async carrying(property, range) {
      const answers = await ask(range, [VISITORS], [carried(property)]);
      return isUnavailable(answers) ? answers : (answers[0]?.rows[0]?.metrics[0] ?? 0);
    },
    async tops(names, range, limit, metricOf) {
      const top = { sortBy: 'count', sort: 'desc', limit, offset: 0 } as const;
      const answers = await ask(
        range,
        names.map((name) => v1Grouping(name, top, undefined, metricOf ? [metricOf(name)] : [])),
      );
      return isUnavailable(answers) ? answers : answers.map(asPage);
    },
    async figures(range) {
      const answers = await ask(range, [FIGURES]);
      return isUnavailable(answers) ? answers : figuresFrom(answers[0]?.rows[0]);
    },
    async series(range, unit) {
      const answers = await ask(range, seriesQuestions(range));
      return isUnavailable(answers) ? answers : seriesFrom(range, answers, unit);
    },
  };
}

/**
 * The roll-ups of a website, as they are (read `sourceOf` to have them flushed first): every
 * statistic of API v1 is a grouping they hold, with no filter.
 */
export function rollupSource(db: Database, websiteId: number): Source<never> {
  return engineSource(readerOf(db, websiteId), []) as Source<never>;
}

/**
 * The source of a website's numbers under these filters: the query engine, which reads its
 * roll-ups once its log has flushed into them (so every hit answered 202 is counted), or its
 * log under filters. With `imports` false, its roll-ups leave imported history out (the base
 * of a conversion rate, whose converting visitors are the log's own).
 */
export async function sourceOf(
  env: Env,
  db: Database,
  websiteId: number,
  filters: Filter[],
  goals?: Goal[],
  { imports = true }: { imports?: boolean } = {},
): Promise<Source> {
  // A goal filter is the hits that complete the goal: the website's goals say which.
  const named = goals ?? (filters.some(needsGoals) ? await listGoals(db, websiteId) : []);
  return engineSource(readerOf(db, websiteId, env, { imports }), filters, named);
}

/**
 * A website's numbers as the present stage reads them (./overview.ts): its source under the
 * view's filters, the same website under other filters, the visitors of its last minutes and
 * its imports within a range — so that nothing above names the website again.
 */
export type WebsiteNumbers = {
  source: Source;
  /** The website's goals. */
  goals: Goal[];
  /** Its source under other filters; with `imports` false, its own history alone. */
  under(filters: Filter[], options?: { imports?: boolean }): Source;
  /** Its visitors of the last five minutes. */
  realtime(): Promise<number>;
  /** Its imports whose dates a range touches. */
  importsWithin(range: { from: string; to: string }): Promise<ImportRecord[]>;
  /** The custom properties' names a range's hits carry under `filters` (./properties.ts). */
  propertyNames(
    range: { from: string; to: string },
    filters: Filter[],
  ): Promise<PropertyName[] | Unavailable>;
};

/** A website's numbers under `filters`, its `goals` read already. */
export function websiteNumbers(
  env: Env,
  db: Database,
  websiteId: number,
  filters: Filter[],
  goals: Goal[],
): WebsiteNumbers {
  const under = (others: Filter[], { imports = true }: { imports?: boolean } = {}) => {
    const reader = readerOf(db, websiteId, env, { imports });
    return engineSource(reader, others, goals);
  };
  const own = readerOf(db, websiteId, env);
  return {
    source: engineSource(own, filters, goals),
    goals,
    under,
    propertyNames: (range, f) => propertyNamesOf(own, range, f, goals),
    realtime: () => realtimeVisitors(env, websiteId, Date.now()),
    importsWithin: (range) => importsWithin(db, websiteId, range),
  };
}

/** Whether a filter is on a goal (`filter[goal]`). */
export const isGoalFilter = (f: Filter) => f.dimension === GOAL_FILTER;

/** Whether a filter needs the website's goals: one on a goal, or a segment with one. */
export const needsGoals = (f: Filter) =>
  isGoalFilter(f) || JSON.stringify(f.segment?.nodes ?? []).includes(`"${GOAL}"`);

/**
 * A website's oldest date with data, once its log has flushed into the roll-ups (so that a
 * hit answered 202 is within "all time"); null before its first hit.
 */
export async function firstDateOf(
  env: Env,
  db: Database,
  websiteId: number,
): Promise<string | null> {
  await flushBeforeReading(env, websiteId);
  const [own, imported] = await Promise.all([
    firstRollupDate(db, websiteId),
    firstImportedDate(db, websiteId),
  ]);
  // Imported history counts too (docs/ARCHITECTURE.md, "Imported history").
  return own === null ? imported : imported === null || own < imported ? own : imported;
}

/**
 * The six figures of a range and of the range it is compared with: the period of equal
 * length just before it, unless `before` says another (./comparison.ts).
 */
export async function summaryOf(
  source: Source<never>,
  range: Dates,
  before?: Dates,
): Promise<Summary>;
export async function summaryOf(
  source: Source,
  range: Dates,
  before?: Dates,
): Promise<Summary | Unavailable>;
export async function summaryOf(
  source: Source,
  range: Dates,
  before: Dates = previousPeriod(range),
): Promise<Summary | Unavailable> {
  // Both asked at once: over the log, the two reads overlap.
  const [data, asked] = await Promise.all([source.figures(range), source.figures(before)]);
  if (isUnavailable(data)) return data;
  // The compared range may reach past the log's oldest date: it shows what the log holds.
  let previous = asked;
  if (isUnavailable(previous))
    previous =
      previous.firstDate <= before.to
        ? await source.figures({ from: previous.firstDate, to: before.to })
        : figuresFrom(undefined);
  return { data, previous: isUnavailable(previous) ? figuresFrom(undefined) : previous };
}
