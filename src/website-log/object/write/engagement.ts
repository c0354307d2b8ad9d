/**
 * A page view's engagement (docs/ARCHITECTURE.md, "Time on page and scroll depth"): the time
 * it was seen — visible and focused — and how far it was scrolled, sent by the tracker when
 * the visitor leaves the page. It adds no row: it updates the page view it belongs to, found
 * among the pages of the visitor's visit under way (`VisitPages`, kept in memory with the
 * visit and read back with it after a restart). Its time goes onto the visit's last page view
 * of its page; its scroll onto the visit's first of that page, which keeps the deepest of the
 * visit's views of the page — so that every figure is a plain sum over rows: the time on a
 * page is the sum of its rows' times per visitor, its scroll depth the mean of the rows that
 * carry one. Sightline's tracker sends each page view's totals so far, kept as the maximum of
 * what arrived (a repeat or a late one changes nothing, and writes no row); Plausible's sends
 * the time since its last send (`added`), added up. Either way a page view is never engaged longer than it has
 * existed — the time from its hit to the engagement's, on the server's clock — so late or
 * excess engagement is cut there. The engaged time of a visit's last page view counts in the
 * visit's duration as well, so a visit of one page lasts as long as it was seen (and no longer
 * than since its first hit).
 */
import { dateOfDay } from '../../../lib/time/dates.ts';
import type { LogHit } from '../../events.ts';
import { forgetsAnswers } from '../partition.ts';
import { forgetAnswers } from '../read/answer-cache.ts';
import type { LogDb } from '../tables/log-db.ts';
import { TOO_FAST_COLUMN } from './too-fast.ts';
import { type VisitState, visitUnderWay } from './visits.ts';

/** The id of a visit's last page view, if its engagement can be kept. */
const lastPageView = (visit: VisitState) => visit.pages.get(visit.page)?.last;

/**
 * Writes an engagement onto the page views it belongs to (`visit`'s); null when the visit
 * has no page view of its page. A row is written only when it changes: the last view's when
 * the time grew (or, the page viewed once in the visit, the first and last view being one,
 * the scroll deepened), the first view's when the scroll deepened — so one row at most when
 * the page was viewed once, two otherwise, and none for an engagement that brings nothing
 * new (a repeat, or what its page view holds already: one read, not a write). On the visit's
 * last page view, the engaged time's whole seconds count in the visit's duration too
 * (`visit_seconds`): when that row is rolled up already, the change waits for the flush as a
 * row of `late_durations` under `id` (its position among the events). Answers the duration's
 * new tail, for the visit's state, whether it wrote that row, and whether all it brought was
 * cut (`cut`: a time past the page view's age, and no scroll).
 */
function engage(
  db: LogDb,
  visit: VisitState | undefined,
  hit: LogHit,
  id: number,
): { tail?: number; late: boolean; cut: boolean } | null {
  const at = visit?.pages.get(hit.page);
  const e = hit.engagement;
  if (!visit || !at || !e) return null;
  type Row = { engaged: number | null; day: number; time: number; scroll: number | null };
  const row = db.one<Row>('SELECT engaged, day, time, scroll FROM log WHERE id = ?', at.last);
  const before = row.engaged ?? 0;
  const asked = e.added ? before + e.ms : Math.max(before, e.ms);
  // Never engaged longer than the page view has existed (both times the server's).
  const ms = Math.min(asked, Math.max(before, hit.time - row.time));
  const cut = ms === before && asked > before && e.scroll === null;
  if (cut) return { late: false, cut };
  const last = lastPageView(visit) === at.last;
  const seconds = last ? Math.floor(ms / 1000) - Math.floor(before / 1000) : 0;
  // The deepest scroll of the visit's views of the page is its first view's.
  const once = at.first === at.last;
  const firstScroll = once
    ? row.scroll
    : db.one<{ scroll: number | null }>('SELECT scroll FROM log WHERE id = ?', at.first).scroll;
  const deeper = e.scroll !== null && (firstScroll === null || e.scroll > firstScroll);
  const times = 'engaged = ?, visit_seconds = visit_seconds + ?';
  if (once && deeper)
    db.rows(`UPDATE log SET ${times}, scroll = ? WHERE id = ?`, ms, seconds, e.scroll, at.last);
  else if (ms > before) db.rows(`UPDATE log SET ${times} WHERE id = ?`, ms, seconds, at.last);
  if (!once && deeper) db.rows('UPDATE log SET scroll = ? WHERE id = ?', e.scroll, at.first);
  const late = seconds !== 0 && at.last <= db.meta('flushed');
  if (late)
    db.rows(
      'INSERT INTO late_durations (id, event, day, seconds, time) VALUES (?, ?, ?, ?, ?)',
      id,
      at.last,
      row.day,
      seconds,
      hit.time,
    );
  return { ...(last ? { tail: Math.floor(ms / 1000) } : {}), late, cut };
}

