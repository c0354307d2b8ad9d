/**
 * The query engine's metrics (docs/ARCHITECTURE.md, "The query engine"): what each one counts,
 * as sums that add up across chunks of whole dates (`Partials`), and how the figure is made
 * from them. Definitions follow Plausible's (shared by its Stats API v2), counted Sightline's
 * way: a visitor is one per local date, so visitors over a range are the sum of each day's.
 *
 * - `visitors`: visitors of the group; `visits`: visits; `pageviews`: page views;
 *   `events`: page views and custom events;
 * - `bounce_rate`: visits with one page view, in whole percent of the visits;
 *   `visit_duration`: the visits' first to last page view and the last one's engaged time,
 *   averaged in whole seconds;
 *   `views_per_visit`: page views of the visits per visit, two decimals;
 * - `time_on_page`: the seconds the group's page views were seen (visible and focused, as
 *   their engagements said), per visitor of the group, whole; `scroll_depth`: the deepest
 *   scroll of each visit's views of a page, averaged over the visits that sent one, whole
 *   percent (null without any) — both need a page to be about (src/query/parse/v2/question.ts);
 * - `percentage`: the group's visitors in percent of all visitors (one decimal);
 * - `total_revenue`, `average_revenue`: the revenue of the group's custom events in the
 *   question's currency (`LogQuery.currency`), summed or averaged over those events; events
 *   in another currency count as conversions, their revenue not;
 * - API v1's sums: `sl:bounces`, `sl:duration` (seconds), `sl:custom_events`; the export's:
 *   `sl:scroll_sum`, `sl:scroll_visits`, `sl:engaged_seconds`.
 */

/**
 * The sums a chunk gives per group: page views, events, custom events, visitors and visits
 * (counted among the group's hits); and, over every page view of the group's visits, the
 * visits, the bounces (+1 at a visit's first page view, −1 at its second), the seconds and
 * the page views; the revenue in millionths of the question's currency, and the events that
 * carry it; the milliseconds its page views were seen (`eng`), and the deepest scrolls of its
 * visits' pages, added up (`sds`) and counted (`sdn`: src/website-log/object/write/engagement.ts).
 */
export const PARTIALS = [
  'pv',
  'ev',
  'ce',
  'vis',
  'vst',
  'svst',
  'bnc',
  'dur',
  'vpv',
  'rev',
  'rvn',
  'eng',
  'sds',
  'sdn',
] as const;
export type PartialName = (typeof PARTIALS)[number];
export type Partials = Record<PartialName, number>;

/** Partials read from the visits' page views (grouped by the dimensions' `session` SQL). */
export const SESSION_PARTIALS: ReadonlySet<PartialName> = new Set(['svst', 'bnc', 'dur', 'vpv']);

type Metric = {
  needs: PartialName[];
  /** The figure from a group's partials (and the partials of all groups together). */
  value: (p: Partials, total: Partials) => number | null;
};

/** Revenue is kept in millionths of its currency (an integer: sums are exact). */
export const REVENUE_UNIT = 1_000_000;

/** `part` in percent of `whole`, to `digits` decimals; 0 of nothing (a funnel's rates, 2). */
export const percentOf = (part: number, whole: number, digits: number) =>
  whole > 0 ? Math.round((part / whole) * 10 ** (digits + 2)) / 10 ** digits : 0;

/**
 * A conversion rate: converting visitors in percent of the visitors of the question's other
 * filters (Plausible's definition), one decimal — the Stats API v2's, API v1's summary's and
 * the statistics page's and reports' goals'.
 */
export const conversionRate = (visitors: number, base: number) => percentOf(visitors, base, 1);

const ratio = (part: number, whole: number, scale: number, digits: number) =>
  whole === 0 ? 0 : Number(((part * scale) / whole).toFixed(digits));

const QUERY_METRICS = new Map<string, Metric>([
  ['visitors', { needs: ['vis'], value: (p) => p.vis }],
  ['visits', { needs: ['vst'], value: (p) => p.vst }],
  ['pageviews', { needs: ['pv'], value: (p) => p.pv }],
  ['events', { needs: ['ev'], value: (p) => p.ev }],
  ['bounce_rate', { needs: ['bnc', 'svst'], value: (p) => ratio(p.bnc, p.svst, 100, 0) }],
  ['visit_duration', { needs: ['dur', 'svst'], value: (p) => ratio(p.dur, p.svst, 1, 0) }],
  ['views_per_visit', { needs: ['vpv', 'svst'], value: (p) => ratio(p.vpv, p.svst, 1, 2) }],
  [
    'percentage',
    {
      needs: ['vis'],
      value: (p, total) => (total.vis === 0 ? null : ratio(p.vis, total.vis, 100, 1)),
    },
  ],
  ['total_revenue', { needs: ['rev'], value: (p) => p.rev / REVENUE_UNIT }],
  [
    'average_revenue',
    { needs: ['rev', 'rvn'], value: (p) => (p.rvn === 0 ? 0 : p.rev / p.rvn / REVENUE_UNIT) },
  ],
  ['time_on_page', { needs: ['eng', 'vis'], value: (p) => ratio(p.eng, p.vis * 1000, 1, 0) }],
  [
    'scroll_depth',
    { needs: ['sds', 'sdn'], value: (p) => (p.sdn === 0 ? null : ratio(p.sds, p.sdn, 1, 0)) },
  ],
  ['sl:scroll_sum', { needs: ['sds'], value: (p) => p.sds }],
  ['sl:scroll_visits', { needs: ['sdn'], value: (p) => p.sdn }],
  ['sl:engaged_seconds', { needs: ['eng'], value: (p) => Math.round(p.eng / 1000) }],
  ['sl:bounces', { needs: ['bnc'], value: (p) => p.bnc }],
  ['sl:duration', { needs: ['dur'], value: (p) => p.dur }],
  ['sl:custom_events', { needs: ['ce'], value: (p) => p.ce }],
]);

/** A metric of the registry; throws for any other name. */
export function queryMetric(key: string): Metric {
  const found = QUERY_METRICS.get(key);
  if (!found) throw new Error(`not a metric: ${key.slice(0, 60)}`);
  return found;
}

/** Partials of nothing. */
export const noPartials = (): Partials => ({
  pv: 0,
  ev: 0,
  ce: 0,
  vis: 0,
  vst: 0,
  svst: 0,
  bnc: 0,
  dur: 0,
  vpv: 0,
  rev: 0,
  rvn: 0,
  eng: 0,
  sds: 0,
  sdn: 0,
});
