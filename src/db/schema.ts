/**
 * Sightline's D1 schema. drizzle-kit generates the migrations in `drizzle/` from this file
 * (`npm run db:generate`); wrangler applies them (`wrangler d1 migrations apply DB`).
 *
 * Timestamps are Unix epoch milliseconds (INTEGER), formatted by the API on the way out.
 *
 * `stats` is `WITHOUT ROWID` (added by hand to its migration; drizzle-kit cannot express it):
 * an upsert writes its row in the primary-key B-tree alone. Keep it when a migration recreates it.
 *
 * Visitors, visits and salts are in each website's event log (src/website-log/), not here.
 * What readers keep and share — shared links, saved segments — is in ./sharing-schema.ts.
 */
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

/** A person who owns websites and reads their statistics. */
export const owners = sqliteTable(
  'owners',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** Lower-cased; unique across the installation. */
    email: text('email').notNull(),
    /** PBKDF2 hash in the self-describing format of `src/accounts/password.ts`. */
    passwordHash: text('password_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('owners_email_unique').on(t.email)],
);

/**
 * API keys, stored only as the SHA-256 of the key. One key per owner: rotating replaces the
 * row, so the old key stops working in the same statement.
 */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    /** Lower-case hex SHA-256 of the key. */
    keyHash: text('key_hash').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_unique').on(t.keyHash),
    uniqueIndex('api_keys_owner_unique').on(t.ownerId),
  ],
);

/** Web sessions of the dashboard pages; the cookie carries a token, D1 only its SHA-256. */
export const sessions = sqliteTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('sessions_owner_idx').on(t.ownerId), index('sessions_expires_idx').on(t.expiresAt)],
);

/** A tracked website. Every website belongs to exactly one owner. */
export const websites = sqliteTable(
  'websites',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    /** Normalised host name or IP literal (see `src/websites/domain.ts`); unique. */
    domain: text('domain').notNull(),
    /** 0 public, 1 private (owner and members only), 2 password-protected. */
    privacy: integer('privacy').notNull().default(1),
    /** PBKDF2 hash of the statistics page password, or null when none is set. */
    passwordHash: text('password_hash'),
    /** 1 when periodic e-mail reports are on. */
    email: integer('email').notNull().default(0),
    excludeBots: integer('exclude_bots').notNull().default(1),
    /** 1 when hits from hosting and cloud networks are dropped (src/ingest/steps/datacenters.ts). */
    excludeDatacenters: integer('exclude_datacenters').notNull().default(1),
    /** One query parameter name per line (`*` removes all). */
    excludeParams: text('exclude_params').notNull().default(''),
    /** One IP address or CIDR per line; `#` lines are comments. */
    excludeIps: text('exclude_ips').notNull().default(''),
    /** IANA time zone in which dates and hours are counted. */
    timezone: text('timezone').notNull().default('UTC'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('websites_domain_unique').on(t.domain),
    index('websites_owner_idx').on(t.ownerId, t.id),
  ],
);

/** A website as read from D1: the one type of a website row everywhere. */
export type WebsiteRow = typeof websites.$inferSelect;

/**
 * A website's goals (src/goals/goals.ts): an event goal (`eventName`: a custom event's name)
 * or a page goal (`pagePath`: a path or pattern, `*` within a segment, `**` across), with the
 * name the statistics show (unique per website) and an event goal's revenue currency.
 */
export const goals = sqliteTable(
  'goals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    eventName: text('event_name'),
    pagePath: text('page_path'),
    displayName: text('display_name').notNull(),
    /** ISO 4217 code (`EUR`), event goals only; null: no revenue. */
    currency: text('currency'),
    /** A page goal's scroll depth, 0–100 (Plausible's `scroll_threshold`); -1: none. */
    scrollThreshold: integer('scroll_threshold').notNull().default(-1),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('goals_display_name_unique').on(t.websiteId, t.displayName),
    uniqueIndex('goals_event_unique').on(t.websiteId, t.eventName),
    uniqueIndex('goals_page_unique').on(t.websiteId, t.pagePath, t.scrollThreshold),
  ],
);
export type GoalRow = typeof goals.$inferSelect;

/**
 * A website's funnels (src/flows/funnels.ts): a name unique to the website and 2 to 8
 * steps — each a page (a path or pattern), a custom event or a goal — kept as the JSON the
 * API answers (`[{"page":"/pricing"},{"event":"Signup"}]`), since they are only ever read
 * whole.
 */
