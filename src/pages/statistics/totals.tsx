/**
 * The statistics page's figures (./overview-page.tsx): the range's six, each with its change against
 * the compared range in words as well as colour; with an `event` or goal filter, the figures
 * of a conversion instead — unique and total conversions, the conversion rate and a goal's
 * revenue — and the page views, saying why they read 0 when the conversions are custom events.
 */
import type { FC } from 'hono/jsx';
import type { ChartMetric } from '../../query/present/figures.ts';
import type { Overview } from '../../query/present/overview.ts';
import {
  formatFigure,
  formatMoney,
  formatNumber,
  SHOWN_FIGURES,
} from '../../query/present/readable.ts';
import { change } from './view.tsx';

/**
 * What each figure counts under a filter on pages (Plausible's definitions): the visitors and
 * visits that include a matching page, the page views of the matching pages alone, and the
 * views per visit, bounce rate and duration of those visits — so that "4 visits, 4 page views,
 * 3.75 views per visit" reads as what it is.
 */
const OF_MATCHING_PAGES: Record<string, string> = {
  visitors: 'who viewed a matching page',
  visits: 'that include a matching page',
  pageviews: 'of the matching pages',
  views_per_visit: 'all their pages, in those visits',
  bounce_rate: 'of those visits',
  visit_duration: 'of those visits',
};

/** Each figure's scope under the view's filters, when a filter narrows it to some pages. */
export const figureScopes = (filters: { dimension: string }[]): Record<string, string> | null =>
  filters.some((f) => f.dimension === 'page') ? OF_MATCHING_PAGES : null;

/** Whether a figure going up is good news: every one but the bounce rate. */
const upIsGood = (figure: string) => figure !== 'bounce_rate';

/**
 * Where a figure's change will be, while the compared range is read (`Overview.later`): a
 * neutral mark and the compared dates, never a change of 0% (docs/ARCHITECTURE.md, "The
 * statistics page"); the page's script asks for the whole view and morphs it in.
 */
const LaterChange: FC<{ versus: string }> = ({ versus }) => (
  <p class="hint" data-later="">
    <span aria-hidden="true">…</span>
    <span class="sr-only">change being read</span> <span class="versus">vs {versus}</span>
  </p>
);

/**
 * A figure's change, its direction and what it means — in words as well as colour (`better`,
 * `worse`), since a colour alone says nothing to some readers — and what it is compared with:
 * the compared value and its dates (`+14% vs 4,321 on Nov 1–6, better`).
 */
const FigureChange: FC<{
  figure: string;
  now: number;
  before: number;
  /** The compared value as it reads. */
  was: string;
  /** The compared range's dates (`Nov 1–6`). */
  versus: string;
  /** The compared range is still being read (`LaterChange`). */
  later?: boolean;
}> = ({ figure, now, before, was, versus, later }) => {
  if (later) return <LaterChange versus={versus} />;
  const moved = now === before || before === 0 ? null : now > before === upIsGood(figure);
  const meaning = moved === null ? '' : moved ? 'better' : 'worse';
  // Nothing to compare with: said so, not "new".
  if (before === 0 && now !== 0) return <p class="hint">none on {versus} to compare with</p>;
  return (
    <p class={meaning ? `hint change ${meaning}` : 'hint'}>
      {change(now, before)}{' '}
      <span class="versus">
        vs {was} on {versus}
      </span>
      {meaning ? `, ${meaning}` : ''}
    </p>
  );
};

type Chart = {
  metric: ChartMetric;
  drawable: readonly ChartMetric[];
  hrefFor: (m: ChartMetric) => string;
};

/** A figure's card: its title (a link that charts it, when the chart can), its value and `hint`. */
const Card: FC<{
  figure?: string;
  title: string;
  value: string;
  chart: Chart;
  /** What it counts under the view's filters (`of the matching pages`). */
  scope?: string | undefined;
  children: unknown;
}> = ({ figure, title, value, chart, scope, children }) => {
  const drawable = (chart.drawable as readonly string[]).includes(figure ?? '');
  return (
    <div class={chart.metric === figure ? 'card charted' : 'card'}>
      <h2>
        {drawable ? (
          <a
            href={chart.hrefFor(figure as ChartMetric)}
            aria-current={chart.metric === figure ? 'true' : undefined}
            title={`Chart ${title.toLowerCase()}`}
          >
            {title}
          </a>
        ) : (
          title
        )}
      </h2>
      <p class="big">{value}</p>
      {scope ? <p class="hint scope">{scope}</p> : null}
      {children}
    </div>
  );
};

/**
 * The range's figures, each with its change against the compared range; a figure the chart can
 * draw is a link that charts it (the one drawn is marked), as the metric links above the chart
 * do. With a conversion (an `event` or goal filter), Plausible's figures of one instead: the
 * unique conversions (the visitors), the total conversions, the conversion rate and a goal's
 * revenue, then the page views.
 */
export function Totals({
  overview,
  chart,
  versus,
  scopes = null,
}: {
  overview: Overview;
  /** Each figure's scope under the view's filters (`figureScopes`). */
  scopes?: Record<string, string> | null;
  /** The compared range's dates, as people read them (`Nov 1–6`). */
  versus: string;
  chart: Chart;
}) {
  const { data, previous } = overview.summary;
  const conversion = overview.conversion;
  const later = overview.later?.filtered === true;
  const figure = ([key, title]: (typeof SHOWN_FIGURES)[number]) => (
    <Card
      figure={key}
      title={title}
      value={formatFigure(key, data[key])}
      chart={chart}
      scope={scopes?.[key]}
    >
      {conversion && key === 'pageviews' && data.pageviews === 0 && data.events > 0 ? (
        <p class="hint">its conversions are custom events, which are not page views</p>
      ) : (
        <FigureChange
          figure={key}
          now={data[key]}
          before={previous[key]}
          was={formatFigure(key, previous[key])}
          versus={versus}
          later={later}
        />
      )}
    </Card>
  );
  if (!conversion)
    return (
      <section class="totals" aria-label="Totals">
        {SHOWN_FIGURES.map(figure)}
      </section>
    );
  return (
    <section class="totals" aria-label="Totals">
      <Card
        figure="visitors"
        title="Unique conversions"
        value={formatNumber(data.visitors)}
        chart={chart}
      >
        <FigureChange
          figure="visitors"
          now={data.visitors}
          before={previous.visitors}
          was={formatNumber(previous.visitors)}
          versus={versus}
          later={later}
        />
      </Card>
      <Card title="Total conversions" value={formatNumber(conversion.total)} chart={chart}>
        <FigureChange
          figure="total"
          now={conversion.total}
          before={conversion.previousTotal}
          was={formatNumber(conversion.previousTotal)}
          versus={versus}
          later={later}
        />
      </Card>
      <Card title="Conversion rate" value={`${conversion.rate}%`} chart={chart}>
        {later ? (
          <LaterChange versus={versus} />
        ) : (
          <p class="hint">
            vs {conversion.previous}% on {versus}
          </p>
        )}
      </Card>
      {conversion.revenue ? (
        <Card
          title="Revenue"
          value={formatMoney(conversion.revenue.amount, conversion.revenue.currency, true)}
          chart={chart}
        >
          <p class="hint">
            {formatMoney(conversion.revenue.amount, conversion.revenue.currency)} in this range
          </p>
        </Card>
      ) : null}
      {/* The page views stay, saying why they read 0 when the conversions are custom
      events: the chart draws them. */}
      {figure(['pageviews', 'Page views'])}
    </section>
  );
}
