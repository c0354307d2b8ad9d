/**
 * Reads of D1's roll-ups. Every one starts from one base, `rollupRows`: some statistics of a
 * website over an inclusive date range, read from the primary keys of the daily, month and
 * year roll-ups (website_id, name, key, value). The rows are summed per value (a page of a
 * statistic, sorted and paged in SQL) or per statistic (a summary's sums); nothing reads raw
 * hits. (The same questions over the event log, for filtered reads:
 * src/website-log/object/read/question-chunks.ts.)
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import {
  ROLLUP_NAMES,
  type RollupName,
  TIME_VALUED,
  VISITORS_OF,
  type VisitorRollup,
} from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import { stats } from '../db/schema.ts';
import { containsText } from '../lib/text/contains-text.ts';
import {
  addDays,
  addMonths,
  daysBetween,
  earlierDate,
  laterDate,
  monthsBetween,
  piecesOf,
} from '../lib/time/dates.ts';
import type { ImportedSegment } from './imported.ts';

export type StatsQuery = {
  websiteId: number;
  /** The website's last compacted month (./compaction.ts `compactedThrough`). */
  through: string | null;
  name: RollupName;
  from: string;
  to: string;
  search?: string | undefined;
  /** `search` is a whole value, in its case (`GroupQuery.exact`). */
  exact?: boolean | undefined;
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** The imported history to add (./imported.ts `importedSegments`); none when absent. */
  imported?: readonly ImportedSegment[] | undefined;
};

export type StatsPage = {
  rows: { value: string; count: number }[];
  total: number;
  rowsRead: number;
};

/**
 * The base of every roll-up read: the rows (`name`, `value`, `count`) of some statistics of
 * one website over a date range. The range is cut into the fewest pieces (`piecesOf`): whole
 * years and months from `stats_years` and `stats_months` (those up to the website's last
 * compacted month, `through`), days at the ends from `stats`.
 *
 * Each key of a piece (a year, a month, a date) is read as one arm, an equality on the
 * primary key's prefix (website_id, name, key), so each arm comes in value order; with
 * `ordered`, the arms are merged in value order (`UNION ALL … ORDER BY value`: SQLite merges
 * ordered arms, no sorter), so summing per value needs no GROUP BY sorter either. A range
 * of more than `MAX_ARMS` keys (a long range of a website not yet compacted) is read as
 * ranges of keys instead, unordered. Keys, names and the website are checked and written
 * into the statement (D1 binds at most 100 parameters; a range may have more keys). The
 * imported history, of any number of imports, is one more arm (`importedArm`, one per 10,000
 * spans), its spans bound as one value.
 */
