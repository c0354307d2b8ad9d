/**
 * What the archive forgets (docs/ARCHITECTURE.md, "The daily archive"), as the log does: the
 * files of a deleted website — its prefix, manifest included — and, with
 * `EVENT_RETENTION_DAYS`, the files of the dates retention deletes from the log (their
 * manifest entries stay, marked expired). Each run deletes up to `KEYS_PER_RUN` objects, one R2
 * call of up to 1,000 keys each, and four D1 statements; the next run goes on.
 */
import { countStatements } from '../db/count-statements.ts';
import { QueryBudget, QueryBudgetExhausted } from '../db/query-budget.ts';
import type { Env } from '../env.ts';
import { utcDate } from '../lib/time/dates.ts';
import { retentionDays } from '../website-log/object/retention.ts';
import { LEASE_MS, manifestKey } from './claims.ts';

/** Objects one step deletes at most: R2 deletes up to 1,000 keys in one call. */
const KEYS_PER_RUN = 1_000;

const DAY = 86_400_000;

type Dated = { websiteId: number; key: string; rows: number; expiredAt: number | null };

export async function forgetArchived(
  env: Env,
  now: number,
  { queries = new QueryBudget(10) } = {},
): Promise<Record<string, number>> {
  const bucket = env.ARCHIVE;
  if (!bucket) return {};
  const d1 = countStatements(env.DB, (n) => queries.spend(n));
  const result = { archiveFilesDeleted: 0, archiveFilesExpired: 0 };
  try {
    result.archiveFilesDeleted = await forgetDeletedWebsites(d1, bucket, now);
    const days = retentionDays(env.EVENT_RETENTION_DAYS);
    if (days !== null)
      result.archiveFilesExpired = await expireDates(d1, bucket, utcDate(now - days * DAY), now);
  } catch (err) {
    if (!(err instanceof QueryBudgetExhausted)) throw err;
  }
  return result;
}

/**
 * The dates and manifests of websites deleted (no row in `websites` any more): their files
 * first, then their rows. A date a run still holds the claim of waits for its lease to end.
 */
async function forgetDeletedWebsites(d1: D1Database, bucket: R2Bucket, now: number) {
  const { results } = await d1
    .prepare(
      `SELECT website_id AS websiteId, key, rows, expired_at AS expiredAt FROM archive_dates
        WHERE website_id NOT IN (SELECT id FROM websites)
          AND (claim IS NULL OR claimed_at <= ?) LIMIT ?`,
    )
    .bind(now - LEASE_MS, KEYS_PER_RUN)
    .all<Dated>();
  const files = results.filter((d) => d.rows > 0 && d.expiredAt === null).map((d) => d.key);
  if (files.length > 0) await bucket.delete(files);
  if (results.length > 0)
    await d1
      .prepare('DELETE FROM archive_dates WHERE key IN (SELECT value FROM json_each(?))')
      .bind(JSON.stringify(results.map((d) => d.key)))
      .run();
  // Then each website left without dates: its manifest — unless its domain was added again
  // and the manifest is the new website's — and its row.
  const { results: sites } = await d1
    .prepare(
      `SELECT s.website_id AS websiteId, s.domain,
          EXISTS (SELECT 1 FROM archive_sites o WHERE o.domain = s.domain
            AND o.website_id != s.website_id) AS reused
        FROM archive_sites s WHERE s.website_id NOT IN (SELECT id FROM websites)
          AND NOT EXISTS (SELECT 1 FROM archive_dates d WHERE d.website_id = s.website_id)
        LIMIT 100`,
    )
    .all<{ websiteId: number; domain: string; reused: number }>();
  if (sites.length === 0) return files.length;
  const manifests = sites.filter((s) => s.reused === 0).map((s) => manifestKey(s.domain));
  if (manifests.length > 0) await bucket.delete(manifests);
  await d1
    .prepare('DELETE FROM archive_sites WHERE website_id IN (SELECT value FROM json_each(?))')
    .bind(JSON.stringify(sites.map((s) => s.websiteId)))
    .run();
  return files.length + manifests.length;
}

/**
 * The files of the dates before `before` (as the log's retention counts them: UTC dates of
 * `EVENT_RETENTION_DAYS` ago), deleted and marked expired; their websites' manifests are then
 * behind, and the archive's run rewrites them.
 */
async function expireDates(d1: D1Database, bucket: R2Bucket, before: string, now: number) {
  const { results } = await d1
    .prepare(
      `SELECT website_id AS websiteId, key, rows, expired_at AS expiredAt FROM archive_dates
        WHERE date < ? AND written_at IS NOT NULL AND expired_at IS NULL LIMIT ?`,
    )
    .bind(before, KEYS_PER_RUN)
    .all<Dated>();
  if (results.length === 0) return 0;
  const files = results.filter((d) => d.rows > 0).map((d) => d.key);
  if (files.length > 0) await bucket.delete(files);
  const keys = JSON.stringify(results.map((d) => d.key));
  const websites = JSON.stringify([...new Set(results.map((d) => d.websiteId))]);
  await d1.batch([
    d1
      .prepare(
        'UPDATE archive_dates SET expired_at = ? WHERE key IN (SELECT value FROM json_each(?))',
      )
      .bind(now, keys),
    d1
      .prepare(
        'UPDATE archive_sites SET version = version + 1 WHERE website_id IN (SELECT value FROM json_each(?))',
      )
      .bind(websites),
  ]);
  return files.length;
}
