/**
 * Shared links (docs/ARCHITECTURE.md, "Sharing"): a secret address that opens one website's
 * statistics pages read-only — every range, filter, full view and CSV — to whoever has it,
 * with or without a password, until it is deleted. The token (256 random bits, base64url) is
 * shown once, in the link's `url`, and kept only as its SHA-256.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { hashPassword } from '../accounts/password.ts';
import type { Database } from '../db/client.ts';
import {
  owners,
  type SharedLinkRow,
  sharedLinks,
  type WebsiteRow,
  websites,
} from '../db/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '../lib/crypto.ts';
import { apiTimestamp } from '../lib/dates.ts';
import { type FieldErrors, validationFailed } from '../lib/errors.ts';
import { makerMayAct } from '../members/made.ts';
import { parseWebsiteId } from '../websites/queries.ts';

/** At most this many links a website. */
const MAX_LINKS = 100;

/** A link as the API shows it; `url` only when it is made (the token is not kept). */
export type SharedLinkRecord = {
  id: number;
  name: string;
  url?: string;
  has_password: boolean;
  /** Its maker's e-mail; null for a link made before makers were recorded (the owner's). */
  created_by: string | null;
  created_at: string;
};

const toRecord = (row: SharedLinkRow, maker: string | null): SharedLinkRecord => ({
  id: row.id,
  name: row.name,
  has_password: row.passwordHash !== null,
  created_by: maker,
  created_at: apiTimestamp(row.createdAt),
});

/** Where links point: `PUBLIC_URL` when set, else the origin the request came to. */
export const linkOrigin = (publicUrl: string | undefined, requestUrl: string) =>
  publicUrl?.replace(/\/+$/, '') || new URL(requestUrl).origin;

/** The path a link opens, under the site's public address. */
const sharePath = (token: string) => `/share/${token}`;

/** Checks a link's fields: a name of 1–120 characters, an optional password of 8–128. */
function checkLink(fields: Record<string, unknown>): { name: string; password: string | null } {
  const errors: FieldErrors = {};
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  if (name === '') errors.name = ['The name field is required.'];
  else if (name.length > 120) errors.name = ['The name may not be greater than 120 characters.'];
  const raw = fields.password;
  const password = typeof raw === 'string' && raw !== '' ? raw : null;
  if (raw !== undefined && raw !== null && typeof raw !== 'string')
    errors.password = ['The password must be a string.'];
  else if (password !== null && (password.length < 8 || password.length > 128))
    errors.password = ['The password must be between 8 and 128 characters.'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { name, password };
}

/**
 * `maker` makes a link to a website's statistics; its `url` (under `origin`) carries the
 * token.
 */
export async function createSharedLink(
  db: Database,
  websiteId: number,
  fields: Record<string, unknown>,
  origin: string,
  maker: { id: number; email: string },
  now = Date.now(),
): Promise<SharedLinkRecord> {
  const input = checkLink(fields);
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(sharedLinks)
    .where(eq(sharedLinks.websiteId, websiteId))
    .all();
  if (n >= MAX_LINKS)
    throw validationFailed({ name: [`A website has at most ${MAX_LINKS} shared links.`] });
  const token = toBase64Url(randomBytes(32));
  const row = await db
    .insert(sharedLinks)
    .values({
      websiteId,
      name: input.name,
      tokenHash: await sha256Hex(token),
      passwordHash: input.password === null ? null : await hashPassword(input.password),
      createdBy: maker.id,
      createdAt: now,
    })
    .returning()
    .get();
  const { id, name, ...rest } = toRecord(row, maker.email);
  return { id, name, url: `${origin.replace(/\/+$/, '')}${sharePath(token)}`, ...rest };
}

/** A website's links, oldest first, each with its maker's e-mail. */
export async function listSharedLinks(
  db: Database,
  websiteId: number,
): Promise<SharedLinkRecord[]> {
  const rows = await db
    .select({ link: sharedLinks, maker: owners.email })
    .from(sharedLinks)
    .leftJoin(owners, eq(owners.id, sharedLinks.createdBy))
    .where(eq(sharedLinks.websiteId, websiteId))
    .orderBy(asc(sharedLinks.id))
    .all();
  return rows.map(({ link, maker }) => toRecord(link, maker));
}

/** Revokes a link of a website; false when the website has no such link. */
export async function deleteSharedLink(
  db: Database,
  websiteId: number,
  linkId: number,
): Promise<boolean> {
  const result = await db
    .delete(sharedLinks)
    .where(and(eq(sharedLinks.id, linkId), eq(sharedLinks.websiteId, websiteId)))
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * The link a token opens, with its website; undefined for a token that opens nothing — also
 * once its maker may no longer make links there.
 */
export async function linkOfToken(
  db: Database,
  token: string,
): Promise<{ link: SharedLinkRow; site: WebsiteRow } | undefined> {
  // A token is 43 base64url characters: anything else is looked up as nothing.
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await db
    .select({ link: sharedLinks, site: websites })
    .from(sharedLinks)
    .innerJoin(websites, eq(websites.id, sharedLinks.websiteId))
    .where(
      and(
        eq(sharedLinks.tokenHash, await sha256Hex(token)),
        makerMayAct(sharedLinks.createdBy, sharedLinks.websiteId),
      ),
    )
    .get();
  return row ?? undefined;
}

/** A link id of a path (the same form as a website's), or null. */
export const parseLinkId = (raw: string | undefined): number | null => parseWebsiteId(raw);
