/** The statistics page's chart: an SVG line chart with its data as a table, and its metrics. */
import type { FC } from 'hono/jsx';
import type { SeriesUnit } from '../lib/dates.ts';
import {
  type ChartMetric,
  chartMetricsFor,
  formatFigure,
  formatNumber,
  type SeriesPoint,
  SHOWN_FIGURES,
} from '../stats/overview.ts';

const METRIC_TITLES: Record<ChartMetric, string> = {
  overview: 'Visitors and page views',
  ...(Object.fromEntries(SHOWN_FIGURES) as Record<Exclude<ChartMetric, 'overview'>, string>),
};

const UNIT_TITLES: Record<SeriesUnit, string> = {
  hour: 'Hourly',
  day: 'Daily',
  week: 'Weekly',
  month: 'Monthly',
};
const UNIT_HEADERS: Record<SeriesUnit, string> = {
  hour: 'Hour',
  day: 'Date',
  week: 'Week from',
  month: 'Month',
};

/** What the chart shows: `?chart=`, when it names a metric the range has, else both lines. */
export function chartMetric(asked: string | undefined, hourly: boolean): ChartMetric {
  return chartMetricsFor(hourly).find((m) => m === asked) ?? 'overview';
}

/** A round step for about `parts` ticks up to `max`: 1, 2 or 5 times a power of ten. */
export function niceStep(max: number, parts = 4): number {
  const raw = Math.max(max, 1) / parts;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((m) => m * power >= raw) ?? 10;
  return Math.max(1, step * power);
}

/** At most `count` indexes of `n` points, evenly spread, first and last included. */
export function labelledIndexes(n: number, count = 6): number[] {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: count }, (_, k) => Math.round((k * (n - 1)) / (count - 1)));
}

/** The chart's numbers as a table, for screen readers and for reading exact values. */
const ChartTable: FC<{
  points: SeriesPoint[];
  unit: SeriesUnit;
  shown: Exclude<ChartMetric, 'overview'>[];
}> = ({ points, unit, shown }) => (
  <details>
    <summary>Chart data as a table</summary>
    <table>
      <thead>
        <tr>
          <th scope="col">{UNIT_HEADERS[unit]}</th>
          {shown.map((key) => (
            <th scope="col" class="num">
              {METRIC_TITLES[key]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {points.map((p) => (
          <tr>
            <td>{p.label}</td>
            {shown.map((key) => (
              <td class="num">{formatFigure(key, p[key])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  </details>
);

export const Chart: FC<{
  points: SeriesPoint[];
  /** What one point sums: an hour, a day, a week or a month. */
  unit: SeriesUnit;
  metric: ChartMetric;
  /** The page's address for another metric. */
  hrefFor: (metric: ChartMetric) => string;
}> = ({ points, unit, metric, hrefFor }) => {
  const hourly = unit === 'hour';
  const width = 800;
  const height = 220;
  const pad = 28;
  const shown: Exclude<ChartMetric, 'overview'>[] =
    metric === 'overview' ? ['visitors', 'pageviews'] : [metric];
  // One line is drawn in the accent colour; with two, visitors on top of page views.
  const colour = (key: string) =>
    key === 'visitors' && shown.length > 1 ? 'visitors' : 'pageviews';
  const drawn = [...shown].reverse();
  const value = (p: SeriesPoint, key: Exclude<ChartMetric, 'overview'>) => p[key];
  const max = Math.max(1, ...points.flatMap((p) => shown.map((key) => value(p, key))));
  // The scale runs to the first round value at or over the highest point.
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const left = 56;
  const x = (i: number) =>
    left + (points.length === 1 ? 0 : (i * (width - left - pad)) / (points.length - 1));
  const y = (v: number) => height - pad - (v * (height - 2 * pad)) / top;
  const tickText = (v: number) =>
    metric === 'overview' ? formatNumber(v) : formatFigure(metric, v);
  const pointText = (p: SeriesPoint) =>
    `${p.label}: ${shown.map((key) => `${formatFigure(key, p[key])} ${METRIC_TITLES[key].toLowerCase()}`).join(', ')}`;
  const slot = points.length > 1 ? (width - left - pad) / (points.length - 1) : width - left - pad;
  const line = (key: Exclude<ChartMetric, 'overview'>) =>
    points.map((p, i) => `${x(i).toFixed(1)},${y(value(p, key)).toFixed(1)}`).join(' ');
  const summary =
    metric === 'overview'
      ? `${UNIT_TITLES[unit]} visitors and page views: ${points.reduce((s, p) => s + p.visitors, 0)} visitors, ${points.reduce((s, p) => s + p.pageviews, 0)} page views in total; the busiest ${unit} had ${max} page views.`
      : `${METRIC_TITLES[metric]} per ${unit}; the highest: ${formatFigure(metric, max)}.`;
  return (
    <figure class="chart">
      <nav class="chart-metrics" aria-label="Chart">
        {chartMetricsFor(hourly).map((m) => (
          <a href={hrefFor(m)} aria-current={m === metric ? 'true' : undefined}>
            {METRIC_TITLES[m]}
          </a>
        ))}
      </nav>
      <svg viewBox={`0 0 ${width} ${height}`} aria-labelledby="chart-title chart-desc">
        <title id="chart-title">{METRIC_TITLES[metric]}</title>
        <desc id="chart-desc">{summary}</desc>
        <g class="drawing">
          {ticks.map((v) => (
            <>
              <line
                class={v === 0 ? 'axis' : 'grid'}
                x1={left}
                y1={y(v).toFixed(1)}
                x2={width - pad}
                y2={y(v).toFixed(1)}
              />
              <text class="tick end" x={left - 6} y={(y(v) + 4).toFixed(1)}>
                {tickText(v)}
              </text>
            </>
          ))}
          {labelledIndexes(points.length).map((i) => (
            <text
              class={i === 0 ? 'tick' : i === points.length - 1 ? 'tick end' : 'tick mid'}
              x={x(i).toFixed(1)}
              y={height - 8}
            >
              {points[i]?.label ?? ''}
            </text>
          ))}
          {drawn.map((key) => (
            <polyline class={colour(key)} points={line(key)} />
          ))}
        </g>
        {/* Each point's values on hover and on keyboard focus (one tab stop: the arrow keys
            move between points when JavaScript runs; the table below has them all). */}
        {points.map((p, i) => (
          // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a point is an image of its values that keyboard users reach by focus; it does nothing when activated
          <g class="pt" tabindex={i === 0 ? 0 : -1} role="img" aria-labelledby={`pt${i}`}>
            <rect
              class="hit"
              x={(x(i) - slot / 2).toFixed(1)}
              y={pad}
              width={slot.toFixed(1)}
              height={height - 2 * pad}
            />
            {drawn.map((key) => (
              <circle
                class={colour(key)}
                cx={x(i).toFixed(1)}
                cy={y(value(p, key)).toFixed(1)}
                r="4"
              />
            ))}
            <text
              id={`pt${i}`}
              class={x(i) > width / 2 ? 'val end' : 'val'}
              x={(x(i) + (x(i) > width / 2 ? -8 : 8)).toFixed(1)}
              y={pad + 4}
            >
              {pointText(p)}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>
        {drawn.map((key) => (
          <>
            <span class={`key ${colour(key)}`}>{METRIC_TITLES[key]}</span>{' '}
          </>
        ))}
      </figcaption>
      <ChartTable points={points} unit={unit} shown={shown} />
    </figure>
  );
};
