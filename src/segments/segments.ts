/**
 * Saved segments (docs/ARCHITECTURE.md, "Segments"): a name and a filter tree of the Stats API
 * v2's grammar (`has_done` included), kept per website. A `site` segment is seen by every
 * reader of the website and changed by its admins; a `personal` one is seen and changed by the
 * person who made it alone. A question names segments by id (`["is", "segment", [id…]]` in
 * the Stats API v2, `segment=<id>` in API v1 and on the statistics page): they stand for
 * their filters (src/query/parse/v2/saved-segments.ts).
 */
import { and, asc, count, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type SegmentRow, segments, sharedLinks } from '../db/sharing-schema.ts';
import { ApiError, type FieldErrors, validationFailed } from '../lib/errors.ts';
import { hasControlCharacter } from '../lib/text/text.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import { parseV2Filters } from '../query/parse/v2/filters.ts';
import { QueryError } from '../query/parse/v2/query-error.ts';
import { visibleTo } from '../query/parse/v2/saved-segments.ts';

/** At most this many segments a website (every person's together). */
const MAX_SEGMENTS = 500;
const MAX_NAME = 255;
/** A segment's filters as JSON, at most (the v2 filters' own bounds come first). */
const MAX_FILTERS_JSON = 20_000;
export const SEGMENT_TYPES = ['site', 'personal'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

/** A segment as the API shows it. */
export type SegmentRecord = {
  id: number;
  name: string;
  type: SegmentType;
  filters: unknown[];
  owner_id: number;
  created_at: string;
  updated_at: string;
};

export const toSegmentRecord = (row: SegmentRow): SegmentRecord => ({
  id: row.id,
  name: row.name,
  type: row.type as SegmentType,
  filters: JSON.parse(row.filters) as unknown[],
  owner_id: row.ownerId,
  created_at: apiTimestamp(row.createdAt),
  updated_at: apiTimestamp(row.updatedAt),
});

/** What a segment is made of, checked: all of it, or (`partial`) what the request names. */
export type SegmentInput = { name?: string; type?: SegmentType; filters?: string };

/**
 * Checks a segment's fields: a name of 1–255 characters, a type, filters of the v2 grammar
 * (at least one, no segment among them). Every bad field is named (422).
 */
export function segmentInput(fields: Record<string, unknown>, partial = false): SegmentInput {
  const errors: FieldErrors = {};
  const input: SegmentInput = {};
  const { name, type, filters } = fields;
  if (name !== undefined || !partial) {
    const text = typeof name === 'string' ? name.trim() : '';
    if (text === '') errors.name = ['The name field is required.'];
    else if (text.length > MAX_NAME)
      errors.name = [`The name may not be greater than ${MAX_NAME} characters.`];
    else if (hasControlCharacter(text)) errors.name = ['The name may not hold control characters.'];
    else input.name = text;
  }
  if (type !== undefined || !partial) {
    if (!SEGMENT_TYPES.includes(type as SegmentType))
      errors.type = ['The type must be site or personal.'];
    else input.type = type as SegmentType;
  }
  if (filters !== undefined || !partial) {
    const problem = filtersProblem(filters);
    if (problem) errors.filters = [problem];
    else input.filters = JSON.stringify(filters);
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return input;
}

/** Why a segment's filters are refused, or null. */
function filtersProblem(filters: unknown): string | null {
  if (!Array.isArray(filters) || filters.length === 0)
    return 'The filters must be a list of at least one filter of the Stats API v2.';
  const json = JSON.stringify(filters);
  if (json.length > MAX_FILTERS_JSON)
    return `The filters may not be longer than ${MAX_FILTERS_JSON} characters of JSON.`;
  if (json.includes('"segment"')) return 'A segment may not name another segment.';
  try {
    parseV2Filters(filters);
  } catch (err) {
    if (err instanceof QueryError) return err.message;
    throw err;
  }
  return null;
}

/** Who asks: a person and their role on the website. */
export type Asker = { personId: number; admin: boolean };

/** The segments of a website that `personId` sees, oldest first. */
export async function listSegments(
  db: Database,
  websiteId: number,
  personId: number,
): Promise<SegmentRow[]> {
  return db
    .select()
    .from(segments)
    .where(visibleTo(websiteId, personId))
    .orderBy(asc(segments.id))
    .all();
}

/** Segment `id` of a website, if `personId` sees it. */
export async function segmentOf(
  db: Database,
  websiteId: number,
  personId: number,
  id: number,
): Promise<SegmentRow | undefined> {
  return db
    .select()
    .from(segments)
    .where(and(eq(segments.id, id), visibleTo(websiteId, personId)))
    .get();
}

/** A site segment is an admin's to make or change: a viewer's try is a 403. */
export function mayKeep(asker: Asker, type: string | undefined): void {
  if (type === 'site' && !asker.admin)
    throw new ApiError(403, "Only the website's owner and admins keep segments for everyone.");
}

/** Makes a segment of a website, its owner the asker. */
export async function createSegment(
  db: Database,
  websiteId: number,
  asker: Asker,
  input: SegmentInput,
  now = Date.now(),
): Promise<SegmentRow> {
  mayKeep(asker, input.type);
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(segments)
    .where(eq(segments.websiteId, websiteId))
    .all();
  if (n >= MAX_SEGMENTS)
    throw validationFailed({ name: [`A website has at most ${MAX_SEGMENTS} segments.`] });
  return db
    .insert(segments)
    .values({
      websiteId,
      name: input.name as string,
      type: input.type as SegmentType,
      filters: input.filters as string,
      ownerId: asker.personId,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

/**
 * The segment `id` the asker may change: one they see, and a site segment only as an admin
 * (403), a personal one only their own (others' are unseen: 404).
 */
async function changeable(db: Database, websiteId: number, asker: Asker, id: number) {
  const row = await segmentOf(db, websiteId, asker.personId, id);
  if (!row) throw new ApiError(404, 'No segment with this id.');
  mayKeep(asker, row.type as SegmentType);
  return row;
}

/** Changes what `input` names of a segment. */
export async function updateSegment(
  db: Database,
  websiteId: number,
  asker: Asker,
  id: number,
  input: SegmentInput,
  now = Date.now(),
): Promise<SegmentRow> {
  const row = await changeable(db, websiteId, asker, id);
  mayKeep(asker, input.type);
  if (input.type === 'personal' && row.type === 'site') await notShared(db, row.id);
  // A personal segment made for everyone keeps its maker as its owner.
  const updated = await db
    .update(segments)
    .set({ ...input, updatedAt: now })
    .where(and(eq(segments.id, row.id), eq(segments.websiteId, websiteId)))
    .returning()
    .get();
  if (!updated) throw new ApiError(404, 'No segment with this id.');
  return updated;
}

/**
 * A segment that shared links are limited to stays a site segment (a link's readers see it):
 * a 422 naming the links, which must be revoked first.
 */
async function notShared(db: Database, id: number): Promise<void> {
  const links = await db
    .select({ id: sharedLinks.id, name: sharedLinks.name })
    .from(sharedLinks)
    .where(eq(sharedLinks.segmentId, id))
    .orderBy(asc(sharedLinks.id))
    .all();
  if (links.length === 0) return;
  const named = links.map((l) => `${l.name} (${l.id})`).join(', ');
  throw validationFailed({
    type: [
      `The segment stays for everyone while shared links show it: ${named}. Revoke them first.`,
    ],
  });
}

/** Deletes a segment (and the shared links limited to it). */
export async function deleteSegment(
  db: Database,
  websiteId: number,
  asker: Asker,
  id: number,
): Promise<void> {
  const row = await changeable(db, websiteId, asker, id);
  await db.delete(segments).where(eq(segments.id, row.id)).run();
}
