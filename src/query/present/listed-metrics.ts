/**
 * What the statistics page counts each thing it lists by, and how those counts read
 * (docs/ARCHITECTURE.md, "The statistics page"): a panel's metric, a full view's and a CSV's
 * columns, their names, and what a count is a share of. API v1's statistics keep their own
 * metric (`metricOf`).
 */
import { type StatName, TIME_VALUED } from '../../counting/statistics.ts';
import {
  ENGAGEMENT_LISTINGS,
  isLogListing,
  LOG_LISTINGS,
  type LogListing,
  V1_STATISTICS,
} from '../parse/v1.ts';
import type { Figures } from './figures.ts';

/** The engine's metric a statistic, a listing or a property's values count (API v1's). */
function metricOf(name: StatName | LogListing | 'property'): string {
  if (name === 'property') return 'events';
  return name in LOG_LISTINGS
    ? LOG_LISTINGS[name as LogListing].metric
    : V1_STATISTICS[name as StatName].metric;
}

/** The metrics' names as a column heads them: every number names what it counts. */
const METRIC_NAMES: Record<string, string> = {
  visitors: 'Visitors',
  visits: 'Visits',
  pageviews: 'Page views',
  'sl:custom_events': 'Events',
  'sl:bounces': 'Bounces',
  'sl:duration': 'Duration',
  events: 'Events',
  bounce_rate: 'Bounce rate',
  visit_duration: 'Visit duration',
  time_on_page: 'Time on page',
  scroll_depth: 'Scroll depth',
};

/** A metric's name, as a column heads it (`Page views`). */
export const metricTitle = (metric: string): string => METRIC_NAMES[metric] ?? metric;

/**
 * What the statistics page counts a listed value by: visitors, as Plausible's panels do,
 * unless `imported` history is in the range unfiltered — the roll-ups alone hold it, and
 * only by each statistic's own metric (page views of a page, visits of a referrer): then its
 * own (docs/ARCHITECTURE.md, "The statistics page").
 */
export function pageMetricOf(name: StatName | LogListing, imported: boolean): string {
  return imported && !isLogListing(name) ? metricOf(name) : 'visitors';
}

/** What a visit's source, its landing page and where its visitors live are read by. */
const OF_VISITS = ['visitors', 'visits', 'bounce_rate', 'visit_duration'];

/**
 * The metrics a statistic's full view and CSV show, in order, the first what its rows are
 * sorted by unless another is chosen: visitors, then what fits it — a page's page views,
 * bounce rate (of the visits that land on it, as Plausible's), time on page and scroll depth;
 * an exit page's visits (its exits); an event's or a property's events; a source's, a landing
 * page's and a place's or device's visits, bounce rate and visit duration. Over imported
 * history unfiltered (the roll-ups alone hold it), a statistic by dates or hours, and the
 * goals: its own metric alone (`pageMetricOf`).
 */
export function detailMetricsOf(
  name: StatName | LogListing | 'property' | 'goal',
  imported: boolean,
): string[] {
  if (name === 'goal') return ['visitors'];
  if (name === 'property') return ['visitors', 'events'];
  if (TIME_VALUED.has(name as StatName) || (imported && !isLogListing(name)))
    return [metricOf(name)];
  if (name === 'page')
    return ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'];
  if (name === 'exit_page') return ['visitors', 'visits'];
  if (name === 'event') return ['visitors', 'events'];
  return OF_VISITS;
}

/**
 * What a listing's counts are shares of: the figure its metric counts over the whole range
 * (every row counts part of it, and no more), read from a range's figures; null for a listing
 * whose counts are no share of anything people read (bounces, durations, goals: theirs is the
 * conversion rate), which then needs no figures at all.
 */
export function shareBaseOf(
  name: StatName | LogListing | 'goal' | 'property',
  metric: string = name === 'goal' ? '' : metricOf(name),
): ((figures: Figures) => number) | null {
  if (name === 'goal' || name in ENGAGEMENT_LISTINGS) return null;
  switch (metric) {
    case 'pageviews':
      return (f) => f.pageviews;
    case 'visits':
      return (f) => f.visits;
    case 'visitors':
      return (f) => f.visitors;
    case 'sl:custom_events':
      return (f) => f.events;
    case 'events':
      // A property's values are carried by page views and custom events alike.
      return (f) => f.pageviews + f.events;
    default:
      return null;
  }
}
