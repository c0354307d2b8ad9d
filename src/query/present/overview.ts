/**
 * Every number of the statistics page's overview for one range under some filters: the
 * figures with the period before, the chart, the top values of each panel, the visitors of
 * the last five minutes and, with an `event` or goal filter, the conversion rate (their
 * visitors ÷ the visitors of the other filters). All of it comes
 * from one source (./numbers.ts): the roll-ups, or the log when filtered.
 */

import { conversionRate } from '../../counting/query-metrics.ts';
import type { StatName } from '../../counting/statistics.ts';
import type { Database } from '../../db/client.ts';
import type { Env } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { previousPeriod, type SeriesUnit } from '../../lib/time/dates.ts';
import { type Filter, isLogListing, type LogListing } from '../parse/v1.ts';
import type { EventName } from './custom-events.ts';
import { figuresFrom, type SeriesPoint, type Summary } from './figures.ts';
import { pageMetricOf } from './listed-metrics.ts';
import {
  type Conversions,
  type Dates,
  isGoalFilter,
  isUnavailable,
  type Listing,
  type PageEngagement,
  type Source,
  summaryOf,
  type Unavailable,
  type WebsiteNumbers,
  websiteNumbers,
} from './numbers.ts';

/**
 * With an `event` or goal filter: the visitors who matched in percent of all visitors of the
 * range (one decimal), and the period before's; the completions (`total`: the page views and
 * custom events the filters keep) and the period before's; and a goal's revenue in its
 * currency, when the filter is on one goal that has a currency.
 */
type Conversion = {
  rate: number;
  previous: number;
  total: number;
  previousTotal: number;
  revenue?: { amount: number; currency: string };
};

export type Overview = {
  summary: Summary;
  series: SeriesPoint[];
  /**
   * The top values of each panel asked for, in the same order; a log's listing's is missing
   * when the range starts before the oldest date the log holds (`logFrom`).
   */
  panels: (Listing | undefined)[];
  /** Whether the panels count each statistic's own metric, for the imported history. */
  imported: boolean;
  /** The oldest date the log holds, when it left its listings' panels out. */
  logFrom?: string;
  /**
   * When comparing: the chart's points of the compared range (by default the period of equal
   * length just before), point for point (null when not comparing, or when the log holds none
   * of it under filters).
   */
  previousSeries: SeriesPoint[] | null;
  /**
   * When comparing: each panel's counts in the compared range, by value, of its first
   * `COMPARED_ROWS` values (`complete`: they are all of them, so a value not there had none).
   */
  previousPanels: { counts: Map<string, number>; complete: boolean }[] | null;
  /** Visitors of the last five minutes (all of them: filters do not narrow it). */
  live: number;
  /** With an `event` or goal filter only. */
  conversion?: Conversion;
  /** The website's goals with conversions, most converting visitors first, and their rates. */
  goals: (Conversions & { rate: number })[];
  /** The top pages' time on page and scroll depth (the Pages panel's columns). */
  engagement: PageEngagement;
  /**
   * In a change made in place (`later` asked): what is not read yet, and follows a moment later
   * (docs/ARCHITECTURE.md, "The statistics page"): the top pages' engagement always; with
   * `filtered`, the log's groupings beyond the figures and the chart — the compared range's
   * figures, whose `summary.previous` and the conversion's previous numbers are then zeros
   * never shown, and the panels' rows, `panels` then empty; with `compared`, the chart's
   * compared points and the panels' changes (`previousSeries` and `previousPanels` null); with
   * `events`, the custom events by name (a pass of the log, filtered or not), `events` then
   * unread.
   */
  later?: { filtered: boolean; compared: boolean; events: boolean };
  /**
   * When asked (the Events tab shown): the range's custom events by name, each with its
   * conversion rate (its visitors in percent of the range's: Plausible's), null when the log
   * does not hold the range.
   */
  events?: (EventName & { rate: number })[] | null;
};

/** How many values each panel of the overview shows. */
const PANEL_ROWS = 10;
/** How many values of the compared range each panel reads, for its rows' changes. */
const COMPARED_ROWS = 100;

/**
 * The conversion rate of the visitors `filters` keep (their `summary`): their visitors ÷ the
 * visitors of the filters but the `converting` ones (Plausible's definition; from the
 * roll-ups once flushed when there are none, so the hits of the last seconds count on both
 * sides), for the range and the period before, with that base's visitors (`compared` null:
 * the range's alone, the period before's left for later and read as 0: `Overview.later`).
 */
