/**
 * Exports of single hits (GoatCounter's CSV, Umami's `website_event`) counted as Sightline
 * counts its own (docs/ARCHITECTURE.md, "The counting model"), in the website's time zone:
 * each page view its date, hour and page; each custom event its name; a visitor (the source's
 * session, of a local date) by their first page view of the day; a visit (the source's visit,
 * of a local date) by its first page view — its landing page, referrer and campaign — and by
 * all of them: one page view is a bounce, first to last its duration, the last its exit page.
 * Of page views at the same instant, the first in the file is the first and the last the last.
 *
 * The rows need not come in order, and memory stays bounded (docs/ARCHITECTURE.md, "Imported
 * history"): it holds one small record per visitor-day and per visit, never the hits, and at
 * most `HELD_BYTES` of them. Past that, the records seen least recently are staged in D1
 * (./d1-staging.ts) as they are — a visitor-day or visit seen again later starts a new partial
 * record — and once any was, every record is staged at the end and read back a local date at
 * a time, its partial records combined, and counted here. Both ways give the same rows,
 * whatever the order.
 */
import { storedEventName } from '../counting/statistics.ts';
import { localDateHour } from '../lib/time/dates.ts';
import { keptValue, type Tally } from './format.ts';

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

/**
 * A visitor of a local date: their first page view — when, its place among the file's page
 * views (`seq`, which settles ties) — and what it says of them, each the value of a statistic
 * (`VISITOR_VALUES`, in this order from `hour`).
 */
export type VisitorDay = [
  visitor: string,
  at: number,
  seq: number,
  hour: string,
  browser: string,
  os: string,
  device: string,
  country: string,
  language: string,
  resolution: string,
];

/**
 * A visit of a local date: its first and last page views (when, their place), how many, and
 * the values of `VISIT_VALUES` (from `hour`: the first page view's hour, landing page,
 * referrer and campaign; the last's page).
 */
export type Visit = [
  visit: string,
  firstAt: number,
  firstSeq: number,
  lastAt: number,
  lastSeq: number,
  views: number,
  hour: string,
  landing: string,
  referrer: string,
  campaign: string,
  exit: string,
];

/** The statistics of a visitor-day's values, from its `hour` on; each also counts `visitors`. */
const VISITOR_VALUES = [
  'visitors_hours',
  'browser',
  'os',
  'device',
  'country',
  'language',
  'resolution',
];
/** The statistics of a visit's values, from its `hour` on; each also counts `visits`. */
const VISIT_VALUES = ['visits_hours', 'landing_page', 'referrer', 'campaign', 'exit_page'];
const VISITOR_FROM = 3;
const VISIT_FROM = 6;

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

/**
 * Where records go when memory is full: the pending import's rows in D1 (./d1-staging.ts), and
 * what writes the tally's rows when it holds many (called while the staged records are
 * counted).
 */
export type Bound = {
  spill: {
    /** Stages records, by local date. */
    stage(visitors: Map<string, VisitorDay[]>, visits: Map<string, Visit[]>): Promise<void>;
    /** Counts what was staged into the tally (its rows written by `flush` when many). */
    count(tally: Tally, limit: number, flush: () => Promise<void>): Promise<void>;
  };
  flush: () => Promise<void>;
  /** How much the records may weigh (`sizeOf`); `HELD_BYTES` unless told. */
  limit?: number;
};

/**
 * How much the records may weigh, estimated (`sizeOf`): about 50,000 visitor-days and visits
 * of Umami's, well within an isolate's 128 MB beside the tally's 20,000 rows (measured in
 * docs/BENCHMARKS.md, section 3d).
 */
const HELD_BYTES = 24 * 1024 * 1024;

/** What holds a record's cells, estimated. */
export const RECORD_BYTES = 240;

/** A record's weight: its strings (two bytes a character at most) and what holds them. */
const sizeOf = (record: (string | number)[]) => {
  let chars = 0;
  for (const cell of record) if (typeof cell === 'string') chars += cell.length;
  return RECORD_BYTES + 2 * chars;
};

/** Counts raw hits into a tally; `settle` keeps memory bounded; `finish` counts the rest. */
export class RawCounter {
  private visitors = new Map<string, VisitorDay>();
  private visits = new Map<string, Visit>();
  private bytes = 0;
  private seq = 0;
  private staged = false;

  private readonly limit: number;

  constructor(
    private readonly tally: Tally,
    private readonly timeZone: string,
    private readonly bound: Bound | null = null,
  ) {
    this.limit = bound?.limit ?? HELD_BYTES;
  }

  /** What the records held weigh, estimated (at most the limit after `settle`). */
  get held(): number {
    return this.bytes;
  }

  add(hit: RawHit): void {
    const { date, hour } = localDateHour(hit.at, this.timeZone);
    if (hit.kind === 'event') {
      this.tally.add('event', date, storedEventName(hit.page), 1);
      return;
    }
    this.tally.add('pageviews', date, date, 1);
    this.tally.add('pageviews_hours', date, hour, 1);
    this.tally.add('page', date, hit.page, 1);
    // Values as the tally keeps them (the longest cut), so that a staged record is counted
    // in D1 as it would be here.
    const seq = ++this.seq;
    this.addVisitor(`${date}\u0000${hit.visitor}`, hit, hour, seq);
    this.addVisit(`${date}\u0000${hit.visit}`, hit, hour, seq);
  }

