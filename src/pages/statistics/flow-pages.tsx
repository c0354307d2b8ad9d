/**
 * The statistics page's funnels and journeys (docs/ARCHITECTURE.md, "Funnels and journeys"):
 * `/stats/{domain}/funnels/{id}` shows a saved funnel's steps — a bar each, its visitors,
 * conversion and drop-off — and `/stats/{domain}/journeys?page=/pricing` the paths visits
 * took from or to a page; each follows the page's range and filters (a funnel's page has the
 * overview's filter menu and, for the website's team, its segments), and has its CSV. Access
 * is the statistics page's (./gate.tsx).
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { JOURNEY_STEPS, type JourneyAnswer } from '../../counting/flow-queries.ts';
import type { AppEnv } from '../../env.ts';
import { findFunnel } from '../../flows/funnels.ts';
import { type FunnelStepAnswer, funnelOf, journeysOf } from '../../flows/questions.ts';
import { listGoals } from '../../goals/goals.ts';
import { parseId } from '../../lib/ids.ts';
import { csvFile } from '../../lib/text/csv.ts';
import { MAX_FILTER_LENGTH } from '../../query/parse/v1.ts';
import { isUnavailable, type Unavailable } from '../../query/present/numbers.ts';
import { formatNumber } from '../../query/present/readable.ts';
import { render } from '../layout/layout.tsx';
import { notFound } from '../sharing/link-access.tsx';
import { RangeNav } from './date-menu.tsx';
import { addedFilterHref, FilterMenu } from './filter-menu.tsx';
import { readableSite, viewOf } from './gate.tsx';
import {
  Bar,
  BarCell,
  csvDownload,
  pageNumber,
  UnavailableNotice,
  unavailableCsv,
} from './panels/panel-rows.tsx';
import { SegmentMenu, segmentMenuOf } from './segment-menu.tsx';
import { FilterChips, HiddenFields, type View, viewHref, viewParams } from './view.tsx';

/** The funnel of the address and its steps over the view, or the page's 404. */
async function funnelView(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const id = parseId((c.req.param('funnel') ?? '').replace(/\.csv$/, ''));
  const funnel = id === null ? undefined : await findFunnel(db, site.id, id);
  if (!funnel) throw notFound();
  const { view, refused, goals = await listGoals(db, site.id) } = await viewOf(c, site, db);
  const steps = await funnelOf(c.env, site.id, funnel, view.range, view.filters, goals);
  return { site, db, funnel, view, refused, steps };
}

