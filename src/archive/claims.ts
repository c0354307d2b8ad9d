/**
 * The archive's bookkeeping in D1 (src/db/archive-schema.ts): which websites it writes, and
 * each date's claim — one run at a time writes a date, however many run at once — and what was
 * written (docs/ARCHITECTURE.md, "The daily archive"). Raw statements on the D1 binding the
 * caller gives, so that the cron counts them against its query budget.
 */
import { addDays, localDateHour } from '../lib/time/dates.ts';
import type { Written } from './upload.ts';

/** Every object of the archive is under this prefix of the bucket. */
const ARCHIVE_PREFIX = 'sightline/';

/** How long a claim holds: past a cron's 15 minutes of wall time, before the next hour's run. */
export const LEASE_MS = 30 * 60_000;

/**
 * A local date is closed an hour after its midnight: an engagement may still reach a page
 * view of its last minutes (src/website-log/object/write/engagement.ts).
 */
const GRACE_MS = 3_600_000;

/** The newest closed local date of a website in `timeZone` at `now`. */
export function lastClosedDate(now: number, timeZone: string): string {
  return addDays(localDateHour(now - GRACE_MS, timeZone).date, -1);
}

/** The prefix of a website's objects: `sightline/site=<domain>/` (Hive's layout). */
const sitePrefix = (domain: string) => `${ARCHIVE_PREFIX}site=${domain}/`;
/** The object of a website's date. */
export const dateKey = (domain: string, date: string) =>
  `${sitePrefix(domain)}date=${date}/events.parquet`;
/** The manifest of a website's dates (./manifest.ts). */
export const manifestKey = (domain: string) => `${sitePrefix(domain)}_manifest.json`;

/** A website the archive writes, as a run sees it. */
export type ArchiveSite = {
  websiteId: number;
  domain: string;
  timezone: string;
  fromDate: string;
  nextDate: string;
  version: number;
  manifestVersion: number;
};

const SITE_COLUMNS = `s.website_id AS websiteId, s.domain, w.timezone, s.from_date AS fromDate,
  s.next_date AS nextDate, s.version, s.manifest_version AS manifestVersion`;

/**
 * Notes the websites the archive does not know yet (up to `limit`; `only`: that one): each
 * begins at its newest closed date, the first run writing it; older dates are the backfill's
 * (./routes.ts).
 */
export async function registerSites(
  d1: D1Database,
  now: number,
  { limit = 100, only = null as number | null } = {},
): Promise<void> {
  const { results } = await d1
    .prepare(
      `SELECT w.id, w.domain, w.timezone FROM websites w
        WHERE NOT EXISTS (SELECT 1 FROM archive_sites s WHERE s.website_id = w.id)
          AND (?1 IS NULL OR w.id = ?1) LIMIT ?2`,
    )
    .bind(only, limit)
    .all<{ id: number; domain: string; timezone: string }>();
  if (results.length === 0) return;
  const rows = results.map((w) => [w.id, w.domain, lastClosedDate(now, w.timezone)]);
  await d1
    .prepare(
      `INSERT INTO archive_sites (website_id, domain, from_date, next_date)
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 2 FROM json_each(?) WHERE true
        ON CONFLICT DO NOTHING`,
    )
    .bind(JSON.stringify(rows))
    .run();
}

/**
 * The websites with a date to write by `now` or a manifest behind its dates, those furthest
 * behind first. No time zone closes a date later than UTC+14 does.
 */
export async function dueSites(d1: D1Database, now: number, limit: number) {
  const { results } = await d1
    .prepare(
      `SELECT ${SITE_COLUMNS} FROM archive_sites s JOIN websites w ON w.id = s.website_id
        WHERE s.next_date <= ? OR s.manifest_version < s.version
        ORDER BY s.next_date, s.website_id LIMIT ?`,
    )
    .bind(lastClosedDate(now, 'Pacific/Kiritimati'), limit)
    .all<ArchiveSite>();
  return results;
}

