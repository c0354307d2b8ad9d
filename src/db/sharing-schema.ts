/**
 * What the readers of a website keep and share (part of Sightline's D1 schema: ./schema.ts;
 * drizzle-kit reads both): shared links, saved segments, annotations, traffic alerts and the
 * recipients of e-mail reports.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { owners, websites } from './schema.ts';

/**
 * Saved segments (src/segments/, docs/ARCHITECTURE.md "Segments"): a named filter tree of the
 * Stats API v2's grammar, kept as the JSON the API answers. `type` `site`: every reader of
 * the website sees it, its admins change it; `personal`: only `owner_id`, who made it.
 */
export const segments = sqliteTable(
  'segments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    filters: text('filters').notNull(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('segments_website_idx').on(t.websiteId, t.type),
    index('segments_owner_idx').on(t.ownerId),
  ],
);

export type SegmentRow = typeof segments.$inferSelect;

/**
 * Shared links (docs/ARCHITECTURE.md, "Sharing"): each opens one website's statistics pages
 * read-only to whoever has it. The token is 256 random bits, kept only as its SHA-256; a link
 * may ask for a password (PBKDF2, like every password). Deleting the row revokes the link.
 */
export const sharedLinks = sqliteTable(
  'shared_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    passwordHash: text('password_hash'),
    /**
     * The person who made the link (or was handed it: docs/ARCHITECTURE.md, "Members"); null
     * for a link made before makers were recorded, which counts as the owner's.
     */
    createdBy: integer('created_by').references(() => owners.id, { onDelete: 'cascade' }),
    /**
     * The saved segment the link shows, and only it (`segments`: deleting the segment deletes
     * the link); null: every number of the website.
     */
    segmentId: integer('segment_id').references(() => segments.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('shared_links_token_unique').on(t.tokenHash),
    index('shared_links_created_by_idx').on(t.createdBy),
    index('shared_links_segment_idx').on(t.segmentId),
  ],
);

export type SharedLinkRow = typeof sharedLinks.$inferSelect;

/**
 * Annotations (src/annotations/, docs/ARCHITECTURE.md "Annotations"): a dated note on a
 * website's statistics ("launched pricing v2"), from `date` to `end_date` (null: that day),
 * local dates of the website. Every reader of the website sees them; its owner and admins
 * keep them. `created_by`: who wrote it (null once they are deleted).
 */
export const annotations = sqliteTable(
  'annotations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    date: text('date').notNull(),
    endDate: text('end_date'),
    text: text('text').notNull(),
    createdBy: integer('created_by').references(() => owners.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('annotations_website_date_idx').on(t.websiteId, t.date)],
);

export type AnnotationRow = typeof annotations.$inferSelect;

/**
 * Traffic alerts (src/alerts/, docs/ARCHITECTURE.md "Traffic alerts"): one recipient's e-mail
 * when a website's visitors over the last `hours` hours reach `threshold` (`kind` `spike`) or
 * fall under it after reaching it the same hours a week before (`drop`), at most one every
 * `every_hours`. Nothing is sent before the recipient confirms the address (`confirmed_at`);
 * the sends themselves are claims in `report_sends` (src/reports/once.ts).
 */
export const alerts = sqliteTable(
  'alerts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    email: text('email').notNull(),
    threshold: integer('threshold').notNull(),
    hours: integer('hours').notNull(),
    everyHours: integer('every_hours').notNull(),
    confirmedAt: integer('confirmed_at'),
    createdBy: integer('created_by').references(() => owners.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('alerts_recipient_unique').on(t.websiteId, t.kind, t.email)],
);

export type AlertRow = typeof alerts.$inferSelect;

/**
 * The recipients of a website's e-mail reports (src/reports/recipients.ts, docs/ARCHITECTURE.md
 * "E-mail reports") besides its owner (`websites.email`): each address gets the report of
 * every complete `interval` (`weekly` or `monthly`) in the website's time zone, once it has
 * confirmed (`confirmed_at`) by the link of the e-mail sent when it was added. One row per
 * address and website; the sends are claims in `report_sends` (src/reports/once.ts), keyed by
 * the period and the recipient (`weekly:2026-11-30:r12`).
 */
export const reportRecipients = sqliteTable(
  'report_recipients',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    interval: text('interval').notNull(),
    confirmedAt: integer('confirmed_at'),
    createdBy: integer('created_by').references(() => owners.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('report_recipients_email_unique').on(t.websiteId, t.email)],
);

export type ReportRecipientRow = typeof reportRecipients.$inferSelect;
