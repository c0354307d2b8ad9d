/**
 * A statistic's full view and its CSV (`/stats/{domain}/{name}` and `….csv`): every value of
 * what it lists over the view's range — searched, sorted and paged — under the view's filters.
 */

import type { Context } from 'hono';
import { listAnnotations } from '../../annotations/annotations.ts';
import { MAX_PROP_NAME } from '../../counting/query-dimensions.ts';
import { STAT_NAMES, type StatName, TIME_VALUED } from '../../counting/statistics.ts';
import type { Database } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { importsWithin } from '../../imports/store.ts';
import { csvFile } from '../../lib/text/csv.ts';
import { isFilterDimension, SOURCE_LISTINGS, type SourceListing } from '../../query/parse/v1.ts';
import { detailMetricsOf, metricTitle, shareBaseOf } from '../../query/present/listed-metrics.ts';
import { isUnavailable, type ListedRow, sourceOf } from '../../query/present/numbers.ts';
import { formatNumber, valueLabel } from '../../query/present/readable.ts';
import { render } from '../layout/layout.tsx';
import { notFound } from '../sharing/link-access.tsx';
import { RangeNav } from './date-menu.tsx';
import { readableSite, viewOf } from './gate.tsx';
import {
  csvDownload,
  EventHeaders,
  pageNumber,
  ShareHeader,
  UnavailableNotice,
  unavailableCsv,
  ValueRows,
} from './panels/panel-rows.tsx';
import {
  FilterChips,
  HiddenFields,
  ImportedNotice,
  type Listed,
  TITLES,
  type View,
  viewHref,
  viewParams,
} from './view.tsx';

/** The name in the path (`:name`), its `.csv` or `.json` stripped. */
const nameOf = (c: Context<AppEnv>) => (c.req.param('name') ?? '').replace(/\.(csv|json)$/, '');

/** The statistic or source listing named in the path, or the page's 404. */
function statisticOf(c: Context<AppEnv>): StatName | SourceListing {
  const name = nameOf(c);
  if (!(STAT_NAMES as readonly string[]).includes(name) && !Object.hasOwn(SOURCE_LISTINGS, name))
    throw notFound();
  return name as StatName | SourceListing;
}

/**
 * What a full view or CSV asks for (`:name`, `.csv` stripped): a statistic; `goal`, each goal's
 * converting visitors; `property` with `?property=<name>`, that property's values — or the
 * page's 404.
 */
function listedOf(c: Context<AppEnv>) {
  const asked = nameOf(c);
  const property = (c.req.query('property') ?? '').trim().slice(0, MAX_PROP_NAME);
  if (asked === 'goal') return { name: 'goal' } as const;
  if (asked === 'property' && property !== '') return { name: 'property', property } as const;
  return { name: statisticOf(c) };
}

/** The source of a full view's or CSV's numbers: with the website's goals for `goal`. */
async function listedSource(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
  view: View,
  listed: ReturnType<typeof listedOf>,
) {
  // Each goal is a question of its own: the website's goals are the rows.
  const goals = listed.name === 'goal' ? await listGoals(db, site.id) : undefined;
  return sourceOf(c.env, db, site.id, view.filters, goals);
}

/**
 * The first `limit` values of what a full view lists, most counted by `metrics`' first first,
 * over the view's range and under its filters, searched as the address's `search` asks (a
 * CSV, suggestions).
 */
async function mostCounted(
  c: Context<AppEnv>,
  {
    site,
    db,
    view,
    which,
  }: { site: WebsiteRow; db: Database; view: View; which: ReturnType<typeof listedOf> },
  limit: number,
  metrics?: string[],
) {
  const source = await listedSource(c, site, db, view, which);
  return source.page({
    ...which,
    from: view.range.from,
    to: view.range.to,
    search: (c.req.query('search') ?? '').slice(0, 255) || undefined,
    sortBy: 'count',
    sort: 'desc',
    limit,
    offset: 0,
    ...(metrics ? { metrics } : {}),
  });
}

/**
 * The metrics a full view or CSV shows (`detailMetricsOf`): over imported history with no
 * filter, the roll-ups' own.
 */
async function metricsShown(
  db: Database,
  site: WebsiteRow,
  view: View,
  which: ReturnType<typeof listedOf>,
) {
  const imported =
    view.filters.length === 0 && (await importsWithin(db, site.id, view.range)).length > 0;
  return detailMetricsOf(which.name, imported);
}

