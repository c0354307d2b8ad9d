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
 * what arrived (a repeat or a late one changes nothing); Plausible's sends the time since its
 * last send (`added`), added up.
 */
import { forgetAnswers } from './answers.ts';
import type { LogHit } from './events.ts';
import type { LogDb } from './log-db.ts';
import { forgetsAnswers } from './partitions.ts';
import { type VisitPages, type VisitState, visitUnderWay } from './visits.ts';

/**
 * Writes an engagement onto the page views it belongs to (`pages`: its visit's); false when
 * the visit has no page view of its page. One row written when the page was viewed once in
 * the visit (the first and last view are one), two otherwise.
 */
function engage(db: LogDb, pages: VisitPages | undefined, hit: LogHit): boolean {
  const at = pages?.get(hit.page);
  const e = hit.engagement;
  if (!at || !e) return false;
  const time = e.added ? 'coalesce(engaged, 0) + ?' : 'max(coalesce(engaged, 0), ?)';
  const scroll = 'max(coalesce(scroll, 0), ?)';
  if (e.scroll !== null && at.first === at.last)
    db.rows(
      `UPDATE log SET engaged = ${time}, scroll = ${scroll} WHERE id = ?`,
      e.ms,
      e.scroll,
      at.last,
    );
  else {
    db.rows(`UPDATE log SET engaged = ${time} WHERE id = ?`, e.ms, at.last);
    if (e.scroll !== null)
      db.rows(`UPDATE log SET scroll = ${scroll} WHERE id = ?`, e.scroll, at.first);
  }
  return true;
}

/** What an engagement answers: whether it found its page view, and the rows it cost. */
export type Engaged = {
  ok: true;
  engaged: boolean;
  cost: { rowsRead: number; rowsWritten: number };
};

/**
 * Writes an engagement onto its page view (`engage`), found among the pages of the visit its
 * visitor (`hash`) has under way, in one transaction — which forgets the answers kept for
 * its date when that is older than the `latest` the log holds (./partitions.ts), as a hit of
 * that date does. `before`: the log's rows read and written before it (its cost counts the
 * hash's).
 */
export function engaged(
  log: { db: LogDb; transaction: <T>(work: () => T) => T; latest: string | null },
  visits: Map<string, VisitState>,
  hit: LogHit,
  hash: string,
  before: { rowsRead: number; rowsWritten: number },
): Engaged {
  const { db } = log;
  const known = db.rows<{ number: number; visit: number }>(
    'SELECT number, visit FROM visitors WHERE hash = ?',
    hash,
  )[0];
  const visit = visitUnderWay(visits, known, hit.date, hit.time);
  const found = log.transaction(() => {
    if (!engage(db, visit?.pages, hit)) return false;
    if (forgetsAnswers(hit, log.latest)) forgetAnswers(db);
    return true;
  });
  if (found && visit) visit.engagedAt = Math.max(visit.engagedAt ?? 0, hit.time);
  const cost = {
    rowsRead: db.io.rowsRead - before.rowsRead,
    rowsWritten: db.io.rowsWritten - before.rowsWritten,
  };
  return { ok: true, engaged: found, cost };
}
