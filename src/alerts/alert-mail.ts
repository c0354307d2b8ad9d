/**
 * The e-mails of traffic alerts (./alerts.ts): the confirmation an address gets when an alert
 * is made for it (sent from the request, within the limits of src/reports/confirmation.ts), and
 * the alert itself (sent by the cron, ./check.ts). Plain text: every value in them is a
 * number, a checked address or domain, or a page or source shown as text.
 */
import type { Database } from '../db/client.ts';
import type { AlertRow } from '../db/sharing-schema.ts';
import type { Env } from '../env.ts';
import { withoutControlCharacters } from '../lib/text/text.ts';
import {
  sendConfirmation as confirmAddress,
  plainMessage,
  type Sender,
} from '../reports/confirmation.ts';
import { type AlertInput, type AlertKind, alertToken, createAlert, deleteAlert } from './alerts.ts';

const KIND_NAME: Record<AlertKind, string> = { spike: 'traffic spike', drop: 'traffic drop' };

/** What the alert asks, in words: "100 or more visitors in 1 hour". */
export function conditionOf(alert: Pick<AlertRow, 'kind' | 'threshold' | 'hours'>): string {
  const span = alert.hours === 1 ? 'an hour' : `${alert.hours} hours`;
  if (alert.kind === 'spike') return `${alert.threshold} or more visitors in ${span}`;
  return alert.threshold === 1
    ? `no visitors in ${span}, where the same hours a week before had some`
    : `fewer than ${alert.threshold} visitors in ${span}, where the same hours a week before had ${alert.threshold} or more`;
}

const everyText = (hours: number) => (hours === 1 ? 'every hour' : `every ${hours} hours`);

/**
 * Sends the confirmation of `alert`'s address, with the link (under `origin`) that turns it
 * on. Refused with a 429: a website's eleventh in a minute (`RATE_LIMIT_FORMS`), an address's
 * fourth in a day — so alerts cannot be turned into a mailer.
 */
export async function sendConfirmation(
  env: Env,
  db: Database,
  site: { id: number; domain: string },
  alert: AlertRow,
  by: Sender,
): Promise<void> {
  const link = `${by.origin}/alerts/confirm#${alert.id}.${await alertToken(db, 'confirm', alert)}`;
  await confirmAddress(
    env,
    db,
    site.id,
    by,
    {
      to: alert.email,
      subject: `Confirm traffic alerts for ${site.domain}`,
      lines: (inviter) => [
        `${inviter} asks Sightline to e-mail this address when ${site.domain} has a ${KIND_NAME[alert.kind as AlertKind]}: ${conditionOf(alert)}; at most one e-mail ${everyText(alert.everyHours)}.`,
      ],
      link,
    },
    { sent: 'Traffic alerts', one: 'The confirmation e-mail' },
  );
}

/** What the cron found for an alert that fires. */
export type Traffic = {
  /** Visitors over the alert's hours, and over the same hours a week before. */
  visitors: number;
  weekBefore: number;
  /** The window's local start and end, as the e-mail says them ("2026-11-29 13:00"). */
  from: string;
  to: string;
  timeZone: string;
  topPages: { value: string; count: number }[];
  topSources: { value: string; count: number }[];
};

/** Rows as a plain-text list, each value made one line. */
const listed = (title: string, rows: { value: string; count: number }[]) =>
  rows.length === 0
    ? []
    : [
        '',
        `${title}:`,
        ...rows.map((r) => `  ${withoutControlCharacters(r.value).slice(0, 120)} — ${r.count}`),
      ];

/** The alert e-mail, with its links: the statistics page, the one-click and page unsubscribe. */
export function alertMessage(
  alert: Pick<AlertRow, 'kind' | 'email' | 'threshold' | 'hours' | 'everyHours'>,
  domain: string,
  traffic: Traffic,
  links: { stats: string; unsubscribeUrl: string; unsubscribePage: string },
  from: string,
): string {
  const span = alert.hours === 1 ? 'the last hour' : `the last ${alert.hours} hours`;
  const visitors = `${traffic.visitors} visitor${traffic.visitors === 1 ? '' : 's'}`;
  const subject =
    alert.kind === 'spike'
      ? `Traffic spike on ${domain}: ${visitors} in ${span}`
      : `Traffic drop on ${domain}: ${visitors} in ${span}`;
  const text = [
    `${domain} had ${visitors} from ${traffic.from} to ${traffic.to} (${traffic.timeZone}); the same hours a week before, ${traffic.weekBefore}.`,
    `This alert is set for ${conditionOf(alert)}.`,
    ...(alert.kind === 'spike'
      ? [...listed('Top pages', traffic.topPages), ...listed('Top sources', traffic.topSources)]
      : [
          '',
          'If the website is up, check that its pages still carry the tracking snippet (its settings page shows it).',
        ]),
    '',
    `See the statistics: ${links.stats}`,
    '',
    `You get this because ${alert.email} confirmed ${KIND_NAME[alert.kind as AlertKind]} alerts for ${domain}, at most one ${everyText(alert.everyHours)}.`,
    `Stop them: ${links.unsubscribePage}`,
  ].join('\n');
  return plainMessage(alert.email, from, subject, text, links.unsubscribeUrl);
}

/**
 * Adds `input`'s alert to `site`, made by `by`, and sends its address the confirmation: the
 * alert is kept only when the e-mail went out.
 */
export async function addAlert(
  env: Env,
  db: Database,
  site: { id: number; domain: string },
  input: AlertInput,
  by: Sender,
): Promise<AlertRow> {
  const row = await createAlert(db, site.id, by.personId, input);
  try {
    await sendConfirmation(env, db, site, row, by);
  } catch (err) {
    await deleteAlert(db, site.id, row.id);
    throw err;
  }
  return row;
}
