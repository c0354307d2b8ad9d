/**
 * Saved segments through the API (./segments.ts): `…/websites/{id}/segments`. Every reader of
 * a website lists the segments they see and keeps personal ones; site segments are its
 * owner's and admins' to make, change and delete (403 for a viewer). A segment the key's
 * person does not see is the 404 of a missing one.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { ApiError } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
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

const security = [{ bearerAuth: [] }];
const TAGS = ['Segments'];
const segmentParams = idParam.extend({ segment_id: pathId('2') });

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
const inputSchemas = {
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

const body = (partial: boolean) => ({
  required: true,
  content: { 'application/json': { schema: inputSchemas[partial ? 'some' : 'all'] } },
});
const one = (description: string, status = 200) =>
  jsonContent(
    s.object({ data: segmentSchema, status: s.number().int().openapi({ example: status }) }),
    description,
  );
const errors = {
  401: errorResponses[401],
  403: errorResponses[403],
  404: errorResponses[404],
};

const routes = {
  list: defineRoute({
    method: 'get',
    path: '/websites/{id}/segments',
    tags: TAGS,
    summary: "List the website's segments you see",
    description: 'Its site segments and your personal ones, oldest first.',
    security,
    request: { params: idParam },
    responses: {
      200: jsonContent(
        s.object({ data: s.array(segmentSchema), status: s.number().int() }),
        'The segments.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
  get: defineRoute({
    method: 'get',
    path: '/websites/{id}/segments/{segment_id}',
    tags: TAGS,
    summary: 'A segment',
    security,
    request: { params: segmentParams },
    responses: { 200: one('The segment.'), 401: errorResponses[401], 404: errorResponses[404] },
  }),
  create: defineRoute({
    method: 'post',
    path: '/websites/{id}/segments',
    tags: TAGS,
    summary: 'Save a segment',
    description:
      'Use it as the filter `["is", "segment", [<id>]]` of the Stats API v2, or `segment=<id>` in API v1 and on the statistics page. At most 500 a website.',
    security,
    request: { params: idParam, body: body(false) },
    responses: { 201: one('The new segment.', 201), ...errors, 422: errorResponses[422] },
  }),
  update: defineRoute({
    method: 'patch',
    path: '/websites/{id}/segments/{segment_id}',
    tags: TAGS,
    summary: 'Change a segment',
    description: 'Changes the fields given; the segment keeps its owner.',
    security,
    request: { params: segmentParams, body: body(true) },
    responses: { 200: one('The segment, changed.'), ...errors, 422: errorResponses[422] },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}/segments/{segment_id}',
    tags: TAGS,
    summary: 'Delete a segment',
    description: 'The shared links limited to it are revoked with it.',
    security,
    request: { params: segmentParams },
    responses: { 200: deletedResponse('segment', 'The segment was deleted.'), ...errors },
  }),
};

/** The website of `{id}` the key's person reads, and who they are there. */
async function reader(c: Context<AppEnv>, id: number) {
  const { db, website, role } = await websiteOf(c, id, 'viewer');
  const asker = { personId: c.get('ownerId'), admin: mayActAs(role, 'admin') };
  const segmentId = parseId(c.req.param('segment_id') ?? '');
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
    return c.json({ id: segmentId, object: 'segment', deleted: true, status: 200 });
  });
}
