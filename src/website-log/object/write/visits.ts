/**
 * Visitors and visits as the log decides them (docs/ARCHITECTURE.md, "The counting
 * model"): which page views go on a visit under way, the visitor and visit numbers of a date, and the visits
 * under way, kept in memory and read back from the events after a restart.
 */
import { dateOfDay } from '../../../lib/time/dates.ts';
import type { LogHit } from '../../events.ts';
import type { LogDb } from '../tables/log-db.ts';
import {
  type Decided,
  type VisitFacts,
  type VisitorRow,
  type VisitorValues,
  type VisitValues,
  visitorValuesOf,
  visitValuesOf,
} from '../tables/rows.ts';
import {
  goesOver,
  markTooFast,
  type Pace,
  recentPageViews,
  WINDOW_MS,
  withPageViewAt,
} from './too-fast.ts';

/** A new visit starts after this long without a page view. */
const VISIT_GAP_MS = 30 * 60 * 1000;
/** Slack for clocks of different Workers when the visits under way are read back. */
const CLOCK_SLACK_MS = 5 * 60_000;
/** Events read per statement while reading back the visits under way. */
const READ_BACK_BATCH = 1_000;

/**
 * Where a visitor's current visit stands, kept in memory by `visitKey`: the visit's number,
 * its last page view's time and page, and its page views so far (null for a visit under way
 * when the log was upgraded to version 2). It changes with every page view, so it is not
 * written anywhere: every page view's event row says all of it, and a restarted object
 * reads it back from the events of the last half hour (`readBackVisits`).
 */
export type VisitState = {
  visit: number;
  lastSeen: number;
  views: number | null;
  page: string;
  /** The visit's page views by page, for its engagements (./engagement.ts). */
  pages: VisitPages;
  /** When the visit's last engagement came. */
  engagedAt?: number;
  /**
   * Whole seconds of its last page view's engaged time that its duration counts
   * (./engagement.ts): the next page view's own seconds leave them out.
   */
  tail?: number;
  /**
   * The times of the visitor's page views in the last minute, of this visit or the one
   * before (./too-fast.ts): every visitor's pace is judged, in memory.
   */
  recent?: number[];
};

/** A visit's page views by page: the ids of its first and of its last view of each. */
type VisitPages = ReadonlyMap<string, { first: number; last: number }>;

/** The most pages of one visit whose engagement is kept (./engagement.ts): a longer visit's later pages have none. */
const MOST_PAGES = 50;

/**
 * A visit's pages with page view `id` of `page`: its last of the page, or (`older`: read back
 * newest first) its first. A new map: the visit's state changes only once its hit is stored.
 */
function withPageView(
  pages: VisitPages | undefined,
  page: string,
  id: number,
  older = false,
): VisitPages {
  const next = new Map(pages);
  const known = next.get(page);
  if (known) next.set(page, older ? { ...known, first: id } : { ...known, last: id });
  else if (next.size < MOST_PAGES) next.set(page, { first: id, last: id });
  return next;
}

/** The key of a visitor's visit under way: their date and number. */
const visitKey = (date: string, visitor: number) => `${date} ${visitor}`;

/** The visit a visitor's engagement at `time` belongs to: their visit under way, if any. */
export function visitUnderWay(
  visits: Map<string, VisitState>,
  known: { number: number; visit: number } | undefined,
  date: string,
  time: number,
): VisitState | undefined {
  const state = known && visits.get(visitKey(date, known.number));
  if (!state || state.visit !== known?.visit) return undefined;
  return time <= Math.max(state.lastSeen, state.engagedAt ?? 0) + VISIT_GAP_MS ? state : undefined;
}

/** A page view that starts a visit is its first. */
const FIRST_PAGE_VIEW: VisitFacts = { visitViews: 1, previousPage: null, visitSeconds: 0 };
/** An event, or a page view of a visit under way when the log was upgraded (views unknown). */
const NO_VISIT_FACTS: VisitFacts = { visitViews: null, previousPage: null, visitSeconds: 0 };

/**
 * The visit a page view goes on, or null when it starts one. A visit goes on within 30
 * minutes of the last page view, unless the visitor arrives from another site than the one
 * that started it (reloads and single-page-app navigations repeat that referrer).
 */