export async function conversionOf(
  website: Pick<WebsiteNumbers, 'under'>,
  range: { from: string; to: string },
  filters: Filter[],
  summary: Summary,
  converting: (f: Filter) => boolean,
  compared: { from: string; to: string } | null = previousPeriod(range),
): Promise<(Pick<Conversion, 'rate' | 'previous'> & { base: number }) | Unavailable> {
  const others = filters.filter((f) => !converting(f));
  // Converting visitors are Sightline's own (the log's): so are those they are divided by.
  const base = website.under(others, { imports: false });
  const all = await (compared ? summaryOf(base, range, compared) : figuresAlone(base, range));
  if (isUnavailable(all)) return all;
  return {
    rate: conversionRate(summary.data.visitors, all.data.visitors),
    previous: conversionRate(summary.previous.visitors, all.previous.visitors),
    base: all.data.visitors,
  };
}

/**
 * A range's figures without its compared range's, which follow later (`Overview.later`): the
 * compared figures are zeros, never shown.
 */
async function figuresAlone(source: Source, range: Dates): Promise<Summary | Unavailable> {
  const data = await source.figures(range);
  return isUnavailable(data) ? data : { data, previous: figuresFrom(undefined) };
}

/**
 * The top values of each panel: the statistics' in one question, the log's listings' in
 * another, so that a range the log does not hold whole leaves out only theirs (`logFrom`).
 */
async function topsOf(
  source: Source,
  names: readonly (StatName | LogListing)[],
  range: Dates,
  limit: number,
  imported: boolean,
): Promise<{ pages: (Listing | undefined)[]; logFrom?: string } | Unavailable> {
  const listings = names.filter(isLogListing);
  const statistics = names.filter((n): n is StatName => !isLogListing(n));
  const metric = (name: StatName | LogListing) => pageMetricOf(name, imported);
  const [kept, logged] = await Promise.all([
    source.tops(statistics, range, limit, metric),
    listings.length > 0 ? source.tops(listings, range, limit, metric) : [],
  ]);
  if (isUnavailable(kept)) return kept;
  const byName = new Map<string, Listing>(statistics.map((n, i) => [n, kept[i] as Listing]));
  if (!isUnavailable(logged))
    for (const [i, n] of listings.entries()) byName.set(n, logged[i] as Listing);
  return {
    pages: names.map((n) => byName.get(n)),
    ...(isUnavailable(logged) ? { logFrom: logged.firstDate } : {}),
  };
}

/**
 * With an `event` or goal filter, the conversion (`Overview.conversion`) and the visitors its
 * rate is of; `compared` null: the compared range's left for later (`Overview.later`).
 */
async function conversionIn(
  website: WebsiteNumbers,
  range: { from: string; to: string },
  filters: Filter[],
  summary: Summary,
  conversions: Conversions[],
  { compared }: { compared: Dates | null },
): Promise<{ conversion: Conversion; base: number } | undefined> {
  const converting = (f: Filter) => f.dimension === 'event' || isGoalFilter(f);
  if (!filters.some(converting)) return undefined;
  const found = await conversionOf(website, range, filters, summary, converting, compared);
  if (isUnavailable(found)) return undefined;
  const goal = filters.find((f) => isGoalFilter(f) && f.operator === 'is')?.value;
  const converted = conversions.find((c) => c.goal.displayName === goal && c.goal.currency);
  const conversion: Conversion = {
    rate: found.rate,
    previous: found.previous,
    total: summary.data.pageviews + summary.data.events,
    previousTotal: summary.previous.pageviews + summary.previous.events,
    ...(converted?.goal.currency
      ? { revenue: { amount: converted.revenue, currency: converted.goal.currency } }
      : {}),
  };
  return { conversion, base: found.base };
}

