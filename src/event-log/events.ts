/**
 * The website's event log (docs/ARCHITECTURE.md, "The event log"): what one stored page view
 * or custom event is, and the daily roll-ups it adds up to. The roll-ups are derived from the
 * log alone, by `rollupOf`, so the log is the one record of what happened and every number
 * can be recomputed from it.
 */
import { sha256Hex } from '../lib/crypto.ts';

/** Every dimension a statistic reports, as enriched by the hit pipeline in the Worker. */
export type EventDimensions = {
  /** Page views: path and query as people read them; custom events: '' . */
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
 * A hit handed to its website's log: the dimensions, when it happened (instant, website-local
 * date and hour), and who sent it — the client address and User-Agent, used only to make the
 * day's visitor hash and never stored.
 */
export type LogHit = EventDimensions & {
  websiteId: number;
  kind: 'pageview' | 'event';
  time: number;
  date: string;
  hour: string;
  ip: string;
  userAgent: string;
};

/** A row of the log: the hit's dimensions and what the log decided about its visitor. */
export type LoggedEvent = EventDimensions & {
  /** Position in the log: increasing, never reused. */
  id: number;
  kind: 'pageview' | 'event';
  time: number;
  date: string;
  hour: string;
  /** The visitor's number on `date` (1, 2, …); 0 for an event of a visitor never seen. */
  visitor: number;
  /** The visit's number on `date`; 0 for an event of a visitor never seen. */
  visit: number;
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
  /** Whole seconds this page view adds to its visit's duration (0 for the first). */
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
  e: Counted & Pick<LoggedEvent, 'visitViews' | 'previousPage' | 'visitSeconds'>,
): [Stat, number][] {
  if (e.visitViews === null) return [];
  if (e.visitViews === 1)
    return [
      [['bounces', e.date], 1],
      [['exit_page', e.page], 1],
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

/** One roll-up row's increment: statistic, local date, value, count. */
export type Increment = [name: string, date: string, value: string, count: number];

/**
 * The daily roll-ups of a run of events, summed per (statistic, date, value): what the
 * events add to the `stats` table (docs/ARCHITECTURE.md, The counting model). A page view
 * counts `pageviewStats`; the visitor's first of the day also `firstOfDayStats`; the first
 * of a visit also `firstOfVisitStats`; every page view changes its
 * visit's bounce, exit page and duration (`visitChanges`). A custom event counts `event`.
 * Increments that cancel out are left out.
 */
export function rollupOf(events: Iterable<LoggedEvent>): Increment[] {
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
  for (const e of events) {
    if (e.kind === 'event') {
      if (e.event) add(e.date, ['event', e.event]);
      continue;
    }
    addAll(e.date, pageviewStats(e));
    if (e.newVisitor) addAll(e.date, firstOfDayStats(e));
    if (e.newVisit) addAll(e.date, firstOfVisitStats(e));
    for (const [stat, by] of visitChanges(e)) add(e.date, stat, by);
  }
  return [...counts.values()].filter((row) => row[3] !== 0);
}

/**
 * The day's visitor identity: a salted one-way hash of (salt, website, address, User-Agent),
 * in the spirit of Plausible's approach
 * (https://plausible.io/data-policy#how-we-count-unique-users-without-cookies). The salt is
 * random, per local date, and deleted after 72 hours: then nothing can link a hash to the
 * address and browser that made it.
 */
export async function visitorHash(
  salt: string,
  websiteId: number,
  ip: string,
  userAgent: string,
): Promise<string> {
  return (await sha256Hex(`${salt}\u0000${websiteId}\u0000${ip}\u0000${userAgent}`)).slice(0, 32);
}