const StepsTable: FC<{ steps: FunnelStepAnswer[] }> = ({ steps }) => (
  <table class="funnel">
    <thead>
      <tr>
        <th scope="col">Step</th>
        <th scope="col" class="num">
          Visitors
        </th>
        <th scope="col" class="num">
          Conversion
        </th>
        <th scope="col" class="num">
          Drop-off
        </th>
      </tr>
    </thead>
    <tbody>
      {steps.map((s) => (
        <tr>
          <td>
            {`${s.step}. ${s.label}`}
            <Bar share={s.conversion_rate} />
          </td>
          <td class="num">{formatNumber(s.visitors)}</td>
          <td class="num">{`${s.conversion_rate}%`}</td>
          <td class="num">
            {s.step === 1 ? '' : `${formatNumber(s.dropoff)} (${s.dropoff_rate}%)`}
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);

/**
 * How the funnel counts, against a goal's visitors: a goal of the last step counts more
 * visitors, and readers ask why.
 */
const HowItCounts: FC = () => (
  <p class="hint">
    A visitor counts at a step only if, on one day, they took every step before it in this order (in
    one visit or several). A goal counts everyone who converted, whatever they did before: so it may
    count many more visitors than the same step here.
  </p>
);

/**
 * `/stats/{domain}/funnels/{id}`, under the address's range, filters and segments (the
 * overview's: the same chips and filter menu, whose answer redirects to the address naming
 * its filter).
 */
async function funnelPage(c: Context<AppEnv>) {
  const added = addedFilterHref(c);
  if (added) return c.redirect(added, 303);
  const shown = await funnelView(c);
  if (shown instanceof Response) return shown;
  const { site, db, funnel, view, refused, steps } = shown;
  const overview = view.base;
  const path = `${overview}/funnels/${funnel.id}`;
  const segmentMenu = await segmentMenuOf(c, db, site);
  return render(c, {
    inPlace: true,
    title: `${funnel.name} · ${site.domain}`,
    children: (
      <>
        <p>
          <a href={viewHref(overview, view)}>← {site.domain}</a>
        </p>
        <h1>Funnel: {funnel.name}</h1>
        <RangeNav path={path} view={view} />
        <FilterChips path={path} view={view} refused={refused} />
        <FilterMenu view={view} keep={{}} action={path} />
        {segmentMenu ? <SegmentMenu path={path} view={view} keep={{}} menu={segmentMenu} /> : null}
        {isUnavailable(steps) ? (
          <UnavailableNotice path={path} view={view} firstDate={steps.firstDate} />
        ) : (
          <>
            <StepsTable steps={steps} />
            <HowItCounts />
          </>
        )}
        <p class="actions">
          <a href={viewHref(`${path}.csv`, view)} hx-boost="false" download>
            Export CSV
          </a>
        </p>
      </>
    ),
  });
}

/** `/stats/{domain}/funnels/{id}.csv`. */
async function funnelCsv(c: Context<AppEnv>) {
  const shown = await funnelView(c);
  if (shown instanceof Response) return shown;
  const { site, funnel, view, steps } = shown;
  if (isUnavailable(steps)) throw unavailableCsv(steps);
  const header = ['step', 'label', 'visitors', 'conversion_rate', 'dropoff', 'dropoff_rate'];
  const rows = steps.map((s) => [
    s.step,
    s.label,
    s.visitors,
    s.conversion_rate,
    s.dropoff,
    s.dropoff_rate,
  ]);
  return csvDownload(c, `${site.domain}-funnel-${funnel.name}`, view, csvFile(header, rows));
}

const PER_PAGE = 25;

/** What a journeys view asks for: the page, the direction, the steps, the page of paths. */
function journeyOf(c: Context<AppEnv>) {
  const steps = Number.parseInt(c.req.query('steps') ?? '1', 10);
  return {
    page: (c.req.query('page') ?? '').trim().slice(0, MAX_FILTER_LENGTH),
    direction: c.req.query('direction') === 'previous' ? ('previous' as const) : ('next' as const),
    steps: steps >= 1 && steps <= JOURNEY_STEPS ? steps : 1,
    number: pageNumber(c.req.query('page_number')),
  };
}
type Journey = ReturnType<typeof journeyOf>;

/** The paths of the address's journey over the view (none without a page). */
async function journeyView(c: Context<AppEnv>, perPage: number) {
  const found = await readableSite(c);
  if (found instanceof Response) return found;
  const { site, db } = found;
  const journey = journeyOf(c);
  // The goals a goal filter names: read by `viewOf`, which checks them.
  const { view, refused, goals = [] } = await viewOf(c, site, db);
  const answer: JourneyAnswer | Unavailable =
    journey.page === ''
      ? { rows: [], total: 0 }
      : await journeysOf(
          c.env,
          site.id,
          {
            ...journey,
            from: view.range.from,
            to: view.range.to,
            sortBy: 'count',
            sort: 'desc',
            limit: perPage,
            offset: (journey.number - 1) * perPage,
          },
          view.filters,
          goals,
        );
  return { site, journey, view, refused, answer };
}

/** The page box and the choices of direction and steps. */
const JourneyForm: FC<{ path: string; view: View; journey: Journey }> = ({
  path,
  view,
  journey,
}) => (
  <form method="get" action={path} class="actions search">
    <HiddenFields params={viewParams(view)} />
    <label for="journey-page">Page</label>
    <input id="journey-page" name="page" type="search" value={journey.page} required />
    <label for="journey-direction" class="sr-only">
      Direction
    </label>
    <select id="journey-direction" name="direction">
      <option value="next" selected={journey.direction === 'next'}>
        What they did next
      </option>
      <option value="previous" selected={journey.direction === 'previous'}>
        Where they came from
      </option>
    </select>
    <label for="journey-steps" class="sr-only">
      Steps
    </label>
    <select id="journey-steps" name="steps">
      {Array.from({ length: JOURNEY_STEPS }, (_, i) => i + 1).map((n) => (
        <option value={String(n)} selected={journey.steps === n}>
          {n === 1 ? '1 page' : `${n} pages`}
        </option>
      ))}
    </select>
    <button type="submit" class="secondary">
      Show
    </button>
  </form>
);

/** `/stats/{domain}/journeys?page=…&direction=…&steps=…`. */
async function journeysPage(c: Context<AppEnv>) {
  const shown = await journeyView(c, PER_PAGE);
  if (shown instanceof Response) return shown;
  const { site, journey, view, refused, answer } = shown;
  const overview = view.base;
  const path = `${overview}/journeys`;
  const keep = { page: journey.page, direction: journey.direction, steps: journey.steps };
  const link = (n: number) => viewHref(path, view, { ...keep, page_number: n });
  const lastPage = isUnavailable(answer) ? 1 : Math.max(1, Math.ceil(answer.total / PER_PAGE));
  return render(c, {
    inPlace: true,
    title: `Journeys · ${site.domain}`,
    children: (
      <>
        <p>
          <a href={viewHref(overview, view)}>← {site.domain}</a>
        </p>
        <h1>Journeys</h1>
        <RangeNav path={path} view={view} keep={keep} />
        <FilterChips path={path} view={view} keep={keep} refused={refused} />
        <JourneyForm path={path} view={view} journey={journey} />
        {isUnavailable(answer) ? (
          <UnavailableNotice path={path} view={view} firstDate={answer.firstDate} keep={keep} />
        ) : journey.page === '' ? (
          <p class="hint">Name a page to see the paths visits took from it or to it.</p>
        ) : (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col" class="num">
                    Visits
                  </th>
                </tr>
              </thead>
              <tbody>
                {answer.rows.map((row) => (
                  <tr>
                    <BarCell count={row.visits} max={Math.max(...answer.rows.map((r) => r.visits))}>
                      {row.path.join(' → ')}
                    </BarCell>
                    <td class="num">{formatNumber(row.visits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {answer.rows.length === 0 ? <p class="hint">No visit viewed this page.</p> : null}
            <nav class="actions" aria-label="Pages">
              {journey.number > 1 ? <a href={link(journey.number - 1)}>← Previous</a> : null}
              <span>{`Page ${journey.number} of ${lastPage} (${formatNumber(answer.total)} paths)`}</span>
              {journey.number < lastPage ? <a href={link(journey.number + 1)}>Next →</a> : null}
            </nav>
            <p class="actions">
              <a href={viewHref(`${path}.csv`, view, keep)} hx-boost="false" download>
                Export CSV
              </a>
            </p>
          </>
        )}
      </>
    ),
  });
}

/** `/stats/{domain}/journeys.csv`: every path, a column per page. */
async function journeysCsv(c: Context<AppEnv>) {
  const shown = await journeyView(c, 100_000);
  if (shown instanceof Response) return shown;
  const { site, journey, view, answer } = shown;
  if (isUnavailable(answer)) throw unavailableCsv(answer);
  const pages = Array.from({ length: journey.steps + 1 }, (_, i) => `page_${i + 1}`);
  const rows = answer.rows.map((row) => [...pages.map((_, i) => row.path[i] ?? ''), row.visits]);
  return csvDownload(
    c,
    `${site.domain}-journeys-${journey.direction}`,
    view,
    csvFile([...pages, 'visits'], rows),
  );
}

/**
 * The overview's funnels and journeys: each saved funnel linked to its view, and a page box
 * that opens its journeys — all under the overview's range and filters.
 */
export const FlowsPanel: FC<{
  funnels: { id: number; name: string }[];
  view: View;
  /** Where the funnels are made (the website's settings), for those who may make them. */
  made?: string | undefined;
}> = ({ funnels, view, made }) => (
  <section class="card panel" aria-labelledby="panel-flows">
    <h2 id="panel-flows">Funnels and journeys</h2>
    {funnels.length > 0 ? (
      <ul>
        {funnels.map((f) => (
          <li>
            <a href={viewHref(`${view.base}/funnels/${f.id}`, view)}>{f.name}</a>
          </li>
        ))}
      </ul>
    ) : (
      <p class="hint">No funnels yet: the website's settings page adds them.</p>
    )}
    {made ? (
      <p>
        <a href={made}>{funnels.length > 0 ? 'Change the funnels' : 'Make a funnel'}</a>
      </p>
    ) : null}
    <form method="get" action={`${view.base}/journeys`} class="actions search">
      <HiddenFields params={viewParams(view)} />
      <label for="flows-page">Where visitors went from the page</label>
      <input id="flows-page" name="page" type="search" placeholder="/pricing" required />
      <button type="submit" class="secondary">
        Show
      </button>
    </form>
  </section>
);

/** Registers the views before the statistics' `/:domain/:name`, which would take `journeys`. */
export function registerFlowPages(pages: Hono<AppEnv>) {
  pages.get('/:domain/funnels/:funnel{[0-9]+\\.csv}', funnelCsv);
  pages.get('/:domain/funnels/:funnel{[0-9]+}', funnelPage);
  pages.get('/:domain/journeys.csv', journeysCsv);
  pages.get('/:domain/journeys', journeysPage);
}
