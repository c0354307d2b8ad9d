/**
 * `/stats/{domain}`: the statistics page (docs/ARCHITECTURE.md, The HTTP contract) — the
 * overview, a statistic's full view and its CSV. Each route checks access (./gate.tsx),
 * parses the view from the address (range, filters, chart, search, sort, page), asks the
 * stats domain for the numbers and renders them (./view.tsx). All state is in the URL,
 * so any view, filtered or not, can be shared.
 */
import { type Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { listAnnotations } from '../../annotations/annotations.ts';
import { MAX_PROP_NAME } from '../../counting/query-dimensions.ts';
import type { Database } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { listFunnels } from '../../flows/funnels.ts';
import { localDateHour, type SeriesUnit, seriesUnitOf } from '../../lib/time/dates.ts';
import type { FilterDimension } from '../../query/parse/v1.ts';
import { type Comparison, comparisonOf, sameHoursAsToday } from '../../query/present/comparison.ts';
import type { ChartMetric } from '../../query/present/figures.ts';
import { isUnavailable } from '../../query/present/numbers.ts';
import type { Overview } from '../../query/present/overview.ts';
import {
  chartMetricsFor,
  comparedLabel,
  formatNumber,
  rangeLabel,
} from '../../query/present/readable.ts';
import {
  type PageQuestion,
  type StatisticsPage,
  statisticsPageOf,
} from '../../query/present/statistics-page.ts';
import { realtimeVisitors } from '../../website-log/worker/partitions.ts';
import { render } from '../layout/layout.tsx';
import { notFound } from '../sharing/link-access.tsx';
import { statsReader, websiteLinks } from '../websites/website-switcher.tsx';
import {
  AnnotationsSection,
  annotatorOf,
  chartNotes,
  registerAnnotationPages,
} from './annotation-forms.tsx';
import { Chart, type CompareParams, chartMetric } from './chart/chart.tsx';
import { IntervalNav, pointUnderWay } from './chart/chart-parts.tsx';
import { addedFilterHref } from './filter-menu.tsx';
import { FlowsPanel, registerFlowPages } from './flow-pages.tsx';
import { statisticCsv, statisticPage, statisticValues } from './full-view.tsx';
import { readableSite, registerPasswordRoute, viewOf } from './gate.tsx';
import { PageHead, switcherParams } from './page-head.tsx';
import { UnavailableNotice } from './panels/panel-rows.tsx';
import { chosenTabs, PanelAlone, PanelGroups, panelPart, panelsAsked } from './panels/panels.tsx';
import { PropertiesPanel } from './panels/properties-card.tsx';
import { realtimePage } from './panels/realtime.tsx';
import { registerSegmentPages, segmentMenuOf } from './segment-menu.tsx';
import { figureScopes, Totals } from './totals.tsx';
import { type Extra, ImportedNotice, type View, viewHref } from './view.tsx';

/**
 * The overview's chart: the point under way (today, the hour under way) drawn as partial; under
 * it, the units it can be drawn in.
 */
const OverviewChart: FC<{
  overview: Overview;
  range: { from: string; to: string };
  timeZone: string;
  metric: ChartMetric;
  /** What the page compares with; null: nothing. */
  compared: Comparison | null;
  hrefFor: Parameters<typeof Chart>[0]['hrefFor'];
  notes: Awaited<ReturnType<typeof listAnnotations>>;
  unit: SeriesUnit;
  /** The address of the overview with its chart in another unit. */
  intervalHref: (unit: SeriesUnit) => string;
}> = ({ overview, range, timeZone, metric, compared, hrefFor, notes, unit, intervalHref }) => (
  <>
    <Chart
      points={overview.series}
      previous={overview.previousSeries}
      unit={unit}
      metric={metric}
      // Each range with its year when the two are of different years (`Mar 1–31, 2025`).
      rangeText={rangeLabel(range, compared?.to.slice(0, 4))}
      comparedTo={compared ? comparedLabel(compared, range.to.slice(0, 4)) : null}
      comparing={compared ? compared.mode : null}
      hrefFor={hrefFor}
      notes={chartNotes(notes, overview.series, unit, range)}
      from={range.from}
      underWay={pointUnderWay(overview.series, unit, range, localDateHour(Date.now(), timeZone))}
      later={compared !== null && overview.later?.compared === true}
    />
    <IntervalNav range={range} unit={unit} hrefFor={intervalHref} />
  </>
);

/**
 * The custom property the address names (`property`), or whether it asks for their list
 * (`properties=1`): the overview then reads them from the log, which it otherwise never does.
 */
function propertyAsked(c: Context<AppEnv>) {
  const asked = (c.req.query('property') ?? '').trim().slice(0, MAX_PROP_NAME);
  return { asked, listed: asked !== '' || c.req.query('properties') === '1' };
}

/**
 * The comparison the address asks for (`compare`: `previous`, `year`, `custom` with
 * `compare_from` and `compare_to`), drawn on the chart, and its parameters for the page's links;
 * without one (or with one that cannot be used), the figures' changes are against the period
 * before.
 */
function comparisonAsked(
  c: Context<AppEnv>,
  range: { from: string; to: string },
  timeZone: string,
) {
  const asked = comparisonOf(range, {
    compare: c.req.query('compare'),
    from: c.req.query('compare_from'),
    to: c.req.query('compare_to'),
  });
  const hours = (compared: Comparison) => sameHoursAsToday(compared, range, Date.now(), timeZone);
  if ('errors' in asked || c.req.query('compare') === undefined)
    return {
      compare: false,
      compared: hours(comparisonOf(range, {}) as Comparison),
      comparing: {},
    };
  const custom = asked.mode === 'custom' ? { compare_from: asked.from, compare_to: asked.to } : {};
  return { compare: true, compared: hours(asked), comparing: { compare: asked.mode, ...custom } };
}

/**
 * What the overview's links keep besides the view: the chart and its interval, the
 * comparison, the tabs chosen.
 */
function keptOf(
  c: Context<AppEnv>,
  shown: {
    range: { from: string; to: string };
    metric: ChartMetric;
    unit: SeriesUnit;
    comparing: Extra;
    hasGoals: StatisticsPage['hasGoals'];
  },
) {
  const { range, metric, unit, comparing, hasGoals } = shown;
  return {
    chart: metric === 'overview' ? undefined : metric,
    interval: unit === seriesUnitOf(range) ? undefined : unit,
    ...comparing,
    ...chosenTabs((name) => c.req.query(name), hasGoals),
  };
}

/** What the overview's links keep, with the custom property the address names or lists. */
const withProperty = (keep: Extra, property: ReturnType<typeof propertyAsked>): Extra => ({
  ...keep,
  property: property.asked || undefined,
  properties: property.listed && !property.asked ? 1 : undefined,
});

/** The overview's address with the chart drawing `m` (and another comparison, or none). */
const chartHrefOf =
  (view: View, kept: Extra) => (m: ChartMetric, comparison?: CompareParams | false) =>
    viewHref(view.base, view, {
      ...kept,
      ...(comparison === undefined
        ? {}
        : { compare: undefined, compare_from: undefined, compare_to: undefined, ...comparison }),
      chart: m === 'overview' ? undefined : m,
    });

/**
 * Everything the overview reads, together: its numbers in one call of the query pipeline's
 * present stage, and beside them the page's lists (funnels, the reader's segments, the range's
 * annotations, the reader's other websites).
 */
async function pageReads(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
  q: PageQuestion,
  view: View,
) {
  const reader = statsReader(c);
  const [numbers, funnels, segmentMenu, notes, annotator, links] = await Promise.all([
    statisticsPageOf(c.env, db, site.id, q),
    listFunnels(db, site.id),
    segmentMenuOf(c, db, site),
    listAnnotations(db, site.id, q.range),
    annotatorOf(c),
    reader ? websiteLinks(db, reader, site, 'stats', switcherParams(view)) : null,
  ]);
  return { numbers, funnels, segmentMenu, notes, annotator, links, reader };
}

/**
 * `/stats/{domain}`: the overview, or its realtime view (`range=realtime`); a filter menu's
 * answer redirects to the address that names its filter.
 */
async function statisticsPage(c: Context<AppEnv>) {
  const added = addedFilterHref(c);
  if (added) return c.redirect(added, 303);
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const viewed = await viewOf(c, site, db);
  if (viewed.view.range.name === 'realtime') return realtimePage(c, site, db, viewed);
  const part = panelPart(c.req.header('Sightline-Part'));
  return part ? panelAlone(c, site, db, viewed, part) : overviewPage(c, site, db, viewed);
}

/**
 * A tab's panel alone (`panelPart`: the page's script loads a tab so, in place), read as the
 * overview reads it — its rows, the figures their shares are of, their changes when comparing
 * — and nothing else of the page; the whole overview when the range cannot be read so.
 */
async function panelAlone(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
  viewed: Awaited<ReturnType<typeof viewOf>>,
  name: FilterDimension,
) {
  const { view } = viewed;
  const { range } = view;
  const { compare, compared, comparing } = comparisonAsked(c, range, site.timezone);
  const unit = seriesUnitOf(range, c.req.query('interval'));
  const question = { range, filters: view.filters, compare, compared, unit };
  const numbers = await statisticsPageOf(c.env, db, site.id, {
    ...question,
    panels: () => [name],
    property: { asked: '', listed: false },
    panelsOnly: true,
  });
  const { overview, hasGoals } = numbers;
  if (isUnavailable(overview)) return overviewPage(c, site, db, viewed);
  const metric = chartMetric(c.req.query('chart'), range.from === range.to);
  const keep = withProperty(
    keptOf(c, { range, metric, unit, comparing, hasGoals }),
    propertyAsked(c),
  );
  return c.html(
    <PanelAlone
      overview={overview}
      domain={site.domain}
      view={view}
      keep={keep}
      name={name}
      hasGoals={hasGoals}
    />,
  );
}

/** The overview: the figures, the chart and every statistic's first values. */
async function overviewPage(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
  { view, refused }: Awaited<ReturnType<typeof viewOf>>,
) {
  const { range } = view;
  const metric = chartMetric(c.req.query('chart'), range.from === range.to);
  const { compare, compared, comparing } = comparisonAsked(c, range, site.timezone);
  const { base: path, filters } = view;
  const unit = seriesUnitOf(range, c.req.query('interval'));
  const panels = (goals: boolean) => panelsAsked((n) => c.req.query(n), goals, filters.length > 0);
  const propertyAsk = propertyAsked(c);
  // A change made in place (htmx's request) shows its figures first, the rest follows; a page
  // loaded whole is complete (docs/ARCHITECTURE.md, "The statistics page").
  const later = c.req.header('HX-Request') === 'true';
  const q = { range, panels, compare, compared, unit, later, property: propertyAsk };
  const read = await pageReads(c, site, db, { ...q, filters }, view);
  const { numbers, funnels, segmentMenu, notes, annotator, links, reader } = read;
  const { overview, property, imported, asked, hasGoals } = numbers;
  const keep = keptOf(c, { range, metric, unit, comparing, hasGoals });
  const kept = withProperty(keep, propertyAsk);
  const chartHref = chartHrefOf(view, kept);
  const funnelsMade = reader?.admin ? `/websites/${site.id}/funnels` : undefined;
  return render(c, {
    inPlace: true,
    title: `${site.domain} statistics`,
    children: (
      <>
        <PageHead
          c={c}
          domain={site.domain}
          view={view}
          kept={kept}
          refused={refused}
          links={links}
          live={isUnavailable(overview) ? null : overview.live}
          segmentMenu={segmentMenu}
          comparison={{
            shown: compare ? compared : null,
            hrefFor: (comparison) => chartHref(metric, comparison),
          }}
        />
        <ImportedNotice imports={imported} filtered={view.filters.length > 0} />
        {isUnavailable(overview) ? (
          <UnavailableNotice path={path} view={view} firstDate={overview.firstDate} keep={kept} />
        ) : (
          <>
            <Totals
              overview={overview}
              versus={comparedLabel(compared, range.to.slice(0, 4))}
              scopes={figureScopes(view.filters)}
              chart={{
                metric,
                drawable: chartMetricsFor(range.from === range.to),
                hrefFor: chartHref,
              }}
            />
            <OverviewChart
              overview={overview}
              range={range}
              timeZone={site.timezone}
              metric={metric}
              compared={compare ? compared : null}
              hrefFor={chartHref}
              notes={notes}
              unit={unit}
              intervalHref={(u) =>
                viewHref(path, view, {
                  ...kept,
                  interval: u === seriesUnitOf(range) ? undefined : u,
                })
              }
            />
            <AnnotationsSection path={path} view={view} notes={notes} annotator={annotator} />
            <div class="panels">
              <PanelGroups
                overview={overview}
                domain={site.domain}
                view={view}
                keep={kept}
                asked={asked as FilterDimension[]}
                hasGoals={hasGoals}
              />
              <PropertiesPanel
                property={property.name}
                names={property.names}
                rows={property.rows}
                carriers={property.carriers}
                view={view}
                keep={keep}
              />
              <FlowsPanel funnels={funnels} view={view} made={funnelsMade} />
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
  if (found instanceof Response || c.get('linkSegment')) throw notFound();
  const visitors = await realtimeVisitors(c.env, found.site.id, Date.now());
  return c.json({ visitors, formatted: formatNumber(visitors) });
}

export function createStatsPages() {
  const pages = new Hono<AppEnv>();
  registerPasswordRoute(pages);
  pages.get('/:domain', statisticsPage);
  pages.get('/:domain/live.json', liveVisitors);
  registerFlowPages(pages);
  registerSegmentPages(pages);
  registerAnnotationPages(pages);
  pages.get('/:domain/:name{[a-z_]+\\.csv}', statisticCsv);
  pages.get('/:domain/:name{[a-z_]+\\.json}', statisticValues);
  pages.get('/:domain/:name{[a-z_]+}', statisticPage);
  return pages;
}
