/**
 * The rows of a statistic on the statistics page (../overview-page.tsx): each value with its bar, its
 * share and its links (to filter by it, to open it, to where its visitors went next).
 */
import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import type { AppEnv } from '../../../env.ts';
import { ApiError } from '../../../lib/errors.ts';
import type { Range } from '../../../lib/time/dates.ts';
import { isFilterDimension } from '../../../query/parse/v1.ts';
import type { ListedRow, PageEngagement, Unavailable } from '../../../query/present/numbers.ts';
import {
  eventParts,
  formatMetric,
  formatNumber,
  valueLabel,
} from '../../../query/present/readable.ts';
import {
  change,
  type Extra,
  FilterLink,
  type Listed,
  type View,
  viewHref,
  withFilter,
} from '../view.tsx';

/** An http(s) link for a value, or null: pages on the site, referrer hosts. Nothing else links. */
function linkFor(name: string, value: string, domain: string): string | null {
  if ((name === 'page' || name === 'landing_page' || name === 'exit_page') && value.startsWith('/'))
    return `https://${domain}${value}`;
  if (name === 'referrer' && /^[a-z0-9.-]+$/i.test(value)) return `https://${value}/`;
  return null;
}

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
  // An event's value and unit have columns of their own (`EventHeaders`).
  const text = name === 'event' ? eventParts(value).name : valueLabel(name, value);
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
          <a
            href={href}
            rel="noopener noreferrer nofollow"
            target="_blank"
            class="open-link"
            hx-boost="false"
          >
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

/** A tab's links to its full view (every value, every metric) and its CSV. */
export const TabActions: FC<{ name: string; view: View; total?: number | undefined }> = ({
  name,
  view,
  total,
}) => (
  <p class="actions">
    <a href={viewHref(`${view.base}/${name}`, view)}>
      Details {total ? `(${formatNumber(total)})` : ''}
    </a>
    <a href={viewHref(`${view.base}/${name}.csv`, view)} hx-boost="false" download>
      CSV
    </a>
  </p>
);

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

/** The header cells of pages' time on page and scroll depth (`ValueRows`' `engagement`). */
export const EngagementHeaders: FC = () => (
  <>
    <th
      scope="col"
      class="num engaged"
      title="Seconds the page was seen, visible and focused, per visitor"
    >
      Time on page
    </th>
    <th scope="col" class="num engaged" title="How far down the page visits scrolled, on average">
      Scroll depth
    </th>
  </>
);

/** The header cells of an event's value and unit (`ValueRows` of `event`). */
export const EventHeaders: FC = () => (
  <>
    <th scope="col">Value</th>
    <th scope="col">Unit</th>
  </>
);

/** An event's value and unit (`name:value:unit`), each in its cell. */
const EventCells: FC<{ value: string }> = ({ value }) => {
  const parts = eventParts(value);
  return (
    <>
      <td>{parts.value}</td>
      <td>{parts.unit}</td>
    </>
  );
};

/**
 * A row's change against the compared range (`before`: its counts there): `+12%`, `new`, or a
 * dash when the value was past what was read of it; its meaning in words too (more is better).
 */
const ChangeCell: FC<{
  count: number;
  value: string;
  before: { counts: Map<string, number>; complete: boolean };
}> = ({ count, value, before }) => {
  const then = before.counts.get(value) ?? (before.complete ? 0 : null);
  if (then === null) return <td class="num change">–</td>;
  const meaning = then === 0 || count === then ? '' : count > then ? 'better' : 'worse';
  return (
    <td class={meaning ? `num change ${meaning}` : 'num change'}>
      {change(count, then)}
      {meaning ? <span class="sr-only"> ({meaning})</span> : null}
    </td>
  );
};

/**
 * A cell whose number is being read (`Overview.later`): a neutral mark until the page's script
 * morphs the whole view in (docs/ARCHITECTURE.md, "The statistics page").
 */
const LaterCell: FC<{ class: string }> = (props) => (
  <td class={props.class} data-later="">
    <span aria-hidden="true">…</span>
    <span class="sr-only">being read</span>
  </td>
);

/** A table's header cell of the rows' changes against the compared range. */
export const ChangeHeader: FC = () => (
  <th scope="col" class="num change" title="Against the compared range">
    Change
  </th>
);

/** A table's header cell of the shares. */
export const ShareHeader: FC = () => (
  <th scope="col" class="num share">
    Share
  </th>
);

/**
 * The body of a statistic's table: one row per value with its count, a bar behind it as long
 * as its count (the largest of the rows the whole cell) and, with a `base`, its share of it;
 * an event's value and unit in two columns after its name.
 */
export const ValueRows: FC<{
  name: Listed;
  rows: ListedRow[];
  /** What the rows count, in order: `count`'s metric, then each of `more`'s (default: a count). */
  metrics?: readonly string[];
  domain: string;
  view: View;
  /** What every count is a share of (`shareBaseOf`), or null for no share column. */
  base: number | null;
  /** Parameters the rows' filter links keep (the overview's chart and tabs). */
  keep?: Extra;
  /** Adds a link per row that filters the overview by everything but the value. */
  exclude?: boolean;
  /**
   * Pages' time on page and scroll depth: two columns more (`EngagementHeaders`); `later`:
   * being read, each cell a neutral mark.
   */
  engagement?: PageEngagement | 'later';
  /**
   * When comparing: the compared range's counts, for a column of changes (`ChangeHeader`);
   * `later`: being read.
   */
  before?: { counts: Map<string, number>; complete: boolean } | 'later' | undefined;
}> = ({
  name,
  rows,
  metrics = ['count'],
  domain,
  view,
  base,
  keep = {},
  exclude = false,
  engagement,
  before,
}) => {
  const max = Math.max(0, ...rows.map((r) => r.count));
  return (
    <tbody>
      {rows.map((row) => (
        <tr>
          <BarCell count={row.count} max={max}>
            <ValueCell name={name} value={row.value} domain={domain} view={view} keep={keep} />
          </BarCell>
          {name === 'event' ? <EventCells value={row.value} /> : null}
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
          <td class="num">{formatMetric(metrics[0] as string, row.count)}</td>
          {base === null ? null : <td class="num share">{shareText(row.count, base)}</td>}
          {before === 'later' ? (
            <LaterCell class="num change" />
          ) : before ? (
            <ChangeCell count={row.count} value={row.value} before={before} />
          ) : null}
          {metrics.slice(1).map((metric, i) => (
            <td class="num">{formatMetric(metric, row.more?.[i] ?? null)}</td>
          ))}
          {engagement === 'later' ? (
            <>
              <LaterCell class="num engaged" />
              <LaterCell class="num engaged" />
            </>
          ) : engagement ? (
            <>
              <td class="num engaged">
                {formatMetric('time_on_page', engagement[row.value]?.time ?? 0)}
              </td>
              <td class="num engaged">
                {formatMetric('scroll_depth', engagement[row.value]?.scroll ?? null)}
              </td>
            </>
          ) : null}
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
