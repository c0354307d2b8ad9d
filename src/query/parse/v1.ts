/**
 * API v1's vocabulary, and the one adapter between it and the query engine (docs/ARCHITECTURE.md,
 * "The query engine"): its 22 statistics, each one grouping of the engine (a dimension and a
 * metric; values as v1 has always returned them, through the `sl:` dimensions of
 * ../../counting/query-dimensions.ts); its filters, each a leaf of the engine's filter tree; and how both
 * read on the statistics page. The dimensions its filters narrow (docs/ARCHITECTURE.md,
 * "Filters"):
 *
 * - `page`, `event`: the hits that match (page views of that page, custom events of that
 *   name or `name:value:unit`);
 * - `landing_page`, `exit_page`, `referrer`, `campaign`, and the sources' listings
 *   (`channel`, `source`, `utm_medium`, `utm_source`, `utm_term`, `utm_content`): every hit of
 *   the visits that have that value (their first page view's page, referrer, campaign, channel,
 *   source and tags; their last page view's page);
 * - `country`, `continent`, `city`, `language`, `browser`, `os`, `device`, `resolution`:
 *   every hit of the visitors that have it, that day (as their first page view of the day).
 */
import type { FilterNode, GroupQuery } from '../../counting/query.ts';
import { GOAL } from '../../counting/query-dimensions.ts';
import {
  ROLLED_UP,
  STAT_NAMES,
  type StatName,
  storedEventName,
} from '../../counting/statistics.ts';

export const FILTER_DIMENSIONS = [
  'page',
  'landing_page',
  'exit_page',
  'referrer',
  'campaign',
  'country',
  'continent',
  'city',
  'language',
  'browser',
  'os',
  'device',
  'resolution',
  'event',
  'channel',
  'source',
  'utm_medium',
  'utm_source',
  'utm_term',
  'utm_content',
] as const satisfies readonly (StatName | SourceListing)[];

export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];

export function isFilterDimension(name: string): name is FilterDimension {
  return (FILTER_DIMENSIONS as readonly string[]).includes(name);
}

/** API v1's operators: `is` exact, `not` none of it, `contains` in any case. */
export const V1_FILTER_OPERATORS = ['is', 'not', 'contains'] as const;

export type V1FilterOperator = (typeof V1_FILTER_OPERATORS)[number];

/**
 * A custom property's filter, `filter[props:<name>]`: the hits that carry the property with
 * that value (src/counting/query-dimensions.ts, "Custom properties").
 */
type PropertyFilterDimension = `props:${string}`;

const PROPERTY_FILTER_PREFIX = 'props:';

/** The property a filter's dimension names, or null. */
export function filteredProperty(dimension: string): string | null {
  return dimension.startsWith(PROPERTY_FILTER_PREFIX)
    ? dimension.slice(PROPERTY_FILTER_PREFIX.length)
    : null;
}

/** A goal's filter, `filter[goal]=<name>`: the hits that complete it (src/query/parse/goal-filters.ts). */
export const GOAL_FILTER = 'goal';

/**
 * A saved segment's filter, `filter[segment]=<id>`: the hits its filters keep
 * (src/segments/), read from D1 before the question is asked (`segment`).
 */
export const SEGMENT_FILTER = 'segment';

export type Filter = {
  dimension: FilterDimension | PropertyFilterDimension | typeof GOAL_FILTER | typeof SEGMENT_FILTER;
  operator: V1FilterOperator;
  value: string;
  /**
   * Every value of an "is any of" (or "is none of") filter, `value` the first: the statistics
   * page's repeated `filter[country]=DE:Germany&filter[country]=FR:France`.
   */
  values?: string[];
  /** A segment filter's segment: its name and filters, parsed and as saved (src/query/parse/v2/saved-segments.ts). */
  segment?: { name: string; nodes: FilterNode[]; saved: unknown[] };
};

/** At most this many filters narrow one question. */
export const MAX_FILTERS = 10;

/** A filter's value is at most this long (the longest value a statistic keeps is 255). */
export const MAX_FILTER_LENGTH = 255;

/**
 * How a filter's dimension reads on the statistics page: its tab among the overview's panels
 * (src/pages/statistics/panels/panels.tsx) and a filter's chip.
 */
