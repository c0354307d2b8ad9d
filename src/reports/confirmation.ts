/**
 * Addresses that confirm before Sightline e-mails them: the recipients of traffic alerts
 * (src/alerts/) and of e-mail reports (./recipients.ts). Both go this one way:
 * - the secret of their links (confirm, unsubscribe) is an HMAC of what the link opens — the
 *   row's id and address — under a server secret, so a deleted row's link opens nothing of a
 *   new one;
 * - a confirmation e-mail goes out only within the limits, shared by alerts and reports:
 *   `RATE_LIMIT_FORMS` per website, and `CONFIRMATIONS` a day to one address from every
 *   website together, so that no one can turn Sightline into a mailer;
 * - every e-mail of theirs is plain text, with RFC 8058's one-click unsubscribe when it has one.
 */
import { personOf } from '../accounts/owners.ts';
import { consumeAttempt } from '../accounts/throttle.ts';
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { sendNow } from '../lib/mail.ts';
import { tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { mimeMessage } from '../lib/text/mime.ts';

/** Who asks for a confirmation (the e-mail names them), and where its link starts. */
export type Sender = { personId: number; origin: string };

/** Confirmation e-mails one address may get a day, from every website together. */
const CONFIRMATIONS = { limit: 3, windowMs: 24 * 3_600_000 };

/** A plain-text message from Sightline, with RFC 8058's one-click `unsubscribe` when given. */
export function plainMessage(
  to: string,
  from: string,
  subject: string,
  text: string,
  unsubscribe?: string,
): string {
  return mimeMessage({
    from: { name: 'Sightline', address: from },
    to,
    subject,
    headers: {
      'Auto-Submitted': 'auto-generated',
      // RFC 8058 one-click unsubscribe: mail clients POST to this URL.
      ...(unsubscribe
        ? {
            'List-Unsubscribe': `<${unsubscribe}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          }
        : {}),
    },
    parts: [{ type: 'text/plain', text }],
  });
}

/**
 * Sends `to` the confirmation e-mail that `by` asked for, for website `siteId`: `lines`
 * (`{by}` in them names the person), then the link. Refused with a 429: a website's eleventh
 * in a minute, an address's fourth in a day.
 */
export async function sendConfirmation(
  env: Env,
  db: Database,
  siteId: number,
  by: Sender,
  mail: { to: string; subject: string; lines: (by: string) => string[]; link: string },
  what: { sent: string; one: string },
): Promise<void> {
  if (!(await withinLimit(env, 'RATE_LIMIT_FORMS', ['confirmation', String(siteId)])))
    throw tooManyRequests();
  const wait = await consumeAttempt(db, ['confirmation', mail.to], Date.now(), CONFIRMATIONS);
  if (wait > 0)
    throw new ApiError(
      429,
      'This address was sent three confirmations in the last day already. Try again tomorrow.',
      undefined,
      { 'Retry-After': String(wait) },
    );
  const text = [
    ...mail.lines((await personOf(db, by.personId)).email),
    '',
    'Nothing is sent until you confirm here:',
    '',
    mail.link,
    '',
    'If you did not expect this e-mail, ignore it: without the link, nothing is ever sent to you.',
  ].join('\n');
  await sendNow(env, mail.to, (from) => plainMessage(mail.to, from, mail.subject, text), what);
}
