/**
 * What a flush finds the visitors of its dates already counted for (src/counting/statistics.ts
 * `Seen`): the pages and referrers of their page views before it, so that the roll-ups count
 * each visitor once a date for each (`page_visitors`, `referrer_visitors`; docs/ARCHITECTURE.md,
 * "The counting model"). Read from the log — its page views of those dates up to the flush's
 * position, from the first id of each date's runs (`days`) — and kept between flushes while
 * the object lives: the next flush starts where this one ended, and reads only a date it has
 * not seen (after a start, a new date).
 */
import { type Increment, type Seen, seenKey } from '../../counting/statistics.ts';
import { dateOfDay, dayNumber } from '../../lib/time/dates.ts';
import type { LoggedEvent } from '../events.ts';
import type { Dictionary } from './tables/dictionary.ts';
import type { LogDb } from './tables/log-db.ts';

/** Each log's `Seen` after its last flush, and that flush's position. */
const kept = new WeakMap<LogDb, { position: number; seen: Seen }>();

/** What the visitors of the dates of `rows` (the events after `from`) were counted for before. */
export function seenBefore(db: LogDb, dict: Dictionary, from: number, rows: LoggedEvent[]): Seen {
  const last = kept.get(db);
  const seen: Seen = new Map();
  const unread: string[] = [];
  for (const date of new Set(rows.map((r) => r.date))) {
    const held = last?.position === from ? last.seen.get(date) : undefined;
    if (held) seen.set(date, held);
    else unread.push(date);
  }
  if (unread.length > 0) readSeen(db, dict, from, unread, seen);
  return seen;
}

/** Keeps what a flush up to `position` counted, for the next (its dates only). */
export function keepSeen(db: LogDb, position: number, seen: Seen): void {
  kept.set(db, { position, seen });
}

/** Forgets what was kept: a flush that failed may have counted what D1 does not hold. */
export function forgetSeen(db: LogDb): void {
  kept.delete(db);
}

/**
 * The roll-ups of what was seen: each visitor once per page and referrer of each date, one
 * increment a key (the flush sums them per row: src/rollups/increments.ts).
 */
export function countedBefore(seen: Seen): Increment[] {
  return [...seen].flatMap(([date, keys]) =>
    [...keys].map((key): Increment => {
      const name = key.slice(0, key.indexOf('\u0000'));
      return [name, date, key.slice(key.indexOf('\u0000', name.length + 1) + 1), 1];
    }),
  );
}

/** Reads into `seen` what the log's page views of `dates` up to `from` were counted for. */
function readSeen(db: LogDb, dict: Dictionary, from: number, dates: string[], seen: Seen): void {
  for (const date of dates) seen.set(date, new Set());
  const start = db.one<{ first: number | null }>(
    'SELECT min(first) AS first FROM days WHERE date IN (SELECT value FROM json_each(?))',
    JSON.stringify(dates),
  ).first;
  if (start === null || start > from) return;
  const rows = db.rows<{
    day: number;
    visitor: number;
    page: number | null;
    referrer: number | null;
  }>(
    `SELECT DISTINCT day, visitor, page, CASE WHEN firsts & 2 = 2 THEN referrer END AS referrer
    FROM log WHERE id BETWEEN ? AND ? AND kind = 0 AND day IN (SELECT value FROM json_each(?))`,
    start,
    from,
    JSON.stringify(dates.map(dayNumber)),
  );
  const ids = new Set<number>();
  for (const r of rows) {
    if (r.page !== null) ids.add(r.page);
    if (r.referrer !== null) ids.add(r.referrer);
  }
  const texts = dict.decodeAll(ids);
  const text = (id: number | null) => (id === null ? '' : (texts.get(id) ?? ''));
  for (const r of rows) {
    const keys = seen.get(dateOfDay(r.day)) as Set<string>;
    keys.add(seenKey('page_visitors', r.visitor, text(r.page)));
    const referrer = text(r.referrer);
    if (referrer !== '') keys.add(seenKey('referrer_visitors', r.visitor, referrer));
  }
}
