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
};

/** One roll-up increment of a hit: statistic and value (the date is the hit's). */
export type Stat = readonly [name: string, value: string];

type Counted = EventDimensions & { date: string; hour: string };

/** What a page view always counts. */
export function pageviewStats(e: Counted): Stat[] {
  return [
    ['pageviews', e.date],
    ['pageviews_hours', e.hour],
    ['page', e.page],
  ];
}

/** What a visitor's first page view of the day counts besides. */
export function firstOfDayStats(e: Counted): Stat[] {
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

/** What the first page view of a visit counts besides. */
export function firstOfVisitStats(e: Counted): Stat[] {
  return present([
    ['landing_page', e.page],
    ['referrer', e.referrer],
    ['campaign', e.campaign],
  ]);
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
 * of a visit also `firstOfVisitStats`. A custom event counts `event`.
 */
export function rollupOf(events: Iterable<LoggedEvent>): Increment[] {
  const counts = new Map<string, Increment>();
  const add = (date: string, stats: Stat[]) => {
    for (const [name, value] of stats) {
      const key = `${name}\u0000${date}\u0000${value}`;
      const row = counts.get(key);
      if (row) row[3] += 1;
      else counts.set(key, [name, date, value, 1]);
    }
  };
  for (const e of events) {
    if (e.kind === 'event') {
      if (e.event) add(e.date, [['event', e.event]]);
      continue;
    }
    add(e.date, pageviewStats(e));
    if (e.newVisitor) add(e.date, firstOfDayStats(e));
    if (e.newVisit) add(e.date, firstOfVisitStats(e));
  }
  return [...counts.values()];
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