/**
 * What an engagement answers: whether it found its page view, whether all it brought was cut
 * (a time past the page view's age), and the rows it cost.
 */
export type Engaged = {
  ok: true;
  engaged: boolean;
  cut?: true;
  /** Not written: its visitor sent page views faster than a person can (./too-fast.ts). */
  tooFast?: true;
  /** Its change to the visit's duration waits for the flush as a row of its own (`engage`). */
  late?: true;
  cost: { rowsRead: number; rowsWritten: number };
};

/**
 * Writes an engagement onto its page view (`engage`), found among the pages of the visit its
 * visitor (`hash`) has under way, in one transaction — which forgets the answers kept for
 * its date when that is older than the `latest` the log holds (../partition.ts), as a hit of
 * that date does. `before`: the log's rows read and written before it (its cost counts the
 * hash's); `id`: the position a change to a duration already rolled up would take. A visitor
 * marked too fast (./too-fast.ts) has nothing written.
 */
export function engaged(
  log: {
    db: LogDb;
    transaction: <T>(work: () => T) => T;
    latest: string | null;
  },
  visits: Map<string, VisitState>,
  hit: LogHit,
  hash: string,
  before: { rowsRead: number; rowsWritten: number },
  id: number,
): Engaged {
  const { db } = log;
  const known = db.rows<{ number: number; visit: number; too_fast: number | null }>(
    `SELECT number, visit, ${TOO_FAST_COLUMN} FROM visitors WHERE hash = ?`,
    hash,
  )[0];
  if (known?.too_fast != null)
    return { ok: true, engaged: false, tooFast: true, cost: db.since(before) };
  const visit = visitUnderWay(visits, known, hit.date, hit.time);
  const found = log.transaction(() => {
    const done = engage(db, visit, hit, id);
    if (done && forgetsAnswers(hit, log.latest)) forgetAnswers(db);
    return done;
  });
  if (found && visit && !found.cut) {
    visit.engagedAt = Math.max(visit.engagedAt ?? 0, hit.time);
    if (found.tail !== undefined) visit.tail = found.tail;
  }
  const cost = db.since(before);
  return {
    ok: true,
    engaged: found !== null,
    cost,
    ...(found?.late ? { late: true } : {}),
    ...(found?.cut ? { cut: true } : {}),
  };
}

/** A change to a visit's duration the flush has yet to roll up (`engage`). */
export type LateDuration = { date: string; seconds: number };

/**
 * The changes to durations a flush from position `from` to `to` rolls up: those after `from`
 * whose page view it does not roll up itself (which holds the change already: so it is when
 * D1, restored to an earlier state, is behind the log: ../flush.ts).
 */
export function lateDurations(db: LogDb, from: number, to: number): LateDuration[] {
  return db
    .rows<{ day: number; seconds: number }>(
      'SELECT day, seconds FROM late_durations WHERE id > ?1 AND id <= ?2 AND event <= ?1',
      from,
      to,
    )
    .map((row) => ({ date: dateOfDay(row.day), seconds: row.seconds }));
}
