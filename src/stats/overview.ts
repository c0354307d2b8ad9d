/**
 * What the statistics page shows beyond one statistic: totals with the previous period,
 * a zero-filled series for the chart and the date ranges themselves. (Realtime visitors
 * come from the website's event log: `WebsiteLog.realtime`.)
 * All of it reads roll-ups by primary-key range, like the API.
 */
import { and, between, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { stats } from '../db/schema.ts';
import { localDateHour } from '../ingest/steps/local-time.ts';
import { addDays, isCalendarDate } from '../lib/dates.ts';

export const RANGES = [
  'today',
  'yesterday',
  '7d',
  '30d',
  'this_month',
  'last_month',
  'custom',
] as const;
export type RangeName = (typeof RANGES)[number];
export type Range = { name: RangeName; from: string; to: string };

/** Longest custom range, in days (about ten years). */
export const MAX_RANGE_DAYS = 3660;

/** A range as a request asked for it; `invalid` when it named dates that could not be used. */
export type RequestedRange = Range & { invalid?: true };

const DAY = 86_400_000;

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY) + 1;
}

/**
 * The range a request asks for, in the website's time zone. `from`/`to` without a `range`
 * name are a custom range (people type and share such URLs). Invalid input falls back to
 * the last 30 days; when it named dates, the result says so (`invalid`), so the page can.
 */
export function resolveRange(
  query: { range?: string; from?: string; to?: string },
  timeZone: string,
  now = Date.now(),
): RequestedRange {
  const today = localDateHour(now, timeZone).date;
  const named = (RANGES as readonly string[]).includes(query.range ?? '');
  const datesGiven = query.from !== undefined || query.to !== undefined;
  const name: RangeName = named
    ? (query.range as RangeName)
    : query.range === undefined && datesGiven
      ? 'custom'
      : '30d';
  const monthStart = `${today.slice(0, 8)}01`;
  switch (name) {
    case 'today':
      return { name, from: today, to: today };
    case 'yesterday':
      return { name, from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { name, from: addDays(today, -6), to: today };
    case 'this_month':
      return { name, from: monthStart, to: today };
    case 'last_month': {
      const end = addDays(monthStart, -1);
      return { name, from: `${end.slice(0, 8)}01`, to: end };
    }
    case 'custom': {
      const { from = '', to = '' } = query;
      if (
        isCalendarDate(from) &&
        isCalendarDate(to) &&
        from <= to &&
        daysBetween(from, to) <= MAX_RANGE_DAYS
      ) {
        return { name, from, to };
      }
      return { name: '30d', from: addDays(today, -29), to: today, invalid: true };
    }
    default:
      return { name: '30d', from: addDays(today, -29), to: today };
  }
}

/** The period of equal length just before a range. */
export function previousPeriod(range: { from: string; to: string }): { from: string; to: string } {
  const length = daysBetween(range.from, range.to);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

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
const SUMMED = ['visitors', 'visits', 'pageviews', 'bounces', 'visit_duration', 'event'] as const;

type Summed = (typeof SUMMED)[number];

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

async function figures(db: Database, websiteId: number, from: string, to: string) {
  const rows = await db
    .select({ name: stats.name, n: sql<number>`sum(${stats.count})` })
    .from(stats)
    .where(
      and(
        eq(stats.websiteId, websiteId),
        inArray(stats.name, [...SUMMED]),
        between(stats.date, from, to),
      ),
    )
    .groupBy(stats.name)
    .all();
  const sums = new Map(rows.map((r) => [r.name, Number(r.n)]));
  return figuresOf((name) => sums.get(name) ?? 0);
}

/** The figures of a range and of the period of equal length just before it. */
export async function summary(
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
): Promise<Summary> {
  const prev = previousPeriod(range);
  const [data, previous] = await Promise.all([
    figures(db, websiteId, range.from, range.to),
    figures(db, websiteId, prev.from, prev.to),
  ]);
  return { data, previous };
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
export const CHART_METRICS = [
  'overview',
  'visitors',
  'visits',
  'pageviews',
  'bounce_rate',
  'visit_duration',
] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

/**
 * The chart's figures per day (zero-filled), or per hour for a one-day range: visitors,
 * visits and page views; bounce rate and visit duration per day only.
 */
export async function series(
  db: Database,
  websiteId: number,
  range: Range,
): Promise<SeriesPoint[]> {
  const hourly = range.from === range.to;
  // The roll-ups drawn, by the figure each sums into (an hour has no bounces or durations).
  const names: Partial<Record<string, Summed>> = hourly
    ? { visitors_hours: 'visitors', pageviews_hours: 'pageviews', visits_hours: 'visits' }
    : {
        visitors: 'visitors',
        pageviews: 'pageviews',
        visits: 'visits',
        bounces: 'bounces',
        visit_duration: 'visit_duration',
      };
  const rows = await db
    .select({ name: stats.name, value: stats.value, count: sql<number>`sum(${stats.count})` })
    .from(stats)
    .where(
      and(
        eq(stats.websiteId, websiteId),
        inArray(stats.name, Object.keys(names)),
        between(stats.date, range.from, range.to),
      ),
    )
    .groupBy(stats.name, stats.value)
    .all();
  const labels = hourly
    ? Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'))
    : Array.from({ length: daysBetween(range.from, range.to) }, (_, i) => addDays(range.from, i));
  const sums = new Map(labels.map((label) => [label, new Map<Summed, number>()]));
  for (const row of rows) {
    const name = names[row.name];
    if (name) sums.get(row.value)?.set(name, Number(row.count));
  }
  return labels.map((label) => {
    const f = figuresOf((name) => sums.get(label)?.get(name) ?? 0);
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