function rollupRows(q: {
  websiteId: number;
  names: readonly RollupName[];
  from: string;
  to: string;
  through: string | null;
  /** Merged in value order: one statistic only. */
  ordered?: boolean;
  imported?: readonly ImportedSegment[] | undefined;
}): SQL {
  if (!Number.isSafeInteger(q.websiteId)) throw new Error('not a website id');
  for (const name of q.names)
    if (!(ROLLUP_NAMES as readonly string[]).includes(name)) throw new Error('not a statistic');
  const visitors = q.names.filter((name) => Object.hasOwn(VISITORS_OF, name)) as VisitorRollup[];
  const names = q.names.filter((name) => !Object.hasOwn(VISITORS_OF, name)).map((n) => `'${n}'`);
  const pieces = piecesOf(q, q.through);
  const tables = [
    ['stats_years', 'year', pieces.years],
    ['stats_months', 'month', pieces.months],
    ['stats', 'date', pieces.days],
  ] as const;
  // A visitors' roll-up is the `visitors` of the rows of the statistic it is of.
  const arm = (table: string, column: string, keys: string) => [
    ...(names.length > 0
      ? [
          `SELECT name, value, count FROM ${table} WHERE website_id = ${q.websiteId} AND name IN (${names.join(', ')}) AND ${column} ${keys}`,
        ]
      : []),
    ...visitors.map(
      (name) =>
        `SELECT '${name}' AS name, value, visitors AS count FROM ${table} WHERE website_id = ${q.websiteId} AND name = '${VISITORS_OF[name]}' AND ${column} ${keys}`,
    ),
  ];
  // Keys are counted before any is listed: a long range is never enumerated.
  const keys = tables.reduce(
    (n, [, column, ranges]) => n + ranges.reduce((m, range) => m + keyCount(column, range), 0),
    0,
  );
  const spans = importedSpans(q);
  const imported = spans.map(() => importedArm(q.websiteId));
  const text =
    keys <= MAX_ARMS
      ? compound(
          [
            ...tables.flatMap(([table, column, ranges]) =>
              ranges.flatMap((range) =>
                keysOf(column, range).flatMap((key) => arm(table, column, `= ${literal(key)}`)),
              ),
            ),
            ...imported,
          ],
          q.ordered ? 'value' : undefined,
        )
      : compound([
          ...tables.flatMap(([table, column, ranges]) =>
            ranges.flatMap((r) =>
              arm(table, column, `BETWEEN ${literal(r.from)} AND ${literal(r.to)}`),
            ),
          ),
          ...imported,
        ]);
  // Each arm's spans are bound where it says so, in the order of the arms.
  const [first = '', ...rest] = text.split(SPANS);
  return rest.reduce(
    (query, after, i) => sql`${query}${JSON.stringify(spans[i])}${sql.raw(after)}`,
    sql.raw(first),
  );
}

/** Where an imported arm's spans are bound (one JSON value). */
const SPANS = '/* spans */';

/** The most spans one imported arm binds: some 500 KB of JSON (D1 binds 2 MB a value). */
const SPANS_PER_ARM = 10_000;

/**
 * An arm of the imported history: for each span it is bound (an import, a statistic, its
 * first and last date), that import's rows of the statistic over those dates, each span a
 * seek on the primary key's prefix (website_id, name, date). However many imports a website
 * has, an arm per `SPANS_PER_ARM` spans reads them all.
 */
const importedArm = (websiteId: number) =>
  `SELECT i.name AS name, i.value AS value, i.count AS count FROM json_each(${SPANS}) AS s
  CROSS JOIN imported_stats AS i WHERE i.website_id = ${websiteId} AND i.name = s.value ->> 1
  AND i.date BETWEEN s.value ->> 2 AND s.value ->> 3 AND i.import_id = s.value ->> 0`;

type Span = [importId: number, name: string, from: string, to: string];

/**
 * The imported history a read adds (./imported.ts), `SPANS_PER_ARM` spans an arm:
 * for each import, each statistic read that it counts for, the dates of the range it counts
 * for.
 */
function importedSpans(q: {
  names: readonly RollupName[];
  from: string;
  to: string;
  imported?: readonly ImportedSegment[] | undefined;
}): Span[][] {
  const spans = (q.imported ?? []).flatMap((s) => {
    const from = laterDate(s.from, q.from);
    const to = earlierDate(s.to, q.to);
    if (from > to || !Number.isSafeInteger(s.importId)) return [];
    return q.names
      .filter((name) => s.names.includes(name))
      .map((name): Span => [s.importId, name, from, to]);
  });
  const arms: Span[][] = [];
  for (let i = 0; i < spans.length; i += SPANS_PER_ARM)
    arms.push(spans.slice(i, i + SPANS_PER_ARM));
  return arms;
}

/** The most arms a read merges in value order (each about a hundred bytes of SQL). */
const MAX_ARMS = 120;

/** A roll-up key (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) as SQL text, once checked to be one. */
function literal(key: string): string {
  if (!/^\d{4}(-\d{2}(-\d{2})?)?$/.test(key)) throw new Error(`not a roll-up key: ${key}`);
  return `'${key}'`;
}

/** How many keys a piece holds. */
function keyCount(column: 'year' | 'month' | 'date', range: { from: string; to: string }): number {
  if (column === 'year') return Number(range.to) - Number(range.from) + 1;
  if (column === 'month') return monthsBetween(range.from, range.to);
  return daysBetween(range.from, range.to);
}

