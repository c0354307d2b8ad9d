/**
 * `/stats/{domain}`: the statistics page (docs/ARCHITECTURE.md, The HTTP contract) — the
 * overview, a statistic's full view and its CSV. Each route checks access (./stats-access.tsx),
 * parses the view from the address (range, filters, chart, search, sort, page), asks the
 * stats domain for the numbers and renders them (./stats-view.tsx). All state is in the URL,
 * so any view, filtered or not, can be shared.
 */
import { type Context, Hono } from 'hono';
import { MAX_PROP_NAME } from '../counting/query-dimensions.ts';
import type { Database } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import { realtimeVisitors } from '../event-log/client.ts';
import { listFunnels } from '../flows/funnels.ts';
import { listGoals } from '../goals/goals.ts';
import { importsWithin } from '../imports/store.ts';
import { seriesUnitOf } from '../lib/dates.ts';
import { type Overview, overviewOf } from '../stats/dashboard.ts';
import type { ChartMetric } from '../stats/figures.ts';
import { chartMetricsFor, formatFigure, formatNumber, SHOWN_FIGURES } from '../stats/overview.ts';
import { propertyNamesOf } from '../stats/properties.ts';
import { isGoalFilter, isUnavailable, sourceOf } from '../stats/source.ts';
import { FlowsPanel, registerFlowPages } from './flows.tsx';
import { render } from './layout.tsx';
import { notFound } from './shared-access.tsx';
import { readableSite, registerPasswordRoute, viewOf } from './stats-access.tsx';
import { Chart, chartMetric } from './stats-chart.tsx';
import { statisticCsv, statisticPage } from './stats-full.tsx';
import { chosenTabs, PANEL_NAMES, PanelGroups, PropertiesPanel } from './stats-panels.tsx';
import { UnavailableNotice } from './stats-rows.tsx';
import {
  change,
  FilterChips,
  ImportedNotice,
  RangeNav,
  type View,
  viewHref,
} from './stats-view.tsx';

/**
 * The range's figures, each with its change against the previous period, and the conversion
 * rate; a figure the chart can draw is a link that charts it (the one drawn is marked), as the
 * metric links above the chart do.
 */
