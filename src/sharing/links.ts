/**
 * Shared links (docs/ARCHITECTURE.md, "Sharing"): a secret address that opens one website's
 * statistics pages read-only — every range, filter, full view and CSV — to whoever has it,
 * with or without a password, until it is deleted. The token (256 random bits, base64url) is
 * shown once, after the `#` of the link's `url` (docs/ARCHITECTURE.md, "Secrets out of
 * addresses"), and kept only as its SHA-256.
 */
import { and, asc, count, eq, isNotNull, isNull, or, type SQL } from 'drizzle-orm';
import { hashPassword } from '../accounts/password.ts';
import type { Database } from '../db/client.ts';
import { owners, type WebsiteRow, websites } from '../db/schema.ts';
import { type SharedLinkRow, segments, sharedLinks } from '../db/sharing-schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '../lib/crypto.ts';
import { type FieldErrors, validationFailed } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import { makerMayAct } from '../members/made.ts';

/** At most this many links a website. */
const MAX_LINKS = 100;

/** A link as the API shows it; `url` and `embed_url` only when it is made (the token is not kept). */
export type SharedLinkRecord = {
  id: number;
  name: string;
  url?: string;
  embed_url?: string;
  has_password: boolean;
  /** The saved segment it shows, and only it; null: every number of the website. */
  segment_id: number | null;
  /** Its maker's e-mail; null for a link made before makers were recorded (the owner's). */
  created_by: string | null;
  created_at: string;
};

const toRecord = (row: SharedLinkRow, maker: string | null): SharedLinkRecord => ({
  id: row.id,
  name: row.name,
  has_password: row.passwordHash !== null,
  segment_id: row.segmentId,
  created_by: maker,
  created_at: apiTimestamp(row.createdAt),
});

/** A token's form: 43 base64url characters. */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks a link's fields: a name of 1–120 characters, an optional password of 8–128, an
 * optional saved segment's id.
 */
function checkLink(fields: Record<string, unknown>): {
  name: string;
  password: string | null;
  segmentId: number | null;
} {
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
  const segment = fields.segment_id;
  const segmentId =
    segment === undefined || segment === null || segment === '' ? null : parseId(String(segment));
  if (segmentId === null && !(segment === undefined || segment === null || segment === ''))
    errors.segment_id = ["The segment_id must be the id of one of the website's site segments."];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { name, password, segmentId };
}

/** Whether a segment is one of the website's site segments (a link shows it to anyone). */
async function isSiteSegment(db: Database, websiteId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: segments.id })
    .from(segments)
    .where(and(eq(segments.id, id), eq(segments.websiteId, websiteId), eq(segments.type, 'site')))
    .get();
  return row !== undefined;
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
): Promise<SharedLinkRecord & { url: string; embed_url: string }> {
  const input = checkLink(fields);
  if (input.segmentId !== null && !(await isSiteSegment(db, websiteId, input.segmentId)))
    throw validationFailed({
      segment_id: ["The segment_id must be the id of one of the website's site segments."],
    });
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
      segmentId: input.segmentId,
      createdBy: maker.id,
      createdAt: now,
    })
    .returning()
    .get();
  const { id, name, ...rest } = toRecord(row, maker.email);
  const base = origin.replace(/\/+$/, '');
  return { id, name, url: `${base}/share#${token}`, embed_url: `${base}/embed#${token}`, ...rest };
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
 * The link `where` names, with its website and segment, while its maker may still make links
 * there and its segment (if any) is still one of the website's site segments: a link whose
 * segment is gone, another website's or personal opens nothing, never a wider view.
 */
async function linkWhere(db: Database, where: SQL | undefined): Promise<OpenLink | undefined> {
  const row = await db
    .select({
      link: sharedLinks,
      site: websites,
      segmentName: segments.name,
      segmentFilters: segments.filters,
    })
    .from(sharedLinks)
    .innerJoin(websites, eq(websites.id, sharedLinks.websiteId))
    .leftJoin(
      segments,
      and(
        eq(segments.id, sharedLinks.segmentId),
        eq(segments.websiteId, sharedLinks.websiteId),
        eq(segments.type, 'site'),
      ),
    )
    .where(
      and(
        where,
        makerMayAct(sharedLinks.createdBy, sharedLinks.websiteId),
        or(isNull(sharedLinks.segmentId), isNotNull(segments.id)),
      ),
    )
    .get();
  if (!row) return undefined;
  const { link, site, segmentName, segmentFilters } = row;
  const segment =
    link.segmentId !== null && segmentName !== null && segmentFilters !== null
      ? { id: link.segmentId, name: segmentName, filters: segmentFilters }
      : null;
  return { link, site, segment };
}

/** A link with its website, and the site segment it is limited to (null: none). */
export type OpenLink = {
  link: SharedLinkRow;
  site: WebsiteRow;
  segment: { id: number; name: string; filters: string } | null;
};

/**
 * The link a token opens, with its website; undefined for a token that opens nothing — also
 * once its maker may no longer make links there.
 */
export async function linkOfToken(db: Database, token: string): Promise<OpenLink | undefined> {
  // Anything but a token's form is looked up as nothing.
  if (!LINK_TOKEN.test(token)) return undefined;
  return linkWhere(db, eq(sharedLinks.tokenHash, await sha256Hex(token)));
}

/** Link `id` with its website, as `linkOfToken` finds it (for a browser that proved its token). */
export const linkOfId = (db: Database, id: number): Promise<OpenLink | undefined> =>
  linkWhere(db, eq(sharedLinks.id, id));
