/**
 * The figures beyond one statistic, made from sums whichever source gave them
 * (./source.ts): a period's six figures, the chart's zero-filled series, and how both read.
 */

import type { StatName } from '../counting/statistics.ts';
import { addDays, daysBetween, seriesLabel, seriesUnitOf } from '../lib/dates.ts';
import type { ValueSum } from './queries.ts';

/** The six figures of a period, and its custom events (docs/ARCHITECTURE.md, The counting model). */
export type Figures = {
  /** Daily visitors summed over the days (a visitor is counted once a day). */
  visitors: number;
  visits: number;
  pageviews: number;
  /** Page views per visit, two decimals. */
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

/** The roll-ups a summary adds up: one range of the primary key per statistic. */
export const SUMMED = [
  'visitors',
  'visits',
  'pageviews',
  'bounces',
  'visit_duration',
  'event',
] as const satisfies readonly StatName[];

export type Summed = (typeof SUMMED)[number];

/** The figures from the sums of their roll-ups over some days (0 for a roll-up without rows). */
export function figuresOf(sum: (name: Summed) => number): Figures {
  const visits = sum('visits');
  const per = (n: number, scale = 1, digits = 0) =>
    visits === 0 ? 0 : Number(((n * scale) / visits).toFixed(digits));
  return {
    visitors: sum('visitors'),
    visits,
    pageviews: sum('pageviews'),
    views_per_visit: per(sum('pageviews'), 1, 2),
    bounce_rate: per(sum('bounces'), 100),
    visit_duration: per(sum('visit_duration')),
    events: sum('event'),
  };
}

/** One day's (or hour's) figures for the chart. */
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
const CHART_METRICS = [
  'overview',
  'visitors',
  'visits',
  'pageviews',
  'bounce_rate',
  'visit_duration',
] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

/**
 * The roll-ups a chart of a range sums, by the figure each sums into: per day visitors,
 * visits, page views, bounces and durations; per hour (a one-day range) visitors, visits and
 * page views (an hour has no bounces or durations).
 */
export function seriesRollups(hourly: boolean): Partial<Record<StatName, Summed>> {
  return hourly
    ? { visitors_hours: 'visitors', pageviews_hours: 'pageviews', visits_hours: 'visits' }
    : {
        visitors: 'visitors',
        pageviews: 'pageviews',
        visits: 'visits',
        bounces: 'bounces',
        visit_duration: 'visit_duration',
      };
}

/**
 * The chart's points, zero-filled, from the sums per value (a date, or an hour `00`–`23`
 * for a one-day range) of the roll-ups `seriesRollups` names; a long range's days summed
 * into weeks or months (`seriesUnitOf`), each point's rates worked out from its sums.
 */
export function seriesPoints(
  range: { from: string; to: string },
  sums: readonly ValueSum[],
): SeriesPoint[] {
  const unit = seriesUnitOf(range);
  const names = seriesRollups(unit === 'hour');
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
  const byLabel = new Map(labels.map((label) => [label, new Map<Summed, number>()]));
  for (const row of sums) {
    const name = names[row.name];
    const point = byLabel.get(unit === 'hour' ? row.value : labelOf(row.value));
    if (name && point) point.set(name, (point.get(name) ?? 0) + row.count);
  }
  return labels.map((label) => {
    const f = figuresOf((name) => byLabel.get(label)?.get(name) ?? 0);
    return {
      label,
      visitors: f.visitors,
      pageviews: f.pageviews,
      visits: f.visits,
      bounce_rate: f.bounce_rate,
      visit_duration: f.visit_duration,
    };
  });
}

/** The six figures in the order the statistics page and the reports show them. */
export const SHOWN_FIGURES: readonly [key: Exclude<keyof Figures, 'events'>, title: string][] = [
  ['visitors', 'Visitors'],
  ['visits', 'Visits'],
  ['pageviews', 'Page views'],
  ['views_per_visit', 'Views per visit'],
  ['bounce_rate', 'Bounce rate'],
  ['visit_duration', 'Visit duration'],
];

/** A figure as people read it: `1,204`, `2.31`, `48%`, `1m 05s`. */
export function formatFigure(key: keyof Figures, n: number): string {
  if (key === 'bounce_rate') return `${n}%`;
  if (key === 'views_per_visit') return n.toFixed(2);
  if (key === 'visit_duration') {
    const h = Math.floor(n / 3600);
    const m = Math.floor((n % 3600) / 60);
    const s = n % 60;
    const two = (x: number) => String(x).padStart(2, '0');
    return h > 0 ? `${h}h ${two(m)}m` : m > 0 ? `${m}m ${two(s)}s` : `${s}s`;
  }
  return formatNumber(n);
}

/**
 * A figure's change against the period before: `+12%`, `-3%`, `0%`; null when the period
 * before had none, for the caller to say `new` or that nothing changed in its own words.
 */
export function percentChange(now: number, before: number): string | null {
  if (before === 0) return null;
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

/** A value as people read it: places are stored `US:United States` and read `United States`. */
export function valueLabel(name: string, value: string): string {
  if (name === 'country' || name === 'continent' || name === 'city')
    return value.slice(value.indexOf(':') + 1);
  return value;
}

/** A count as people read it: `1,204`. */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

/** The metrics a chart of a range can show: bounce rate and duration have no hourly roll-ups. */
export function chartMetricsFor(hourly: boolean): readonly ChartMetric[] {
  return hourly
    ? CHART_METRICS.filter((m) => m !== 'bounce_rate' && m !== 'visit_duration')
    : CHART_METRICS;
}
