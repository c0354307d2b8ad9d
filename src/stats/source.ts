/**
 * Where a number is read from (docs/ARCHITECTURE.md, "The path of a number" and "Filters"):
 * an unfiltered question sums D1's roll-ups (./queries.ts, ./overview.ts) once the website's
 * log has flushed (read-your-writes); a filtered one (./filters.ts) is answered by the
 * website's event log, which holds every hit with all its dimensions, where roll-ups hold
 * one dimension at a time. With no filter both give the same answers
 * (test/integration/filters.test.ts).
 */
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { flushBeforeReading, readLog } from '../event-log/client.ts';
import type { Filter } from './filters.ts';
import { type Figures, figuresOf, previousPeriod, type Summary, summary } from './overview.ts';
import { queryStats, type StatsPage, type StatsQuery } from './queries.ts';

/** A filtered range that starts before the oldest date the log holds: that date. */
export type Unavailable = { unavailable: true; firstDate: string };

/** One page of a statistic, over the hits the filters keep (all of them without one). */
export async function statisticPage(
  env: Env,
  db: Database,
  q: StatsQuery & { filters: Filter[] },
): Promise<StatsPage | Unavailable> {
  const { websiteId, filters, ...query } = q;
  if (filters.length === 0) {
    await flushBeforeReading(env, websiteId);
    return queryStats(db, { websiteId, ...query });
  }
  const read = await readLog(env, websiteId, (log) => log.statistic({ ...query, filters }));
  if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
  return { rows: read.value.rows, total: read.value.total, rowsRead: read.rowsRead };
}

/** The figures of a range and of the period before, over the hits the filters keep. */
export async function summaryOf(
  env: Env,
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
  filters: Filter[],
): Promise<Summary | Unavailable> {
  if (filters.length === 0) {
    await flushBeforeReading(env, websiteId);
    return summary(db, websiteId, range);
  }
  const figures = async (r: { from: string; to: string }): Promise<Figures | Unavailable> => {
    const read = await readLog(env, websiteId, (log) => log.sums({ ...r, filters }));
    if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
    return figuresOf((name) => read.value[name]);
  };
  const data = await figures(range);
  if ('unavailable' in data) return data;
  // The period before may reach past the log's oldest date: it shows what the log holds.
  const before = previousPeriod(range);
  let previous = await figures(before);
  if ('unavailable' in previous)
    previous =
      previous.firstDate <= before.to
        ? await figures({ from: previous.firstDate, to: before.to })
        : figuresOf(() => 0);
  return { data, previous: 'unavailable' in previous ? figuresOf(() => 0) : previous };
}
