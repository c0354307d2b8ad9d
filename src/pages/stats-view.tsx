/**
 * The parts of the statistics pages (./stats.tsx): what their address holds (a `View`:
 * the range and the filters, so that any view can be shared), and the pieces they are drawn
 * from — range navigation, filter chips, tables of values (the chart: ./stats-chart.tsx).
 * Nothing here reads a number; the stats domain (src/stats/) gives them.
 */
import type { Context } from 'hono';
import type { Child, FC } from 'hono/jsx';
import type { StatName } from '../counting/statistics.ts';
import {
  type Filter,
  type FilterDimension,
  filteredProperty,
  GOAL_FILTER,
  isFilterDimension,
  V1_FILTER_LABELS,
  V1_STATISTICS,
  type V1FilterOperator,
} from '../counting/v1.ts';
import type { AppEnv } from '../env.ts';
import { type ImportRecord, type ImportSource, NOT_IMPORTED } from '../imports/store.ts';
import {
  MAX_DATE,
  MAX_RANGE_DAYS,
  MIN_DATE,
  RANGES,
  type Range,
  type RangeName,
  type RequestedRange,
} from '../lib/dates.ts';
import { ApiError } from '../lib/errors.ts';
import { filterParam } from '../stats/filters.ts';
import { formatNumber, percentChange, valueLabel } from '../stats/overview.ts';
import type { Unavailable } from '../stats/source.ts';

/**
 * What a statistics page shows, and under which address: `/stats/{domain}`, or a shared
 * link's `/share/{id}` (`/embed/{id}` framed): every link of the page starts there.
 */
export type View = { range: RequestedRange; filters: Filter[]; base: string };

/** Other parameters of an address; an empty or undefined value is left out. */
export type Extra = Record<string, string | number | undefined>;

/** The parameters of a view and of `extra`, in the order they are written. */
export function viewParams(view: View, extra: Extra = {}): [string, string][] {
  const params: [string, string][] = [['range', view.range.name]];
  if (view.range.name === 'custom') params.push(['from', view.range.from], ['to', view.range.to]);
  for (const f of view.filters) params.push([filterParam(f), f.value]);
  for (const [k, v] of Object.entries(extra))
    if (v !== undefined && v !== '') params.push([k, String(v)]);
  return params;
}

/** The address of `path` showing `view`, with `extra` parameters. */
export function viewHref(path: string, view: View, extra: Extra = {}): string {
  return `${path}?${new URLSearchParams(viewParams(view, extra)).toString()}`;
}

/** The view with one more filter; one of the same dimension and operator is replaced. */
function withFilter(view: View, filter: Filter): View {
  const others = view.filters.filter(
    (f) => f.dimension !== filter.dimension || f.operator !== filter.operator,
  );
  return { ...view, filters: [...others, filter] };
}

/** A row's value as a link that adds its filter (`dimension` is `value`) to the view. */
export const FilterLink: FC<{
  view: View;
  keep: Extra;
  dimension: Filter['dimension'];
  value: string;
  children: Child;
}> = ({ view, keep, dimension, value, children }) => (
  <a
    href={viewHref(view.base, withFilter(view, { dimension, operator: 'is', value }), keep)}
    class="filter-link"
  >
    {children}
  </a>
);

/** What a full view lists: a statistic, the goals, or a custom property's values. */
export type Listed = StatName | 'goal' | 'property';

/** The title of each statistic's full view, and of the goals'. */
export const TITLES = new Map<string, string>([
  ...(Object.entries(V1_STATISTICS) as [StatName, { title: string }][]).map(
    ([name, { title }]): [string, string] => [name, title],
  ),
  ['goal', 'Goals'],
]);

/** A filter's dimension as a chip reads it: a custom property by its name. */
function dimensionLabel(dimension: Filter['dimension']): string {
  if (dimension === GOAL_FILTER) return 'Goal';
  const property = filteredProperty(dimension);
  return property === null
    ? V1_FILTER_LABELS[dimension as FilterDimension].chip
    : `Property ${property}`;
}

const OPERATOR_LABELS: Record<V1FilterOperator, string> = {
  is: 'is',
  not: 'is not',
  contains: 'contains',
};

const RANGE_LABELS: Record<RangeName, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  this_month: 'This month',
  last_month: 'Last month',
  '12mo': 'Last 12 months',
  this_year: 'This year',
  all: 'All time',
  custom: 'Custom',
};