/** Every key of a piece, in order. */
function keysOf(column: 'year' | 'month' | 'date', range: { from: string; to: string }): string[] {
  const next =
    column === 'year'
      ? (key: string) => String(Number(key) + 1).padStart(4, '0')
      : column === 'month'
        ? (key: string) => addMonths(key, 1)
        : (key: string) => addDays(key, 1);
  const keys: string[] = [];
  for (let key = range.from; key <= range.to; key = next(key)) keys.push(key);
  return keys;
}

/**
 * SELECTs joined by `UNION ALL` — in `order` when given — nested so that no compound SELECT
 * has more than `COMPOUND_TERMS` of them (D1 refuses longer compounds).
 */
function compound(terms: string[], order?: string): string {
  const join = (group: string[]) =>
    `${group.join('\nUNION ALL\n')}${order && group.length > 1 ? `\nORDER BY ${order}` : ''}`;
  if (terms.length <= COMPOUND_TERMS) return join(terms);
  const groups: string[] = [];
  for (let i = 0; i < terms.length; i += COMPOUND_TERMS)
    groups.push(`SELECT name, value, count FROM (${join(terms.slice(i, i + COMPOUND_TERMS))})`);
  return compound(groups, order);
}

/**
 * The WHERE of a search over a statistic's rows: the values containing it in any case, or,
 * `exact`, the value itself — SQLite pushes it into each arm, so only that value's rows are
 * read, by the primary key.
 */
const searchOf = (q: Pick<StatsQuery, 'search' | 'exact'>): SQL =>
  q.search === undefined || q.search === ''
    ? sql``
    : q.exact
      ? sql` WHERE value = ${q.search}`
      : sql` WHERE ${containsText(sql.raw('value'), q.search)}`;

/** The most terms one compound SELECT is given. */
const COMPOUND_TERMS = 4;

/**
 * One page of a statistic, with the number of distinct values in `total`. A value whose
 * counts sum to 0 (an exit page whose visits went on) is not there.
 *
 * Cost, in D1 rows read, for R roll-up rows in the range's pieces (`rollupRows`: a year or a
 * month is one row per value, not one per value and day) and G distinct values (measured,
 * see test/integration/query/stats-cost.test.ts): the arms read R + 1, merged in value order, so
 * the sums per value need no sorter; ordering the G groups and the window total add about
 * 3G. So a request costs at most R + 3G + 2, whatever the traffic outside its range (2R + 3G
 * + 2 for a range of more than `MAX_ARMS` keys, read as key ranges and grouped by SQLite's
 * sorter, whose R rows D1 counts as read again). A statistic whose values are times reads
 * its R rows only (`timeValuedPage`). Imported history adds its I rows in the range twice
 * (they come in date order, and are sorted to be merged) and two rows per span S (an
 * import's dates of the statistic: its seek and its JSON element): 2I + 2S more, measured
 * with a thousand imports (test/integration/websites/import-bounds.test.ts).
 *
 * The total comes from a window function over the grouped rows of the same statement, so
 * the range is scanned once; only a page past the end (no row to carry the total) needs a
 * second statement, which groups the range the same way again (at most twice the cost).
 * `rowsRead` is D1's exact `meta.rows_read`, for tests and benchmarks.
 */
export async function queryStats(db: Database, q: StatsQuery): Promise<StatsPage> {
  const rows = rollupRows({ ...q, names: [q.name], ordered: true });
  if (TIME_VALUED.has(q.name)) return timeValuedPage(db, rows, q);
  const search = searchOf(q);
  const grouped = sql`SELECT value, sum(count) AS count FROM (${rows})${search} GROUP BY value HAVING sum(count) > 0`;
  const direction = sql.raw(q.sort === 'asc' ? 'ASC' : 'DESC');
  const primary = sql.raw(q.sortBy === 'value' ? 'value' : 'count');
  const result = await db.run(
    sql`SELECT value, count, count(*) OVER () AS total FROM (${grouped})
      ORDER BY ${primary} ${direction}, value ASC LIMIT ${q.limit} OFFSET ${q.offset}`,
  );
  const page = result.results as { value: string; count: number; total: number }[];
  let rowsRead = result.meta.rows_read ?? 0;
  let total = page[0]?.total ?? 0;
  if (page.length === 0 && q.offset > 0) {
    const counted = await db.run(sql`SELECT count(*) AS total FROM (${grouped})`);
    total = (counted.results[0] as { total: number } | undefined)?.total ?? 0;
    rowsRead += counted.meta.rows_read ?? 0;
  }
  return {
    rows: page.map((row) => ({ value: row.value, count: Number(row.count) })),
    total,
    rowsRead,
  };
}