  private addVisitor(key: string, hit: RawHit, hour: string, seq: number) {
    const known = this.visitors.get(key);
    if (known && hit.at >= known[1]) {
      this.touch(this.visitors, key, known);
      return;
    }
    this.replace(this.visitors, key, known, [
      hit.visitor,
      hit.at,
      seq,
      hour,
      keptValue(hit.browser),
      keptValue(hit.os),
      keptValue(hit.device),
      keptValue(hit.country),
      keptValue(hit.language),
      keptValue(hit.resolution),
    ]);
  }

  private addVisit(key: string, hit: RawHit, hour: string, seq: number) {
    const page = keptValue(hit.page);
    const referrer = keptValue(hit.referrer);
    const campaign = keptValue(hit.campaign);
    const { at } = hit;
    const visit = this.visits.get(key);
    if (!visit) {
      const v: Visit = [hit.visit, at, seq, at, seq, 1, hour, page, referrer, campaign, page];
      this.replace(this.visits, key, undefined, v);
      return;
    }
    const before = sizeOf(visit);
    visit[5]++;
    if (at < visit[1]) {
      visit[1] = at;
      visit[2] = seq;
      visit[6] = hour;
      visit[7] = page;
      visit[8] = referrer;
      visit[9] = campaign;
    }
    if (at >= visit[3]) {
      visit[3] = at;
      visit[4] = seq;
      visit[10] = page;
    }
    this.bytes += sizeOf(visit) - before;
    this.touch(this.visits, key, visit);
  }

  /** A record set anew, last in its map's order (the most recently seen). */
  private replace<R extends VisitorDay | Visit>(
    map: Map<string, R>,
    key: string,
    old: R | undefined,
    record: R,
  ) {
    if (old) {
      this.bytes -= sizeOf(old);
      map.delete(key);
    }
    this.bytes += sizeOf(record);
    map.set(key, record);
  }

  /** A record seen again moves last in its map's order. */
  private touch<R>(map: Map<string, R>, key: string, record: R) {
    map.delete(key);
    map.set(key, record);
  }

  /**
   * When the records weigh more than the limit, stages the least recently seen until they
   * weigh three quarters of it.
   */
  async settle(): Promise<void> {
    if (this.bytes <= this.limit || !this.bound) return;
    this.staged = true;
    const target = (this.limit * 3) / 4;
    const visitors = new Map<string, VisitorDay[]>();
    const visits = new Map<string, Visit[]>();
    // Each map gives up its share: the two together end below the target.
    const share = target / 2;
    this.bytes -= this.evict(this.visitors, visitors, share);
    this.bytes -= this.evict(this.visits, visits, share);
    await this.bound.spill.stage(visitors, visits);
  }

  /** Takes a map's least recently seen records into `out`, by date, until it weighs `keep`. */
  private evict<R extends VisitorDay | Visit>(
    map: Map<string, R>,
    out: Map<string, R[]>,
    keep: number,
  ): number {
    let weight = 0;
    for (const record of map.values()) weight += sizeOf(record);
    let freed = 0;
    for (const [key, record] of map) {
      if (weight - freed <= keep) break;
      freed += sizeOf(record);
      map.delete(key);
      const date = key.slice(0, 10);
      const list = out.get(date);
      if (list) list.push(record);
      else out.set(date, [record]);
    }
    return freed;
  }

  /** Counts every visitor and visit seen (call once, after the last hit). */
  async finish(): Promise<void> {
    if (this.staged && this.bound) {
      const visitors = new Map<string, VisitorDay[]>();
      const visits = new Map<string, Visit[]>();
      this.evict(this.visitors, visitors, 0);
      this.evict(this.visits, visits, 0);
      this.bytes = 0;
      const { spill, flush } = this.bound;
      await spill.stage(visitors, visits);
      await spill.count(this.tally, this.limit, flush);
      return;
    }
    for (const [key, v] of this.visitors) countVisitor(this.tally, key.slice(0, 10), v);
    for (const [key, v] of this.visits) countVisit(this.tally, key.slice(0, 10), v);
    this.visitors.clear();
    this.visits.clear();
    this.bytes = 0;
  }
}

/** A visitor-day's counts. */
export function countVisitor(t: Tally, date: string, v: VisitorDay) {
  t.add('visitors', date, date, 1);
  for (const [i, name] of VISITOR_VALUES.entries())
    t.add(name, date, v[VISITOR_FROM + i] as string, 1);
}

/** A visit's counts. */
export function countVisit(t: Tally, date: string, v: Visit) {
  t.add('visits', date, date, 1);
  for (const [i, name] of VISIT_VALUES.entries()) t.add(name, date, v[VISIT_FROM + i] as string, 1);
  if (v[5] === 1) t.add('bounces', date, date, 1);
  t.add('visit_duration', date, date, Math.floor((v[3] - v[1]) / 1000));
}

/** The device class of a screen's width in CSS pixels (GoatCounter keeps only the width). */
export function deviceOfWidth(width: number): string {
  if (!(width > 0)) return 'Unknown';
  if (width < 768) return 'mobile';
  if (width < 1024) return 'tablet';
  return 'desktop';
}
