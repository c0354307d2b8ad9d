/**
 * The counting model (docs/ARCHITECTURE.md, "The counting model"): the statistics Sightline
 * records and the API serves, and what one stored page view or custom event adds to each —
 * the daily roll-ups, derived from the event log alone by `rollupOf`, so that the log is the
 * one record of what happened and every number can be recomputed from it. The roll-ups (the
 * flush, compaction) and the log's SQL both read their meaning from here.
 */
/** The statistics Sightline records and the API serves. */
export const STAT_NAMES = [
  'pageviews',
  'pageviews_hours',
  'visitors',
  'visitors_hours',
  'page',
  'landing_page',
  'referrer',
  'campaign',
  'continent',
  'country',
  'city',
  'language',
  'browser',
  'os',
  'device',
  'resolution',
  'event',
  'visits',
  'visits_hours',
  'bounces',
  'visit_duration',
  'exit_page',
] as const;

export type StatName = (typeof STAT_NAMES)[number];

/**
 * Roll-ups no API v1 statistic serves: the visitors of each page and of each referrer, per
 * date, as the statistics page lists them by default (docs/ARCHITECTURE.md, "The counting
 * model"). A visitor is one per date, so a range's visitors of a page are the sum of its
 * dates' — exact, as the log counts them. Each is kept in the rows of the statistic it is of
 * (`VISITORS_OF`: a page's in its `page` row, beside its page views), so counting them adds
 * no row to a flush.
 */
export const VISITOR_ROLLUPS = ['page_visitors', 'referrer_visitors'] as const;

export type VisitorRollup = (typeof VISITOR_ROLLUPS)[number];

/** The statistic whose rows keep each visitors' roll-up (in their `visitors` column). */
export const VISITORS_OF: Record<VisitorRollup, StatName> = {
  page_visitors: 'page',
  referrer_visitors: 'referrer',
};

/** Every statistic D1's roll-ups hold: API v1's and the visitors' of pages and referrers. */
export const ROLLUP_NAMES = [...STAT_NAMES, ...VISITOR_ROLLUPS] as const;

export type RollupName = (typeof ROLLUP_NAMES)[number];

/**
 * What each roll-up statistic holds, in the query engine's terms: the grouping of one
 * dimension by one metric whose rows are its values and counts (src/rollups/groupings.ts reads
 * a grouping from the statistic that holds it).
 */
export const ROLLED_UP: Record<RollupName, { dimension: string; metric: string }> = {
  pageviews: { dimension: 'time:day', metric: 'pageviews' },
  pageviews_hours: { dimension: 'sl:hour', metric: 'pageviews' },
  visitors: { dimension: 'time:day', metric: 'visitors' },
  visitors_hours: { dimension: 'sl:visitor_hour', metric: 'visitors' },
  page: { dimension: 'sl:page', metric: 'pageviews' },
  landing_page: { dimension: 'visit:entry_page', metric: 'visits' },
  referrer: { dimension: 'sl:referrer', metric: 'visits' },
  campaign: { dimension: 'sl:campaign', metric: 'visits' },
  continent: { dimension: 'sl:continent', metric: 'visitors' },
  country: { dimension: 'sl:country', metric: 'visitors' },
  city: { dimension: 'sl:city', metric: 'visitors' },
  language: { dimension: 'sl:language', metric: 'visitors' },
  browser: { dimension: 'sl:browser', metric: 'visitors' },
  os: { dimension: 'sl:os', metric: 'visitors' },
  device: { dimension: 'sl:device', metric: 'visitors' },
  resolution: { dimension: 'sl:resolution', metric: 'visitors' },
  event: { dimension: 'sl:event', metric: 'sl:custom_events' },
  visits: { dimension: 'time:day', metric: 'visits' },
  visits_hours: { dimension: 'sl:visit_hour', metric: 'visits' },
  bounces: { dimension: 'time:day', metric: 'sl:bounces' },
  visit_duration: { dimension: 'time:day', metric: 'sl:duration' },
  exit_page: { dimension: 'visit:exit_page', metric: 'visits' },
  page_visitors: { dimension: 'sl:page', metric: 'visitors' },
  referrer_visitors: { dimension: 'sl:referrer', metric: 'visitors' },
};

/**
 * The statistics whose values are times: a date of the range (`pageviews`, `visitors`,
 * `visits`, `bounces`, `visit_duration`) or an hour `00`–`23` (`…_hours`). They have at most
 * one value per date or hour, so a page of them is worked out from all their rows.
 */