/** Every number of the overview of a range under `filters`, read from `website`'s numbers. */
export async function overviewOf(
  website: WebsiteNumbers,
  range: { from: string; to: string },
  filters: Filter[],
  panels: readonly (StatName | LogListing)[],
  {
    compare = false,
    compared = previousPeriod(range),
    unit,
    imported = false,
    events = false,
    later = false,
    panelsOnly = false,
  }: {
    /** Read the custom events by name (`Overview.events`). */
    events?: boolean;
    /**
     * Leave out what can follow a moment later (`Overview.later`): the top pages' engagement,
     * and under filters the compared range and the panels' rows.
     */
    later?: boolean;
    /**
     * The panels alone, with the figures their shares are of (a tab loaded in place): no
     * chart, realtime, conversions nor custom events are read (empty in the answer).
     */
    panelsOnly?: boolean;
    /** The range holds imported history (the panels then count the roll-ups' metrics). */
    imported?: boolean;
    compare?: boolean;
    compared?: { from: string; to: string; between?: [number, number] };
    /** The chart's unit, when one other than the range's own is chosen (`seriesUnitOf`). */
    unit?: SeriesUnit;
  } = {},
): Promise<Overview | Unavailable> {
  const { source, goals } = website;
  // Filtered, the compared range and the panels' rows are more of the log's groupings, and the
  // custom events by name always are: later, they are left for the next ask, so that the
  // figures and the chart show first.
  const filtered = filters.length > 0;
  const waiting = later ? { filtered, compared: compare, events } : undefined;
  const comparing = compare && !later;
  const tops = waiting?.filtered
    ? Promise.resolve<Awaited<ReturnType<typeof topsOf>>>({ pages: panels.map(() => undefined) })
    : topsOf(source, panels, range, PANEL_ROWS, imported);
  // The top pages' engagement is asked once they are known, while the rest is read.
  const engaged = tops.then((found) =>
    isUnavailable(found) || later
      ? {}
      : source.engagement(
          found.pages[panels.indexOf('page')]?.rows.map((r) => r.value) ?? [],
          range,
        ),
  );
  const [summary, series, previous, pages, before, live, conversions, named, engagement] =
    await Promise.all([
      waiting?.filtered || panelsOnly
        ? figuresAlone(source, range)
        : summaryOf(source, range, compared),
      panelsOnly ? [] : source.series(range, unit),
      comparing && !panelsOnly ? source.series(compared, unit) : null,
      tops,
      comparing ? topsOf(source, panels, compared, COMPARED_ROWS, imported) : null,
      panelsOnly ? 0 : website.realtime(),
      panelsOnly ? [] : source.conversions(goals, range),
      events && !waiting && !panelsOnly ? source.events(range, PANEL_ROWS) : undefined,
      engaged,
    ]);
  if (isUnavailable(summary)) return summary;
  if (isUnavailable(series)) return series;
  if (isUnavailable(pages)) return pages;
  if (isUnavailable(conversions)) return conversions;
  const previousSeries = previous === null || isUnavailable(previous) ? null : previous;
  const previousPanels =
    before === null || isUnavailable(before)
      ? null
      : before.pages.map((page) => ({
          counts: new Map((page?.rows ?? []).map((r) => [r.value, r.count])),
          complete: page !== undefined && page.total <= page.rows.length,
        }));
  const overview: Overview = {
    summary,
    series,
    previousSeries,
    previousPanels,
    panels: pages.pages,
    imported,
    ...(pages.logFrom ? { logFrom: pages.logFrom } : {}),
    live,
    goals: [],
    engagement: isUnavailable(engagement) ? {} : engagement,
    ...(waiting ? { later: waiting } : {}),
  };
  if (named !== undefined)
    overview.events = isUnavailable(named)
      ? null
      : named.map((e) => ({ ...e, rate: conversionRate(e.visitors, summary.data.visitors) }));
  const shown = conversions.filter((c) => c.visitors > 0 || c.events > 0);
  let base =
    shown.length > 0 && filters.length === 0
      ? await ownVisitors(website, range, summary)
      : summary.data.visitors;
  const converted = panelsOnly
    ? undefined
    : await conversionIn(website, range, filters, summary, conversions, {
        compared: waiting?.filtered ? null : compared,
      });
  if (converted) {
    base = converted.base;
    overview.conversion = converted.conversion;
  }
  // A goal's rate: its converting visitors ÷ the visitors of the filters on anything else.
  overview.goals = shown
    .map((c) => ({ ...c, rate: conversionRate(c.visitors, base) }))
    .sort((a, b) => b.visitors - a.visitors || b.events - a.events);
  return overview;
}

/**
 * The visitors of an unfiltered range that are Sightline's own — `summary`'s, unless the range
 * holds imported history, which goals' conversions (read from the log) never include.
 */
async function ownVisitors(
  website: Pick<WebsiteNumbers, 'under' | 'importsWithin'>,
  range: { from: string; to: string },
  summary: Summary,
): Promise<number> {
  if ((await website.importsWithin(range)).length === 0) return summary.data.visitors;
  const own = await summaryOf(website.under([], { imports: false }), range);
  return isUnavailable(own) ? summary.data.visitors : own.data.visitors;
}

/**
 * A website's top goals over a range, as its e-mail report lists them: each goal's name with
 * its conversion rate, and its converting visitors (at most five; none without goals).
 */
export async function topGoals(
  env: Env,
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
): Promise<{ value: string; count: number }[]> {
  const goals = await listGoals(db, websiteId);
  if (goals.length === 0) return [];
  const website = websiteNumbers(env, db, websiteId, [], goals);
  const [conversions, summary] = await Promise.all([
    website.source.conversions(goals, range),
    summaryOf(website.source, range),
  ]);
  if (isUnavailable(conversions) || isUnavailable(summary)) return [];
  const base = await ownVisitors(website, range, summary);
  return conversions
    .filter((c) => c.visitors > 0)
    .sort((a, b) => b.visitors - a.visitors)
    .slice(0, 5)
    .map((c) => ({
      value: `${c.goal.displayName} (${conversionRate(c.visitors, base)}% conversion)`,
      count: c.visitors,
    }));
}