/**
 * The keys that choose a range (Plausible's where it has one), and `c`, which goes to the custom
 * dates; `?` lists them. They work when JavaScript runs (the page's script reads `data-key`).
 */
const RANGE_KEYS: Record<RangeName, string> = {
  today: 'd',
  yesterday: 'e',
  '7d': 'w',
  '30d': 't',
  this_month: 'm',
  last_month: 'l',
  '12mo': 'n',
  this_year: 'y',
  all: 'a',
  custom: 'c',
};

/**
 * The list of the keyboard shortcuts, opened with `?` (a dialog; nothing without JavaScript);
 * `X` where there is a chart to compare.
 */
const ShortcutsDialog: FC<{ chart: boolean }> = ({ chart }) => (
  <dialog id="shortcuts" aria-labelledby="shortcuts-title">
    <h2 id="shortcuts-title">Keyboard shortcuts</h2>
    <dl>
      {RANGES.map((r) => (
        <>
          <dt>
            <kbd>{RANGE_KEYS[r].toUpperCase()}</kbd>
          </dt>
          <dd>{r === 'custom' ? 'Choose dates' : RANGE_LABELS[r]}</dd>
        </>
      ))}
      {chart ? (
        <>
          <dt>
            <kbd>X</kbd>
          </dt>
          <dd>Compare with the previous period (on or off)</dd>
        </>
      ) : null}
      <dt>
        <kbd>?</kbd>
      </dt>
      <dd>This list</dd>
    </dl>
    <form method="dialog">
      <button type="submit">Close</button>
    </form>
  </dialog>
);

/** An http(s) link for a value, or null: pages on the site, referrer hosts. Nothing else links. */
function linkFor(name: string, value: string, domain: string): string | null {
  if ((name === 'page' || name === 'landing_page' || name === 'exit_page') && value.startsWith('/'))
    return `https://${domain}${value}`;
  if (name === 'referrer' && /^[a-z0-9.-]+$/i.test(value)) return `https://${value}/`;
  return null;
}

/** A figure's change against the period before: `+12%`, `-3%`, `new`, `±0%`. */
export function change(now: number, before: number): string {
  return percentChange(now, before) ?? (now === 0 ? '±0%' : 'new');
}

