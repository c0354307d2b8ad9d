/**
 * Website queries. Every function takes the owner id and scopes by it, so a caller cannot
 * reach another owner's website by accident: not found and not yours look the same.
 */
import { and, asc, count, desc, eq, exists, inArray, lt, ne, or, type SQL, sql } from 'drizzle-orm';
import { type AnySQLiteColumn, alias } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.ts';
import { containsText } from '../db/contains-text.ts';
import { type WebsiteRow, websitePurges, websites } from '../db/schema.ts';
import { afterChange } from './cache.ts';
import { isIpLiteral, normalizeDomain, parentDomains } from './domain.ts';

/** A website id from a path: a positive decimal integer, or null (nothing can be named so). */
export function parseWebsiteId(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
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

/** The owner's website registered under `domain` (as given, then normalised), if there is one. */
export async function findWebsiteByDomain(
  db: Database,
  ownerId: number,
  domain: string,
): Promise<WebsiteRow | undefined> {
  const normalized = normalizeDomain(domain);
  if (!normalized.ok) return undefined;
  return db
    .select()
    .from(websites)
    .where(and(eq(websites.domain, normalized.domain), eq(websites.ownerId, ownerId)))
    .get();
}

/**
 * True when a (normalised) domain cannot be given to `ownerId`: any owner's website uses
 * exactly this domain, or another owner's website is a subdomain or a parent of it. Hits go
 * to the most specific website whose domain matches the page, so either would take the
 * other's traffic. An owner's own subdomains and parents are allowed.
 */
export async function domainClaimed(
  db: Database,
  domain: string,
  ownerId: number,
): Promise<boolean> {
  const row = await db
    .select({ id: websites.id })
    .from(websites)
    .where(or(eq(websites.domain, domain), relatedOfOthers(websites, domain, ownerId)))
    .limit(1)
    .get();
  return row !== undefined;
}

/** Websites of owners other than `ownerId` that are a parent or a subdomain of `domain`. */
function relatedOfOthers(
  table: { ownerId: AnySQLiteColumn; domain: AnySQLiteColumn },
  domain: string,
  ownerId: number,
) {
  if (isIpLiteral(domain)) return undefined;
  const parents = parentDomains(domain);
  return and(
    ne(table.ownerId, ownerId),
    or(
      parents.length > 0 ? inArray(table.domain, parents) : undefined,
      // A subdomain: ends with `.domain` (not LIKE: D1 refuses patterns over 50 bytes).
      sql`substr(${table.domain}, ${-(domain.length + 1)}) = ${`.${domain}`}`,
    ),
  );
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

/**
 * Inserts a website unless, at that moment, another owner's website is a parent or a
 * subdomain of its domain (`domainClaimed` checked before, but two owners may race). The
 * insert and a check that undoes it are one batch, a transaction that D1 runs one after
 * another: of two related websites created at once, the later one is removed again.
 * Returns undefined when it was. (The exact domain is unique by its index.)
 */
export async function insertWebsite(
  db: Database,
  values: NewWebsite,
): Promise<WebsiteRow | undefined> {
  const other = alias(websites, 'other');
  const related = relatedOfOthers(other, values.domain, values.ownerId);
  if (!related) return afterChange(db.insert(websites).values(values).returning().get());
  const mine = eq(websites.domain, values.domain);
  const earlier = db
    .select({ id: other.id })
    .from(other)
    .where(and(lt(other.id, db.select({ id: websites.id }).from(websites).where(mine)), related));
  const [inserted, undone] = await afterChange(
    db.batch([
      db.insert(websites).values(values).returning(),
      db
        .delete(websites)
        .where(and(mine, exists(earlier)))
        .returning({ id: websites.id }),
    ]),
  );
  return undone.length > 0 ? undefined : inserted[0];
}

export async function updateWebsite(
  db: Database,
  ownerId: number,
  id: number,
  values: Partial<NewWebsite>,
): Promise<WebsiteRow | undefined> {
  return afterChange(
    db
      .update(websites)
      .set(values)
      .where(and(eq(websites.id, id), eq(websites.ownerId, ownerId)))
      .returning()
      .get(),
  );
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
  const [, deleted] = await afterChange(
    db.batch([
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
    ]),
  );
  return deleted.length > 0;
}
