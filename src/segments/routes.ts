/**
 * Saved segments through the API (./segments.ts): `…/websites/{id}/segments`. Every reader of
 * a website lists the segments they see and keeps personal ones; site segments are its
 * owner's and admins' to make, change and delete (403 for a viewer). A segment the key's
 * person does not see is the 404 of a missing one.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { ApiApp } from '../http/openapi.ts';
import { websiteResource } from '../http/resource.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { ApiError } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import { websiteOf } from '../websites/http.ts';
import { mayActAs } from '../websites/queries.ts';
import {
  createSegment,
  deleteSegment,
  listSegments,
  SEGMENT_TYPES,
  segmentInput,
  segmentOf,
  toSegmentRecord,
  updateSegment,
} from './segments.ts';

const filtersField = s.array(s.array(s.string())).openapi({
  description:
    'Filters of the Stats API v2 (`[operator, dimension, clauses]`, `and`, `or`, `not`, `has_done`, `has_not_done`), joined by AND; a segment names no segment.',
  example: [['is', 'visit:source', ['Hacker News']]],
});

const segmentSchema = s
  .object({
    id: s.number().int().openapi({ example: 2 }),
    name: s.string().openapi({ example: 'From Hacker News' }),
    type: s.enum(SEGMENT_TYPES),
    filters: filtersField,
    owner_id: s.number().int().openapi({ example: 1 }),
    created_at: s.string().openapi({ example: '2026-11-29 10:00:00' }),
    updated_at: s.string().openapi({ example: '2026-11-29 10:00:00' }),
  })
  .openapi('Segment');

const nameField = s.string().openapi({ description: '1–255 characters.' });
const typeField = s.enum(SEGMENT_TYPES).openapi({
  description:
    '`site`: every reader of the website sees it (only its owner and admins keep one); `personal`: only you.',
});
const inputs = {
  all: s
    .object({ name: nameField, type: typeField, filters: filtersField })
    .openapi('SegmentInput'),
  some: s
    .object({
      name: nameField.optional(),
      type: typeField.optional(),
      filters: filtersField.optional(),
    })
    .openapi('SegmentChange'),
};

const segments = websiteResource({
  tag: 'Segments',
  plural: 'segments',
  item: { name: 'segment_id', example: '2' },
  record: segmentSchema,
  inputs,
});

const routes = {
  list: segments.route({
    method: 'get',
    path: segments.collection,
    summary: "List the website's segments you see",
    description: 'Its site segments and your personal ones, oldest first.',
    request: { params: idParam },
    responses: { 200: segments.many('The segments.'), ...segments.reads },
  }),
  get: segments.route({
    method: 'get',
    path: segments.item,
    summary: 'A segment',
    request: { params: segments.itemParams },
    responses: { 200: segments.one('The segment.'), ...segments.reads },
  }),
  create: segments.route({
    method: 'post',
    path: segments.collection,
    summary: 'Save a segment',
    description:
      'Use it as the filter `["is", "segment", [<id>]]` of the Stats API v2, or `segment=<id>` in API v1 and on the statistics page. At most 500 a website.',
    request: { params: idParam, body: segments.body(false) },
    responses: {
      201: segments.one('The new segment.', 201),
      ...segments.writes,
      ...segments.invalid,
    },
  }),
  update: segments.route({
    method: 'patch',
    path: segments.item,
    summary: 'Change a segment',
    description: 'Changes the fields given; the segment keeps its owner.',
    request: { params: segments.itemParams, body: segments.body(true) },
    responses: {
      200: segments.one('The segment, changed.'),
      ...segments.writes,
      ...segments.invalid,
    },
  }),
  delete: segments.route({
    method: 'delete',
    path: segments.item,
    summary: 'Delete a segment',
    description: 'The shared links limited to it are revoked with it.',
    request: { params: segments.itemParams },
    responses: { 200: segments.deleted('segment', 'The segment was deleted.'), ...segments.writes },
  }),
};

/** The website of `{id}` the key's person reads, and who they are there. */
async function reader(c: Context<AppEnv>, id: number) {
  const { db, website, role } = await websiteOf(c, id, 'viewer');
  const asker = { personId: c.get('ownerId'), admin: mayActAs(role, 'admin') };
  const segmentId = segments.itemId(c);
  return { db, website, asker, segmentId };
}

const noSuchSegment = () => new ApiError(404, 'No segment with this id.');

export function registerSegmentRoutes(api: ApiApp) {
  serveRoute(api, routes.list, async (c, { id }) => {
    const { db, website, asker } = await reader(c, id);
    const rows = await listSegments(db, website.id, asker.personId);
    return c.json({ data: rows.map(toSegmentRecord), status: 200 });
  });

  serveRoute(api, routes.get, async (c, { id }) => {
    const { db, website, asker, segmentId } = await reader(c, id);
    const row =
      segmentId === null ? undefined : await segmentOf(db, website.id, asker.personId, segmentId);
    if (!row) throw noSuchSegment();
    return c.json({ data: toSegmentRecord(row), status: 200 });
  });

  serveRoute(api, routes.create, async (c, { id, body }) => {
    const { db, website, asker } = await reader(c, id);
    const row = await createSegment(db, website.id, asker, segmentInput(body));
    return c.json({ data: toSegmentRecord(row), status: 201 }, 201);
  });

  serveRoute(api, routes.update, async (c, { id, body }) => {
    const { db, website, asker, segmentId } = await reader(c, id);
    if (segmentId === null) throw noSuchSegment();
    const row = await updateSegment(db, website.id, asker, segmentId, segmentInput(body, true));
    return c.json({ data: toSegmentRecord(row), status: 200 });
  });

  serveRoute(api, routes.delete, async (c, { id }) => {
    const { db, website, asker, segmentId } = await reader(c, id);
    if (segmentId === null) throw noSuchSegment();
    await deleteSegment(db, website.id, asker, segmentId);
    return segments.gone(c, segmentId, 'segment');
  });
}
