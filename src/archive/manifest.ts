/**
 * A website's manifest in the bucket, `sightline/site=<domain>/_manifest.json`: every date
 * written — its file (none for a date without events), rows, bytes, SHA-256, when — and the
 * dates retention has deleted since. D1 (./claims.ts) decides what is written; the manifest
 * is its copy for the bucket's readers, rewritten whenever a date is written or expires
 * (docs/ARCHITECTURE.md, "The daily archive"). `_` keeps it out of Hive readers' globs.
 */
import { type ArchiveSite, manifestKey } from './claims.ts';

type ManifestEntry = {
  date: string;
  /** The object, relative to the site's prefix; null when the date had no events. */
  file: string | null;
  rows: number;
  bytes: number;
  sha256: string | null;
  written_at: string;
  /** When retention deleted its file (`EVENT_RETENTION_DAYS`), if it did. */
  expired_at: string | null;
};

type Row = {
  date: string;
  rows: number;
  bytes: number;
  sha256: string | null;
  writtenAt: number;
  expiredAt: number | null;
};

/**
 * Writes the manifest of a website's dates as D1 has them, when it is behind them: then
 * notes the version it was written from, unless a date was written meanwhile (the website
 * stays behind, and this or the next run writes it again).
 */
export async function writeManifest(
  d1: D1Database,
  bucket: R2Bucket,
  site: ArchiveSite,
  now: number,
): Promise<boolean> {
  const [version, dates] = await d1.batch([
    d1.prepare('SELECT version FROM archive_sites WHERE website_id = ?').bind(site.websiteId),
    d1
      .prepare(
        `SELECT date, rows, bytes, sha256, written_at AS writtenAt, expired_at AS expiredAt
          FROM archive_dates WHERE website_id = ? AND written_at IS NOT NULL ORDER BY date`,
      )
      .bind(site.websiteId),
  ]);
  const from = (version?.results[0] as { version: number } | undefined)?.version;
  if (from === undefined) return false;
  const iso = (ms: number) => new Date(ms).toISOString();
  const entries: ManifestEntry[] = ((dates?.results ?? []) as Row[]).map((d) => ({
    date: d.date,
    file: d.rows > 0 ? `date=${d.date}/events.parquet` : null,
    rows: d.rows,
    bytes: d.bytes,
    sha256: d.sha256,
    written_at: iso(d.writtenAt),
    expired_at: d.expiredAt === null ? null : iso(d.expiredAt),
  }));
  const manifest = {
    site: site.domain,
    website_id: site.websiteId,
    timezone: site.timezone,
    from_date: site.fromDate,
    format: 'parquet',
    updated_at: iso(now),
    dates: entries,
  };
  await bucket.put(manifestKey(site.domain), `${JSON.stringify(manifest, null, 1)}\n`, {
    httpMetadata: { contentType: 'application/json' },
  });
  const noted = await d1
    .prepare('UPDATE archive_sites SET manifest_version = ? WHERE website_id = ? AND version = ?')
    .bind(from, site.websiteId, from)
    .run();
  return (noted.meta.changes ?? 0) > 0;
}