export const TIME_VALUED: ReadonlySet<RollupName> = new Set([
  'pageviews',
  'visitors',
  'visits',
  'bounces',
  'visit_duration',
  'pageviews_hours',
  'visitors_hours',
  'visits_hours',
]);

/** Every dimension a statistic reports, as enriched by the hit pipeline in the Worker. */
export type EventDimensions = {
  /** The page's path and query as people read them (a custom event's: the page it was sent from). */
  page: string;
  /** Host of the external referrer, '' when there is none (or it is the website itself). */
  referrer: string;
  campaign: string | null;
  country: string | null;
  continent: string | null;
  city: string | null;
  language: string | null;
  browser: string;
  os: string;
  device: string;
  resolution: string | null;
  /** Custom events: `name` or `name:value:unit`; page views: null. */
  event: string | null;
};

/**
 * Dimensions the event log keeps that no roll-up counts: what the query engine's other
 * dimensions read (./query-dimensions.ts). Each is null (or '') when the hit did not carry it.
 */
export type LogOnlyDimensions = {
  /** The page's host name without `www.` (`event:hostname`). */
  hostname: string;
  /** The custom event's name, or `pageview` (`event:name`). */
  name: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmContent: string | null;
  utmTerm: string | null;
  /** `Google`, `Hacker News`, a referrer host or a `utm_source`; '' for none (src/ingest/steps/source.ts). */
  source: string;
  /** The channel, as Google Analytics 4 groups them (`Organic Search`, `Direct`, …). */
  channel: string;
  browserVersion: string | null;
  osVersion: string | null;
  /** ISO 3166-2 code and name: `US-TX:Texas`. */
  region: string | null;
};

/**
 * What the roll-ups count of one stored page view or custom event: its dimensions, when it
 * happened (local date and hour), what the log decided about its visitor and visit, and its
 * place in its visit (docs/ARCHITECTURE.md, "The counting model").
 */
export type CountedEvent = EventDimensions & {
  kind: 'pageview' | 'event';
  date: string;
  hour: string;
  /** The visitor's number on `date` (1, 2, …); 0 for an event of a visitor never seen. */
  visitor: number;
  /** This page view is the visitor's first of the day. */
  newVisitor: boolean;
  /** This page view starts a visit. */
  newVisit: boolean;
  /**
   * Page views: which of its visit's page views this is (1 starts it); null for a custom
   * event, and for a page view of a visit begun before the log kept it.
   */
  visitViews: number | null;
  /** The visit's page before this one (its exit page until now); null when `visitViews` ≤ 1. */
  previousPage: string | null;
  /**
   * Whole seconds this page view adds to its visit's duration: since the page view before
   * (none for the first), less those that one's engaged time added, and its own engaged time
   * while it is the visit's last (src/website-log/object/write/engagement.ts).
   */
  visitSeconds: number;
};

/** One roll-up increment of a hit: statistic and value (the date is the hit's). */
type Stat = readonly [name: string, value: string];

type Counted = EventDimensions & { date: string; hour: string };

/** What a page view always counts. */
function pageviewStats(e: Counted): Stat[] {
  return [
    ['pageviews', e.date],
    ['pageviews_hours', e.hour],
    ['page', e.page],
  ];
}

/** What a visitor's first page view of the day counts besides. */
function firstOfDayStats(e: Counted): Stat[] {
  return present([
    ['visitors', e.date],
    ['visitors_hours', e.hour],
    ['browser', e.browser],
    ['os', e.os],
    ['device', e.device],
    ['country', e.country],
    ['continent', e.continent],
    ['city', e.city],
    ['language', e.language],
    ['resolution', e.resolution],
  ]);
}

/** What the first page view of a visit counts besides: the visit, on its date and hour. */
function firstOfVisitStats(e: Counted): Stat[] {
  return present([
    ['visits', e.date],
    ['visits_hours', e.hour],
    ['landing_page', e.page],
    ['referrer', e.referrer],
    ['campaign', e.campaign],
  ]);
}

/**
 * What a page view changes in its visit's statistics, kept true after every page view, so
 * that no visit has to be seen to end: the first page view counts a bounce and its page as
 * the exit page; each later one moves the exit
 * page, adds to the duration, and the second takes the bounce back. Increments of -1 are
 * what make this exact without waiting; they cancel within a flush when they can.
 */