/**
 * A page of a statistic whose values are times (`TIME_VALUED`): its rows read as they are
 * (R rows: no grouping, no window), summed, sorted and paged here — at most one value per
 * date or hour of the range, so a few thousand for ten years. Sorted as SQLite sorts the
 * others: by count or value, ties by value (times compare the same as text).
 */
async function timeValuedPage(db: Database, rows: SQL, q: StatsQuery): Promise<StatsPage> {
  const search = searchOf(q);
  const result = await db.run(sql`SELECT value, count FROM (${rows})${search}`);
  const sums = new Map<string, number>();
  for (const row of result.results as { value: string; count: number }[])
    sums.set(row.value, (sums.get(row.value) ?? 0) + Number(row.count));
  const byValue = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const direction = q.sort === 'asc' ? 1 : -1;
  const page = [...sums]
    .filter(([, count]) => count > 0)
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) =>
      q.sortBy === 'value'
        ? direction * byValue(a.value, b.value)
        : direction * (a.count - b.count) || byValue(a.value, b.value),
    );
  return {
    rows: page.slice(q.offset, q.offset + q.limit),
    total: page.length,
    rowsRead: result.meta.rows_read ?? 0,
  };
}

/** A statistic's count for one value, summed over a range. */
export type ValueSum = { name: RollupName; value: string; count: number };

/**
 * Statistics summed per value over a range, all values (for the chart's series: one value per
 * date or hour); with `perValue` false, summed per statistic (`value` is then '').
 */
export async function rollupSums(
  db: Database,
  q: {
    websiteId: number;
    through: string | null;
    imported?: readonly ImportedSegment[] | undefined;
  },
  names: readonly RollupName[],
  range: { from: string; to: string },
  perValue: boolean,
): Promise<ValueSum[]> {
  const rows = rollupRows({ ...q, names, from: range.from, to: range.to });
  // A value's sum is bounded (an import's counts are: src/imports/format.ts `MAX_COUNT`); a
  // sum across values (custom events of every name) is a float's, which never overflows.
  const result = await db.run(
    perValue
      ? sql`SELECT name, value, sum(count) AS count FROM (${rows}) GROUP BY name, value`
      : sql`SELECT name, '' AS value, total(count) AS count FROM (${rows}) GROUP BY name`,
  );
  const sums = result.results as { name: string; value: string; count: number }[];
  return sums.map((row) => ({
    name: row.name as RollupName,
    value: row.value,
    count: Number(row.count),
  }));
}

/** A website's oldest date with any roll-up, or null when it has none. */
export async function firstRollupDate(db: Database, websiteId: number): Promise<string | null> {
  return (await rollupDates(db, websiteId))?.from ?? null;
}

/** A website's oldest and newest dates with roll-ups of its own events, or null. */
export async function rollupDates(
  db: Database,
  websiteId: number,
): Promise<{ from: string; to: string } | null> {
  // Every hit is a page view or a custom event: the dates are those of these two.
  const row = await db
    .select({
      from: sql<string | null>`min(${stats.date})`,
      to: sql<string | null>`max(${stats.date})`,
    })
    .from(stats)
    .where(and(eq(stats.websiteId, websiteId), inArray(stats.name, ['pageviews', 'event'])))
    .get();
  return row?.from && row.to ? { from: row.from, to: row.to } : null;
}
