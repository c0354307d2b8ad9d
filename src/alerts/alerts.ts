/**
 * Traffic alerts (docs/ARCHITECTURE.md, "Traffic alerts"): a website's admins ask for an e-mail
 * to one address when traffic spikes or drops. A `spike` alert fires when the website's
 * visitors over the last `hours` whole hours reach `threshold`; a `drop` alert when they are
 * under `threshold` while the same hours a week before reached it (so a site quiet every
 * night, or never tracked, raises nothing). At most one e-mail per alert every `every_hours`.
 * The address confirms first, by the link of the e-mail sent when the alert is made: no one
 * can point alerts at a stranger's inbox. The cron checks them (./check.ts).
 */
import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { normalizeEmail, validateEmail } from '../accounts/owners.ts';
import type { Database } from '../db/client.ts';
import { linkSecret } from '../db/secrets.ts';
import { type AlertRow, alerts } from '../db/sharing-schema.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { ApiError, type FieldErrors, validationFailed } from '../lib/errors.ts';
import { apiTimestamp } from '../lib/time/dates.ts';

export const ALERT_KINDS = ['spike', 'drop'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** At most this many alerts a website. */
const MAX_ALERTS = 500;

/** The bounds of an alert's numbers, and what an alert of each kind has unless told. */
export const ALERT_BOUNDS = {
  threshold: { min: 1, max: 100_000_000 },
  hours: { min: 1, max: 168 },
  every_hours: { min: 1, max: 720 },
} as const;
export const ALERT_DEFAULTS: Record<
  AlertKind,
  { threshold?: number; hours: number; every_hours: number }
> = {
  spike: { hours: 1, every_hours: 12 },
  drop: { threshold: 1, hours: 12, every_hours: 24 },
};

/** An alert as the API shows it. */
export type AlertRecord = {
  id: number;
  kind: AlertKind;
  email: string;
  threshold: number;
  hours: number;
  every_hours: number;
  /** Null until the address confirms. */
  confirmed_at: string | null;
  created_at: string;
};

export const toAlertRecord = (row: AlertRow): AlertRecord => ({
  id: row.id,
  kind: row.kind as AlertKind,
  email: row.email,
  threshold: row.threshold,
  hours: row.hours,
  every_hours: row.everyHours,
  confirmed_at: row.confirmedAt === null ? null : apiTimestamp(row.confirmedAt),
  created_at: apiTimestamp(row.createdAt),
});

/** What an alert is made of, checked. */
export type AlertInput = {
  kind?: AlertKind;
  email?: string;
  threshold?: number;
  hours?: number;
  everyHours?: number;
};

type NumberField = keyof typeof ALERT_BOUNDS;

/** A whole number within its field's bounds (a form's text too); its message otherwise. */
function wholeNumber(field: NumberField, value: unknown): number | string {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value) : value;
  const { min, max } = ALERT_BOUNDS[field];
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    return `The ${field} must be a whole number from ${min} to ${max.toLocaleString('en-US')}.`;
  return n;
}

/**
 * Checks an alert's fields: a new one needs `kind` and `email` (a `spike` its `threshold`), the
 * numbers default by kind (`ALERT_DEFAULTS`); a change (`partial`) may only change the
 * numbers — the recipient and kind are what the address confirmed. Every bad field is named.
 */