/** One website as the archive knows it, or null. */
export async function archiveSite(d1: D1Database, websiteId: number) {
  return d1
    .prepare(
      `SELECT ${SITE_COLUMNS} FROM archive_sites s JOIN websites w ON w.id = s.website_id
        WHERE s.website_id = ?`,
    )
    .bind(websiteId)
    .first<ArchiveSite>();
}

/**
 * Claims a date for the run holding `token`: `claimed` when no one else holds it (a claim
 * older than `LEASE_MS` no longer holds: its run ended, or failed, midway), `written` when it
 * is written, `busy` when another run holds it — or another website's date holds its object
 * (a domain deleted and added again, whose files are not deleted yet).
 */
export async function claimDate(
  d1: D1Database,
  site: ArchiveSite,
  date: string,
  token: string,
  now: number,
): Promise<'claimed' | 'written' | 'busy'> {
  const key = dateKey(site.domain, date);
  const claimed = await d1
    .prepare(
      `INSERT INTO archive_dates (website_id, date, key, claim, claimed_at)
        SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS
          (SELECT 1 FROM archive_dates WHERE key = ? AND website_id != ?)
        ON CONFLICT (website_id, date) DO UPDATE SET claim = excluded.claim,
          claimed_at = excluded.claimed_at
        WHERE archive_dates.written_at IS NULL
          AND (archive_dates.claim IS NULL OR archive_dates.claimed_at <= ?)
        RETURNING claim`,
    )
    .bind(site.websiteId, date, key, token, now, key, site.websiteId, now - LEASE_MS)
    .first<{ claim: string }>();
  if (claimed?.claim === token) return 'claimed';
  const row = await d1
    .prepare('SELECT written_at AS writtenAt FROM archive_dates WHERE website_id = ? AND date = ?')
    .bind(site.websiteId, date)
    .first<{ writtenAt: number | null }>();
  return row?.writtenAt != null ? 'written' : 'busy';
}

/**
 * Notes a claimed date written, what was written, and the website's next date when it was
 * that one: answers false when the claim no longer held (another run took it past its lease).
 */
export async function markWritten(
  d1: D1Database,
  site: ArchiveSite,
  date: string,
  token: string,
  written: Written,
  now: number,
): Promise<boolean> {
  const [marked] = await d1.batch([
    d1
      .prepare(
        `UPDATE archive_dates SET claim = NULL, written_at = ?, rows = ?, bytes = ?, sha256 = ?
          WHERE website_id = ? AND date = ? AND claim = ?`,
      )
      .bind(now, written.rows, written.bytes, written.sha256, site.websiteId, date, token),
    d1
      .prepare(
        `UPDATE archive_sites SET version = version + 1,
            next_date = CASE WHEN next_date = ? THEN ? ELSE next_date END
          WHERE website_id = ? AND EXISTS (SELECT 1 FROM archive_dates
            WHERE website_id = ? AND date = ? AND claim IS NULL AND written_at = ?)`,
      )
      .bind(date, addDays(date, 1), site.websiteId, site.websiteId, date, now),
  ]);
  return (marked?.meta.changes ?? 0) > 0;
}

/** Gives a claim up (its run failed): the next run claims the date again. */
export async function releaseClaim(
  d1: D1Database,
  websiteId: number,
  date: string,
  token: string,
): Promise<void> {
  await d1
    .prepare(
      'UPDATE archive_dates SET claim = NULL WHERE website_id = ? AND date = ? AND claim = ?',
    )
    .bind(websiteId, date, token)
    .run();
}

/** Moves a website's next date past one found written (by the backfill, or another run). */
export async function passWritten(d1: D1Database, site: ArchiveSite, date: string) {
  await d1
    .prepare('UPDATE archive_sites SET next_date = ? WHERE website_id = ? AND next_date = ?')
    .bind(addDays(date, 1), site.websiteId, date)
    .run();
}
