/**
 * Website queries. Every function takes the id of the person asking and scopes by what they
 * may do there (docs/ARCHITECTURE.md, "Members"): the owner everything, an admin member all
 * but deleting it, a viewer member reading. A caller cannot reach another person's website
 * by accident: not found and not yours look the same.
 */
import {
  and,
  asc,
  count,
  desc,
  eq,
  exists,
  getTableColumns,
  inArray,
  lt,
  ne,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { type AnySQLiteColumn, alias } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.ts';
import { members, type WebsiteRow, websitePurges, websites } from '../db/schema.ts';
import { ApiError, notFound } from '../lib/errors.ts';
import { containsText } from '../lib/text/contains-text.ts';
import { afterChange } from './cache.ts';
import { isIpLiteral, normalizeDomain, parentDomains } from './domain.ts';

/** What a person is to a website: its owner, or a member with a role. */
export type Role = 'owner' | 'admin' | 'viewer';
export const MEMBER_ROLES = ['viewer', 'admin'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
const RANK: Record<Role, number> = { viewer: 1, admin: 2, owner: 3 };

/** Whether `role` may do what needs `need` (an owner all, an admin an admin's and a viewer's). */
export const mayActAs = (role: Role, need: Role) => RANK[role] >= RANK[need];

/** A website a person may see, and what they may do there. */
export type WebsiteAccess = { website: WebsiteRow; role: Role };

/**
 * The person's role on the website in the row (null: none), as SQL. Its columns are named
 * with their tables: in a select's fields drizzle names them bare, which inside the
 * subquery would be the member's own.
 */
const roleOf = (personId: number) =>
  sql<Role | null>`CASE WHEN "websites"."owner_id" = ${personId} THEN 'owner' ELSE (SELECT "members"."role" FROM "members" WHERE "members"."website_id" = "websites"."id" AND "members"."owner_id" = ${personId}) END`;

/** The websites `personId` owns, or is a member of with one of `roles`. */
function withRole(personId: number, roles: readonly MemberRole[] = MEMBER_ROLES): SQL | undefined {
  return or(
    eq(websites.ownerId, personId),
    sql`${websites.id} IN (SELECT ${members.websiteId} FROM ${members} WHERE ${members.ownerId} = ${personId} AND ${members.role} IN ${roles})`,
  );
}

/** The website `where` names, when `personId` may see it, with their role. */
async function accessWhere(
  db: Database,
  personId: number,
  where: SQL | undefined,
): Promise<WebsiteAccess | undefined> {
  const row = await db
    .select({ ...getTableColumns(websites), role: roleOf(personId) })
    .from(websites)
    .where(and(where, withRole(personId)))
    .get();
  if (!row) return undefined;
  const { role, ...website } = row;
  return role ? { website, role } : undefined;
}

/** Website `id` with `personId`'s role on it, or undefined when they have none. */
export function websiteAccess(db: Database, personId: number, id: number) {
  return accessWhere(db, personId, eq(websites.id, id));
}

/** A person's website registered under `domain` (as given, then normalised), with their role. */
export function websiteAccessByDomain(db: Database, personId: number, domain: string) {
  const normalized = normalizeDomain(domain);
  if (!normalized.ok) return Promise.resolve(undefined);
  return accessWhere(db, personId, eq(websites.domain, normalized.domain));
}

/** A member whose role is below what a request needs. */
export const roleTooLow = (need: Role) =>
  new ApiError(
    403,
    need === 'owner'
      ? 'Only the owner of this website may do this.'
      : 'Your role on this website only lets you read its statistics.',
  );

/**
 * Website `id` when `personId` may do there what needs `need`: a website they have no role
 * on is the 404 of a missing one; a role too low is a 403.
 */
export async function websiteFor(
  db: Database,
  personId: number,
  id: number,
  need: Role,
): Promise<WebsiteAccess> {
  const access = await websiteAccess(db, personId, id);
  if (!access) throw notFound();
  if (!mayActAs(access.role, need)) throw roleTooLow(need);
  return access;
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

/** The websites `personId` owns or is a member of, with their role on each. */
export async function listWebsites(db: Database, personId: number, options: WebsiteListOptions) {
  const where = and(
    withRole(personId),
    options.search ? domainContains(options.search) : undefined,
  );
  const column = options.sortBy === 'domain' ? websites.domain : websites.id;
  const order = options.sort === 'asc' ? asc(column) : desc(column);
  const [rows, totals] = await db.batch([
    db
      .select({ ...getTableColumns(websites), role: roleOf(personId) })
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

/** Changes website `id` when `personId` is its owner or an admin member. */
export async function updateWebsite(
  db: Database,
  personId: number,
  id: number,
  values: Partial<NewWebsite>,
): Promise<WebsiteRow | undefined> {
  return afterChange(
    db
      .update(websites)
      .set(values)
      .where(and(eq(websites.id, id), withRole(personId, ['admin'])))
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

/** The domain of a website, as an e-mail's link pages name it ("the website" when it is gone). */
export async function domainOfWebsite(db: Database, websiteId: number): Promise<string> {
  const row = await db
    .select({ domain: websites.domain })
    .from(websites)
    .where(eq(websites.id, websiteId))
    .get();
  return row?.domain ?? 'the website';
}
