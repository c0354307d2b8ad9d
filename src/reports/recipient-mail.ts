/**
 * The e-mails of a report recipient (./recipients.ts) sent from a request: the confirmation
 * its address gets when it is added (within the limits of ./confirmation.ts, shared with the
 * traffic alerts), and a test — the report of the last complete period, sent at once to a
 * confirmed address, outside the claims of the cron (./once.ts), so it is not the period's
 * report and does not stop it.
 */
import { consumeAttempt } from '../accounts/throttle.ts';
import type { Database } from '../db/client.ts';
import type { ReportRecipientRow } from '../db/sharing-schema.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { sendNow } from '../lib/mail.ts';
import { type Sender, sendConfirmation } from './confirmation.ts';
import { type Interval, lastCompletePeriod, type Period } from './period.ts';
import {
  createRecipient,
  deleteRecipient,
  type RecipientInput,
  recipientToken,
} from './recipients.ts';
import { addressedTo, buildMessage, numbersOf, reportHooks } from './send.ts';

/** Tests a website's reports may be sent an hour, to all its recipients together. */
export const TESTS = { limit: 5, windowMs: 3_600_000 };

/** What a recipient of `interval` gets, in words: "example.com's report of each month, …". */
export const intervalText = (interval: Interval, domain: string) =>
  interval === 'monthly'
    ? `${domain}'s report of each month, when the month is over`
    : `${domain}'s report of each week (Monday to Sunday), when the week is over`;

/**
 * Sends the confirmation of `recipient`'s address, with the link (under `by.origin`) that
 * turns its reports on; a 429 past the limits.
 */
export async function sendRecipientConfirmation(
  env: Env,
  db: Database,
  site: { id: number; domain: string },
  recipient: ReportRecipientRow,
  by: Sender,
): Promise<void> {
  const token = await recipientToken(db, 'confirm', recipient);
  await sendConfirmation(
    env,
    db,
    site.id,
    by,
    {
      to: recipient.email,
      subject: `Confirm e-mail reports for ${site.domain}`,
      lines: (inviter) => [
        `${inviter} asks Sightline to e-mail this address ${intervalText(recipient.interval as Interval, site.domain)}: its visitors, page views, top pages, sources and countries.`,
      ],
      link: `${by.origin}/reports/confirm#${recipient.id}.${token}`,
    },
    { sent: 'E-mail reports', one: 'The confirmation e-mail' },
  );
}

/**
 * Adds `input`'s recipient to `site`, made by `by`, and sends its address the confirmation:
 * the recipient is kept only when the e-mail went out.
 */
export async function addRecipient(
  env: Env,
  db: Database,
  site: { id: number; domain: string },
  input: RecipientInput,
  by: Sender,
): Promise<ReportRecipientRow> {
  const row = await createRecipient(db, site.id, by.personId, input);
  try {
    await sendRecipientConfirmation(env, db, site, row, by);
  } catch (err) {
    await deleteRecipient(db, site.id, row.id);
    throw err;
  }
  return row;
}

/**
 * Sends `recipient` the report of its last complete period now, its links under `origin`:
 * a 409 before the address has confirmed, a 429 past `TESTS` (with `Retry-After`), a 503 when
 * e-mail is not set up or the e-mail could not go out. The period it reported.
 */
export async function sendTestReport(
  env: Env,
  db: Database,
  site: { id: number; domain: string; timezone: string },
  recipient: ReportRecipientRow,
  origin: string,
  now = Date.now(),
): Promise<Period> {
  if (recipient.confirmedAt === null)
    throw new ApiError(
      409,
      'This address has not confirmed yet: a test goes only to an address that has.',
    );
  const wait = await consumeAttempt(db, ['report-test', String(site.id)], now, TESTS);
  if (wait > 0)
    throw new ApiError(
      429,
      `This website's reports were sent ${TESTS.limit} tests in the last hour already. Try again in ${Math.ceil(wait / 60)} minutes.`,
      undefined,
      { 'Retry-After': String(wait) },
    );
  const interval = recipient.interval as Interval;
  const period = lastCompletePeriod(now, site.timezone, interval);
  const numbers = await numbersOf(db, site, period, origin, reportHooks(env, db));
  const to = { websiteId: site.id, recipientId: recipient.id, email: recipient.email, interval };
  const report = { ...(await addressedTo(db, numbers, origin, to)), test: true };
  await sendNow(env, recipient.email, (from) => buildMessage(report, recipient.email, { from }), {
    sent: 'Reports',
    one: 'The test report',
  });
  return period;
}