function continuedVisit(
  hit: LogHit,
  known: VisitorRow | undefined,
  under: VisitState | undefined,
): { visit: number; facts: VisitFacts; lastSeen: number } | null {
  if (!known || !under || under.lastSeen <= hit.time - VISIT_GAP_MS) return null;
  if (hit.referrer !== '' && known.visit_referrer !== hit.referrer) return null;
  const facts: VisitFacts =
    under.views !== null && known.visit_start !== null
      ? {
          visitViews: under.views + 1,
          previousPage: under.page,
          // Whole seconds since the visit's start, less those counted already — the last
          // page view's engaged time among them: the seconds between two page views count
          // the gap, or the first one's engaged time when that is longer.
          visitSeconds: Math.max(
            0,
            Math.floor((hit.time - known.visit_start) / 1000) -
              Math.floor((under.lastSeen - known.visit_start) / 1000) -
              (under.tail ?? 0),
          ),
        }
      : NO_VISIT_FACTS;
  return { visit: known.visit, facts, lastSeen: Math.max(under.lastSeen, hit.time) };
}

/** A visitor's and their current visit's values, as their row keeps them. */
type Values = { visitor: VisitorValues; visit: VisitValues | null };

/** The values a visitor's row keeps (none in a row an older version wrote), and their pace. */
function valuesOf(known: VisitorRow | undefined): Partial<Values> & Pace {
  if (!known?.attrs) return {};
  return JSON.parse(known.attrs) as Partial<Values> & Pace;
}

/**
 * Writes the visitor's row when a visit starts: their values and their visit's, which the
 * visit's later hits carry; their visit's page views are in memory.
 */
function writeVisitStart(
  db: LogDb,
  hash: string,
  hit: LogHit,
  decided: Decided,
  values: Values,
): void {
  db.rows(
    `INSERT INTO visitors (hash, date, number, visit, last_seen, visit_referrer, visit_start, attrs)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (hash) DO UPDATE SET
        visit = excluded.visit,
        last_seen = max(last_seen, excluded.last_seen),
        visit_referrer = excluded.visit_referrer,
        visit_start = excluded.visit_start,
        attrs = excluded.attrs`,
    hash,
    hit.date,
    decided.visitor,
    decided.visit,
    hit.time,
    hit.referrer,
    hit.time,
    JSON.stringify(values),
  );
}

/** The next visitor and visit numbers of the dates in use, learnt from storage on first use. */
export class VisitNumbers {
  private readonly next = new Map<string, { visitor: number; visit: number }>();

  /** The next visitor or visit number of a date. */
  take(db: LogDb, date: string, kind: 'visitor' | 'visit'): number {
    let counters = this.next.get(date);
    if (!counters) {
      const row = db.one<{ visitor: number | null; visit: number | null }>(
        'SELECT max(number) AS visitor, max(visit) AS visit FROM visitors WHERE date = ?',
        date,
      );
      counters = { visitor: (row.visitor ?? 0) + 1, visit: (row.visit ?? 0) + 1 };
      if (this.next.size > 3) this.next.clear();
      this.next.set(date, counters);
    }
    const number = counters[kind];
    counters[kind] += 1;
    return number;
  }

  clear(): void {
    this.next.clear();
  }
}

/**
 * The visits under way, by `visitKey`, read back after a restart from the page views of the
 * half hour before the newest event (and some slack for the clocks of different Workers): a
 * visit whose last page view is older than that cannot go on. Reads the log backwards, a
 * batch at a time, so the cost is the last half hour's events and one batch more.
 */
export function readBackVisits(
  db: LogDb,
  page: (id: number | null) => string,
): Map<string, VisitState> {
  const visits = new Map<string, VisitState>();
  let below = Number.MAX_SAFE_INTEGER;
  let cutoff: number | undefined;
  for (;;) {
    const rows = db.rows<{
      id: number;
      kind: number;
      time: number;
      day: number;
      visitor: number;
      visit: number;
      page: number | null;
      visit_views: number | null;
      engaged: number | null;
    }>(
      `SELECT id, kind, time, day, visitor, visit, page, visit_views, engaged FROM log
        WHERE id < ? ORDER BY id DESC LIMIT ?`,
      below,
      READ_BACK_BATCH,
    );
    let current = false;
    for (const row of rows) {
      cutoff ??= row.time - VISIT_GAP_MS - CLOCK_SLACK_MS;
      if (row.time < cutoff) continue;
      current = true;
      if (row.kind !== 0) continue;
      const key = visitKey(dateOfDay(row.day), row.visitor);
      const known = visits.get(key);
      // Newest first: the visit's last page view makes its state, the older ones its pages
      // (and, of any visit, those of its last minute its pace: ./too-fast.ts).
      if (!known)
        visits.set(key, {
          visit: row.visit,
          lastSeen: row.time,
          views: row.visit_views,
          page: page(row.page),
          pages: withPageView(undefined, page(row.page), row.id),
          tail: Math.floor((row.engaged ?? 0) / 1000),
          recent: [row.time],
        });
      else {
        if (row.time > known.lastSeen - WINDOW_MS)
          known.recent = [row.time, ...(known.recent ?? [])];
        if (known.visit === row.visit)
          known.pages = withPageView(known.pages, page(row.page), row.id, true);
      }
    }
    // Done at the first batch with nothing recent: arrival order and time order may
    // differ a little (the clocks of different Workers).
    const last = rows.at(-1);
    if (!last || !current || rows.length < READ_BACK_BATCH) break;
    below = last.id;
  }
  return visits;
}

