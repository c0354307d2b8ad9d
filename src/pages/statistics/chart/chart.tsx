/** The statistics page's chart: an SVG line chart with its data as a table, and its metrics. */
import type { FC } from 'hono/jsx';
import type { SeriesUnit } from '../../../lib/time/dates.ts';
import type { ChartMetric, SeriesPoint } from '../../../query/present/figures.ts';
import {
  axisLabel,
  chartMetricsFor,
  formatFigure,
  formatNumber,
  pointLabel,
  SHOWN_FIGURES,
} from '../../../query/present/readable.ts';
import { type ChartNote, NoteMarks } from '../annotation-forms.tsx';
import { ChartKey, Grid, Lines, niceStep, PointText, type Shown } from './chart-parts.tsx';

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

/** The first date a point sums (an hour's: the range's one day). */
function pointDate(label: string, unit: SeriesUnit, from: string): string {
  if (unit === 'hour') return from;
  if (unit === 'month') return `${label}-01` < from ? from : `${label}-01`;
  return label;
}

/** The chart's numbers as a table, for screen readers and for reading exact values. */
const ChartTable: FC<{
  points: SeriesPoint[];
  previous: SeriesPoint[] | null;
  unit: SeriesUnit;
  shown: Shown[];
  /** The compared range's dates, as people read them. */
  comparedTo: string | null;
}> = ({ points, previous, unit, shown, comparedTo }) => (
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
          {previous ? (
            <>
              <th scope="col">Compared{comparedTo ? ` (${comparedTo})` : ''}</th>
              {shown.map((key) => (
                <th scope="col" class="num">
                  {METRIC_TITLES[key]} then
                </th>
              ))}
            </>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {points.map((p, i) => (
          <tr>
            <td>{p.label}</td>
            {shown.map((key) => (
              <td class="num">{formatFigure(key, p[key])}</td>
            ))}
            {previous ? (
              <>
                <td>{previous[i]?.label ?? ''}</td>
                {shown.map((key) => (
                  <td class="num">{previous[i] ? formatFigure(key, previous[i][key]) : ''}</td>
                ))}
              </>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  </details>
);

/**
 * The chart's scale for `values` over `n` points: its round ticks (the highest the first round
 * value at or over the highest value), and where a point's index and a value are drawn.
 */
function scaleOf(values: number[], n: number, box: { width: number; height: number; pad: number }) {
  const { width, height, pad } = box;
  const max = Math.max(1, ...values);
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const left = 56;
  const x = (i: number) => left + (n === 1 ? 0 : (i * (width - left - pad)) / (n - 1));
  const y = (v: number) => height - pad - (v * (height - 2 * pad)) / top;
  return { max, ticks, left, x, y };
}

/** What the chart shows, in a sentence (its SVG's description). */
function chartSummary(points: SeriesPoint[], unit: SeriesUnit, metric: ChartMetric, max: number) {
  if (metric !== 'overview')
    return `${METRIC_TITLES[metric]} per ${unit}; the highest: ${formatFigure(metric, max)}.`;
  const sum = (key: Shown) => points.reduce((s, p) => s + p[key], 0);
  return `${UNIT_TITLES[unit]} visitors and page views: ${sum('visitors')} visitors, ${sum('pageviews')} page views in total; the busiest ${unit} had ${max} page views.`;
}

/** A comparison as an address says it (src/query/present/comparison.ts); false: none. */
export type CompareParams = { compare: string; compare_from?: string; compare_to?: string };
/** The page's address for a metric, with a comparison, without one (false), or as it is. */
type HrefFor = (metric: ChartMetric, comparison?: CompareParams | false) => string;

/**
 * Back to the chart's default drawing (visitors and page views) when it draws one metric, and
 * the end of a comparison when comparing. A metric is chosen by its figure's title above the
 * chart (../totals.tsx), the comparisons in the date control (../date-menu.tsx `RangeNav`):
 * each control once, so the keyboard reaches the reports in few stops.
 */
const ChartNav: FC<{
  metric: ChartMetric;
  comparing: string | null;
  hrefFor: HrefFor;
}> = ({ metric, comparing, hrefFor }) =>
  metric === 'overview' && !comparing ? null : (
    <nav class="chart-metrics" aria-label="Chart">
      {metric === 'overview' ? null : <a href={hrefFor('overview')}>{METRIC_TITLES.overview}</a>}
      {comparing ? (
        <a href={hrefFor(metric, false)} class="compare">
          Stop comparing
        </a>
      ) : null}
    </nav>
  );

/** What a drawing of the chart shows: the range's points, those drawn so far, the compared. */
type DrawingProps = {
  slots: SeriesPoint[];
  points: SeriesPoint[];
  before: SeriesPoint[];
  unit: SeriesUnit;
  metric: ChartMetric;
  shown: Shown[];
  colour: (key: string) => string;
  notes: ChartNote[];
  from: string;
  underWay: number | undefined;
  /** Its box, and what its elements' ids begin with (two drawings are in one page). */
  size: { width: number; height: number; id: string };
};

/** The chart as an SVG of one size: grid, lines, each point's values, annotations. */
const Drawing: FC<DrawingProps> = ({
  slots,
  points,
  before,
  unit,
  metric,
  shown,
  colour,
  notes,
  from,
  underWay,
  size,
}) => {
  const { width, height, id } = size;
  const pad = 28;
  const drawn = [...shown].reverse();
  const value = (p: SeriesPoint, key: Shown) => p[key];
  const { max, ticks, left, x, y } = scaleOf(
    [...points, ...before].flatMap((p) => shown.map((key) => value(p, key))),
    slots.length,
    { width, height, pad },
  );
  const tickText = (v: number) =>
    metric === 'overview' ? formatNumber(v) : formatFigure(metric, v);
  const values = (p: SeriesPoint) =>
    shown
      .map((key) => `${formatFigure(key, p[key])} ${METRIC_TITLES[key].toLowerCase()}`)
      .join(', ');
  const pointText = (p: SeriesPoint, i: number) => {
    const then = before[i];
    const name = (q: SeriesPoint) => pointLabel(q.label, unit);
    const now = `${name(p)}: ${values(p)}`;
    return then ? [`${now};`, `vs ${name(then)}: ${values(then)}`] : [now];
  };
  // A point's values stay inside the drawing: right of the point, or left of it past the
  // middle, moved in when too long for the room there (13px bold: about 7.5px a letter).
  const textAt = (i: number, lines: string[]) => {
    const room = Math.max(...lines.map((line) => line.length)) * 7.5;
    const end = x(i) > width / 2;
    const at = end ? Math.max(x(i) - 8, left + room) : Math.min(x(i) + 8, width - pad - room);
    return { end, at: Math.min(Math.max(at, left), width - pad) };
  };
  const slot = slots.length > 1 ? (width - left - pad) / (slots.length - 1) : width - left - pad;
  const line = (series: SeriesPoint[], key: Shown, first = 0) =>
    series.map((p, i) => `${x(first + i).toFixed(1)},${y(value(p, key)).toFixed(1)}`).join(' ');
  const summary = chartSummary(points, unit, metric, max);
  return (
    <svg
      class={id ? 'narrow' : 'wide'}
      viewBox={`0 0 ${width} ${height}`}
      aria-labelledby={`${id}chart-title ${id}chart-desc`}
    >
      <title id={`${id}chart-title`}>{METRIC_TITLES[metric]}</title>
      <desc id={`${id}chart-desc`}>{summary}</desc>
      <g class="drawing">
        <Grid
          ticks={ticks}
          labels={slots.map((p) => axisLabel(p.label, unit))}
          box={{ left, right: width - pad, bottom: height - 8 }}
          x={x}
          y={y}
          tickText={tickText}
        />
        <Lines
          keys={drawn.map((key) => [key, colour(key)] as const)}
          points={points}
          before={before}
          partial={underWay !== undefined}
          line={line}
        />
      </g>
      {/* Each point's values on hover and on keyboard focus (one tab stop: the arrow keys
            move between points when JavaScript runs; the table below has them all). A
            phone's drawing has none: there is no hover, and the table is right below. */}
      {(id ? [] : points).map((p, i) => (
        // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a point is an image of its values that keyboard users reach by focus; it does nothing when activated
        <g
          class="pt"
          tabindex={i === 0 ? 0 : -1}
          role="img"
          aria-labelledby={`${id}pt${i}`}
          data-date={pointDate(p.label, unit, from)}
        >
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
          <PointText
            id={`${id}pt${i}`}
            lines={pointText(p, i)}
            place={textAt}
            i={i}
            top={pad + 4}
          />
        </g>
      ))}
      <NoteMarks notes={notes} x={x} top={pad} bottom={height - pad} width={width} idPrefix={id} />
    </svg>
  );
};

/**
 * The chart of a range: a line per metric shown (visitors and page views, or the one chosen),
 * and when comparing the period before as dotted lines, point for point.
 */
export const Chart: FC<{
  points: SeriesPoint[];
  /** The period before's points when comparing (null: not comparing, or nothing to show). */
  previous: SeriesPoint[] | null;
  /** What one point sums: an hour, a day, a week or a month. */
  unit: SeriesUnit;
  metric: ChartMetric;
  /** The range's dates, as people read them (`Dec 1–6`). */
  rangeText: string;
  /** The compared range's dates, as people read them (`Nov 1–6`); null: not comparing. */
  comparedTo: string | null;
  /** How it was chosen (`previous`, `year`, `custom`); null: not comparing. */
  comparing: string | null;
  /** The page's address for another metric, or with another comparison or none. */
  hrefFor: HrefFor;
  /** The range's annotations, placed (`chartNotes`). */
  notes?: ChartNote[];
  /** The range's first date: each point says its own (`data-date`), for the annotation form. */
  from: string;
  /**
   * The point under way (`pointUnderWay`): drawn dotted from the one before, as partial;
   * the points after it are still to come, and not drawn. Undefined: every point is over.
   */
  underWay?: number | undefined;
  /** The compared points follow a moment later (`Overview.later`): the key says so. */
  later?: boolean | undefined;
}> = ({
  points: slots,
  previous,
  unit,
  metric,
  rangeText,
  comparedTo,
  comparing,
  hrefFor,
  notes = [],
  from,
  underWay,
  later,
}) => {
  const points = underWay === undefined ? slots : slots.slice(0, underWay + 1);
  const shown: Shown[] = metric === 'overview' ? ['visitors', 'pageviews'] : [metric];
  // One line is drawn in the accent colour; with two, visitors on top of page views.
  const colour = (key: string) =>
    key === 'visitors' && shown.length > 1 ? 'visitors' : 'pageviews';
  const drawn = [...shown].reverse();
  const before = previous?.slice(0, points.length) ?? [];
  const drawing = { slots, points, before, unit, metric, shown, colour, notes, from, underWay };
  return (
    <figure class="chart">
      <ChartNav metric={metric} comparing={comparing} hrefFor={hrefFor} />
      {/* Drawn twice: for wide screens, and taller for a phone's (the stylesheet shows one;
          the phone's has no points to hover or focus). */}
      <Drawing {...drawing} size={{ width: 800, height: 220, id: '' }} />
      <Drawing {...drawing} size={{ width: 400, height: 280, id: 'n-' }} />
      <ChartKey
        lines={drawn.map((key) => [colour(key), METRIC_TITLES[key]])}
        range={rangeText}
        comparedTo={comparedTo}
        compared={before.length > 0}
        later={later}
      />
      <ChartTable
        points={points}
        previous={before.length > 0 ? before : null}
        unit={unit}
        shown={shown}
        comparedTo={comparedTo}
      />
    </figure>
  );
};
