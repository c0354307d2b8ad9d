/**
 * A visitor sending page views faster than a person can (docs/ARCHITECTURE.md, "The path of a
 * hit"): more than `MOST_PAGE_VIEWS` page views within `WINDOW_MS` of one another. The one that
 * goes over and every later hit of that visitor that day — page views, custom events,
 * engagements — are dropped (`too_fast`); those before it stay counted. Decided by the
 * website's log when it decides the hit's visitor, at no row of its own: the times of the
 * visitor's recent page views are kept in memory with their visit under way (./visits.ts,
 * read back from the events after a restart as the visit is), and the mark goes into the
 * visitor's own row (`visitors.attrs`), written once, when the visitor goes over. A visitor
 * is one a day (the day's salt makes their hash), so the next day they are counted again.
 * Every time is the hit's own, so that replayed traffic is judged as it was sent.
 */
import type { LogDb } from '../tables/log-db.ts';

/** The most page views one visitor sends within `WINDOW_MS` and is counted. */
const MOST_PAGE_VIEWS = 30;
/** The window a visitor's page views are counted over (a sliding one: `recentPageViews`). */
export const WINDOW_MS = 60_000;

/**
 * The times of the visitor's page views within `WINDOW_MS` before `time` (at most
 * `MOST_PAGE_VIEWS`), from those kept (`recent`).
 */
export function recentPageViews(recent: readonly number[] | undefined, time: number): number[] {
  return (recent ?? []).filter((at) => at > time - WINDOW_MS);
}

/** Whether a page view with `recent` page views before it in its window goes over the bound. */
export const goesOver = (recent: readonly number[]) => recent.length >= MOST_PAGE_VIEWS;

/** The times kept after a page view at `time`: the window's, newest last. */
export const withPageViewAt = (recent: readonly number[], time: number) =>
  [...recent, time].slice(-MOST_PAGE_VIEWS);

/**
 * Marks a visitor as too fast for the rest of the day, in their row (which their first page
 * view wrote): one row written, once.
 */
export function markTooFast(db: LogDb, hash: string, time: number): void {
  db.rows(
    `UPDATE visitors SET attrs = json_set(coalesce(attrs, '{}'), '$.tooFast', ?) WHERE hash = ?`,
    time,
    hash,
  );
}

/** What a visitor's row says of their pace: the time they went over, if they did. */
export type Pace = { tooFast?: number };

/** The column expression that reads a visitor row's mark (`markTooFast`), or null. */
export const TOO_FAST_COLUMN = `json_extract(attrs, '$.tooFast') AS too_fast`;
