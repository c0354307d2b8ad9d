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

/** Whether a figure going up is good news: every one but the bounce rate. */
const upIsGood = (figure: string) => figure !== 'bounce_rate';

/**
 * A figure's change, its direction and what it means — in words as well as colour (`better`,
 * `worse`), since a colour alone says nothing to some readers.
 */
const FigureChange: FC<{ figure: string; now: number; before: number; versus: string }> = ({
  figure,
  now,
  before,
  versus,
}) => {
  const moved = now === before || before === 0 ? null : now > before === upIsGood(figure);
  const meaning = moved === null ? '' : moved ? 'better' : 'worse';
  // Nothing to compare with: said so, not "new".
  if (before === 0 && now !== 0) return <p class="hint">none in {versus} to compare with</p>;
  return (
    <p class={meaning ? `hint change ${meaning}` : 'hint'}>
      {change(now, before)}
      {/* A phone's narrow cards leave the compared period to screen readers. */}
      <span class="versus"> vs {versus}</span>
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
  children: unknown;
}> = ({ figure, title, value, chart, children }) => {
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
}: {
  overview: Overview;
  /** What the figures are compared with, as a hint says it: `previous period`. */
  versus: string;
  chart: Chart;
}) {
  const { data, previous } = overview.summary;
  const conversion = overview.conversion;
  const figure = ([key, title]: (typeof SHOWN_FIGURES)[number]) => (
    <Card figure={key} title={title} value={formatFigure(key, data[key])} chart={chart}>
      {conversion && key === 'pageviews' && data.pageviews === 0 && data.events > 0 ? (
        <p class="hint">its conversions are custom events, which are not page views</p>
      ) : (
        <FigureChange figure={key} now={data[key]} before={previous[key]} versus={versus} />
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
          versus={versus}
        />
      </Card>
      <Card title="Total conversions" value={formatNumber(conversion.total)} chart={chart}>
        <FigureChange
          figure="total"
          now={conversion.total}
          before={conversion.previousTotal}
          versus={versus}
        />
      </Card>
      <Card title="Conversion rate" value={`${conversion.rate}%`} chart={chart}>
        <p class="hint">
          {conversion.previous}%{' '}
          {versus === 'previous period' ? 'in the previous period' : `vs ${versus}`}
        </p>
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
