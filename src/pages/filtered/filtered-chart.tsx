/**
 * The Filtered traffic page's chart (./filtered-section.tsx): the dropped hits of each day, in
 * all and the bots', drawn as the statistics page draws its chart — a server-rendered SVG
 * with its grid, lines and key (src/pages/statistics/chart/chart-parts.tsx, its stylesheet's
 * classes), wide and for a phone, its numbers as a table below.
 */
import type { FC } from 'hono/jsx';
import type { FilteredDay } from '../../filtered-traffic/filtered-traffic.ts';
import { axisLabel, formatNumber, pointLabel } from '../../query/present/readable.ts';
import { ChartKey, Grid, niceStep } from '../statistics/chart/chart-parts.tsx';

/** The lines: every dropped hit (the accent colour), and the bots' among them. */
const LINES = [
  { key: 'total', colour: 'pageviews', title: 'All dropped hits' },
  { key: 'bots', colour: 'visitors', title: 'Bots' },
] as const;

type Point = { date: string; total: number; bots: number };

const pointsOf = (days: FilteredDay[]): Point[] =>
  days.map((d) => ({
    date: d.date,
    total: d.total,
    bots: d.reasons.find((r) => r.reason === 'bot')?.hits ?? 0,
  }));

/** One drawing of the chart, of one size (`id`: what its elements' ids begin with). */
const Drawing: FC<{ points: Point[]; width: number; height: number; id: string }> = ({
  points,
  width,
  height,
  id,
}) => {
  const pad = 28;
  const left = 56;
  const most = Math.max(0, ...points.map((p) => p.total));
  const max = Math.max(1, most);
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const n = points.length;
  const x = (i: number) => left + (n <= 1 ? 0 : (i * (width - left - pad)) / (n - 1));
  const y = (v: number) => height - pad - (v * (height - 2 * pad)) / top;
  const all = points.reduce((sum, p) => sum + p.total, 0);
  const bots = points.reduce((sum, p) => sum + p.bots, 0);
  return (
    <svg
      class={id ? 'narrow' : 'wide'}
      viewBox={`0 0 ${width} ${height}`}
      aria-labelledby={`${id}filtered-title ${id}filtered-desc`}
    >
      <title id={`${id}filtered-title`}>Dropped hits per day</title>
      <desc id={`${id}filtered-desc`}>
        {`${formatNumber(all)} dropped hits in all, ${formatNumber(bots)} of them bots'; the most in a day: ${formatNumber(most)}.`}
      </desc>
      <g class="drawing">
        <Grid
          ticks={ticks}
          labels={points.map((p) => axisLabel(p.date, 'day'))}
          box={{ left, right: width - pad, bottom: height - 8 }}
          x={x}
          y={y}
          tickText={formatNumber}
        />
        {/* The bots' line last, over the whole's: where every dropped hit was a bot's, it shows. */}
        {LINES.map(({ key, colour }) =>
          n === 1 ? (
            <circle
              class={`${colour} dot`}
              cx={x(0).toFixed(1)}
              cy={y(points[0]?.[key] ?? 0).toFixed(1)}
              r="4"
            />
          ) : (
            <polyline
              class={colour}
              points={points.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ')}
            />
          ),
        )}
      </g>
    </svg>
  );
};

/** The chart of the range's days, and its numbers as a table. */
export const FilteredChart: FC<{ days: FilteredDay[]; rangeText: string }> = ({
  days,
  rangeText,
}) => {
  const points = pointsOf(days);
  return (
    <figure class="chart">
      <Drawing points={points} width={800} height={220} id="" />
      <Drawing points={points} width={400} height={280} id="n-" />
      <ChartKey
        lines={LINES.map((l) => [l.colour, l.title])}
        range={rangeText}
        comparedTo={null}
        compared={false}
      />
      <details>
        <summary>Chart data as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {LINES.map((l) => (
                <th scope="col" class="num">
                  {l.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr>
                <td>{pointLabel(p.date, 'day')}</td>
                <td class="num">{formatNumber(p.total)}</td>
                <td class="num">{formatNumber(p.bots)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
};
