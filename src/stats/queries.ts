/**
 * Reads of D1's roll-ups. Every one starts from one base, `rollupRange`: some statistics of
 * a website over an inclusive date range, i.e. ranges of the `stats` primary key
 * (website_id, name, date, value). The rows in that range are summed per value (a page of a
 * statistic, sorted and paged in SQL) or per statistic (a summary's sums); nothing reads raw
 * hits and nothing is sorted in JavaScript. (The same questions over the event log, for
 * filtered reads: src/event-log/log-query.ts.)
 */
import { and, asc, between, desc, eq, inArray, sql } from 'drizzle-orm';
import { type SQLiteColumn, unionAll } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.ts';
import { containsText } from '../db/contains-text.ts';
import { stats, statsMonths, statsYears } from '../db/schema.ts';
import { piecesOf } from '../lib/dates.ts';
import { type StatName, TIME_VALUED } from './names.ts';

export type StatsQuery = {
  websiteId: number;
  /** The website's last compacted month (./compaction.ts `compactedThrough`). */
  through: string | null;
  name: StatName;
  from: string;
  to: string;
  search?: string | undefined;
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
};

export type StatsPage = {
  rows: { value: string; count: number }[];
  total: number;
  rowsRead: number;
};

/**
 * The base of every roll-up read: the rows of some statistics of one website over a date
 * range, as a subquery of `name`, `value`, `count`. The range is cut into the fewest pieces
 * (`piecesOf`): whole years and months from `stats_years` and `stats_months` (those up to
 * the website's last compacted month, `through`), days at the ends from `stats`. Each piece
 * is a range of its table's primary key (website_id, name, key, value).
 */
function rollupRange(
  db: Database,
  q: {
    websiteId: number;
    names: StatName | readonly StatName[];
    from: string;
    to: string;
    search?: string | undefined;
    through: string | null;
  },
) {
  const pieces = piecesOf(q, q.through);
  const part = (
    table: typeof stats | typeof statsMonths | typeof statsYears,
    key: SQLiteColumn,
    range: { from: string; to: string },
  ) =>
    db
      .select({ name: table.name, value: table.value, count: table.count })
      .from(table)
      .where(
        and(
          eq(table.websiteId, q.websiteId),
          typeof q.names === 'string' ? eq(table.name, q.names) : inArray(table.name, [...q.names]),
          // For one key, equality lets SQLite group in primary-key (value) order, with no sorter.
          range.from === range.to ? eq(key, range.from) : between(key, range.from, range.to),
          q.search ? containsText(table.value, q.search) : undefined,
        ),
      );
  const parts = [
    ...pieces.years.map((r) => part(statsYears, statsYears.year, r)),
    ...pieces.months.map((r) => part(statsMonths, statsMonths.month, r)),
    ...pieces.days.map((r) => part(stats, stats.date, r)),
  ];
  const [first, ...rest] = parts;
  if (!first) throw new Error('a range has at least one piece');
  return (rest.length ? unionAll(first, ...(rest as [typeof first])) : first).as('rollups');
}

/**
 * One page of a statistic, with the number of distinct values in `total`. A value whose
 * counts sum to 0 (an exit page whose visits went on) is not there.
 *
 * Cost, in D1 rows read, for R roll-up rows in the range's pieces (`rollupRange`: a year
 * or a month is one row per value, not one per value and day) and G distinct values
 * (measured, see test/integration/stats-cost.test.ts): the scans read R + 1; summing per
 * value over more than one key needs SQLite's GROUP BY sorter, whose R rows D1 counts as read
 * again (a one-day range is already in value order and skips it); ordering the G groups and
 * the window total add about 3G. So a request costs at most 2R + 3G + 2, whatever the
 * traffic outside its range. An index ordered by value would avoid the sorter but add a
 * row written to every hit, and D1 bills a written row like a thousand read ones. A
 * statistic whose values are times reads its R rows only (`timeValuedPage`).
 *
 * The total comes from a window function over the grouped rows of the same statement, so
 * the range is scanned once; only a page past the end (no row to carry the total) needs a
 * second statement, which groups the range the same way again (at most twice the cost).
 * `rowsRead` is D1's exact `meta.rows_read`, for tests and benchmarks.
 */
