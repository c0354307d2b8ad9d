/**
 * The plan of a question: which store answers each of its groupings (docs/ARCHITECTURE.md,
 * "The query engine") — the one place that decides. D1's roll-ups answer exactly what they
 * hold, for a question with no filter over whole dates: a roll-up statistic's own rows (a
 * grouping of one dimension by one metric that a statistic holds, `ROLLED_UP`), or the sums of
 * the figures' statistics by nothing or by date; the website's log answers everything else.
 *
 * @example
 * planOf({ from, to, filters: [], groups: [pagesByViews, figures] });
 * // → [{ store: 'statistic', name: 'page' }, { store: 'sums' }]
 */
import type { GroupQuery, LogQuery } from '../../counting/query.ts';
import { ROLLED_UP, ROLLUP_NAMES, type RollupName } from '../../counting/statistics.ts';

/** Where a grouping is answered. */
export type Store =
  /** A roll-up statistic's rows (src/rollups/groupings.ts `statisticAnswer`). */
  | { store: 'statistic'; name: RollupName }
  /** The sums of the figures' roll-ups, over the range or per date (`sumsAnswer`). */
  | { store: 'sums' }
  /** The website's log, in chunks (src/website-log/worker/calls.ts `readLog`). */
  | { store: 'log' };

/** The metrics the sums of the figures' roll-ups give, per date or over the range. */
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

/** The metrics of custom events: their roll-up is by name, summed over a range but not by date. */
const OF_EVENTS = new Set(['events', 'sl:custom_events']);

/**
 * Which roll-up statistic holds which grouping of one dimension by one metric: each roll-up
 * statistic's (`ROLLED_UP`), and v2's pages (`event:page`), whose values are the page
 * statistic's own.
 */
const HELD = new Map<string, RollupName>([
  ...ROLLUP_NAMES.map((name): [string, RollupName] => [
    `${ROLLED_UP[name].dimension} ${ROLLED_UP[name].metric}`,
    name,
  ]),
  ['event:page pageviews', 'page'],
]);

const LOG: Store = { store: 'log' };

/** Where a grouping of a question with no filter over whole dates is answered. */
export function unfilteredStore(g: GroupQuery): Store {
  const held =
    g.dimensions.length === 1 && g.metrics.length === 1
      ? HELD.get(`${g.dimensions[0]} ${g.metrics[0]}`)
      : undefined;
  if (held !== undefined) return { store: 'statistic', name: held };
  if (!g.metrics.every((m) => SUMMABLE.has(m))) return LOG;
  if (g.dimensions.length === 0) return { store: 'sums' };
  const byDate = g.dimensions.join() === 'time:day' && !g.metrics.some((m) => OF_EVENTS.has(m));
  return byDate ? { store: 'sums' } : LOG;
}

/** The store of each grouping of a question, in order. */
export function planOf(q: LogQuery): Store[] {
  const unfiltered = q.filters.length === 0 && q.between === undefined;
  return q.groups.map((g) => (unfiltered ? unfilteredStore(g) : LOG));
}
