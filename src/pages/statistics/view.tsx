/**
 * The statistics page's view and its parts shared by every page under it: what an address
 * asks for (`View`: range, filters, base), the addresses the page makes from it, the range
 * links, the filter chips and the notices of imported history.
 */
import type { Child, FC } from 'hono/jsx';
import type { StatName } from '../../counting/statistics.ts';
import { type ImportRecord, type ImportSource, NOT_IMPORTED } from '../../imports/store.ts';
import {
  MAX_DATE,
  MAX_RANGE_DAYS,
  MIN_DATE,
  RANGES,
  type RangeName,
  type RequestedRange,
} from '../../lib/time/dates.ts';
import {
  type Filter,
  type FilterDimension,
  filteredProperty,
  GOAL_FILTER,
  LOG_LISTINGS,
  type LogListing,
  SEGMENT_FILTER,
  V1_FILTER_LABELS,
  V1_STATISTICS,
  type V1FilterOperator,
} from '../../query/parse/v1.ts';
import { filterParam } from '../../query/parse/v1-filters.ts';
import { formatNumber, percentChange, valueLabel } from '../../query/present/readable.ts';

/**
 * What a statistics page shows, and under which address: `/stats/{domain}`, or a shared
 * link's `/share/{id}` (`/embed/{id}` framed): every link of the page starts there.
 */
/**
 * What a statistics page shows: its range, its filters, the address its links start at, and
 * (`locked`) the saved segment a shared link is limited to, whose chip cannot be removed.
 */
export type View = { range: RequestedRange; filters: Filter[]; base: string; locked?: string };

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
export function withFilter(view: View, filter: Filter): View {
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

/** What a full view lists: a statistic, a log's listing, the goals, or a custom property's values. */
export type Listed = StatName | LogListing | 'goal' | 'property';

/** The title of each statistic's and log listing's full view, and of the goals'. */
export const TITLES = new Map<string, string>([
  ...Object.entries({ ...V1_STATISTICS, ...LOG_LISTINGS }).map(
    ([name, { title }]): [string, string] => [name, title],
  ),
  ['goal', 'Goals'],
]);

/** A filter's dimension as a chip reads it: a custom property by its name. */
function dimensionLabel(dimension: Filter['dimension']): string {
  if (dimension === GOAL_FILTER) return 'Goal';
  if (dimension === SEGMENT_FILTER) return 'Segment';
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
          {/* A phone folds the custom range's form away until this opens it. */}
          {range.name === 'custom' ? null : (
            <a href={`${viewHref(path, view, keep)}#custom-range`} class="custom-link">
              Custom dates
            </a>
          )}
        </span>
        <form
          method="get"
          action={path}
          class={range.name === 'custom' ? 'custom-range' : 'custom-range folded'}
          id="custom-range"
        >
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
            const value = f.segment ? f.segment.name : valueLabel(f.dimension, f.value);
            const label = `${dimensionLabel(f.dimension)} ${OPERATOR_LABELS[f.operator]} ${value}`;
            const rest = { ...view, filters: view.filters.filter((_, j) => j !== i) };
            const locked = f.dimension === SEGMENT_FILTER && f.value === view.locked;
            return (
              <li class="chip">
                <span>
                  {dimensionLabel(f.dimension)} {OPERATOR_LABELS[f.operator]}{' '}
                  <strong>{value}</strong>
                </span>
                {locked ? null : (
                  <a href={viewHref(path, rest, keep)}>
                    <span aria-hidden="true">×</span>
                    <span class="sr-only">Remove filter: {label}</span>
                  </a>
                )}
              </li>
            );
          })}
        </ul>
        {view.filters.length > (view.locked ? 2 : 1) ? (
          <a href={viewHref(path, { ...view, filters: [] }, keep)}>Remove all filters</a>
        ) : null}
      </section>
    ) : null}
  </>
);
