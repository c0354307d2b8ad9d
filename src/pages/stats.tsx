/**
 * `/stats/{domain}`: the statistics page (docs/ARCHITECTURE.md, The HTTP contract) — the
 * overview, a statistic's full view and its CSV. Each route checks access (./stats-access.tsx),
 * parses the view from the address (range, filters, chart, search, sort, page), asks the
 * stats domain for the numbers and renders them (./stats-view.tsx). All state is in the URL,
 * so any view, filtered or not, can be shared.
 */
import { type Context, Hono } from 'hono';
import type { Database } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { csvFile } from '../lib/csv.ts';
import { resolveRange, seriesUnitOf } from '../lib/dates.ts';
import { ApiError } from '../lib/errors.ts';
import { overviewOf } from '../stats/dashboard.ts';
import { isFilterDimension, parseFilters } from '../stats/filters.ts';
import { STAT_NAMES, type StatName } from '../stats/names.ts';
import { formatFigure, formatNumber, SHOWN_FIGURES } from '../stats/overview.ts';
import { firstRollupDate } from '../stats/queries.ts';
import { isUnavailable, sourceOf } from '../stats/source.ts';
import { render } from './layout.tsx';
import { notFound, readableSite, registerPasswordRoute, type Site } from './stats-access.tsx';
import { Chart, chartMetric } from './stats-chart.tsx';
import {
  change,
  FilterChips,
  HiddenFields,
  PANELS,
  RangeNav,
  TITLES,
  UnavailableNotice,
  ValueRows,
  type View,
  viewHref,
  viewParams,
} from './stats-view.tsx';

/**
 * The view an address asks for, and the filter parameters it named that could not be used.
 * "All time" starts at the website's oldest date with data.
 */
async function viewOf(
  c: Context<AppEnv>,
  site: Site,
  db: Database,
): Promise<{ view: View; refused: string[] }> {
  const { filters, errors } = parseFilters(new URL(c.req.url).searchParams);
  const query = c.req.query();
  const first = query.range === 'all' ? await firstRollupDate(db, site.id) : null;
  return {
    view: { range: resolveRange(query, site.timezone, Date.now(), first), filters },
    refused: Object.keys(errors),
  };
}

/** The statistic named in the path (`:name`, `.csv` stripped), or the page's 404. */
function statisticOf(c: Context<AppEnv>): StatName {
  const name = (c.req.param('name') ?? '').replace(/\.csv$/, '');
  if (!(STAT_NAMES as readonly string[]).includes(name)) throw notFound();
  return name as StatName;
}

