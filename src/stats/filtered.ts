/**
 * Filtered statistics and summaries (src/stats/filters.ts): read from the website's event
 * log, which holds every hit with all its dimensions, instead of D1's roll-ups, which hold
 * one dimension at a time. Unfiltered questions keep reading the roll-ups
 * (./queries.ts, ./overview.ts); with no filter both give the same answers
 * (test/integration/log-query.test.ts).
 */
import type { Env } from '../env.ts';
import { readLog } from '../event-log/client.ts';
import type { Filter } from './filters.ts';
import { type Figures, figuresOf, previousPeriod, type Summary } from './overview.ts';
import type { StatsPage, StatsQuery } from './queries.ts';

/** A range that starts before the oldest date the log holds whole: that date. */
export type Unavailable = { unavailable: true; firstDate: string };

/** One page of a statistic over the hits the filters keep. */
export async function filteredStats(
  env: Env,
  q: StatsQuery & { filters: Filter[] },
): Promise<StatsPage | Unavailable> {
  const { websiteId, ...query } = q;
  const read = await readLog(env, websiteId, (log) => log.statistic(query));
  if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
  return { rows: read.value.rows, total: read.value.total, rowsRead: read.rowsRead };
}

/** The figures of a range over the hits the filters keep, and of the period before. */
export async function filteredSummary(
  env: Env,
  websiteId: number,
  range: { from: string; to: string },
  filters: Filter[],
): Promise<Summary | Unavailable> {
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
