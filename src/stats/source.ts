/**
 * Where a number is read from (docs/ARCHITECTURE.md, "The path of a number" and "Filters"):
 * an unfiltered question sums D1's roll-ups (./queries.ts) once the website's log has
 * flushed (read-your-writes); a filtered one (./filters.ts) is answered by the website's
 * event log (src/event-log/log-query.ts), which holds every hit with all its dimensions,
 * where roll-ups hold one dimension at a time. With no filter both give the same answers
 * (test/integration/filters.test.ts). Everything the API and the statistics page show is
 * built here from a `Source`'s reads.
 */

import type { Filter } from '../counting/dimensions.ts';
import type { StatName } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { flushBeforeReading, readLog } from '../event-log/client.ts';
import { daysBetween, previousPeriod } from '../lib/dates.ts';
import { compactedThrough } from './compaction.ts';
import {
  figuresOf,
  type SeriesPoint,
  SUMMED,
  type Summary,
  seriesPoints,
  seriesRollups,
} from './overview.ts';
import {
  firstRollupDate,
  queryStats,
  rollupSums,
  type StatsPage,
  type StatsQuery,
  type ValueSum,
} from './queries.ts';

/** A filtered range that starts before the oldest date the log holds: that date. */
export type Unavailable = { unavailable: true; firstDate: string };

export function isUnavailable(answer: unknown): answer is Unavailable {
  return typeof answer === 'object' && answer !== null && 'unavailable' in answer;
}

type Dates = { from: string; to: string };

/** A page of one statistic, without the website (the source knows it). */
type PageQuery = Omit<StatsQuery, 'websiteId' | 'through'>;

/**
 * What a website's numbers are read from: its roll-ups (`U` = never: they cover every date)
 * or its log under filters (`U` = `Unavailable` before the oldest date it holds).
 */
export type Source<U = Unavailable> = {
  /** One page of a statistic. */
  page(q: PageQuery): Promise<StatsPage | U>;
  /** The first page (`limit` values by count) of each of several statistics. */
  tops(names: readonly StatName[], range: Dates, limit: number): Promise<StatsPage[] | U>;
  /** Statistics summed over a range: per value (every value), or per statistic (value ''). */
  sums(names: readonly StatName[], range: Dates, perValue: boolean): Promise<ValueSum[] | U>;
};

/**
 * The roll-ups of a website, as they are (read `sourceOf` to have them flushed first). Its
 * last compacted month is read once, by the first read that needs it.
 */
export function rollupSource(db: Database, websiteId: number): Source<never> {
  let compacted: Promise<string | null> | undefined;
  const website = async () => {
    compacted ??= compactedThrough(db, websiteId);
    return { websiteId, through: await compacted };
  };
  const page = async (q: PageQuery) => queryStats(db, { ...(await website()), ...q });
  return {
    page,
    tops: (names, range, limit) =>
      Promise.all(
        names.map((name) =>
          page({
            name,
            from: range.from,
            to: range.to,
            sortBy: 'count',
            sort: 'desc',
            limit,
            offset: 0,
          }),
        ),
      ),
    sums: async (names, range, perValue) => rollupSums(db, await website(), names, range, perValue),
  };
}

/** A website's event log, keeping the hits the filters keep. */
function logSource(env: Env, websiteId: number, filters: Filter[]): Source {
  const page = async (q: PageQuery): Promise<StatsPage | Unavailable> => {
    const read = await readLog(env, websiteId, (log) => log.statistic({ ...q, filters }));
    if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
    return { ...read.value, rowsRead: read.rowsRead };
  };
  return {
    page,
    // One read for all: the kept events, visits and visitors are found once.
    async tops(names, range, limit) {
      const read = await readLog(env, websiteId, (log) =>
        log.topValues({ from: range.from, to: range.to, filters, names: [...names], limit }),
      );
      if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
      // The rows read are those of the one read that answered them all.
      return read.value.map((p) => ({ ...p, rowsRead: read.rowsRead }));
    },
    async sums(names, range, perValue) {
      if (!perValue) {
        const read = await readLog(env, websiteId, (log) =>
          log.sums({ from: range.from, to: range.to, filters }),
        );
        if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
        const sums = read.value;
        return SUMMED.filter((name) => names.includes(name)).map((name) => ({
          name,
          value: '',
          count: sums[name],
        }));
      }
      // Every value of each statistic, in one read: a series has one per date (or hour).
      const limit = Math.max(24, daysBetween(range.from, range.to));
      const read = await readLog(env, websiteId, (log) =>
        log.topValues({
          from: range.from,
          to: range.to,
          filters,
          names: [...names],
          limit,
          sortBy: 'value',
        }),
      );
      if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
      return read.value.flatMap((p, i) =>
        p.rows.map((row) => ({ name: names[i] as StatName, ...row })),
      );
    },
  };
}

/**
 * The source of a website's numbers under these filters: its log when there are any, else
 * its roll-ups once the log has flushed into them (so every hit answered 202 is counted).
 */
export async function sourceOf(
  env: Env,
  db: Database,
  websiteId: number,
  filters: Filter[],
): Promise<Source> {
  if (filters.length > 0) return logSource(env, websiteId, filters);
  await flushBeforeReading(env, websiteId);
  return rollupSource(db, websiteId);
}

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
  return firstRollupDate(db, websiteId);
}

/** The six figures of a range and of the period of equal length just before it. */
export async function summaryOf(source: Source<never>, range: Dates): Promise<Summary>;
export async function summaryOf(source: Source, range: Dates): Promise<Summary | Unavailable>;
export async function summaryOf(source: Source, range: Dates): Promise<Summary | Unavailable> {
  const figures = async (dates: Dates) => {
    const sums = await source.sums(SUMMED, dates, false);
    if (isUnavailable(sums)) return sums;
    return figuresOf((name) => sums.find((s) => s.name === name)?.count ?? 0);
  };
  const data = await figures(range);
  if (isUnavailable(data)) return data;
  // The period before may reach past the log's oldest date: it shows what the log holds.
  const before = previousPeriod(range);
  let previous = await figures(before);
  if (isUnavailable(previous))
    previous =
      previous.firstDate <= before.to
        ? await figures({ from: previous.firstDate, to: before.to })
        : figuresOf(() => 0);
  return { data, previous: isUnavailable(previous) ? figuresOf(() => 0) : previous };
}

/** The chart's points of a range: per day, or per hour for one day. */
export async function seriesOf(source: Source, range: Dates): Promise<SeriesPoint[] | Unavailable> {
  const names = Object.keys(seriesRollups(range.from === range.to)) as StatName[];
  const sums = await source.sums(names, range, true);
  return isUnavailable(sums) ? sums : seriesPoints(range, sums);
}