export const funnels = sqliteTable(
  'funnels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    steps: text('steps').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('funnels_name_unique').on(t.websiteId, t.name)],
);

export type FunnelRow = typeof funnels.$inferSelect;

/**
 * The people of a website besides its owner (docs/ARCHITECTURE.md, "Members"): a row is an
 * invitation while `owner_id` is null (sent to `email`, opened by a token of which only the
 * SHA-256 is kept, until `expires_at`), and a member once accepted (`owner_id` is the
 * person, the token gone). One id for both, so the API names either the same way. `role`:
 * `viewer` reads, `admin` also changes the website below its owner.
 */
export const members = sqliteTable(
  'members',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    websiteId: integer('website_id')
      .notNull()
      .references(() => websites.id, { onDelete: 'cascade' }),
    /** The person, once the invitation is accepted; null while it is pending. */
    ownerId: integer('owner_id').references(() => owners.id, { onDelete: 'cascade' }),
    /** The address invited (lower-cased). */
    email: text('email').notNull(),
    role: text('role').notNull(),
    /** SHA-256 of the invitation's token while it is pending; null once used. */
    tokenHash: text('token_hash'),
    expiresAt: integer('expires_at'),
    /**
     * The person who sent (or last renewed, or was handed) the invitation; null for one made
     * before inviters were recorded, which counts as the owner's.
     */
    createdBy: integer('created_by').references(() => owners.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    acceptedAt: integer('accepted_at'),
  },
  (t) => [
    uniqueIndex('members_token_unique').on(t.tokenHash),
    index('members_created_by_idx').on(t.createdBy),
    uniqueIndex('members_person_unique').on(t.websiteId, t.ownerId),
    uniqueIndex('members_email_unique').on(t.websiteId, t.email),
    index('members_owner_idx').on(t.ownerId),
    index('members_expires_idx').on(t.expiresAt),
  ],
);

export type MemberRow = typeof members.$inferSelect;

/**
 * Imported history (docs/ARCHITECTURE.md, "Imported history"): one row per import of a file
 * (Plausible's, GoatCounter's or Umami's export) into a website. An import is `pending` while
 * its rows are written, `complete` once readers may see them, `deleting` while its rows are
 * removed (by the request that deleted it, or the hourly maintenance).
 */
export const imports = sqliteTable('imports', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  websiteId: integer('website_id')
    .notNull()
    .references(() => websites.id, { onDelete: 'cascade' }),
  source: text('source').notNull(),
  fromDate: text('from_date').notNull(),
  toDate: text('to_date').notNull(),
  rows: integer('rows').notNull().default(0),
  /** The statistics it carries, comma-separated: for its dates it replaces older imports of these. */
  statistics: text('statistics').notNull().default(''),
  status: text('status').notNull(),
  createdAt: integer('created_at').notNull(),
});

export type ImportRow = typeof imports.$inferSelect;

/**
 * The roll-ups an import brought: the rows of `stats` (statistic, local date, value, count),
 * each marked with its import. Readers add the complete imports' rows to `stats` for the
 * dates and statistics each is the newest import of (src/rollups/imported.ts `importedSegments`). No secondary
 * index, so a row imported is a row written; `WITHOUT ROWID`, like `stats` (added by hand).
 */
export const importedStats = sqliteTable(
  'imported_stats',
  {
    websiteId: integer('website_id').notNull(),
    name: text('name').notNull(),
    date: text('date').notNull(),
    value: text('value').notNull(),
    importId: integer('import_id').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.name, t.date, t.value, t.importId] })],
);

/**
 * Daily roll-ups: one row per (website, statistic, local date, value). The primary key is
 * exactly the lookup order of every stats query, so a query is an index range scan.
 */
export const stats = sqliteTable(
  'stats',
  {
    websiteId: integer('website_id').notNull(),
    name: text('name').notNull(),
    date: text('date').notNull(),
    value: text('value').notNull(),
    count: integer('count').notNull().default(0),
    /**
     * The visitors of a page (`page`) or a referrer (`referrer`) on the date: each visitor
     * once (src/counting/statistics.ts `VISITOR_ROLLUPS`); 0 for every other statistic. In
     * the row its page views or visits are counted in, so a flush writes no more rows.
     */
    visitors: integer('visitors').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.name, t.date, t.value] })],
);

