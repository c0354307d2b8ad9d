/**
 * Groupings answered from D1's roll-ups, as the query's plan sends them here
 * (src/query/plan/plan.ts): a roll-up statistic's own rows (`statisticAnswer`), or the sums of
 * the figures' statistics by nothing or by date (`sumsAnswer`). The reads are those of
 * ./sums.ts, whose cost model docs/BENCHMARKS.md publishes.
 */

import { eq, sql } from 'drizzle-orm';
import type { GroupAnswer, GroupQuery, ResultRow } from '../counting/query.ts';
import { noPartials, type Partials, queryMetric } from '../counting/query-metrics.ts';
import { sortRows } from '../counting/row-order.ts';
import { type RollupName, type StatName, VISITOR_ROLLUPS } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import { logPositions } from '../db/schema.ts';
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

/** Whether a roll-up statistic is one of the visitors' (`VISITOR_ROLLUPS`). */
export const isVisitorRollup = (name: RollupName) =>
  (VISITOR_ROLLUPS as readonly string[]).includes(name);

/**
 * The first date from which D1 holds the visitors of the website's pages and referrers
 * (`VISITOR_ROLLUPS`): the latest of its log partitions' (`log_positions.visitors_from`). A
 * partition whose flushes have not counted them yet holds them for none of its dates: then
 * from after its last ('' when every partition counted them from its beginning, or none has
 * flushed).
 */
export async function visitorsCountedFrom(db: Database, websiteId: number): Promise<string> {
  const row = await db
    .select({
      from: sql<
        string | null
      >`max(coalesce(${logPositions.visitorsFrom}, ${logPositions.lastDate} || '~', ''))`,
    })
    .from(logPositions)
    .where(eq(logPositions.websiteId, websiteId))
    .get();
  return row?.from ?? '';
}

/** A grouping of one dimension by one metric from the roll-up statistic `name`, which holds it. */
export async function statisticAnswer(
  r: Rollups,
  name: RollupName,
  g: GroupQuery,
  range: { from: string; to: string },
): Promise<GroupAnswer & { rowsRead: number }> {
  const [first] = g.order;
  const byValue = first !== undefined && first[0] !== g.metrics[0];
  const page = await queryStats(r.db, {
    websiteId: r.websiteId,
    through: r.through,
    name,
    from: range.from,
    to: range.to,
    search: g.search,
    exact: g.exact,
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

/** A grouping by nothing or by date of the figures' metrics, from the roll-ups' sums. */
export async function sumsAnswer(
  r: Rollups,
  g: GroupQuery,
  range: { from: string; to: string },
): Promise<GroupAnswer & { rowsRead: number }> {
  const perDate = g.dimensions.length === 1;
  const names = perDate ? SUMMED.filter((n) => n !== 'event') : SUMMED;
  const sums = await rollupSums(r.db, r, names, range, perDate);
  const byValue = new Map<string, Map<RollupName, number>>();
  for (const s of sums) {
    const value = byValue.get(s.value) ?? new Map<RollupName, number>();
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
