/**
 * A period's figures and the chart's series as questions of the query engine
 * (docs/ARCHITECTURE.md, "The path of a number"): each figure is a metric of
 * src/counting/query-metrics.ts, asked and read as the engine answers it — never worked out
 * again here. A chart of weeks or months adds its days' sums up and makes each point's rates
 * with the same metrics' definitions.
 */
import type { GroupAnswer, GroupQuery, ResultRow } from '../../counting/query.ts';
import { noPartials, queryMetric } from '../../counting/query-metrics.ts';
import {
  addDays,
  daysBetween,
  type SeriesUnit,
  seriesLabel,
  seriesUnitOf,
} from '../../lib/time/dates.ts';

/** The six figures of a period, and its custom events (docs/ARCHITECTURE.md, The counting model). */
export type Figures = {
  /** Daily visitors summed over the days (a visitor is counted once a day). */
  visitors: number;
  visits: number;
  pageviews: number;
  /** Page views of the visits per visit, two decimals. */
  views_per_visit: number;
  /** Visits with one page view, in whole percent of the visits. */
  bounce_rate: number;
  /** Average visit duration in whole seconds. */
  visit_duration: number;
  /** Custom events. */
  events: number;
};

/** A period's figures and those of the period of equal length just before it. */
export type Summary = { data: Figures; previous: Figures };

/** Each figure's metric. */
const FIGURE_METRICS: readonly [keyof Figures, string][] = [
  ['visitors', 'visitors'],
  ['visits', 'visits'],
  ['pageviews', 'pageviews'],
  ['views_per_visit', 'views_per_visit'],
  ['bounce_rate', 'bounce_rate'],
  ['visit_duration', 'visit_duration'],
  ['events', 'sl:custom_events'],
];

/** The figures of a range: one grouping by nothing. */
export const FIGURES: GroupQuery = {
  dimensions: [],
  metrics: FIGURE_METRICS.map(([, metric]) => metric),
  order: [],
  limit: 1,
  offset: 0,
};

/** The figures the answer to `FIGURES` gives (zeros for none). */
export function figuresFrom(row: ResultRow | undefined): Figures {
  return Object.fromEntries(
    FIGURE_METRICS.map(([key], i) => [key, row?.metrics[i] ?? 0]),
  ) as Figures;
}

/** One day's (or hour's, week's, month's) figures for the chart. */
export type SeriesPoint = {
  label: string;
  visitors: number;
  pageviews: number;
  visits: number;
  /** Bounce rate and average visit duration: 0 for an hour (no hourly roll-ups). */
  bounce_rate: number;
  visit_duration: number;
};

/** What the chart can show; `overview` is visitors and page views together. */
export const CHART_METRICS = [
  'overview',
  'visitors',
  'visits',
  'pageviews',
  'bounce_rate',
  'visit_duration',
] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

/** The sums a point of the chart adds up over its days. */
type PointSums = { vis: number; pv: number; vst: number; bnc: number; dur: number };

/** The metrics of a day the chart sums, in the order of `PointSums`. */
const DAILY = ['visitors', 'pageviews', 'visits', 'sl:bounces', 'sl:duration'];

/**
 * The hours of a one-day range, one grouping each (as API v1's statistics by hour: a
 * visitor's first page view's hour, each page view's, each visit's first's).
 */
const HOURLY: readonly [dimension: string, metric: string, into: keyof PointSums][] = [
  ['sl:visitor_hour', 'visitors', 'vis'],
  ['sl:hour', 'pageviews', 'pv'],
  ['sl:visit_hour', 'visits', 'vst'],
];

const everyValue = (dimension: string, metrics: string[], limit: number): GroupQuery => ({
  dimensions: [dimension],
  metrics,
  order: [[dimension, 'asc']],
  limit,
  offset: 0,
});

/** The groupings a chart of a range asks: by hour for one day, else by day. */
export function seriesQuestions(range: { from: string; to: string }): GroupQuery[] {
  if (range.from === range.to)
    return HOURLY.map(([dimension, metric]) => everyValue(dimension, [metric], 24));
  return [everyValue('time:day', DAILY, daysBetween(range.from, range.to))];
}

/**
 * The chart's points, zero-filled, from the answers to `seriesQuestions`: a long range's days
 * summed into weeks or months (`seriesUnitOf`, or `unit` when one is chosen), each point's rates made from its sums by the
 * metrics' own definitions.
 */
export function seriesFrom(
  range: { from: string; to: string },
  answers: readonly GroupAnswer[],
  unit: SeriesUnit = seriesUnitOf(range),
): SeriesPoint[] {
  const labelOf = (value: string) => seriesLabel(value, unit, range.from);
  const labels =
    unit === 'hour'
      ? Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'))
      : [
          ...new Set(
            Array.from({ length: daysBetween(range.from, range.to) }, (_, i) =>
              labelOf(addDays(range.from, i)),
            ),
          ),
        ];
  const points = new Map(
    labels.map((label): [string, PointSums] => [label, { vis: 0, pv: 0, vst: 0, bnc: 0, dur: 0 }]),
  );
  if (unit === 'hour')
    HOURLY.forEach(([, , into], i) => {
      for (const row of answers[i]?.rows ?? []) {
        const point = points.get(row.dimensions[0] as string);
        if (point) point[into] += row.metrics[0] ?? 0;
      }
    });
  else
    for (const row of answers[0]?.rows ?? []) {
      const point = points.get(labelOf(row.dimensions[0] as string));
      if (!point) continue;
      const [vis = 0, pv = 0, vst = 0, bnc = 0, dur = 0] = row.metrics.map((m) => m ?? 0);
      point.vis += vis;
      point.pv += pv;
      point.vst += vst;
      point.bnc += bnc;
      point.dur += dur;
    }
  return labels.map((label) => {
    const p = points.get(label) as PointSums;
    const partials = { ...noPartials(), bnc: p.bnc, dur: p.dur, svst: p.vst };
    const rate = (metric: string) => queryMetric(metric).value(partials, partials) ?? 0;
    return {
      label,
      visitors: p.vis,
      pageviews: p.pv,
      visits: p.vst,
      bounce_rate: rate('bounce_rate'),
      visit_duration: rate('visit_duration'),
    };
  });
}
