/**
 * How numbers read, on the statistics page and in the reports alike: a figure (`1,204`,
 * `2.31`, `48%`, `1m 05s`), a change against the period before, a place's value.
 */

import type { SeriesUnit } from '../../lib/time/dates.ts';
import { CHART_METRICS, type ChartMetric, type Figures } from './figures.ts';

/** The six figures in the order the statistics page and the reports show them. */
export const SHOWN_FIGURES: readonly [key: Exclude<keyof Figures, 'events'>, title: string][] = [
  ['visitors', 'Visitors'],
  ['visits', 'Visits'],
  ['pageviews', 'Page views'],
  ['views_per_visit', 'Views per visit'],
  ['bounce_rate', 'Bounce rate'],
  ['visit_duration', 'Visit duration'],
];

/**
 * An amount of a currency, as people read it (`€1,234.50`); `short`, as a figure's card has
 * room for it: whole from a thousand (`€1,235`), compact from a hundred thousand (`€123.5K`).
 */
export const formatMoney = (amount: number, currency: string, short = false) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    ...(short && amount >= 100_000
      ? { notation: 'compact', maximumFractionDigits: 1 }
      : short && amount >= 1_000
        ? { maximumFractionDigits: 0 }
        : {}),
  }).format(amount);

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
 * A metric's figure in a table's cell (src/query/present/numbers.ts `metricTitle`): as a figure
 * reads, time on page as a duration, scroll depth in percent; a dash for none (no visit sent
 * a scroll depth).
 */
export function formatMetric(metric: string, n: number | null): string {
  if (n === null) return '–';
  if (metric === 'time_on_page') return formatFigure('visit_duration', n);
  if (metric === 'scroll_depth') return `${n}%`;
  // Any other metric is a count, or a figure of the same name (bounce rate, visit duration).
  return formatFigure(metric as keyof Figures, n);
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

/** A value as people read it: places are stored `US:United States` and read `United States`; events `purchase:99:USD` read `purchase (99 USD)`. */
export function valueLabel(name: string, value: string): string {
  if (name === 'country' || name === 'continent' || name === 'city')
    return value.slice(value.indexOf(':') + 1);
  if (name === 'event') {
    // `name:value:unit` as people name it: `purchase (99 USD)`.
    const event = eventParts(value);
    const more = [event.value, event.unit].filter((p) => p !== '');
    return more.length > 0 ? `${event.name} (${more.join(' ')})` : event.name;
  }
  return value;
}

/**
 * An event of API v1's `event` statistic (`name:value:unit`) in its parts, '' for a part it
 * has not; a name's own colons are stored as U+A789 (`storedEventName`,
 * src/counting/statistics.ts) and read as colons.
 */
export function eventParts(stored: string): { name: string; value: string; unit: string } {
  const [name = '', value = '', ...unit] = stored.split(':');
  return { name: name.replace(/\uA789/g, ':'), value, unit: unit.join(':') };
}

/** A count as people read it: `1,204`. */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

/** A size as people read it: `812 B`, `4.2 KB`, `101 MB` (powers of 1,000, as disks are sold). */
export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let unit = 0;
  let size = n;
  while (size >= 1000 && unit < units.length - 1) {
    size /= 1000;
    unit++;
  }
  const digits = unit === 0 || size >= 100 ? 0 : 1;
  return `${size.toFixed(digits)} ${units[unit]}`;
}

/** The metrics a chart of a range can show: bounce rate and duration have no hourly roll-ups. */
export function chartMetricsFor(hourly: boolean): readonly ChartMetric[] {
  return hourly
    ? CHART_METRICS.filter((m) => m !== 'bounce_rate' && m !== 'visit_duration')
    : CHART_METRICS;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A range of dates as people write it: `Nov 1–6`, `Nov 25 – Dec 1`, `Dec 6`, and with its year
 * when it is not `thisYear`'s (`Jan 1 – Dec 6, 2025`).
 */
export function rangeLabel(range: { from: string; to: string }, thisYear?: string): string {
  const day = (date: string) => `${MONTHS[Number(date.slice(5, 7)) - 1]} ${Number(date.slice(8))}`;
  const { from, to } = range;
  const year = to.slice(0, 4);
  const suffix = thisYear === undefined || year === thisYear ? '' : `, ${year}`;
  if (from === to) return `${day(from)}${suffix}`;
  if (from.slice(0, 4) !== year) return `${day(from)}, ${from.slice(0, 4)} – ${day(to)}, ${year}`;
  if (from.slice(0, 7) === to.slice(0, 7)) return `${day(from)}–${Number(to.slice(8))}${suffix}`;
  return `${day(from)} – ${day(to)}${suffix}`;
}

/**
 * A compared range as people read it: its dates (`rangeLabel`), and, when only the hours of
 * today so far are compared (`between`: src/query/present/comparison.ts `sameHoursAsToday`),
 * those hours (`Dec 6, 00:00–14:25`).
 */
export function comparedLabel(
  compared: { from: string; to: string; between?: [number, number] | undefined },
  thisYear?: string,
): string {
  const dates = rangeLabel(compared, thisYear);
  if (!compared.between) return dates;
  const minutes = Math.floor((compared.between[1] - compared.between[0]) / 60_000);
  const until = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return `${dates}, 00:00–${until}`;
}

/**
 * A chart point's label as people read it: `14:00` for an hour, `Mon, Dec 7` for a day,
 * `Week of Dec 1` for a week, `Dec 2026` for a month (the series label it gets is
 * `14`, `2026-12-07`, `2026-12-01`, `2026-12`).
 */
export function pointLabel(label: string, unit: SeriesUnit): string {
  if (unit === 'hour') return `${label}:00`;
  if (unit === 'month') return `${MONTHS[Number(label.slice(5, 7)) - 1]} ${label.slice(0, 4)}`;
  const day = rangeLabel({ from: label, to: label });
  if (unit === 'week') return `Week of ${day}`;
  return `${WEEKDAYS[new Date(`${label}T00:00:00Z`).getUTCDay()]}, ${day}`;
}

/**
 * A chart point's label on the chart's axis, shorter: `14:00`, `Dec 7` (a day, or a week by
 * its first day), `Dec 2026`.
 */
export function axisLabel(label: string, unit: SeriesUnit): string {
  if (unit === 'hour' || unit === 'month') return pointLabel(label, unit);
  return rangeLabel({ from: label, to: label });
}