export function alertInput(fields: Record<string, unknown>, partial = false): AlertInput {
  const errors: FieldErrors = {};
  const input: AlertInput = {};
  if (partial) {
    for (const fixed of ['kind', 'email'] as const)
      if (fields[fixed] !== undefined)
        errors[fixed] = [`The ${fixed} of an alert cannot change: delete it and add another.`];
  } else {
    if (!(ALERT_KINDS as readonly unknown[]).includes(fields.kind))
      errors.kind = ['The kind must be spike or drop.'];
    else input.kind = fields.kind as AlertKind;
    const email = typeof fields.email === 'string' ? fields.email : '';
    const bad = validateEmail(email);
    if (bad) errors.email = bad;
    else input.email = normalizeEmail(email);
  }
  const defaults = input.kind ? ALERT_DEFAULTS[input.kind] : undefined;
  for (const [field, key] of [
    ['threshold', 'threshold'],
    ['hours', 'hours'],
    ['every_hours', 'everyHours'],
  ] as const) {
    const given = fields[field];
    const value =
      given === undefined || given === '' ? (partial ? undefined : defaults?.[field]) : given;
    if (value === undefined) {
      if (!partial && input.kind) errors[field] = [`The ${field} field is required.`];
      continue;
    }
    const n = wholeNumber(field, value);
    if (typeof n === 'string') errors[field] = [n];
    else input[key] = n;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return input;
}

/** A website's alerts, by kind and address. */
export function listAlerts(db: Database, websiteId: number): Promise<AlertRow[]> {
  return db
    .select()
    .from(alerts)
    .where(eq(alerts.websiteId, websiteId))
    .orderBy(asc(alerts.kind), asc(alerts.email), asc(alerts.id))
    .all();
}

/** Alert `id` of a website. */
export function alertOf(db: Database, websiteId: number, id: number) {
  return db
    .select()
    .from(alerts)
    .where(and(eq(alerts.id, id), eq(alerts.websiteId, websiteId)))
    .get();
}

/** Adds a website's alert (unconfirmed), by `personId`; a 422 for a second of its kind to the address. */
export async function createAlert(
  db: Database,
  websiteId: number,
  personId: number,
  input: AlertInput,
  now = Date.now(),
): Promise<AlertRow> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(alerts)
    .where(eq(alerts.websiteId, websiteId))
    .all();
  if (n >= MAX_ALERTS)
    throw validationFailed({ email: [`A website has at most ${MAX_ALERTS} alerts.`] });
  const row = await db
    .insert(alerts)
    .values({
      websiteId,
      kind: input.kind as AlertKind,
      email: input.email as string,
      threshold: input.threshold as number,
      hours: input.hours as number,
      everyHours: input.everyHours as number,
      createdBy: personId,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!row)
    throw validationFailed({
      email: [`This address has a ${input.kind} alert for this website already.`],
    });
  return row;
}

/** Changes an alert's numbers; undefined when the website has no such alert. */
export async function updateAlert(
  db: Database,
  websiteId: number,
  id: number,
  input: AlertInput,
): Promise<AlertRow | undefined> {
  const { threshold, hours, everyHours } = input;
  const set = Object.fromEntries(
    Object.entries({ threshold, hours, everyHours }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(set).length === 0) return alertOf(db, websiteId, id);
  return db
    .update(alerts)
    .set(set)
    .where(and(eq(alerts.id, id), eq(alerts.websiteId, websiteId)))
    .returning()
    .get();
}

/** Deletes an alert; false when the website has no such one. */
export async function deleteAlert(db: Database, websiteId: number, id: number): Promise<boolean> {
  const result = await db
    .delete(alerts)
    .where(and(eq(alerts.id, id), eq(alerts.websiteId, websiteId)))
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * The secret of an alert's link that confirms its address, or unsubscribes it: an HMAC of
 * its id and address, so the link of a deleted alert opens nothing of a new one.
 */
export async function alertToken(
  db: Database,
  purpose: 'confirm' | 'unsubscribe',
  alert: { id: number; email: string },
): Promise<string> {
  return linkSecret(db, 'alerts', [purpose, alert.id, alert.email]);
}

/** The alert `id` when `token` is its secret for `purpose`; a 404 otherwise. */
export async function alertByToken(
  db: Database,
  purpose: 'confirm' | 'unsubscribe',
  id: number,
  token: string,
): Promise<AlertRow> {
  const row = await db.select().from(alerts).where(eq(alerts.id, id)).get();
  if (!row || !timingSafeEqual(token, await alertToken(db, purpose, row)))
    throw new ApiError(404, 'This link is not valid: the alert may have been deleted.');
  return row;
}

/** Marks an alert's address confirmed (once: a second confirmation keeps the first time). */
export async function confirmAlert(db: Database, row: AlertRow, now = Date.now()) {
  const confirmed = await db
    .update(alerts)
    .set({ confirmedAt: now })
    .where(and(eq(alerts.id, row.id), isNull(alerts.confirmedAt)))
    .returning()
    .get();
  return confirmed ?? row;
}
