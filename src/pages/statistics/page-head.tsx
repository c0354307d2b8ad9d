/**
 * The top of the statistics page's overview and of its realtime view (./overview-page.tsx,
 * ./panels/realtime.tsx): the website and the switcher to the reader's other websites, the
 * visitors of the last minutes, the date control, the filters and the segments.
 */
import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import type { AppEnv } from '../../env.ts';
import { SEGMENT_FILTER } from '../../query/parse/v1.ts';
import { isGoalFilter } from '../../query/present/numbers.ts';
import { formatNumber } from '../../query/present/readable.ts';
import { type DateComparison, RangeNav } from './date-menu.tsx';
import { FilterMenu } from './filter-menu.tsx';
import { SegmentMenu, type segmentMenuOf } from './segment-menu.tsx';
import { type Extra, FilterChips, type View, viewParams } from './view.tsx';

/** The visitors of the last 5 minutes, asked for again every 30 seconds (`{path}/live.json`). */
const LiveFigure: FC<{ path: string; live: number }> = ({ path, live }) => (
  <p class="live" role="status" data-live={`${path}/live.json`}>
    <strong>{formatNumber(live)}</strong>{' '}
    <span data-unit>{live === 1 ? 'visitor' : 'visitors'}</span> in the last 5 minutes
  </p>
);

/**
 * The top of the overview and of its realtime view: the website (and the switcher to the
 * reader's others), the visitors of the last minutes, the date control, the filters and the
 * segments.
 */
export const PageHead: FC<{
  c: Context<AppEnv>;
  domain: string;
  view: View;
  kept: Extra;
  refused: string[];
  links: unknown;
  /** The visitors of the last 5 minutes; null: not shown. */
  live: number | null;
  segmentMenu: Awaited<ReturnType<typeof segmentMenuOf>>;
  comparison?: DateComparison;
}> = ({ c, domain, view, kept, refused, links, live, segmentMenu, comparison }) => {
  const path = view.base;
  return (
    <>
      <div class="actions">
        <h1>{domain}</h1>
        {links}
        {/* The visitors of the last minutes are every visitor's: not for a segment's link. */}
        {live === null || c.get('linkSegment') ? null : <LiveFigure path={path} live={live} />}
      </div>
      <RangeNav path={path} view={view} keep={kept} chart comparison={comparison} />
      <FilterChips path={path} view={view} keep={kept} refused={refused} />
      <FilterMenu view={view} keep={kept} />
      {segmentMenu ? <SegmentMenu path={path} view={view} keep={kept} menu={segmentMenu} /> : null}
    </>
  );
};

/**
 * What another website's statistics keep from this view when the switcher opens them: the
 * range and the filters, but a segment's and a goal's (each website has its own).
 */
export const switcherParams = (view: View) =>
  viewParams({
    ...view,
    filters: view.filters.filter((f) => f.dimension !== SEGMENT_FILTER && !isGoalFilter(f)),
  });
