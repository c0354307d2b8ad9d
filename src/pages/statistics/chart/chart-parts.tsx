/**
 * Parts of the chart (./chart.tsx): its scale's steps, its grid, its lines, a point's values, its key, the form of a range to compare
 * with, the interval its points sum, and which point of a range is under way — today's, or the hour under way of today,
 * drawn as partial, with the points after it not drawn at all.
 */
import type { FC } from 'hono/jsx';
import { type SeriesUnit, seriesLabel, seriesUnitsOf } from '../../../lib/time/dates.ts';
import type { ChartMetric, SeriesPoint } from '../../../query/present/figures.ts';

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

/**
 * The chart's grid: a line and a value at each round tick, and dates along its axis (three on
 * a phone's narrow drawing, six on the wide one).
 */
export const Grid: FC<{
  ticks: number[];
  labels: string[];
  box: { left: number; right: number; bottom: number };
  x: (i: number) => number;
  y: (v: number) => number;
  tickText: (v: number) => string;
}> = ({ ticks, labels, box, x, y, tickText }) => (
  <>
    {ticks.map((v) => (
      <>
        <line
          class={v === 0 ? 'axis' : 'grid'}
          x1={box.left}
          y1={y(v).toFixed(1)}
          x2={box.right}
          y2={y(v).toFixed(1)}
        />
        <text class="tick end" x={box.left - 6} y={(y(v) + 4).toFixed(1)}>
          {tickText(v)}
        </text>
      </>
    ))}
    {labelledIndexes(labels.length, box.right < 600 ? 3 : 6).map((i) => (
      <text
        class={i === 0 ? 'tick' : i === labels.length - 1 ? 'tick end' : 'tick mid'}
        x={x(i).toFixed(1)}
        y={box.bottom}
      >
        {labels[i] ?? ''}
      </text>
    ))}
  </>
);

/**
 * A point's values, a line each for the point and the one compared, placed by `place`
 * (anchored at their end past the drawing's middle).
 */
export const PointText: FC<{
  id: string;
  lines: string[];
  i: number;
  top: number;
  place: (i: number, lines: string[]) => { end: boolean; at: number };
}> = ({ id, lines, i, top, place }) => {
  const { end, at } = place(i, lines);
  return (
    <text id={id} class={end ? 'val end' : 'val'} y={top}>
      {lines.map((line, n) => (
        <tspan x={at.toFixed(1)} dy={n === 0 ? undefined : '1.3em'}>
          {n === lines.length - 1 ? line : `${line} `}
        </tspan>
      ))}
    </text>
  );
};

/** A metric the chart draws a line of. */
export type Shown = Exclude<ChartMetric, 'overview'>;

/**
 * The index of the point that holds today (the hour under way, for a day's hours) when the range
 * holds today; undefined when every point of the range is over.
 */
export function pointUnderWay(
  points: SeriesPoint[],
  unit: SeriesUnit,
  range: { from: string; to: string },
  now: { date: string; hour: string },
): number | undefined {
  if (now.date < range.from || now.date > range.to) return undefined;
  const label = unit === 'hour' ? now.hour : seriesLabel(now.date, unit, range.from);
  const at = points.findIndex((p) => p.label === label);
  return at < 0 ? undefined : at;
}

/**
 * The chart's lines: the compared period's (dotted), and the range's — the point under way
 * (`partial`) joined to the last whole one by a dotted line of its own.
 */
export const Lines: FC<{
  keys: (readonly [Shown, string])[];
  points: SeriesPoint[];
  before: SeriesPoint[];
  partial: boolean;
  line: (series: SeriesPoint[], key: Shown, first?: number) => string;
}> = ({ keys, points, before, partial, line }) => {
  const whole = partial && points.length >= 2 ? points.slice(0, -1) : points;
  return (
    <>
      {before.length > 0
        ? keys.map(([key, colour]) => (
            <polyline class={`${colour} previous`} points={line(before, key)} />
          ))
        : null}
      {keys.map(([key, colour]) => (
        <polyline class={colour} points={line(whole, key)} />
      ))}
      {/* A line of one point draws nothing: a dot shows it. */}
      {points.length === 1
        ? keys.map(([key, colour]) => {
            const [cx, cy] = line(points, key).split(',');
            return <circle class={`${colour} dot`} cx={cx} cy={cy} r="4" />;
          })
        : null}
      {whole.length < points.length
        ? keys.map(([key, colour]) => (
            <polyline
              class={`${colour} partial`}
              points={line(points.slice(-2), key, points.length - 2)}
            />
          ))
        : null}
    </>
  );
};

/**
 * The chart's key: a colour per line; when comparing, both ranges named — the range's own
 * (solid) and the compared one's (dotted).
 */
export const ChartKey: FC<{
  lines: [string, string][];
  /** The range's dates, as people read them (`Dec 1–6`). */
  range: string;
  /** The compared range's dates; null: not comparing. */
  comparedTo: string | null;
  compared: boolean;
  /** The compared points are being read (`Overview.later`): named, and a neutral mark. */
  later?: boolean | undefined;
}> = ({ lines, range, comparedTo, compared, later = false }) => (
  <figcaption>
    {lines.map(([colour, title]) => (
      <>
        <span class={`key ${colour}`}>{title}</span>{' '}
      </>
    ))}
    {comparedTo ? (
      later ? (
        <span class="hint" data-later="">
          {comparedTo} <span aria-hidden="true">…</span>
          <span class="sr-only">being read</span>
        </span>
      ) : compared ? (
        <>
          <span class="hint">{range} (solid)</span>{' '}
          <span class="key previous">{comparedTo} (dotted)</span>
        </>
      ) : (
        <span class="hint">{comparedTo} has no data to compare with.</span>
      )
    ) : null}
  </figcaption>
);

const UNIT_NAMES: Record<SeriesUnit, string> = {
  hour: 'Hours',
  day: 'Days',
  week: 'Weeks',
  month: 'Months',
};

/**
 * The chart's interval: a link per other unit its range allows (`seriesUnitsOf`: days, weeks,
 * months), the one drawn marked and no link (a stop less for the keyboard); nothing for a
 * range with only one (a day's hours).
 */
export const IntervalNav: FC<{
  range: { from: string; to: string };
  unit: SeriesUnit;
  hrefFor: (unit: SeriesUnit) => string;
}> = ({ range, unit, hrefFor }) => {
  const units = seriesUnitsOf(range);
  if (units.length < 2) return null;
  return (
    <nav class="chart-metrics intervals" aria-label="Interval">
      <span class="hint">Points of</span>
      {units.map((u) =>
        u === unit ? (
          <strong aria-current="true">{UNIT_NAMES[u]}</strong>
        ) : (
          <a href={hrefFor(u)}>{UNIT_NAMES[u]}</a>
        ),
      )}
    </nav>
  );
};