function Totals({
  overview,
  chart,
}: {
  overview: Overview;
  chart: {
    metric: ChartMetric;
    drawable: readonly ChartMetric[];
    hrefFor: (m: ChartMetric) => string;
  };
}) {
  const drawable = (key: string): key is ChartMetric =>
    (chart.drawable as readonly string[]).includes(key);
  return (
    <section class="totals" aria-label="Totals">
      {SHOWN_FIGURES.map(([key, title]) => (
        <div class={chart.metric === key ? 'card charted' : 'card'}>
          <h2>
            {drawable(key) ? (
              <a
                href={chart.hrefFor(key)}
                aria-current={chart.metric === key ? 'true' : undefined}
                title={`Chart ${title.toLowerCase()}`}
              >
                {title}
              </a>
            ) : (
              title
            )}
          </h2>
          <p class="big">{formatFigure(key, overview.summary.data[key])}</p>
          <p class="hint">
            {change(overview.summary.data[key], overview.summary.previous[key])} vs previous period
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
  );
}

/**
 * The overview's custom properties, when the address asks for them — a property by its name
 * (`property`), or the list (`properties=1`): the names the range's hits carry (most carried
 * first) and the first values of the one named or, without one, of the first. Both are reads
 * of the log (the roll-ups keep no property), which an overview otherwise never makes.
 */
async function propertyOf(c: Context<AppEnv>, site: WebsiteRow, db: Database, view: View) {
  const asked = (c.req.query('property') ?? '').trim().slice(0, MAX_PROP_NAME);
  const listed = asked !== '' || c.req.query('properties') === '1';
  if (!listed) return { asked, listed, name: '', names: null, rows: null };
  const goals = view.filters.some(isGoalFilter) ? await listGoals(db, site.id) : [];
  const found = await propertyNamesOf(c.env, site.id, view.range, view.filters, goals);
  const names = isUnavailable(found) ? [] : found.map((n) => n.name);
  const name = asked || names[0] || '';
  if (name === '') return { asked, listed, name, names, rows: null };
  const source = await sourceOf(c.env, db, site.id, view.filters, goals);
  const page = await source.page({
    name: 'property',
    property: name,
    from: view.range.from,
    to: view.range.to,
    sortBy: 'count',
    sort: 'desc',
    limit: 10,
    offset: 0,
  });
  return { asked, listed, name, names, rows: isUnavailable(page) ? [] : page.rows };
}

/** `/stats/{domain}`: the figures, the chart and every statistic's first values. */
async function overviewPage(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const { view, refused } = await viewOf(c, site, db);
  const { range } = view;
  const metric = chartMetric(c.req.query('chart'), range.from === range.to);
  const compare = c.req.query('compare') === 'previous';
  const path = view.base;
  const overview = await overviewOf(c.env, db, site.id, range, view.filters, PANEL_NAMES, {
    compare,
  });
  // What the overview's links keep besides the view: the chart, the comparison, the tabs.
  const keep = {
    chart: metric === 'overview' ? undefined : metric,
    compare: compare ? 'previous' : undefined,
    ...chosenTabs(
      (name) => c.req.query(name),
      !isUnavailable(overview) && overview.goals.length > 0,
    ),
  };
  const property = await propertyOf(c, site, db, view);
  const kept = {
    ...keep,
    property: property.asked || undefined,
    properties: property.listed && !property.asked ? 1 : undefined,
  };
  const chartHref = (m: ChartMetric, comparing = compare) =>
    viewHref(path, view, {
      ...kept,
      chart: m === 'overview' ? undefined : m,
      compare: comparing ? 'previous' : undefined,
    });
  const funnels = await listFunnels(db, site.id);
  const imported = await importsWithin(db, site.id, range);
  return render(c, {
    title: `${site.domain} statistics`,
    children: (
      <>
        <div class="actions">
          <h1>{site.domain}</h1>
          {isUnavailable(overview) ? null : (
            <p class="live" role="status" data-live={`${path}/live.json`}>
              <strong>{formatNumber(overview.live)}</strong>{' '}
              <span data-unit>{overview.live === 1 ? 'visitor' : 'visitors'}</span> in the last 5
              minutes
            </p>
          )}
        </div>
        <RangeNav path={path} view={view} keep={kept} chart />
        <p class="hint">
          {range.from === range.to ? range.from : `${range.from} – ${range.to}`} ({site.timezone})
        </p>
        <FilterChips path={path} view={view} keep={kept} refused={refused} />
        <ImportedNotice imports={imported} filtered={view.filters.length > 0} />
        {isUnavailable(overview) ? (
          <UnavailableNotice path={path} view={view} firstDate={overview.firstDate} keep={kept} />
        ) : (
          <>
            <Totals
              overview={overview}
              chart={{
                metric,
                drawable: chartMetricsFor(range.from === range.to),
                hrefFor: chartHref,
              }}
            />
            <Chart
              points={overview.series}
              previous={overview.previousSeries}
              unit={seriesUnitOf(range)}
              metric={metric}
              compare={compare}
              hrefFor={chartHref}
            />
            <div class="panels">
              <PanelGroups overview={overview} domain={site.domain} view={view} keep={kept} />
              <PropertiesPanel
                property={property.name}
                names={property.names}
                rows={property.rows}
                overview={overview}
                view={view}
                keep={keep}
              />
              <FlowsPanel funnels={funnels} view={view} />
            </div>
          </>
        )}
      </>
    ),
  });
}

/**
 * `/stats/{domain}/live.json`: the visitors of the last 5 minutes, which the overview's figure
 * asks for every 30 seconds while the page is shown (when JavaScript runs): the same access
 * and readers' limits as the page.
 */
async function liveVisitors(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) throw notFound();
  const visitors = await realtimeVisitors(c.env, found.site.id, Date.now());
  return c.json({ visitors, formatted: formatNumber(visitors) });
}

export function createStatsPages() {
  const pages = new Hono<AppEnv>();
  registerPasswordRoute(pages);
  pages.get('/:domain', overviewPage);
  pages.get('/:domain/live.json', liveVisitors);
  registerFlowPages(pages);
  pages.get('/:domain/:name{[a-z_]+\\.csv}', statisticCsv);
  pages.get('/:domain/:name{[a-z_]+}', statisticPage);
  return pages;
}
