/**
 * The website's event log (docs/ARCHITECTURE.md, "The event log"): what one stored page view
 * or custom event is, and the daily roll-ups it adds up to. The roll-ups are derived from the
 * log alone, by `rollupOf`, so the log is the one record of what happened and every number
 * can be recomputed from it.
 */

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

/** One roll-up row's increment: statistic, local date, value, count. */
export type Increment = [name: string, date: string, value: string, count: number];

/**
 * The daily roll-ups of a run of events, summed per (statistic, date, value): what the
 * events add to the `stats` table. A page view counts `pageviews`, `pageviews_hours` and
 * `page`; the visitor's first of the day also `visitors`, `visitors_hours` and the
 * visitor's browser, OS, device, place, language and screen; the first of a visit also its
 * landing page, external referrer and campaign. A custom event counts `event`.
 */
export function rollupOf(events: Iterable<LoggedEvent>): Increment[] {
  const counts = new Map<string, Increment>();
  const add = (name: string, date: string, value: string | null) => {
    if (value === null || value === '') return;
    const key = `${name}\u0000${date}\u0000${value}`;
    const row = counts.get(key);
    if (row) row[3] += 1;
    else counts.set(key, [name, date, value, 1]);
  };
  for (const e of events) {
    if (e.kind === 'event') {
      add('event', e.date, e.event);
      continue;
    }
    add('pageviews', e.date, e.date);
    add('pageviews_hours', e.date, e.hour);
    add('page', e.date, e.page);
    if (e.newVisitor) {
      add('visitors', e.date, e.date);
      add('visitors_hours', e.date, e.hour);
      add('browser', e.date, e.browser);
      add('os', e.date, e.os);
      add('device', e.date, e.device);
      add('country', e.date, e.country);
      add('continent', e.date, e.continent);
      add('city', e.date, e.city);
      add('language', e.date, e.language);
      add('resolution', e.date, e.resolution);
    }
    if (e.newVisit) {
      add('landing_page', e.date, e.page);
      add('referrer', e.date, e.referrer);
      add('campaign', e.date, e.campaign);
    }
  }
  return [...counts.values()];
}