export const V1_FILTER_LABELS: Record<FilterDimension, { tab: string; chip: string }> = {
  page: { tab: 'Top pages', chip: 'Page' },
  landing_page: { tab: 'Landing pages', chip: 'Landing page' },
  exit_page: { tab: 'Exit pages', chip: 'Exit page' },
  referrer: { tab: 'Referrers', chip: 'Referrer' },
  campaign: { tab: 'UTM campaign', chip: 'Campaign' },
  country: { tab: 'Countries', chip: 'Country' },
  continent: { tab: 'Continents', chip: 'Continent' },
  city: { tab: 'Cities', chip: 'City' },
  language: { tab: 'Languages', chip: 'Language' },
  browser: { tab: 'Browsers', chip: 'Browser' },
  os: { tab: 'Systems', chip: 'Operating system' },
  device: { tab: 'Device types', chip: 'Device' },
  resolution: { tab: 'Screen sizes', chip: 'Screen resolution' },
  event: { tab: 'Events', chip: 'Event' },
  channel: { tab: 'Channels', chip: 'Channel' },
  source: { tab: 'Sources', chip: 'Source' },
  utm_medium: { tab: 'UTM medium', chip: 'UTM medium' },
  utm_source: { tab: 'UTM source', chip: 'UTM source' },
  utm_term: { tab: 'UTM term', chip: 'UTM term' },
  utm_content: { tab: 'UTM content', chip: 'UTM content' },
};

/** The title of each statistic's full view on the statistics page. */
const TITLES: Record<StatName, string> = {
  pageviews: 'Page views',
  pageviews_hours: 'Page views by hour',
  visitors: 'Visitors',
  visitors_hours: 'Visitors by hour',
  page: 'Pages',
  landing_page: 'Landing pages',
  referrer: 'Referrers',
  campaign: 'Campaigns',
  continent: 'Continents',
  country: 'Countries',
  city: 'Cities',
  language: 'Languages',
  browser: 'Browsers',
  os: 'Operating systems',
  device: 'Devices',
  resolution: 'Screen resolutions',
  event: 'Events',
  visits: 'Visits',
  visits_hours: 'Visits by hour',
  bounces: 'Bounces',
  visit_duration: 'Visit duration (seconds)',
  exit_page: 'Exit pages',
};

/**
 * Each statistic's grouping — one dimension and one metric of the engine, which the roll-up
 * statistic of the same name holds (src/counting/statistics.ts `ROLLED_UP`) — and the title
 * of its full view on the statistics page.
 */
export const V1_STATISTICS = Object.fromEntries(
  STAT_NAMES.map((name) => [name, { ...ROLLED_UP[name], title: TITLES[name] }]),
) as Record<StatName, { dimension: string; metric: string; title: string }>;

/**
 * API v1's listings of each page's engagement (src/website-log/object/write/engagement.ts), which only the
 * event log holds: `time_on_page` (seconds per visitor) and `scroll_depth` (percent), the
 * figure in each row's `count`.
 */
export const ENGAGEMENT_LISTINGS = {
  time_on_page: { dimension: 'sl:page', metric: 'time_on_page', title: 'Time on page (seconds)' },
  scroll_depth: { dimension: 'sl:page', metric: 'scroll_depth', title: 'Scroll depth (%)' },
} as const;

/**
 * Where visits came from, beyond v1's `referrer` and `campaign` (`utm_campaign`): listings the
 * event log alone answers, as the engagement's, and filters of the same names — a visit's
 * channel and source as Plausible's `visit:channel` and `visit:source` read them, and each of
 * its UTM tags (only the visits that carry one: no row for the others, as `campaign`). Each
 * counts visits, as `referrer` and `campaign` do.
 */
export const SOURCE_LISTINGS = {
  channel: { dimension: 'visit:channel', metric: 'visits', title: 'Channels' },
  source: { dimension: 'visit:source', metric: 'visits', title: 'Sources' },
  utm_medium: { dimension: 'sl:utm_medium', metric: 'visits', title: 'UTM mediums' },
  utm_source: { dimension: 'sl:utm_source', metric: 'visits', title: 'UTM sources' },
  utm_term: { dimension: 'sl:utm_term', metric: 'visits', title: 'UTM terms' },
  utm_content: { dimension: 'sl:utm_content', metric: 'visits', title: 'UTM contents' },
} as const;

export type SourceListing = keyof typeof SOURCE_LISTINGS;

/** What API v1 and the statistics page list beyond the recorded statistics: the log's listings. */
export const LOG_LISTINGS = { ...ENGAGEMENT_LISTINGS, ...SOURCE_LISTINGS };

export type LogListing = keyof typeof LOG_LISTINGS;

/** Whether a name is one of the log's listings (./v1.ts `LOG_LISTINGS`). */
export const isLogListing = (name: string): name is LogListing => Object.hasOwn(LOG_LISTINGS, name);

/** The filters' dimensions as the engine names them. */
const V1_FILTER_DIMENSIONS: Record<FilterDimension, string> = {
  page: 'sl:page',
  event: 'sl:event',
  landing_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  referrer: 'sl:referrer',
  campaign: 'sl:campaign',
  country: 'sl:country',
  continent: 'sl:continent',
  city: 'sl:city',
  language: 'sl:language',
  browser: 'sl:browser',
  os: 'sl:os',
  device: 'sl:device',
  resolution: 'sl:resolution',
  channel: SOURCE_LISTINGS.channel.dimension,
  source: SOURCE_LISTINGS.source.dimension,
  utm_medium: SOURCE_LISTINGS.utm_medium.dimension,
  utm_source: SOURCE_LISTINGS.utm_source.dimension,
  utm_term: SOURCE_LISTINGS.utm_term.dimension,
  utm_content: SOURCE_LISTINGS.utm_content.dimension,
};

