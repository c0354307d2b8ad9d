/**
 * The statistics page's view and its parts shared by every page under it: what an address
 * asks for (`View`: range, filters, base), the addresses the page makes from it, the range
 * links, the filter chips and the notices of imported history.
 */
import type { Child, FC } from 'hono/jsx';
import type { StatName } from '../../counting/statistics.ts';
import { type ImportRecord, type ImportSource, NOT_IMPORTED } from '../../imports/store.ts';
import type { RequestedRange } from '../../lib/time/dates.ts';
import {
  type Filter,
  LOG_LISTINGS,
  type LogListing,
  SEGMENT_FILTER,
  V1_STATISTICS,
  valuesOf,
} from '../../query/parse/v1.ts';
import { filterParam } from '../../query/parse/v1-filters.ts';
import { percentChange } from '../../query/present/readable.ts';
import type { EmbedTheme } from '../../sharing/embed-code.ts';
import {
  dimensionLabel,
  filterWords,
  OPERATOR_LABELS,
  savedFiltersWords,
  valueWords,
} from './filter-words.ts';

/**
 * What a statistics page shows, and under which address: `/stats/{domain}`, or a shared
 * link's `/share/{id}` (`/embed/{id}` framed): every link of the page starts there.
 */
/**
 * What a statistics page shows: its range, its filters, the address its links start at, and
 * (`locked`) the saved segment a shared link is limited to, whose chip cannot be removed.
 */
export type View = {
  range: RequestedRange;
  filters: Filter[];
  base: string;
  locked?: string;
  /** The filters' values that match nothing in the range (`filter[country]=Germany`). */
  unmatched?: string[];
  /** The website's time zone, which its dates and hours are in. */
  timeZone?: string;
  /** An embed's theme (`?theme=`), which its links and forms keep. */
  theme?: EmbedTheme;
};

/** Other parameters of an address; an empty or undefined value is left out. */
export type Extra = Record<string, string | number | undefined>;

/** The parameters of a view and of `extra`, in the order they are written. */
export function viewParams(view: View, extra: Extra = {}): [string, string][] {
  const params: [string, string][] = [['range', view.range.name]];
  if (view.range.name === 'custom') params.push(['from', view.range.from], ['to', view.range.to]);
  for (const f of view.filters) for (const v of valuesOf(f)) params.push([filterParam(f), v]);
  for (const [k, v] of Object.entries(extra))
    if (v !== undefined && v !== '') params.push([k, String(v)]);
  if (view.theme) params.push(['theme', view.theme]);
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

/** How long a value is before its cell may cut it (the whole then in its link's title). */
const CUT_AT = 24;

/**
 * A row's value as a link that adds its filter (`dimension` is `value`) to the view; a long
 * one, which its cell cuts on one line, says it whole on hover (and to assistive technology,
 * which reads the link's text whole anyway).
 */
export const FilterLink: FC<{
  view: View;
  keep: Extra;
  dimension: Filter['dimension'];
  value: string;
  children: Child;
}> = ({ view, keep, dimension, value, children }) => {
  const whole = typeof children === 'string' ? children : value;
  return (
    <a
      href={viewHref(view.base, withFilter(view, { dimension, operator: 'is', value }), keep)}
      class="filter-link"
      title={whole.length > CUT_AT ? whole : undefined}
    >
      {children}
    </a>
  );
};

/** What a full view lists: a statistic, a log's listing, the goals, or a custom property's values. */
export type Listed = StatName | LogListing | 'goal' | 'property';

/** The title of each statistic's and log listing's full view, and of the goals'. */
export const TITLES = new Map<string, string>([
  ...Object.entries({ ...V1_STATISTICS, ...LOG_LISTINGS }).map(
    ([name, { title }]): [string, string] => [name, title],
  ),
  ['goal', 'Goals'],
]);

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

/** How long a segment's chip is before the page may cut it (the whole then in its title). */
const CHIP_CUT_AT = 40;

/**
 * What a chip says: a filter's dimension, operator and values, and those of its values that
 * match nothing in the range; a segment's name and its filters in words, on one line that a
 * long one is cut on — the whole in its title on hover, and (focusable) when the keyboard
 * reaches it.
 */
const ChipText: FC<{ filter: Filter; nothing: string[] }> = ({ filter: f, nothing }) => {
  if (f.segment) {
    const whole = filterWords(f);
    const long = whole.length > CHIP_CUT_AT;
    return (
      <span
        class="truncate segment-words"
        title={long ? whole : undefined}
        tabindex={long ? 0 : undefined}
      >
        <strong>{f.segment.name}</strong>: {savedFiltersWords(f.segment.saved).join(' · ')}
      </span>
    );
  }
  return (
    <span>
      {dimensionLabel(f.dimension)} {OPERATOR_LABELS[f.operator]} <strong>{valueWords(f)}</strong>
      {nothing.length > 0 ? (
        <em class="unmatched-note">
          {' '}
          — {nothing.map((v) => `“${v}”`).join(', ')} matches nothing in this range
        </em>
      ) : null}
    </span>
  );
};

/**
 * The active filters as chips, each with a link that removes it (but a shared link's
 * segment), and a link that removes them all; filters the address named but that could not
 * be used are said so.
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
            const label = f.segment ? `segment ${f.segment.name}` : `filter: ${filterWords(f)}`;
            const rest = { ...view, filters: view.filters.filter((_, j) => j !== i) };
            const locked = f.dimension === SEGMENT_FILTER && f.value === view.locked;
            const nothing = valuesOf(f).filter((v) =>
              view.unmatched?.includes(`${filterParam(f)}=${v}`),
            );
            return (
              <li class={nothing.length > 0 ? 'chip unmatched' : 'chip'}>
                <ChipText filter={f} nothing={nothing} />
                {locked ? null : (
                  <a href={viewHref(path, rest, keep)}>
                    <span aria-hidden="true">×</span>
                    <span class="sr-only">Remove {label}</span>
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