/**
 * Coarser roll-ups, for long ranges (docs/ARCHITECTURE.md, "Long ranges"): the sums of the
 * daily rows of each complete calendar month (its dates as the daily rows have them: local
 * to the website), and of each year's compacted months. Written when a month is compacted
 * (src/rollups/compaction.ts) and, for an event of a compacted month that arrives late, by the
 * flush in the same transaction as its daily rows; so for every month up to
 * `compacted_months.through`, a month row is the sum of its days and a year row the sum of
 * its months. Both `WITHOUT ROWID`, like `stats` (added by hand to the migration).
 */
export const statsMonths = sqliteTable(
  'stats_months',
  {
    websiteId: integer('website_id').notNull(),
    name: text('name').notNull(),
    /** `YYYY-MM`. */
    month: text('month').notNull(),
    value: text('value').notNull(),
    count: integer('count').notNull().default(0),
    visitors: integer('visitors').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.name, t.month, t.value] })],
);

export const statsYears = sqliteTable(
  'stats_years',
  {
    websiteId: integer('website_id').notNull(),
    name: text('name').notNull(),
    /** `YYYY`. */
    year: text('year').notNull(),
    value: text('value').notNull(),
    count: integer('count').notNull().default(0),
    visitors: integer('visitors').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.name, t.year, t.value] })],
);

/** Dropped hits' counters ('' no bot): docs/ARCHITECTURE.md, "Filtered traffic"; WITHOUT ROWID. */
export const droppedHits = sqliteTable(
  'dropped_hits',
  {
    websiteId: integer('website_id').notNull(),
    date: text('date').notNull(),
    reason: text('reason').notNull(),
    name: text('name').notNull().default(''),
    kind: text('kind').notNull().default(''),
    hits: integer('hits').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.date, t.reason, t.name, t.kind] })],
);

/** The last month (`YYYY-MM`) of each website whose days are compacted, with every one before. */
export const compactedMonths = sqliteTable('compacted_months', {
  websiteId: integer('website_id').primaryKey(),
  through: text('through').notNull(),
});

/**
 * Websites that were deleted and whose recorded data still has to be purged. Deleting a
 * website removes its row at once (so nothing recorded for it can be read any more) and
 * leaves a tombstone here; the hourly maintenance deletes the data in bounded chunks.
 */
export const websitePurges = sqliteTable('website_purges', {
  websiteId: integer('website_id').primaryKey(),
  deletedAt: integer('deleted_at').notNull(),
});

/**
 * The directory of the event logs: each partition of a website's log (a Durable Object), how
 * far it is rolled up into `stats` (moved in the transaction of the roll-ups it stands for:
 * each flush counts once, src/rollups/increments.ts), and its dates, events, bytes, closed.
 */
export const logPositions = sqliteTable(
  'log_positions',
  {
    websiteId: integer('website_id').notNull(),
    partition: integer('partition').notNull().default(0),
    position: integer('position').notNull(),
    firstDate: text('first_date'),
    lastDate: text('last_date'),
    events: integer('events').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    closed: integer('closed').notNull().default(0),
    /**
     * The first date from which D1 holds the visitors of the partition's pages and referrers
     * (src/rollups/increments.ts `PartitionFigures`); null until a flush counts them.
     */
    visitorsFrom: text('visitors_from'),
  },
  (t) => [primaryKey({ columns: [t.websiteId, t.partition] })],
);

/** Random server secrets, created on first use (e.g. the key that signs stats-page cookies). */
export const secrets = sqliteTable('secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});

/**
 * Failed attempts per key (a hashed IP or e-mail) for throttling password forms: after too
 * many failures in a window, further attempts are refused until the window ends. Anyone can
 * add rows (a log-in with a new e-mail), so rows whose window is over are purged hourly,
 * found through `throttles_reset_idx`.
 */
export const throttles = sqliteTable(
  'throttles',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    resetAt: integer('reset_at').notNull(),
  },
  (t) => [index('throttles_reset_idx').on(t.resetAt)],
);

/**
 * E-mail reports claimed or sent, one row per website and period: the primary key makes a
 * second send of the same report impossible. A row is written just before its send;
 * `sent_at` is null while the send is in flight, and stays null when the send went out but
 * marking it failed (the row still blocks a second send). A send that failed deletes its row
 * so the next run retries it. Rows of deleted websites, and rows older than any period a
 * report can still be owed for (`report_sends_claimed_idx`), are purged hourly.
 */
export const reportSends = sqliteTable(
  'report_sends',
  {
    websiteId: integer('website_id').notNull(),
    period: text('period').notNull(),
    claimedAt: integer('claimed_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [
    primaryKey({ columns: [t.websiteId, t.period] }),
    index('report_sends_claimed_idx').on(t.claimedAt),
  ],
);
