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
  const x = (i: number) =>
    pad + (points.length === 1 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (v: number) => height - pad - (v * (height - 2 * pad)) / max;
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
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">{METRIC_TITLES[metric]}</title>
        <desc id="chart-desc">{summary}</desc>
        <line class="axis" x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} />
        <text class="tick" x={pad} y={pad - 10}>
          {metric === 'overview' ? formatNumber(max) : formatFigure(metric, max)}
        </text>
        <text class="tick" x={pad} y={height - 8}>
          {points[0]?.label ?? ''}
        </text>
        <text class="tick end" x={width - pad} y={height - 8}>
          {points.at(-1)?.label ?? ''}
        </text>
        {drawn.map((key) => (
          <polyline class={colour(key)} points={line(key)} />
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
