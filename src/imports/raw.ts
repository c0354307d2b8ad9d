/**
 * Exports of single hits (GoatCounter's CSV, Umami's `website_event`) counted as Sightline
 * counts its own (docs/ARCHITECTURE.md, "The counting model"), in the website's time zone:
 * each page view its date, hour and page; each custom event its name; a visitor (the source's
 * session, of a local date) by their first page view of the day; a visit (the source's visit,
 * of a local date) by its first page view — its landing page, referrer and campaign — and by
 * all of them: one page view is a bounce, first to last its duration, the last its exit page.
 * The rows need not come in order: memory holds one small record per visitor-day and per
 * visit, never the hits.
 */
import { storedEventName } from '../counting/statistics.ts';
import { localDateHour } from '../lib/dates.ts';
import type { Tally } from './format.ts';

/** One hit of an export, as the importers read it. */
export type RawHit = {
  /** When, as milliseconds since 1970 (UTC). */
  at: number;
  /** The visitor (the source's session); visits and visitors are per local date of it. */
  visitor: string;
  visit: string;
  kind: 'pageview' | 'event';
  /** The page of a page view; the name of a custom event. */
  page: string;
  referrer: string;
  campaign: string;
  browser: string;
  os: string;
  device: string;
  /** `US:United States`, or ''. */
  country: string;
  language: string;
  resolution: string;
};

type VisitorDay = Pick<
  RawHit,
  'at' | 'browser' | 'os' | 'device' | 'country' | 'language' | 'resolution'
> & {
  hour: string;
};

type Visit = {
  firstAt: number;
  hour: string;
  landing: string;
  referrer: string;
  campaign: string;
  lastAt: number;
  exit: string;
  views: number;
};

/** Every statistic counted from single hits (continents and cities are never known). */
export const RAW_STATISTICS = [
  'pageviews',
  'pageviews_hours',
  'page',
  'event',
  'visitors',
  'visitors_hours',
  'browser',
  'os',
  'device',
  'country',
  'language',
  'resolution',
  'visits',
  'visits_hours',
  'landing_page',
  'referrer',
  'campaign',
  'exit_page',
  'bounces',
  'visit_duration',
];

/** Counts raw hits into a tally; `finish` counts the visitors and visits. */
export class RawCounter {
  private visitors = new Map<string, VisitorDay>();
  private visits = new Map<string, Visit>();

  constructor(
    private readonly tally: Tally,
    private readonly timeZone: string,
  ) {}

  add(hit: RawHit): void {
    const { date, hour } = localDateHour(hit.at, this.timeZone);
    if (hit.kind === 'event') {
      this.tally.add('event', date, storedEventName(hit.page), 1);
      return;
    }
    this.tally.add('pageviews', date, date, 1);
    this.tally.add('pageviews_hours', date, hour, 1);
    this.tally.add('page', date, hit.page, 1);
    const visitorKey = `${date}\u0000${hit.visitor}`;
    const known = this.visitors.get(visitorKey);
    if (!known || hit.at < known.at) this.visitors.set(visitorKey, { ...pickVisitor(hit), hour });
    const visitKey = `${date}\u0000${hit.visit}`;
    const visit = this.visits.get(visitKey);
    if (!visit) {
      this.visits.set(visitKey, {
        firstAt: hit.at,
        hour,
        landing: hit.page,
        referrer: hit.referrer,
        campaign: hit.campaign,
        lastAt: hit.at,
        exit: hit.page,
        views: 1,
      });
      return;
    }
    visit.views++;
    if (hit.at < visit.firstAt) {
      Object.assign(visit, { firstAt: hit.at, hour, landing: hit.page });
      Object.assign(visit, { referrer: hit.referrer, campaign: hit.campaign });
    }
    if (hit.at >= visit.lastAt) Object.assign(visit, { lastAt: hit.at, exit: hit.page });
  }

  /** Counts every visitor and visit seen (call once, after the last hit). */
  finish(): void {
    const t = this.tally;
    for (const [key, v] of this.visitors) {
      const date = key.slice(0, 10);
      t.add('visitors', date, date, 1);
      t.add('visitors_hours', date, v.hour, 1);
      for (const name of ['browser', 'os', 'device', 'country', 'language', 'resolution'] as const)
        t.add(name, date, v[name], 1);
    }
    for (const [key, v] of this.visits) {
      const date = key.slice(0, 10);
      t.add('visits', date, date, 1);
      t.add('visits_hours', date, v.hour, 1);
      t.add('landing_page', date, v.landing, 1);
      t.add('referrer', date, v.referrer, 1);
      t.add('campaign', date, v.campaign, 1);
      t.add('exit_page', date, v.exit, 1);
      if (v.views === 1) t.add('bounces', date, date, 1);
      t.add('visit_duration', date, date, Math.floor((v.lastAt - v.firstAt) / 1000));
    }
    this.visitors.clear();
    this.visits.clear();
  }
}

const pickVisitor = (hit: RawHit) => ({
  at: hit.at,
  browser: hit.browser,
  os: hit.os,
  device: hit.device,
  country: hit.country,
  language: hit.language,
  resolution: hit.resolution,
});

/** The device class of a screen's width in CSS pixels (GoatCounter keeps only the width). */
export function deviceOfWidth(width: number): string {
  if (!(width > 0)) return 'Unknown';
  if (width < 768) return 'mobile';
  if (width < 1024) return 'tablet';
  return 'desktop';
}
