/**
 * The daily archive into the owner's R2 bucket (part of Sightline's D1 schema: ./schema.ts;
 * drizzle-kit reads all three; src/archive/, docs/ARCHITECTURE.md "The daily archive"): which
 * website's dates are written, by whom, and what. No foreign key to `websites`: a deleted
 * website's rows stay until the hourly maintenance has deleted its files (src/archive/forget.ts).
 */
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

/**
 * Each website the archive knows: the prefix it writes under (`sightline/site=<domain>/`),
 * the first local date the hourly run writes (the last closed one when it first saw the
 * website; older ones are the backfill's), the first it has not written yet, and versions
 * that tell when its manifest (`_manifest.json`) is behind the dates.
 */
export const archiveSites = sqliteTable('archive_sites', {
  websiteId: integer('website_id').primaryKey(),
  domain: text('domain').notNull(),
  fromDate: text('from_date').notNull(),
  nextDate: text('next_date').notNull(),
  /** Bumped by every date written or expired. */
  version: integer('version').notNull().default(0),
  /** The `version` the manifest in the bucket was written from. */
  manifestVersion: integer('manifest_version').notNull().default(0),
});

/**
 * Each local date of a website being or been written: a claim (a token and when, a lease of
 * src/archive/claims.ts `LEASE_MS`) while a run writes it, then what was written — its rows
 * (0: no events, no file), bytes and SHA-256 — and, once retention deleted the file, when.
 * `key` is unique: two websites never write one object (a domain deleted and added again
 * waits until the old one's files are gone).
 */
export const archiveDates = sqliteTable(
  'archive_dates',
  {
    websiteId: integer('website_id').notNull(),
    date: text('date').notNull(),
    key: text('key').notNull(),
    claim: text('claim'),
    claimedAt: integer('claimed_at').notNull(),
    writtenAt: integer('written_at'),
    rows: integer('rows'),
    bytes: integer('bytes'),
    sha256: text('sha256'),
    expiredAt: integer('expired_at'),
  },
  (t) => [
    primaryKey({ columns: [t.websiteId, t.date] }),
    uniqueIndex('archive_dates_key_unique').on(t.key),
    index('archive_dates_date_idx').on(t.date),
  ],
);
