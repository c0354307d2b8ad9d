/**
 * Every number of the statistics page's overview for one range under some filters: the
 * figures with the period before, the chart, the top values of each panel, the visitors of
 * the last five minutes and, with an `event` filter, the conversion rate. All of it comes
 * from one source (./source.ts): the roll-ups, or the log when filtered.
 */

import type { Filter } from '../counting/dimensions.ts';
import type { StatName } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { realtimeVisitors } from '../event-log/client.ts';
import type { SeriesPoint, Summary } from './overview.ts';
import type { StatsPage } from './queries.ts';
import { isUnavailable, seriesOf, sourceOf, summaryOf, type Unavailable } from './source.ts';

/** Visitors who matched the filters in percent of all visitors of the range, one decimal. */
type Conversion = { rate: number; previous: number };

export type Overview = {
  summary: Summary;
  series: SeriesPoint[];
  /** The top values of each panel asked for, in the same order. */
  panels: StatsPage[];
  /** Visitors of the last five minutes (all of them: filters do not narrow it). */
  live: number;
  /** With an `event` filter only. */
  conversion?: Conversion;
};

/** How many values each panel of the overview shows. */
const PANEL_ROWS = 10;

function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10;
}

export async function overviewOf(
  env: Env,
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
  filters: Filter[],
  panels: readonly StatName[],
): Promise<Overview | Unavailable> {
  const source = await sourceOf(env, db, websiteId, filters);
  const [summary, series, pages, live] = await Promise.all([
    summaryOf(source, range),
    seriesOf(source, range),
    source.tops(panels, range, PANEL_ROWS),
    realtimeVisitors(env, websiteId, Date.now()),
  ]);
  if (isUnavailable(summary)) return summary;
  if (isUnavailable(series)) return series;
  if (isUnavailable(pages)) return pages;
  const overview: Overview = { summary, series, panels: pages, live };
  if (filters.some((f) => f.dimension === 'event')) {
    // All visitors of the range, from the roll-ups once flushed: the hits of the last
    // seconds count on both sides of the division.
    const all = await summaryOf(await sourceOf(env, db, websiteId, []), range);
    if (!isUnavailable(all))
      overview.conversion = {
        rate: percent(summary.data.visitors, all.data.visitors),
        previous: percent(summary.previous.visitors, all.previous.visitors),
      };
  }
  return overview;
}
