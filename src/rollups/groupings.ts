/**
 * The groupings of a question that D1's roll-ups answer exactly, and their answers
 * (docs/ARCHITECTURE.md, "The query engine"): with no filter, a grouping by nothing, by date,
 * or by one dimension whose statistic is rolled up, of the metrics the roll-ups hold. The
 * reads are those of ./sums.ts, whose cost model docs/BENCHMARKS.md publishes.
 */

import type { GroupAnswer, GroupQuery, ResultRow } from '../counting/query.ts';
import { noPartials, type Partials, queryMetric } from '../counting/query-metrics.ts';
import { sortRows } from '../counting/row-order.ts';
import { ROLLED_UP, STAT_NAMES, type StatName } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import type { ImportedSegment } from './imported.ts';
import { queryStats, rollupSums } from './sums.ts';

/** A website's roll-ups: its id and last compacted month (./compaction.ts). */
export type Rollups = {
  db: Database;
  websiteId: number;
  through: string | null;
  /** The imported history to add, if any (./imported.ts). */
  imported?: readonly ImportedSegment[];
};

/** The roll-ups whose sums give the metrics of a range or of each date of it. */
const SUMMED = [
  'visitors',
  'visits',
  'pageviews',
  'bounces',
  'visit_duration',
  'event',
] as const satisfies readonly StatName[];

/** The metrics the sums of `SUMMED` give, per date or over the range. */
const SUMMABLE = new Set([
  'visitors',
  'visits',
  'pageviews',
  'events',
  'bounce_rate',
  'visit_duration',
  'views_per_visit',
  'sl:bounces',
  'sl:duration',
  'sl:custom_events',
]);

/**
 * Which roll-up statistic holds which grouping of one dimension by one metric: each roll-up
 * statistic's (src/counting/statistics.ts `ROLLED_UP`), and v2's pages (`event:page`), whose values are the
 * page statistic's own.
 */
const HELD = new Map<string, StatName>([
  ...STAT_NAMES.map((name): [string, StatName] => [
    `${ROLLED_UP[name].dimension} ${ROLLED_UP[name].metric}`,
    name,
  ]),
  ['event:page pageviews', 'page'],
]);

/** The statistic that holds a grouping by one dimension of one metric, if one does. */
function statisticOf(g: GroupQuery): StatName | undefined {
  if (g.dimensions.length !== 1 || g.metrics.length !== 1) return undefined;
  return HELD.get(`${g.dimensions[0]} ${g.metrics[0]}`);
}

/** The metrics of custom events: their roll-up is by name, summed over a range but not by date. */
const OF_EVENTS = new Set(['events', 'sl:custom_events']);

/** Whether the roll-ups answer a grouping (of a question without filters). */
export function rollupsAnswer(g: GroupQuery): boolean {
  if (statisticOf(g) !== undefined) return true;
  if (!g.metrics.every((m) => SUMMABLE.has(m))) return false;
  if (g.dimensions.length === 0) return true;
  return g.dimensions.join() === 'time:day' && !g.metrics.some((m) => OF_EVENTS.has(m));
}

/** The sums of the query engine's metrics from the sums of `SUMMED`. */
function rollupPartials(sum: (name: StatName) => number): Partials {
  return {
    ...noPartials(),
    vis: sum('visitors'),
    vst: sum('visits'),
    svst: sum('visits'),
    pv: sum('pageviews'),
    vpv: sum('pageviews'),
    ev: sum('pageviews') + sum('event'),
    ce: sum('event'),
    bnc: sum('bounces'),
    dur: sum('visit_duration'),
  };
}

/** A grouping the roll-ups answer (`rollupsAnswer`), over a range of dates. */
export async function rollupAnswer(
  r: Rollups,
  g: GroupQuery,
  range: { from: string; to: string },
): Promise<GroupAnswer & { rowsRead: number }> {
  const name = statisticOf(g);
  if (name !== undefined) {
    const [first] = g.order;
    const byValue = first !== undefined && first[0] !== g.metrics[0];
    const page = await queryStats(r.db, {
      websiteId: r.websiteId,
      through: r.through,
      name,
      from: range.from,
      to: range.to,
      search: g.search,
      sortBy: byValue ? 'value' : 'count',
      sort: first?.[1] ?? 'desc',
      limit: g.limit,
      offset: g.offset,
      imported: r.imported,
    });
    return {
      rows: page.rows.map((row) => ({ dimensions: [row.value], metrics: [row.count] })),
      total: page.total,
      rowsRead: page.rowsRead,
    };
  }
  const perDate = g.dimensions.length === 1;
  const names = perDate ? SUMMED.filter((n) => n !== 'event') : SUMMED;
  const sums = await rollupSums(r.db, r, names, range, perDate);
  const byValue = new Map<string, Map<StatName, number>>();
  for (const s of sums) {
    const value = byValue.get(s.value) ?? new Map<StatName, number>();
    value.set(s.name, (value.get(s.name) ?? 0) + s.count);
    byValue.set(s.value, value);
  }
  if (!perDate && byValue.size === 0) byValue.set('', new Map());
  const total = rollupPartials((n) =>
    [...byValue.values()].reduce((t, v) => t + (v.get(n) ?? 0), 0),
  );
  const needs = g.metrics.flatMap((m) => queryMetric(m).needs);
  const rows: ResultRow[] = [];
  for (const [value, counts] of byValue) {
    const partials = rollupPartials((n) => counts.get(n) ?? 0);
    if (perDate && needs.every((p) => partials[p] === 0)) continue;
    rows.push({
      dimensions: perDate ? [value] : [],
      metrics: g.metrics.map((m) => queryMetric(m).value(partials, total)),
    });
  }
  sortRows(g, rows);
  return {
    rows: rows.slice(g.offset, g.offset + g.limit),
    total: rows.length,
    rowsRead: 0,
  };
}
