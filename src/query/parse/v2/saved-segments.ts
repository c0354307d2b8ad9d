/**
 * Saved segments in a question (src/segments/: what they are, who sees them): a filter that
 * names segments by id stands for their filters, read from D1 as the asker may see them.
 */
import { and, eq, inArray, or } from 'drizzle-orm';
import type { FilterNode } from '../../../counting/query.ts';
import type { Database } from '../../../db/client.ts';
import { segments } from '../../../db/sharing-schema.ts';
import { type Filter, SEGMENT_FILTER } from '../v1.ts';
import { parseV2Filters } from './filters.ts';
import { QueryError } from './query-error.ts';

/** The segments a person sees of a website: its site segments and their own personal ones. */
export const visibleTo = (websiteId: number, personId: number) =>
  and(
    eq(segments.websiteId, websiteId),
    or(eq(segments.type, 'site'), eq(segments.ownerId, personId)),
  );

/** Plausible's 400 for a segment that does not exist or the asker may not see. */
const UNKNOWN_SEGMENT = "Invalid filters. Some segments don't exist or aren't accessible.";

/**
 * A question's filters (the Stats API v2's raw JSON) with each `["is", "segment", [id…]]` in
 * them replaced by its segments' filters: one segment's as `and` of them (at the top level,
 * its filters among the question's), several as `or` of those.
 * Ids that are not the website's segments the asker sees are Plausible's 400. The segments are
 * read in one D1 query.
 */
export async function withSegments(
  db: Database,
  websiteId: number,
  personId: number,
  filters: unknown,
): Promise<unknown> {
  if (!Array.isArray(filters)) return filters;
  const ids = new Set<number>();
  const collect = (node: unknown): void => {
    if (!Array.isArray(node)) return;
    if (node[0] === 'is' && node[1] === 'segment') {
      const clauses = node[2];
      if (
        !Array.isArray(clauses) ||
        clauses.length === 0 ||
        node.length > 3 ||
        !clauses.every((c) => Number.isSafeInteger(c) && c > 0)
      )
        throw new QueryError(`Invalid filter '${JSON.stringify(node)}'.`);
      for (const id of clauses as number[]) ids.add(id);
      return;
    }
    for (const child of node) collect(child);
  };
  for (const f of filters) collect(f);
  if (ids.size === 0) return filters;
  if (ids.size > 20) throw new QueryError('Invalid filters. A question names at most 20 segments.');
  const rows = await db
    .select({ id: segments.id, filters: segments.filters })
    .from(segments)
    .where(and(inArray(segments.id, [...ids]), visibleTo(websiteId, personId)))
    .all();
  const found = new Map(rows.map((r) => [r.id, JSON.parse(r.filters) as unknown[]]));
  if (found.size !== ids.size) throw new QueryError(UNKNOWN_SEGMENT);
  const expand = (node: unknown): unknown => {
    if (!Array.isArray(node)) return node;
    if (node[0] === 'is' && node[1] === 'segment') {
      const trees = (node[2] as number[]).map((id) => ['and', found.get(id)]);
      return trees.length === 1 ? trees[0] : ['or', trees];
    }
    return node.map(expand);
  };
  // One segment at the top level: its filters join the question's, as if asked with them.
  return filters.flatMap((f) =>
    Array.isArray(f) && f[1] === 'segment' && f[2].length === 1
      ? (found.get(f[2][0]) as unknown[])
      : [expand(f)],
  );
}

/**
 * API v1's filters with the segments their `filter[segment]=<id>` name read for `personId`
 * (0: a reader who is no person — a shared link, a public page — sees site segments only),
 * each as its name and parsed filters; those that name no segment the reader sees, apart.
 */
export async function withSavedSegments(
  db: Database,
  websiteId: number,
  personId: number,
  filters: Filter[],
): Promise<{ filters: Filter[]; unknown: Filter[] }> {
  const ids = filters.filter((f) => f.dimension === SEGMENT_FILTER).map((f) => Number(f.value));
  if (ids.length === 0) return { filters, unknown: [] };
  const rows = await db
    .select({ id: segments.id, name: segments.name, filters: segments.filters })
    .from(segments)
    .where(and(inArray(segments.id, ids), visibleTo(websiteId, personId)))
    .all();
  const read = new Map(rows.map((r) => [r.id, r]));
  const known: Filter[] = [];
  const unknown: Filter[] = [];
  for (const f of filters) {
    const row = f.dimension === SEGMENT_FILTER ? read.get(Number(f.value)) : undefined;
    const filter = row ? segmentFilter(row) : null;
    if (f.dimension !== SEGMENT_FILTER) known.push(f);
    else if (filter) known.push({ ...f, ...filter });
    else unknown.push(f);
  }
  return { filters: known, unknown };
}

/**
 * The filter `filter[segment]=<id>` of a saved segment, its filters parsed; null when they no
 * longer pass the rules they were saved by.
 */
export function segmentFilter(row: { id: number; name: string; filters: string }): Filter | null {
  const nodes = parsedOrNull(row.filters);
  if (!nodes) return null;
  return {
    dimension: SEGMENT_FILTER,
    operator: 'is',
    value: String(row.id),
    segment: { name: row.name, nodes, saved: JSON.parse(row.filters) },
  };
}

/** A segment's filters parsed, or null when they no longer pass the rules they were saved by. */
function parsedOrNull(json: string): FilterNode[] | null {
  try {
    return parseV2Filters(JSON.parse(json));
  } catch (err) {
    if (err instanceof QueryError) return null;
    throw err;
  }
}
