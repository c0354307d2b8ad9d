/**
 * The recipients of a website's e-mail reports (docs/ARCHITECTURE.md, "E-mail reports"),
 * besides its owner (`websites.email`): any number of addresses, each weekly or monthly. An
 * address gets nothing before it confirms, by the link of the e-mail sent when it is added
 * (./recipient-mail.ts), and stops its reports by the link of any of them. Its address and
 * interval never change (delete and add instead): what was confirmed is what is sent.
 */
import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { normalizeEmail, validateEmail } from '../accounts/owners.ts';
import type { Database } from '../db/client.ts';
import { linkSecret } from '../db/secrets.ts';
import { type ReportRecipientRow, reportRecipients } from '../db/sharing-schema.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { ApiError, type FieldErrors, validationFailed } from '../lib/errors.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import type { Interval } from './period.ts';

export const REPORT_INTERVALS = ['weekly', 'monthly'] as const satisfies readonly Interval[];

/** At most this many recipients a website. */
const MAX_RECIPIENTS = 100;

/** A recipient as the API shows it. */
export type RecipientRecord = {
  id: number;
  email: string;
  interval: Interval;
  /** Null until the address confirms. */
  confirmed_at: string | null;
  created_at: string;
};

export const toRecipientRecord = (row: ReportRecipientRow): RecipientRecord => ({
  id: row.id,
  email: row.email,
  interval: row.interval as Interval,
  confirmed_at: row.confirmedAt === null ? null : apiTimestamp(row.confirmedAt),
  created_at: apiTimestamp(row.createdAt),
});

/** A recipient's fields, checked. */
export type RecipientInput = { email: string; interval: Interval };

/**
 * Checks a new recipient's fields: `email` (normalised) and `interval`, which is `fallback`
 * (the server's `REPORT_INTERVAL`) when not given. Every bad field is named.
 */
export function recipientInput(fields: Record<string, unknown>, fallback: Interval) {
  const errors: FieldErrors = {};
  const email = typeof fields.email === 'string' ? fields.email : '';
  const bad = validateEmail(email);
  if (bad) errors.email = bad;
  const given = fields.interval;
  const interval = given === undefined || given === '' ? fallback : given;
  if (!(REPORT_INTERVALS as readonly unknown[]).includes(interval))
    errors.interval = ['The interval must be weekly or monthly.'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { email: normalizeEmail(email), interval: interval as Interval } as RecipientInput;
}

/** A website's recipients, by address. */
export function listRecipients(db: Database, websiteId: number): Promise<ReportRecipientRow[]> {
  return db
    .select()
    .from(reportRecipients)
    .where(eq(reportRecipients.websiteId, websiteId))
    .orderBy(asc(reportRecipients.email))
    .all();
}

/** Recipient `id` of a website. */
export function recipientOf(db: Database, websiteId: number, id: number) {
  return db
    .select()
    .from(reportRecipients)
    .where(and(eq(reportRecipients.id, id), eq(reportRecipients.websiteId, websiteId)))
    .get();
}

/** Adds a website's recipient (unconfirmed), by `personId`; a 422 for an address it has. */
export async function createRecipient(
  db: Database,
  websiteId: number,
  personId: number,
  input: RecipientInput,
  now = Date.now(),
): Promise<ReportRecipientRow> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(reportRecipients)
    .where(eq(reportRecipients.websiteId, websiteId))
    .all();
  if (n >= MAX_RECIPIENTS)
    throw validationFailed({
      email: [`A website has at most ${MAX_RECIPIENTS} report recipients.`],
    });
  const row = await db
    .insert(reportRecipients)
    .values({ websiteId, ...input, createdBy: personId, createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!row)
    throw validationFailed({
      email: ["This address gets this website's reports already: delete it to change it."],
    });
  return row;
}

/** Deletes a recipient; false when the website has no such one. */
export async function deleteRecipient(
  db: Database,
  websiteId: number,
  id: number,
): Promise<boolean> {
  const result = await db
    .delete(reportRecipients)
    .where(and(eq(reportRecipients.id, id), eq(reportRecipients.websiteId, websiteId)))
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * The secret of a recipient's link that confirms its address, or unsubscribes it: an HMAC of
 * its id and address (./confirmation.ts), so the link of a deleted one opens nothing of a new one.
 */
export function recipientToken(
  db: Database,
  purpose: 'confirm' | 'unsubscribe',
  recipient: { id: number; email: string },
): Promise<string> {
  return linkSecret(db, 'reports', [purpose, recipient.id, recipient.email]);
}

/** The link of a deleted recipient, or one that is not its own: the 404. */
export const notValid = () =>
  new ApiError(
    404,
    "This link is not valid: the address may have been taken off the website's reports.",
  );

/** Recipient `id` when `token` is its secret for `purpose`; a 404 otherwise. */
export async function recipientByToken(
  db: Database,
  purpose: 'confirm' | 'unsubscribe',
  id: number,
  token: string,
): Promise<ReportRecipientRow> {
  const row = await db.select().from(reportRecipients).where(eq(reportRecipients.id, id)).get();
  if (!row || !timingSafeEqual(token, await recipientToken(db, purpose, row))) throw notValid();
  return row;
}

/** Marks a recipient's address confirmed (once: a second confirmation keeps the first time). */
export async function confirmRecipient(db: Database, row: ReportRecipientRow, now = Date.now()) {
  const confirmed = await db
    .update(reportRecipients)
    .set({ confirmedAt: now })
    .where(and(eq(reportRecipients.id, row.id), isNull(reportRecipients.confirmedAt)))
    .returning()
    .get();
  return confirmed ?? row;
}

/** Takes a recipient off its website's reports when `token` is its unsubscribe secret (else a 404). */
export async function unsubscribeRecipient(
  db: Database,
  id: number,
  token: string,
): Promise<ReportRecipientRow> {
  const row = await recipientByToken(db, 'unsubscribe', id, token);
  await deleteRecipient(db, row.websiteId, row.id);
  return row;
}