/** `/stats/{domain}/{name}.csv`: every value of what a full view lists, over the view's range. */
export async function statisticCsv(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const which = listedOf(c);
  const name = which.name === 'property' ? `property-${which.property}` : which.name;
  const { view } = await viewOf(c, site, db);
  const metrics = await metricsShown(db, site, view, which);
  const answer = await mostCounted(c, { site, db, view, which }, 100_000, metrics);
  if (isUnavailable(answer)) throw unavailableCsv(answer);
  // A statistic by date says each date's annotations too, when the range has any
  // (src/annotations/).
  const byDate = TIME_VALUED.has(which.name as StatName) && !which.name.endsWith('_hours');
  const notes = byDate ? await listAnnotations(db, site.id, view.range) : [];
  const dated = notes.length > 0;
  const on = (date: string) =>
    notes
      .filter((n) => n.date <= date && date <= (n.endDate ?? n.date))
      .map((n) => n.text)
      .join(' | ');
  // Every column named for what it holds: the value's (a date's, an hour's, a property's by
  // its name), and each metric's.
  const valueColumn =
    which.name === 'property'
      ? which.property
      : byDate
        ? 'date'
        : which.name.endsWith('_hours')
          ? 'hour'
          : which.name;
  const header = [valueColumn, ...metrics.map((m) => columnOf(metricTitle(m)))];
  return csvDownload(
    c,
    `${site.domain}-${name}`,
    view,
    csvFile(
      [...header, ...(dated ? ['annotations'] : [])],
      answer.rows.map((r) => [
        r.value,
        r.count,
        ...(r.more ?? []).map((n) => n ?? ''),
        ...(dated ? [on(r.value)] : []),
      ]),
    ),
  );
}

/** A metric's name as a CSV's column: `Page views` → `page_views`. */
const columnOf = (title: string) => title.toLowerCase().replaceAll(' ', '_');

/** How many values the filter menu suggests (./filter-menu.tsx). */
const SUGGESTED = 10;

/**
 * `/stats/{domain}/{name}.json?search=…`: the values the filter menu suggests as one types —
 * the first `SUGGESTED` of what the full view lists that contain the text, most counted first,
 * under the view's filters and range (none when the log does not hold the range).
 */
export async function statisticValues(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const which = listedOf(c);
  const { view } = await viewOf(c, site, db);
  const answer = await mostCounted(c, { site, db, view, which }, SUGGESTED);
  const rows = isUnavailable(answer) ? [] : answer.rows;
  return c.json({
    values: rows.map((r) => ({ value: r.value, label: valueLabel(which.name, r.value) })),
  });
}

const PER_PAGE = 25;

/** Rows whose figures came in the order `asked`, in the order `shown`. */
function inOrder(rows: ListedRow[], asked: string[], shown: readonly string[]): ListedRow[] {
  return rows.map((row) => {
    const figures = [row.count, ...(row.more ?? [])];
    const [count, ...more] = shown.map((m) => figures[asked.indexOf(m)] ?? null);
    return { value: row.value, count: count ?? 0, ...(more.length > 0 ? { more } : {}) };
  });
}

/**
 * A full view's search, sort and page, as its address asks for them (bounded): `sort_by` is
 * `value`, one of its `metrics`, or `count` (the first: the addresses made before the metrics
 * were named).
 */
function listingOf(c: Context<AppEnv>, metrics: readonly string[]) {
  const asked = c.req.query('sort_by') ?? '';
  return {
    search: (c.req.query('search') ?? '').slice(0, 255),
    sortBy: asked === 'value' ? 'value' : metrics.includes(asked) ? asked : 'count',
    sort: c.req.query('sort') === 'asc' ? ('asc' as const) : ('desc' as const),
    page: pageNumber(c.req.query('page')),
  };
}
type Listing = ReturnType<typeof listingOf>;

/** The full view's search box and CSV link, and for a filterable statistic its "containing" filter. */
function SearchForms(props: {
  name: Listed;
  title: string;
  path: string;
  overview: string;
  view: View;
  listing: Listing;
}) {
  const { name, title, path, overview, view, listing } = props;
  const { search, sortBy, sort } = listing;
  return (
    <>
      <form method="get" action={path} class="actions search">
        <HiddenFields params={viewParams(view, { sort_by: sortBy, sort })} />
        <label for="search" class="sr-only">
          Search {title.toLowerCase()}
        </label>
        <input id="search" name="search" type="search" value={search} placeholder="Search" />
        <button type="submit" class="secondary">
          Search
        </button>
        <a href={viewHref(`${path}.csv`, view, { search })} hx-boost="false" download>
          Export CSV
        </a>
      </form>
      {isFilterDimension(name) ? (
        <form method="get" action={overview} class="actions search">
          <HiddenFields params={viewParams(view)} />
          <label for="contains">Filter the statistics by {title.toLowerCase()} containing</label>
          <input id="contains" name={`filter[${name}][contains]`} type="search" required />
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
      ) : null}
    </>
  );
}

/**
 * A page of a statistic's values, a column per metric, sortable by any column (`sort_by` the
 * value or a metric), with links to the other pages.
 */