export function createStatsPages() {
  const pages = new Hono<AppEnv>();
  registerPasswordRoute(pages);

  pages.get('/:domain', async (c) => {
    const found = await readableSite(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const { view, refused } = await viewOf(c, site, db);
    const { range } = view;
    const hourly = range.from === range.to;
    const metric = chartMetric(c.req.query('chart'), hourly);
    const keep = { chart: metric === 'overview' ? undefined : metric };
    const path = `/stats/${site.domain}`;
    const overview = await overviewOf(
      c.env,
      db,
      site.id,
      range,
      view.filters,
      PANELS.map(([name]) => name),
    );
    return render(c, {
      title: `${site.domain} statistics`,
      children: (
        <>
          <div class="actions">
            <h1>{site.domain}</h1>
            {isUnavailable(overview) ? null : (
              <p class="live" role="status">
                <strong>{formatNumber(overview.live)}</strong>{' '}
                {overview.live === 1 ? 'visitor' : 'visitors'} in the last 5 minutes
              </p>
            )}
          </div>
          <RangeNav path={path} view={view} keep={keep} />
          <p class="hint">
            {range.from === range.to ? range.from : `${range.from} – ${range.to}`} ({site.timezone})
          </p>
          <FilterChips path={path} view={view} keep={keep} refused={refused} />
          {isUnavailable(overview) ? (
            <UnavailableNotice path={path} view={view} firstDate={overview.firstDate} keep={keep} />
          ) : (
            <>
              <section class="totals" aria-label="Totals">
                {SHOWN_FIGURES.map(([key, title]) => (
                  <div class="card">
                    <h2>{title}</h2>
                    <p class="big">{formatFigure(key, overview.summary.data[key])}</p>
                    <p class="hint">
                      {change(overview.summary.data[key], overview.summary.previous[key])} vs
                      previous period
                    </p>
                  </div>
                ))}
                {overview.conversion ? (
                  <div class="card">
                    <h2>Conversion rate</h2>
                    <p class="big">{overview.conversion.rate}%</p>
                    <p class="hint">{overview.conversion.previous}% in the previous period</p>
                  </div>
                ) : null}
              </section>
              <Chart
                points={overview.series}
                unit={seriesUnitOf(range)}
                metric={metric}
                hrefFor={(m) => viewHref(path, view, { chart: m === 'overview' ? undefined : m })}
              />
              <div class="panels">
                {PANELS.map(([name, title], i) => {
                  const data = overview.panels[i];
                  return (
                    <section class="card panel" aria-labelledby={`panel-${name}`}>
                      <h2 id={`panel-${name}`}>{title}</h2>
                      {data && data.rows.length > 0 ? (
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">{title}</th>
                              <th scope="col" class="num">
                                Count
                              </th>
                            </tr>
                          </thead>
                          <ValueRows
                            name={name}
                            rows={data.rows}
                            domain={site.domain}
                            view={view}
                          />
                        </table>
                      ) : (
                        <p class="hint">No data for this range.</p>
                      )}
                      <p class="actions">
                        <a href={viewHref(`${path}/${name}`, view)}>
                          Show all {data?.total ? `(${formatNumber(data.total)})` : ''}
                        </a>
                        <a href={viewHref(`${path}/${name}.csv`, view)}>CSV</a>
                      </p>
                    </section>
                  );
                })}
              </div>
            </>
          )}
        </>
      ),
    });
  });

  pages.get('/:domain/:name{[a-z_]+\\.csv}', async (c) => {
    const found = await readableSite(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const name = statisticOf(c);
    const { view } = await viewOf(c, site, db);
    const source = await sourceOf(c.env, db, site.id, view.filters);
    const answer = await source.page({
      name,
      from: view.range.from,
      to: view.range.to,
      search: c.req.query('search') || undefined,
      sortBy: 'count',
      sort: 'desc',
      limit: 100_000,
      offset: 0,
    });
    if (isUnavailable(answer))
      throw new ApiError(
        422,
        `Filtered statistics are kept from ${answer.firstDate} on: choose a range that starts then or later.`,
      );
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header(
      'Content-Disposition',
      `attachment; filename="${site.domain}-${name}-${view.range.from}-${view.range.to}.csv"`,
    );
    return c.body(
      csvFile(
        ['value', 'count'],
        answer.rows.map((r) => [r.value, r.count]),
      ),
    );
  });

  pages.get('/:domain/:name{[a-z_]+}', async (c) => {
    const found = await readableSite(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const name = statisticOf(c);
    const { view, refused } = await viewOf(c, site, db);
    const search = (c.req.query('search') ?? '').slice(0, 255);
    const sortBy = c.req.query('sort_by') === 'value' ? 'value' : 'count';
    const sort = c.req.query('sort') === 'asc' ? 'asc' : 'desc';
    const page = Math.max(
      1,
      Math.min(1_000_000, Number.parseInt(c.req.query('page') ?? '1', 10) || 1),
    );
    const perPage = 25;
    const lastPage = (total: number) => Math.max(1, Math.ceil(total / perPage));
    const source = await sourceOf(c.env, db, site.id, view.filters);
    const data = await source.page({
      name,
      from: view.range.from,
      to: view.range.to,
      search: search || undefined,
      sortBy,
      sort,
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    const overview = `/stats/${site.domain}`;
    const path = `${overview}/${name}`;
    const title = TITLES.get(name) ?? name;
    const keep = { search, sort_by: sortBy, sort };
    const link = (extra: Record<string, string | number | undefined>) =>
      viewHref(path, view, { ...keep, ...extra });
    const sortLink = (by: 'value' | 'count') =>
      link({
        sort_by: by,
        sort: sortBy === by && sort === 'desc' ? 'asc' : 'desc',
        page: undefined,
      });
    const ariaSort = (by: 'value' | 'count') =>
      sortBy === by ? (sort === 'asc' ? 'ascending' : 'descending') : undefined;
    const filterable = isFilterDimension(name);
    return render(c, {
      title: `${title} · ${site.domain}`,
      children: (
        <>
          <p>
            <a href={viewHref(overview, view)}>← {site.domain}</a>
          </p>
          <h1>{title}</h1>
          <RangeNav path={path} view={view} keep={keep} />
          <FilterChips path={path} view={view} keep={keep} refused={refused} />
          <form method="get" action={path} class="actions search">
            <HiddenFields params={viewParams(view, { sort_by: sortBy, sort })} />
            <label for="search" class="sr-only">
              Search {title.toLowerCase()}
            </label>
            <input id="search" name="search" type="search" value={search} placeholder="Search" />
            <button type="submit" class="secondary">
              Search
            </button>
            <a href={viewHref(`${path}.csv`, view, { search })}>Export CSV</a>
          </form>
          {filterable ? (
            <form method="get" action={overview} class="actions search">
              <HiddenFields params={viewParams(view)} />
              <label for="contains">
                Filter the statistics by {title.toLowerCase()} containing
              </label>
              <input id="contains" name={`filter[${name}][contains]`} type="search" required />
              <button type="submit" class="secondary">
                Filter
              </button>
            </form>
          ) : null}
          {isUnavailable(data) ? (
            <UnavailableNotice path={path} view={view} firstDate={data.firstDate} keep={keep} />
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th scope="col" aria-sort={ariaSort('value')}>
                      <a href={sortLink('value')}>{title}</a>
                    </th>
                    {filterable ? (
                      <th scope="col">
                        <span class="sr-only">Exclude</span>
                      </th>
                    ) : null}
                    <th scope="col" class="num" aria-sort={ariaSort('count')}>
                      <a href={sortLink('count')}>Count</a>
                    </th>
                  </tr>
                </thead>
                <ValueRows name={name} rows={data.rows} domain={site.domain} view={view} exclude />
              </table>
              {data.rows.length === 0 ? <p class="hint">Nothing found.</p> : null}
              <nav class="actions" aria-label="Pages">
                {page > 1 ? <a href={link({ page: page - 1 })}>← Previous</a> : null}
                <span>
                  {`Page ${page} of ${lastPage(data.total)} (${formatNumber(data.total)} values)`}
                </span>
                {page < lastPage(data.total) ? <a href={link({ page: page + 1 })}>Next →</a> : null}
              </nav>
            </>
          )}
        </>
      ),
    });
  });

  return pages;
}