export async function queryStats(db: Database, q: StatsQuery): Promise<StatsPage> {
  const r = rollupRange(db, { ...q, names: q.name });
  if (TIME_VALUED.has(q.name)) return timeValuedPage(db, r, q);
  const total = sql<number>`count(*) over ()`.as('total');
  const sum = sql<number>`sum(${r.count})`;
  const primary = q.sortBy === 'value' ? r.value : sum;
  const result = await db
    .select({ value: r.value, count: sum.as('count'), total })
    .from(r)
    .groupBy(r.value)
    .having(sql`${sum} > 0`)
    .orderBy(q.sort === 'asc' ? asc(primary) : desc(primary), asc(r.value))
    .limit(q.limit)
    .offset(q.offset)
    .run();
  const rows = result.results as { value: string; count: number; total: number }[];
  let rowsRead = result.meta.rows_read ?? 0;
  let totalCount = rows[0]?.total ?? 0;
  if (rows.length === 0 && q.offset > 0) {
    const values = db
      .select({ value: r.value })
      .from(r)
      .groupBy(r.value)
      .having(sql`${sum} > 0`)
      .as('values');
    const counted = await db
      .select({ total: sql<number>`count(*)`.as('total') })
      .from(values)
      .run();
    totalCount = (counted.results[0] as { total: number } | undefined)?.total ?? 0;
    rowsRead += counted.meta.rows_read ?? 0;
  }
  return {
    rows: rows.map((row) => ({ value: row.value, count: Number(row.count) })),
    total: totalCount,
    rowsRead,
  };
}

/**
 * A page of a statistic whose values are times (`TIME_VALUED`): its rows read as they are
 * (R rows: no grouping sorter, no window), summed, sorted and paged here — at most one value
 * per date or hour of the range, so a few thousand for ten years. Sorted as SQLite sorts the
 * others: by count or value, ties by value (times compare the same as text).
 */
async function timeValuedPage(
  db: Database,
  r: ReturnType<typeof rollupRange>,
  q: StatsQuery,
): Promise<StatsPage> {
  const result = await db.select({ value: r.value, count: r.count }).from(r).run();
  const sums = new Map<string, number>();
  for (const row of result.results as { value: string; count: number }[])
    sums.set(row.value, (sums.get(row.value) ?? 0) + Number(row.count));
  const byValue = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const direction = q.sort === 'asc' ? 1 : -1;
  const rows = [...sums]
    .filter(([, count]) => count > 0)
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) =>
      q.sortBy === 'value'
        ? direction * byValue(a.value, b.value)
        : direction * (a.count - b.count) || byValue(a.value, b.value),
    );
  return {
    rows: rows.slice(q.offset, q.offset + q.limit),
    total: rows.length,
    rowsRead: result.meta.rows_read ?? 0,
  };
}

/** A statistic's count for one value, summed over a range. */
export type ValueSum = { name: StatName; value: string; count: number };

/**
 * Statistics summed per value over a range, all values (for the chart's series: one value per
 * date or hour); with `perValue` false, summed per statistic (`value` is then '').
 */
export async function rollupSums(
  db: Database,
  q: { websiteId: number; through: string | null },
  names: readonly StatName[],
  range: { from: string; to: string },
  perValue: boolean,
): Promise<ValueSum[]> {
  const r = rollupRange(db, { ...q, names, from: range.from, to: range.to });
  const rows = await db
    .select({
      name: r.name,
      value: perValue ? r.value : sql<string>`''`,
      count: sql<number>`sum(${r.count})`,
    })
    .from(r)
    .groupBy(...(perValue ? [r.name, r.value] : [r.name]))
    .all();
  return rows.map((row) => ({
    name: row.name as StatName,
    value: row.value,
    count: Number(row.count),
  }));
}

/** A website's oldest date with any roll-up, or null when it has none. */
export async function firstRollupDate(db: Database, websiteId: number): Promise<string | null> {
  // Every hit is a page view or a custom event: the oldest date is one of these two.
  const row = await db
    .select({ first: sql<string | null>`min(${stats.date})` })
    .from(stats)
    .where(and(eq(stats.websiteId, websiteId), inArray(stats.name, ['pageviews', 'event'])))
    .get();
  return row?.first ?? null;
}