/** The engine's dimension of a v1 filter's: a custom property's is `sl:props:<name>`. */
function v1FilterDimension(dimension: Filter['dimension']): string {
  if (dimension === GOAL_FILTER) return GOAL;
  const property = filteredProperty(dimension);
  return property === null
    ? V1_FILTER_DIMENSIONS[dimension as FilterDimension]
    : `sl:props:${property}`;
}

/**
 * API v1's `name=property&property=<name>`: a custom property's values, each with the page
 * views and custom events that carry it (none for the hits without it).
 */
function v1Property(name: string): { dimension: string; metric: string } {
  return { dimension: `sl:props:${name}`, metric: 'events' };
}

/**
 * A statistic (or a custom property's values) as a grouping of the engine: one page of its
 * values, by count or by value, searched. `metrics`: what its rows count instead of its own
 * metric (the statistics page's visitors first: src/query/present/numbers.ts), sorted by the
 * first.
 */
export function v1Grouping(
  name: StatName | LogListing | { property: string },
  page: {
    sortBy: 'count' | 'value';
    sort: 'asc' | 'desc';
    limit: number;
    offset: number;
    /** `search` is a whole value (`GroupQuery.exact`). */
    exact?: boolean | undefined;
  },
  search?: string,
  metrics?: readonly string[],
): GroupQuery {
  const { dimension, metric } =
    typeof name !== 'string'
      ? v1Property(name.property)
      : isLogListing(name)
        ? LOG_LISTINGS[name]
        : V1_STATISTICS[name];
  const counted = metrics && metrics.length > 0 ? [...metrics] : [metric];
  return {
    dimensions: [dimension],
    metrics: counted,
    order: [[page.sortBy === 'value' ? dimension : (counted[0] as string), page.sort]],
    limit: page.limit,
    offset: page.offset,
    ...(search ? { search, ...(page.exact ? { exact: true } : {}) } : {}),
  };
}

/**
 * A v1 filter's values: its own; for an event, also as the log keeps a name written with `:`
 * (U+A789: `storedEventName`), since v1's events are `name:value:unit` and `Outbound Link:
 * Click` may mean either.
 */
function v1FilterValues(f: Filter): string[] {
  if (f.dimension !== 'event') return [f.value];
  const stored = storedEventName(f.value);
  return stored === f.value ? [f.value] : [f.value, stored];
}

/** v1's filters as the engine's: `is` exact, `not` none of it, `contains` in any case. */
export function v1Filters(filters: Filter[]): FilterNode[] {
  return filters.map((f): FilterNode => {
    if (f.dimension !== SEGMENT_FILTER) return v1Leaf(f);
    if (!f.segment) throw new Error(`segment ${f.value} was not read before the question`);
    return { op: 'and', nodes: f.segment.nodes };
  });
}

/**
 * The engine's dimensions of v1's filters (`sl:page`, `sl:country`…, and `sl:props:<name>`),
 * which a saved segment's filters may name besides the Stats API v2's.
 */
export const isV1FilteredDimension = (key: string) =>
  key.startsWith('sl:props:') || (Object.values(V1_FILTER_DIMENSIONS) as string[]).includes(key);

/**
 * v1's filters in the Stats API v2's grammar, as a saved segment keeps them: each a leaf of
 * the engine's dimension (`["contains", "sl:page", ["blog"], {"case_sensitive": false}]`), a
 * segment as its own filters.
 */
export function v1FilterTree(filters: Filter[]): unknown[] {
  return filters.flatMap((f) => {
    if (f.segment) return f.segment.saved;
    const leaf = v1Leaf(f) as { op: string; dimension: string; values: string[] };
    return [
      [
        leaf.op,
        leaf.dimension,
        leaf.values,
        ...(f.operator === 'contains' ? [{ case_sensitive: false }] : []),
      ],
    ];
  });
}

/** A filter of v1's dimensions as the engine's leaf: any of its values. */
function v1Leaf(f: Filter): FilterNode {
  return {
    op: f.operator === 'not' ? 'is_not' : f.operator,
    dimension: v1FilterDimension(f.dimension),
    values: (f.values ?? [f.value]).flatMap((value) => v1FilterValues({ ...f, value })),
    caseSensitive: f.operator !== 'contains',
  };
}

/** A filter's values: its one, or every one of an "any of" filter. */
export const valuesOf = (f: Filter): string[] => f.values ?? [f.value];