function ValueTable(props: {
  name: Listed;
  title: string;
  domain: string;
  view: View;
  listing: Listing;
  metrics: readonly string[];
  rows: ListedRow[];
  total: number;
  /** What the first metric's counts are shares of, or null (`shareBaseOf`). */
  base: number | null;
  link: (extra: Record<string, string | number | undefined>) => string;
}) {
  const { name, title, domain, view, listing, metrics, rows, total, base, link } = props;
  const { sort, page } = listing;
  const sortBy = listing.sortBy === 'count' ? metrics[0] : listing.sortBy;
  const lastPage = Math.max(1, Math.ceil(total / PER_PAGE));
  const sortLink = (by: string) =>
    link({ sort_by: by, sort: sortBy === by && sort === 'desc' ? 'asc' : 'desc', page: undefined });
  const ariaSort = (by: string) =>
    sortBy === by ? (sort === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <>
      <table class="details">
        <thead>
          <tr>
            <th scope="col" aria-sort={ariaSort('value')}>
              <a href={sortLink('value')}>{title}</a>
            </th>
            {name === 'event' ? <EventHeaders /> : null}
            {isFilterDimension(name) ? (
              <th scope="col">
                <span class="sr-only">Exclude</span>
              </th>
            ) : null}
            {metrics.map((metric, i) => (
              <>
                <th scope="col" class="num" aria-sort={ariaSort(metric)}>
                  <a href={sortLink(metric)}>{metricTitle(metric)}</a>
                </th>
                {i === 0 && base !== null ? <ShareHeader /> : null}
              </>
            ))}
          </tr>
        </thead>
        <ValueRows {...{ name, rows, metrics, domain, view, base }} exclude />
      </table>
      {rows.length === 0 ? <p class="hint">Nothing found.</p> : null}
      <nav class="actions" aria-label="Pages">
        {page > 1 ? <a href={link({ page: page - 1 })}>← Previous</a> : null}
        <span>{`Page ${page} of ${lastPage} (${formatNumber(total)} values)`}</span>
        {page < lastPage ? <a href={link({ page: page + 1 })}>Next →</a> : null}
      </nav>
    </>
  );
}

/** `/stats/{domain}/{name}`: a statistic's full view — searched, sorted and paged. */
export async function statisticPage(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const which = listedOf(c);
  const { name } = which;
  const { view, refused } = await viewOf(c, site, db);
  const metrics = await metricsShown(db, site, view, which);
  const listing = listingOf(c, metrics);
  const { search, sortBy, sort, page } = listing;
  const source = await listedSource(c, site, db, view, which);
  // The metric sorted by is asked first: the rows come back sorted by it.
  const first = sortBy === 'count' || sortBy === 'value' ? (metrics[0] as string) : sortBy;
  const asked = [first, ...metrics.filter((m) => m !== first)];
  const answer = await source.page({
    ...which,
    from: view.range.from,
    to: view.range.to,
    search: search || undefined,
    sortBy: sortBy === 'value' ? 'value' : 'count',
    sort,
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
    metrics: asked,
  });
  const data = isUnavailable(answer)
    ? answer
    : { ...answer, rows: inOrder(answer.rows, asked, metrics) };
  // The first metric's counts are shares of the range's figure it sums to.
  const shareOf = isUnavailable(data) ? null : shareBaseOf(name, metrics[0]);
  const figures = shareOf ? await source.figures(view.range) : null;
  const base = shareOf && figures && !isUnavailable(figures) ? shareOf(figures) : null;
  const overview = view.base;
  const path = `${overview}/${name}`;
  const title =
    which.name === 'property' ? `Property ${which.property}` : (TITLES.get(name) ?? name);
  const keep = {
    search,
    sort_by: sortBy,
    sort,
    ...(which.name === 'property' ? { property: which.property } : {}),
  };
  const link = (extra: Record<string, string | number | undefined>) =>
    viewHref(path, view, { ...keep, ...extra });
  const imported = await importsWithin(db, site.id, view.range);
  return render(c, {
    inPlace: true,
    title: `${title} · ${site.domain}`,
    children: (
      <>
        <p>
          <a href={viewHref(overview, view)}>← {site.domain}</a>
        </p>
        <h1>{title}</h1>
        <RangeNav path={path} view={view} keep={keep} />
        <FilterChips path={path} view={view} keep={keep} refused={refused} />
        <ImportedNotice imports={imported} filtered={view.filters.length > 0} />
        <SearchForms {...{ name, title, path, overview, view, listing }} />
        {isUnavailable(data) ? (
          <UnavailableNotice path={path} view={view} firstDate={data.firstDate} keep={keep} />
        ) : (
          <ValueTable
            {...{ name, title, view, listing, link, metrics }}
            domain={site.domain}
            rows={data.rows}
            total={data.total}
            base={base}
          />
        )}
      </>
    ),
  });
}
