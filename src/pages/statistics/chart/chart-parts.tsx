/**
 * Parts of the chart (./chart.tsx): its lines, its key, the form of a range to compare
 * with, the interval its points sum, and which point of a range is under way — today's, or the hour under way of today,
 * drawn as partial, with the points after it not drawn at all.
 */
import type { FC } from 'hono/jsx';
import { type SeriesUnit, seriesLabel, seriesUnitsOf } from '../../../lib/time/dates.ts';
import type { ChartMetric, SeriesPoint } from '../../../query/present/figures.ts';

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

/** The chart's key: a colour per line, and the compared range's dotted lines when comparing. */
export const ChartKey: FC<{
  lines: [string, string][];
  comparedTo: string | null;
  compared: boolean;
}> = ({ lines, comparedTo, compared }) => (
  <figcaption>
    {lines.map(([colour, title]) => (
      <>
        <span class={`key ${colour}`}>{title}</span>{' '}
      </>
    ))}
    {comparedTo ? (
      compared ? (
        <span class="key previous">{comparedTo} (dotted)</span>
      ) : (
        <span class="hint">{comparedTo} has no data to compare with.</span>
      )
    ) : null}
  </figcaption>
);

/**
 * A range of one's own to compare with (`compare=custom`): two dates, the view's other
 * parameters kept (`params`, a comparison's own left out).
 */
export const CompareForm: FC<{
  action: string;
  params: [string, string][];
  compared: { mode: string; from: string; to: string } | null;
}> = ({ action, params, compared }) => (
  <form method="get" action={action} class="compare-custom">
    {params
      .filter(([name]) => !name.startsWith('compare'))
      .map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
    <input type="hidden" name="compare" value="custom" />
    <label>
      Compare with <input type="date" name="compare_from" value={compared?.from ?? ''} required />
    </label>
    <label>
      to <input type="date" name="compare_to" value={compared?.to ?? ''} required />
    </label>
    <button type="submit">Compare</button>
  </form>
);

const UNIT_NAMES: Record<SeriesUnit, string> = {
  hour: 'Hours',
  day: 'Days',
  week: 'Weeks',
  month: 'Months',
};

/**
 * The chart's interval: a link per unit its range allows (`seriesUnitsOf`: days, weeks,
 * months), the one drawn marked; nothing for a range with only one (a day's hours).
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
      {units.map((u) => (
        <a href={hrefFor(u)} aria-current={u === unit ? 'true' : undefined}>
          {UNIT_NAMES[u]}
        </a>
      ))}
    </nav>
  );
};
