/**
 * The overview's realtime view (`?range=realtime`, ../overview-page.tsx): the visitors and page
 * views of the last 30 minutes, and their pages, sources and countries by visitors, under the
 * view's filters — asked for again every 10 seconds while the page is shown (the page's script
 * reads the same address and puts its `#realtime` in place: `data-refresh`). Without
 * JavaScript it is as of the page's load.
 */
import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import type { Database } from '../../../db/client.ts';
import type { WebsiteRow } from '../../../db/schema.ts';
import type { AppEnv } from '../../../env.ts';
import { listGoals } from '../../../goals/goals.ts';
import { zonedIso } from '../../../lib/time/dates.ts';
import { withGoals } from '../../../query/parse/goal-filters.ts';
import type { Filter } from '../../../query/parse/v1.ts';
import { v1Filters } from '../../../query/parse/v1.ts';
import { needsGoals } from '../../../query/present/numbers.ts';
import { formatNumber, valueLabel } from '../../../query/present/readable.ts';
import { REALTIME_MINUTES, type Realtime, realtimeOf } from '../../../query/present/recent.ts';
import { render } from '../../layout/layout.tsx';
import { statsReader, websiteLinks } from '../../websites/website-switcher.tsx';
import type { viewOf } from '../gate.tsx';
import { PageHead, switcherParams } from '../page-head.tsx';
import { segmentMenuOf } from '../segment-menu.tsx';
import { FilterLink, type View } from '../view.tsx';
import { BarCell, shareText } from './panel-rows.tsx';

/** How often the page asks for the realtime view again, in milliseconds. */
const REFRESH_MS = 10_000;

/** One list of the realtime view: its values by visitors, each a link that filters by it. */
const RealtimeList: FC<{
  title: string;
  label: string;
  dimension: Filter['dimension'] | null;
  rows: Realtime['pages'];
  visitors: number;
  view: View;
}> = ({ title, label, dimension, rows, visitors, view }) => {
  const max = Math.max(0, ...rows.map((r) => r.count));
  return (
    <section class="card panel" aria-labelledby={`realtime-${label}`}>
      <div class="panel-head">
        <h2 id={`realtime-${label}`}>{title}</h2>
      </div>
      {rows.length === 0 ? (
        <p class="hint">None in the last {REALTIME_MINUTES} minutes.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{label}</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th scope="col" class="num share">
                Share
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <BarCell count={row.count} max={max}>
                  {dimension ? (
                    <FilterLink view={view} keep={{}} dimension={dimension} value={row.value}>
                      {valueLabel(dimension, row.value)}
                    </FilterLink>
                  ) : (
                    <span title={row.value}>{row.value}</span>
                  )}
                </BarCell>
                <td class="num">{formatNumber(row.count)}</td>
                <td class="num share">{shareText(row.count, visitors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
};

/** The realtime view: its figures, then its lists. */
const RealtimeView: FC<{ realtime: Realtime; view: View; asOf: string }> = ({
  realtime,
  view,
  asOf,
}) => (
  <section
    id="realtime"
    class="realtime"
    aria-label={`The last ${REALTIME_MINUTES} minutes`}
    data-refresh={REFRESH_MS}
  >
    <div class="totals">
      <div class="card">
        <h2>Visitors</h2>
        <p class="big">{formatNumber(realtime.visitors)}</p>
        <p class="hint">in the last {REALTIME_MINUTES} minutes</p>
      </div>
      <div class="card">
        <h2>Page views</h2>
        <p class="big">{formatNumber(realtime.pageviews)}</p>
        <p class="hint">in the last {REALTIME_MINUTES} minutes</p>
      </div>
    </div>
    <p class="hint" role="status">
      As of {asOf} (the website's time); updated every {REFRESH_MS / 1000} seconds while shown.
    </p>
    <div class="panels">
      {(
        [
          ['Top pages', 'Page', 'page', realtime.pages],
          ['Sources', 'Source', 'source', realtime.sources],
          ['Countries', 'Country', 'country', realtime.countries],
        ] as const
      ).map(([title, label, dimension, rows]) => (
        <RealtimeList
          title={title}
          label={label}
          dimension={dimension}
          rows={rows}
          visitors={realtime.visitors}
          view={view}
        />
      ))}
    </div>
  </section>
);

/**
 * `/stats/{domain}?range=realtime`: the last 30 minutes (`RealtimeView`), read from the
 * log under the view's filters.
 */
export async function realtimePage(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
  { view, refused, goals }: Awaited<ReturnType<typeof viewOf>>,
) {
  const reader = statsReader(c);
  const now = Date.now();
  const named = goals ?? (view.filters.some(needsGoals) ? await listGoals(db, site.id) : []);
  const filters = withGoals(v1Filters(view.filters), named);
  const [realtime, segmentMenu, links] = await Promise.all([
    realtimeOf(c.env, db, site, filters, now),
    segmentMenuOf(c, db, site),
    reader ? websiteLinks(db, reader, site, 'stats', switcherParams(view)) : null,
  ]);
  return render(c, {
    inPlace: true,
    title: `${site.domain} realtime`,
    children: (
      <>
        <PageHead
          c={c}
          domain={site.domain}
          view={view}
          kept={{}}
          refused={refused}
          links={links}
          live={null}
          segmentMenu={segmentMenu}
        />
        <RealtimeView
          realtime={realtime}
          view={view}
          asOf={zonedIso(now, site.timezone).slice(11, 16)}
        />
      </>
    ),
  });
}