/** The parameters of a view as hidden fields, for a form that keeps the view. */
export const HiddenFields: FC<{ params: [string, string][] }> = ({ params }) => (
  <>
    {params.map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
  </>
);

/**
 * Range links and the custom range form, keeping the filters and `keep` (search, sort).
 * Dates in the URL that could not be used are said so, without repeating them. With `chart`, the
 * page has a chart to compare, which the shortcuts list (`X`).
 */
export const RangeNav: FC<{ path: string; view: View; keep?: Extra; chart?: boolean }> = ({
  path,
  view,
  keep = {},
  chart = false,
}) => {
  const kept = viewParams(view, keep).filter(([k]) => k !== 'range' && k !== 'from' && k !== 'to');
  const { range } = view;
  return (
    <>
      {range.invalid ? (
        <p class="notice range-notice" role="alert">
          The dates in this address are not a valid date range (from and to must be dates written
          YYYY-MM-DD, from {MIN_DATE} to {MAX_DATE}, from on or before to, at most{' '}
          {formatNumber(MAX_RANGE_DAYS)} days). Showing the last 30 days instead.
        </p>
      ) : null}
      <nav class="ranges" aria-label="Date range">
        <span class="range-links">
          {RANGES.filter((r) => r !== 'custom').map((r) => (
            <a
              href={`${path}?${new URLSearchParams([['range', r], ...kept]).toString()}`}
              aria-current={range.name === r ? 'page' : undefined}
              data-key={RANGE_KEYS[r]}
              aria-keyshortcuts={RANGE_KEYS[r].toUpperCase()}
            >
              {RANGE_LABELS[r]}
            </a>
          ))}
        </span>
        <form method="get" action={path} class="custom-range">
          <input type="hidden" name="range" value="custom" />
          <HiddenFields params={kept} />
          <label>
            From{' '}
            <input
              type="date"
              name="from"
              value={range.from}
              required
              data-key={RANGE_KEYS.custom}
              aria-keyshortcuts={RANGE_KEYS.custom.toUpperCase()}
            />
          </label>
          <label>
            To <input type="date" name="to" value={range.to} required />
          </label>
          <button type="submit" class="secondary">
            Show
          </button>
        </form>
      </nav>
      <ShortcutsDialog chart={chart} />
    </>
  );
};

/**
 * Whether the range holds imported history (docs/ARCHITECTURE.md, "Imported history"): what
 * it adds and what it cannot do; under filters, that it is left out.
 */
export const ImportedNotice: FC<{ imports: ImportRecord[]; filtered: boolean }> = ({
  imports,
  filtered,
}) => {
  if (imports.length === 0) return null;
  const named = imports
    .map((i) => `${SOURCE_LABELS[i.source as ImportSource] ?? i.source} (${i.from} – ${i.to})`)
    .join(', ');
  const missing = [...new Set(imports.map((i) => NOT_IMPORTED[i.source as ImportSource]))];
  return (
    <p class="notice" role="note">
      {filtered
        ? `This range holds imported history from ${named}, left out here: filters apply to Sightline's own events only.`
        : `This range includes imported history from ${named}. Filters, the hourly chart, journeys and funnels use Sightline's own events only; imported data has no ${missing.join('; no ')}.`}
    </p>
  );
};

const SOURCE_LABELS: Record<ImportSource, string> = {
  plausible: 'Plausible',
  goatcounter: 'GoatCounter',
  umami: 'Umami',
};

/**
 * The active filters as chips, each with a link that removes it, and a link that removes
 * them all; filters the address named but that could not be used are said so.
 */
export const FilterChips: FC<{ path: string; view: View; keep?: Extra; refused: string[] }> = ({
  path,
  view,
  keep = {},
  refused,
}) => (
  <>
    {refused.length > 0 ? (
      <p class="notice range-notice" role="alert">
        Some filters in this address could not be used and are left out: {refused.join(', ')}.
      </p>
    ) : null}
    {view.filters.length > 0 ? (
      <section class="filters" aria-label="Filters">
        <ul class="chips">
          {view.filters.map((f, i) => {
            const label = `${dimensionLabel(f.dimension)} ${OPERATOR_LABELS[f.operator]} ${valueLabel(f.dimension, f.value)}`;
            const rest = { ...view, filters: view.filters.filter((_, j) => j !== i) };
            return (
              <li class="chip">
                <span>
                  {dimensionLabel(f.dimension)} {OPERATOR_LABELS[f.operator]}{' '}
                  <strong>{valueLabel(f.dimension, f.value)}</strong>
                </span>
                <a href={viewHref(path, rest, keep)}>
                  <span aria-hidden="true">×</span>
                  <span class="sr-only">Remove filter: {label}</span>
                </a>
              </li>
            );
          })}
        </ul>
        {view.filters.length > 1 ? (
          <a href={viewHref(path, { ...view, filters: [] }, keep)}>Remove all filters</a>
        ) : null}
      </section>
    ) : null}
  </>
);

/**
 * A value of a statistic: for a filterable dimension, a link that filters the overview by
 * it (and, for pages and referrer hosts, a second link that opens it); else plain text.
 */
const ValueCell: FC<{ name: Listed; value: string; domain: string; view: View; keep: Extra }> = ({
  name,
  value,
  domain,
  view,
  keep,
}) => {
  const text = valueLabel(name, value);
  if (!isFilterDimension(name)) return <>{text}</>;
  const href = linkFor(name, value, domain);
  return (
    <>
      <FilterLink view={view} keep={keep} dimension={name} value={value}>
        {text}
      </FilterLink>
      {href ? (
        <>
          {' '}
          <a href={href} rel="noopener noreferrer nofollow" target="_blank" class="open-link">
            <span aria-hidden="true">↗</span>
            <span class="sr-only">Open {text}</span>
          </a>
        </>
      ) : null}
      {name === 'page' ? (
        <>
          {' '}
          <a
            href={viewHref(`${view.base}/journeys`, view, { page: value })}
            class="open-link"
            title="What did they do next?"
          >
            <span aria-hidden="true">→</span>
            <span class="sr-only">What did visitors of {text} do next</span>
          </a>
        </>
      ) : null}
    </>
  );
};

/**
 * A bar as wide as `share` percent (SVG: no inline style under the page's CSP); `behind`, it
 * lies under its table cell's text.
 */
export const Bar: FC<{ share: number; behind?: boolean }> = ({ share, behind = false }) => (
  <svg
    class={behind ? 'bar behind' : 'bar'}
    viewBox="0 0 100 6"
    preserveAspectRatio="none"
    aria-hidden="true"
  >
    {behind ? null : <rect class="track" width="100" height="6" />}
    <rect class="fill" width={Math.max(0, Math.min(100, share)).toFixed(1)} height="6" />
  </svg>
);

/** A table's first cell with a bar behind its text, as long as `count` of the rows' `max`. */
export const BarCell: FC<{ count: number; max: number; children: unknown }> = ({
  count,
  max,
  children,
}) => (
  <td class="bar-cell">
    <Bar share={max > 0 ? (count / max) * 100 : 0} behind />
    {children}
  </td>
);

/** A count's share of `base` in whole percent (`<1%` for a sliver), '' without a base. */
export function shareText(count: number, base: number | null): string {
  if (base === null || base <= 0) return '';
  const percent = Math.min(100, (count / base) * 100);
  return percent > 0 && percent < 0.5 ? '<1%' : `${Math.round(percent)}%`;
}

/** A table's header cell of the shares. */
export const ShareHeader: FC = () => (
  <th scope="col" class="num share">
    Share
  </th>
);

/**
 * The body of a statistic's table: one row per value with its count, a bar behind it as long
 * as its count (the largest of the rows the whole cell) and, with a `base`, its share of it.
 */
export const ValueRows: FC<{
  name: Listed;
  rows: { value: string; count: number }[];
  domain: string;
  view: View;
  /** What every count is a share of (`shareBaseOf`), or null for no share column. */
  base: number | null;
  /** Parameters the rows' filter links keep (the overview's chart and tabs). */
  keep?: Extra;
  /** Adds a link per row that filters the overview by everything but the value. */
  exclude?: boolean;
}> = ({ name, rows, domain, view, base, keep = {}, exclude = false }) => {
  const max = Math.max(0, ...rows.map((r) => r.count));
  return (
    <tbody>
      {rows.map((row) => (
        <tr>
          <BarCell count={row.count} max={max}>
            <ValueCell name={name} value={row.value} domain={domain} view={view} keep={keep} />
          </BarCell>
          {exclude && isFilterDimension(name) ? (
            <td>
              <a
                href={viewHref(
                  view.base,
                  withFilter(view, { dimension: name, operator: 'not', value: row.value }),
                  keep,
                )}
              >
                Exclude<span class="sr-only"> {valueLabel(name, row.value)}</span>
              </a>
            </td>
          ) : null}
          <td class="num">{formatNumber(row.count)}</td>
          {base === null ? null : <td class="num share">{shareText(row.count, base)}</td>}
        </tr>
      ))}
    </tbody>
  );
};

/**
 * Said instead of numbers when a filtered range starts before the oldest date the event log
 * holds; offers the part of the range it has.
 */
export const UnavailableNotice: FC<{
  path: string;
  view: View;
  firstDate: string;
  keep?: Extra;
}> = ({ path, view, firstDate, keep = {} }) => {
  const rest: Range = { name: 'custom', from: firstDate, to: view.range.to };
  return (
    <p class="notice range-notice" role="alert">
      Filtered statistics are kept from {firstDate} on: this range starts earlier.{' '}
      {firstDate <= view.range.to ? (
        <a href={viewHref(path, { ...view, range: rest }, keep)}>
          Show {firstDate} – {view.range.to}
        </a>
      ) : null}{' '}
      <a href={viewHref(path, { ...view, filters: [] }, keep)}>Show without filters</a>
    </p>
  );
};

/** The 422 of a CSV whose filtered range starts before the oldest date the log holds. */
export const unavailableCsv = (u: Unavailable) =>
  new ApiError(
    422,
    `Filtered statistics are kept from ${u.firstDate} on: choose a range that starts then or later.`,
  );

/** A CSV download named after the website, what it holds and the range. */
export function csvDownload(c: Context<AppEnv>, name: string, view: View, csv: string) {
  c.header('Content-Type', 'text/csv; charset=utf-8');
  c.header(
    'Content-Disposition',
    `attachment; filename="${name.replace(/[^\w.-]/g, '_')}-${view.range.from}-${view.range.to}.csv"`,
  );
  return c.body(csv);
}

/** A page number from the address: 1 to 1,000,000, 1 when it is not one. */
export const pageNumber = (raw: string | undefined): number =>
  Math.max(1, Math.min(1_000_000, Number.parseInt(raw ?? '1', 10) || 1));