/** Visitors whose last page view was after `after`. */
export function visitorsAfter(visits: Map<string, VisitState>, after: number): number {
  let seen = 0;
  for (const state of visits.values()) if (state.lastSeen > after) seen++;
  return seen;
}

/** Forgets the visits in memory that can no longer go on. */
export function pruneVisits(visits: Map<string, VisitState>): void {
  let newest = 0;
  for (const state of visits.values()) newest = Math.max(newest, state.lastSeen);
  for (const [key, state] of visits)
    if (state.lastSeen < newest - VISIT_GAP_MS - CLOCK_SLACK_MS) visits.delete(key);
}

/**
 * Decides a hit's visitor and visit, writing the visitor's row when a page view starts a
 * visit. A page view goes on its visitor's visit under way (`continuedVisit`) or starts one;
 * an event belongs to its visitor's current visit, if any. Answers the values the hit's row
 * carries — its visitor's (from their first page view of the day) and its visit's (from the
 * visit's first) — and the visit's new state for the log to keep in memory once the hit's
 * transaction has committed (with the page view, `id`, among its pages). A visitor whose row
 * an older version wrote has no values kept: the hit's own stand in. Answers `tooFast`, and
 * writes nothing but the mark of the page view that goes over, for a visitor who sends page
 * views faster than a person can (./too-fast.ts).
 */
export function decideHit(
  db: LogDb,
  numbers: VisitNumbers,
  underWay: () => Map<string, VisitState>,
  hit: LogHit,
  hash: string,
  id: number,
):
  | { decided: Decided; facts: VisitFacts; values: Values; state?: [string, VisitState] }
  | { tooFast: true } {
  const known = db.rows<VisitorRow>(
    'SELECT number, visit, visit_referrer, visit_start, attrs FROM visitors WHERE hash = ?',
    hash,
  )[0];
  const kept = valuesOf(known);
  if (kept.tooFast !== undefined) return { tooFast: true };
  if (hit.kind !== 'pageview') {
    const decided = {
      visitor: known?.number ?? 0,
      visit: known?.visit ?? 0,
      newVisitor: false,
      newVisit: false,
    };
    const values = { visitor: kept.visitor ?? visitorValuesOf(hit), visit: kept.visit ?? null };
    return { decided, facts: NO_VISIT_FACTS, values };
  }
  // The visitor's visit under way, if the one in memory is the visitor's current one.
  const current = known && underWay().get(visitKey(hit.date, known.number));
  const recent = recentPageViews(current?.recent, hit.time);
  if (known && goesOver(recent)) {
    markTooFast(db, hash, hit.time);
    return { tooFast: true };
  }
  const under = current?.visit === known?.visit ? current : undefined;
  const goesOn = continuedVisit(hit, known, under);
  const decided = {
    visitor: known?.number ?? numbers.take(db, hit.date, 'visitor'),
    visit: goesOn ? goesOn.visit : numbers.take(db, hit.date, 'visit'),
    newVisitor: known === undefined,
    newVisit: !goesOn,
  };
  const facts = goesOn ? goesOn.facts : FIRST_PAGE_VIEW;
  const values: Values = {
    visitor: (known && kept.visitor) || visitorValuesOf(hit),
    visit: (goesOn && kept.visit) || visitValuesOf(hit),
  };
  if (!goesOn) writeVisitStart(db, hash, hit, decided, values);
  const state: VisitState = {
    visit: decided.visit,
    lastSeen: goesOn ? goesOn.lastSeen : hit.time,
    views: facts.visitViews,
    page: hit.page,
    pages: withPageView(goesOn ? under?.pages : undefined, hit.page, id),
    recent: withPageViewAt(recent, hit.time),
  };
  return { decided, facts, values, state: [visitKey(hit.date, decided.visitor), state] };
}
