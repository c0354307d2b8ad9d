/**
 * The one sending path of the e-mails the cron sends — reports (./send.ts) and traffic alerts
 * (src/alerts/check.ts): each is claimed in `report_sends` under a key (website, period),
 * sent, and marked sent. A claim exists only from just before its send, so a claim without
 * `sent_at` means "sent, or being sent": it is never taken over.
 * - The send failed: the claim is deleted, and the next run retries.
 * - The send succeeded but marking it failed (even after retries): the claim stays, and
 *   the e-mail is never sent again.
 * - The run died during the send: the claim stays; the e-mail may never arrive.
 * That is "at most once": an e-mail that may have gone out is never sent again, at the price
 * of losing one in the rare case that the run dies mid-send, or that D1 fails every try to
 * give back the claim of a failed send.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { QueryBudgetExhausted } from '../db/query-budget.ts';
import { reportSends } from '../db/schema.ts';
import { logError } from '../lib/log.ts';
import type { Mailer } from '../lib/mail.ts';

/** Tries of the statement that marks an e-mail sent, or gives a failed send's claim back. */
const WRITE_ATTEMPTS = 3;

/** Statements one e-mail's claim, send and marking cost at most. */
export const ONCE_QUERIES = 1 + WRITE_ATTEMPTS;

/** Runs `write` up to `WRITE_ATTEMPTS` times; the last failure is thrown. */
async function withRetries(write: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      return;
    } catch (err) {
      if (attempt >= WRITE_ATTEMPTS || err instanceof QueryBudgetExhausted) throw err;
    }
  }
}

/** How a send ended: sent, failed (retried by a later run), or claimed by another run first. */
export type Outcome = 'sent' | 'failed' | 'skipped';

/**
 * Claims `key` with `claim` (true when this run holds it now), sends `message`, and marks the
 * claim sent. `what` names the e-mail in the log ("report", "alert").
 */
export async function sendOnce(
  db: Database,
  mailer: Mailer,
  message: { from: string; to: string; raw: string },
  key: { websiteId: number; period: string },
  claim: () => Promise<boolean>,
  what: string,
): Promise<Outcome> {
  const context = { websiteId: key.websiteId, period: key.period };
  const thisClaim = and(
    eq(reportSends.websiteId, key.websiteId),
    eq(reportSends.period, key.period),
  );
  try {
    if (!(await claim())) return 'skipped';
  } catch (err) {
    // Nothing was claimed: the next run tries again.
    logError(`${what} not sent`, context, err);
    return 'failed';
  }
  try {
    await mailer.send(message);
  } catch (err) {
    logError(`${what} not sent`, context, err);
    // The send itself failed: give the claim back, so that the next run retries.
    await withRetries(() =>
      db
        .delete(reportSends)
        .where(and(thisClaim, isNull(reportSends.sentAt)))
        .run(),
    ).catch((releaseErr) => logError(`${what} claim not released`, context, releaseErr));
    return 'failed';
  }
  try {
    await withRetries(() =>
      db.update(reportSends).set({ sentAt: Date.now() }).where(thisClaim).run(),
    );
  } catch (err) {
    // Sent: the claim stays unmarked, and a claim is never taken over, so it is not resent.
    logError(`${what} sent, not marked`, context, err);
  }
  return 'sent';
}
