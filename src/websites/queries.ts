/**
 * Website queries. Every function takes the owner id and scopes by it, so a caller cannot
 * reach another owner's website by accident: not found and not yours look the same.
 */
import { and, asc, count, desc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { containsText } from '../db/contains-text.ts';
import { websitePurges, websites } from '../db/schema.ts';
import { apiTimestamp } from '../lib/dates.ts';
import type { WebsiteRecord } from './schemas.ts';

export type WebsiteRow = typeof websites.$inferSelect;

/** A website id from a path: a positive decimal integer, or null (nothing can be named so). */
export function parseWebsiteId(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}

export function toWebsiteRecord(row: WebsiteRow): WebsiteRecord {
  return {
    id: row.id,
    domain: row.domain,
    privacy: row.privacy,
    password: row.passwordHash !== null,
    email: row.email,
    exclude_bots: row.excludeBots,
    exclude_params: row.excludeParams === '' ? null : row.excludeParams,
    exclude_ips: row.excludeIps === '' ? null : row.excludeIps,
    timezone: row.timezone,
    created_at: apiTimestamp(row.createdAt),
    updated_at: apiTimestamp(row.updatedAt),
  };
}

export async function findWebsite(
  db: Database,
  ownerId: number,
  id: number,
): Promise<WebsiteRow | undefined> {
  return db
    .select()
    .from(websites)
    .where(and(eq(websites.id, id), eq(websites.ownerId, ownerId)))
    .get();
}

/** True when any owner's website uses this (normalised) domain. */
export async function domainTaken(db: Database, domain: string): Promise<boolean> {
  const row = await db
    .select({ id: websites.id })
    .from(websites)
    .where(eq(websites.domain, domain))
    .get();
  return row !== undefined;
}

/**
 * Domains are stored in their ASCII form (international names as punycode, as browsers send
 * them); a term with other letters also matches its own ASCII form (`ústí-nad-labem` →
 * `xn--st-nad-labem-tfb3p`), so a domain is found by either spelling.
 */
function domainContains(term: string): SQL | undefined {
  const plain = containsText(websites.domain, term);
  if (!/[^\p{ASCII}]/u.test(term)) return plain;
  let ascii: string | undefined;
  try {
    ascii = new URL(`http://${term.trim()}/`).hostname;
  } catch {
    // Not a host name: only the plain match.
  }
  return ascii && ascii !== term ? or(plain, containsText(websites.domain, ascii)) : plain;
}

export type WebsiteListOptions = {
  search?: string;
  sortBy: 'id' | 'domain';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
};

export async function listWebsites(db: Database, ownerId: number, options: WebsiteListOptions) {
  const where = and(
    eq(websites.ownerId, ownerId),
    options.search ? domainContains(options.search) : undefined,
  );
  const column = options.sortBy === 'domain' ? websites.domain : websites.id;
  const order = options.sort === 'asc' ? asc(column) : desc(column);
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(websites)
      .where(where)
      .orderBy(order, asc(websites.id))
      .limit(options.limit)
      .offset(options.offset),
    db.select({ total: count() }).from(websites).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

export type NewWebsite = Omit<typeof websites.$inferInsert, 'id'>;

export async function insertWebsite(db: Database, values: NewWebsite): Promise<WebsiteRow> {
  const row = await db.insert(websites).values(values).returning().get();
  return row;
}

export async function updateWebsite(
  db: Database,
  ownerId: number,
  id: number,
  values: Partial<NewWebsite>,
): Promise<WebsiteRow | undefined> {
  return db
    .update(websites)
    .set(values)
    .where(and(eq(websites.id, id), eq(websites.ownerId, ownerId)))
    .returning()
    .get();
}

/**
 * Deletes a website and leaves a purge tombstone, in one batch. From this moment nothing
 * recorded for it can be read (every read goes through the website row); the hourly
 * maintenance deletes its roll-ups in bounded chunks.
 */
export async function deleteWebsite(
  db: Database,
  ownerId: number,
  id: number,
  now = Date.now(),
): Promise<boolean> {
  const mine = and(eq(websites.id, id), eq(websites.ownerId, ownerId));
  const [, deleted] = await db.batch([
    db
      .insert(websitePurges)
      .select(
        db
          .select({ websiteId: websites.id, deletedAt: sql<number>`${now}`.as('deleted_at') })
          .from(websites)
          .where(mine),
      )
      .onConflictDoNothing(),
    db.delete(websites).where(mine).returning({ id: websites.id }),
  ]);
  return deleted.length > 0;
}