function visitChanges(
  e: Counted & Pick<CountedEvent, 'visitViews' | 'previousPage' | 'visitSeconds'>,
): [Stat, number][] {
  if (e.visitViews === null) return [];
  if (e.visitViews === 1)
    return [
      [['bounces', e.date], 1],
      [['exit_page', e.page], 1],
      // A visit of one page lasts as long as it was seen (src/website-log/object/write/engagement.ts).
      ...(e.visitSeconds > 0
        ? [[['visit_duration', e.date], e.visitSeconds] as [Stat, number]]
        : []),
    ];
  const changes: [Stat, number][] = [[['exit_page', e.page], 1]];
  if (e.previousPage !== null) changes.push([['exit_page', e.previousPage], -1]);
  if (e.visitViews === 2) changes.push([['bounces', e.date], -1]);
  if (e.visitSeconds > 0) changes.push([['visit_duration', e.date], e.visitSeconds]);
  return changes;
}

/** The statistics with a value: an unknown place, language or screen is not counted. */
function present(stats: [string, string | null][]): Stat[] {
  return stats.filter((s): s is [string, string] => s[1] !== null && s[1] !== '');
}

/**
 * What the visitors of each date of a run of events were counted for before it: per date,
 * `seenKey`s of their pages and referrers — the log's events of the date before the run — so
 * that each counts a visitor once a date, as the log's `visitors` does. A date it does not
 * hold had none. `rollupOf` adds the run's own.
 */
export type Seen = Map<string, Set<string>>;

/** A visitor counted for a page (`page_visitors`) or a referrer on a date, as `Seen` holds it. */
export const seenKey = (name: VisitorRollup, visitor: number, value: string) =>
  `${name}\u0000${visitor}\u0000${value}`;

/** One roll-up row's increment: statistic, local date, value, count. */
export type Increment = [name: string, date: string, value: string, count: number];

/**
 * The daily roll-ups of a run of events, summed per (statistic, date, value): what the
 * events add to the `stats` table (docs/ARCHITECTURE.md, The counting model). A page view
 * counts `pageviewStats`; the visitor's first of the day also `firstOfDayStats`; the first
 * of a visit also `firstOfVisitStats`; every page view changes its
 * visit's bounce, exit page and duration (`visitChanges`); a visitor's first page view of a
 * page on a date counts its `page_visitors`, and the first visit of a date from a referrer
 * its `referrer_visitors`, unless `seen` says an earlier event did (it notes the run's
 * own). A custom event counts `event`. `durations`: changes to visits' durations made after
 * their page views were rolled up (an engagement on a visit's last page view). Increments
 * that cancel out are left out.
 */
export function rollupOf(
  events: Iterable<CountedEvent>,
  durations: readonly { date: string; seconds: number }[] = [],
  seen: Seen = new Map(),
): Increment[] {
  const counts = new Map<string, Increment>();
  const add = (date: string, [name, value]: Stat, by = 1) => {
    const key = `${name}\u0000${date}\u0000${value}`;
    const row = counts.get(key);
    if (row) row[3] += by;
    else counts.set(key, [name, date, value, by]);
  };
  const addAll = (date: string, stats: Stat[]) => {
    for (const stat of stats) add(date, stat);
  };
  const once = (e: CountedEvent, name: VisitorRollup, value: string) => {
    const key = seenKey(name, e.visitor, value);
    const date = seen.get(e.date) ?? new Set<string>();
    seen.set(e.date, date);
    if (date.has(key)) return;
    date.add(key);
    add(e.date, [name, value]);
  };
  for (const e of events) {
    if (e.kind === 'event') {
      if (e.event) add(e.date, ['event', e.event]);
      continue;
    }
    addAll(e.date, pageviewStats(e));
    once(e, 'page_visitors', e.page);
    if (e.newVisit && e.referrer !== '') once(e, 'referrer_visitors', e.referrer);
    if (e.newVisitor) addAll(e.date, firstOfDayStats(e));
    if (e.newVisit) addAll(e.date, firstOfVisitStats(e));
    for (const [stat, by] of visitChanges(e)) add(e.date, stat, by);
  }
  for (const { date, seconds } of durations) add(date, ['visit_duration', date], seconds);
  return [...counts.values()].filter((row) => row[3] !== 0);
}

/**
 * A custom event's name as the log keeps it: `:` separates the parts of Sightline's
 * `name:value:unit`, so a name from another tracker ("Outbound Link: Click") keeps the
 * look-alike U+A789 instead.
 */
export function storedEventName(name: string): string {
  return name.replace(/:/g, '\uA789');
}
