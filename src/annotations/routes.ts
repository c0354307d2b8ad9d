/**
 * Annotations through the API (./annotations.ts): `…/websites/{id}/annotations`. Every reader
 * of a website lists them; its owner and admins write, change and delete them (403 for a
 * viewer).
 */
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { ApiError, validationFailed } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { s } from '../lib/json-schema.ts';
import { dateField } from '../query/api/v1/schemas.ts';
import { websiteOf } from '../websites/http.ts';
import {
  annotationInput,
  annotationOf,
  createAnnotation,
  deleteAnnotation,
  listAnnotations,
  toAnnotationRecord,
  updateAnnotation,
} from './annotations.ts';

const security = [{ bearerAuth: [] }];
const TAGS = ['Annotations'];
const annotationParams = idParam.extend({ annotation_id: pathId('4') });

const annotationSchema = s
  .object({
    id: s.number().int().openapi({ example: 4 }),
    date: s.string().openapi({ example: '2026-11-20' }),
    end_date: s.string().nullable().openapi({ example: null }),
    text: s.string().openapi({ example: 'Launched pricing v2' }),
    created_at: s.string().openapi({ example: '2026-11-20 09:00:00' }),
  })
  .openapi('Annotation');

const fields = {
  date: s.string().openapi({ description: 'A local date of the website: YYYY-MM-DD.' }),
  end_date: s
    .string()
    .nullable()
    .openapi({ description: 'Optional: the last date of a period (null: that day only).' }),
  text: s.string().openapi({ description: '1–500 characters.' }),
};
const inputs = {
  all: s
    .object({ date: fields.date, end_date: fields.end_date.optional(), text: fields.text })
    .openapi('AnnotationInput'),
  some: s
    .object({
      date: fields.date.optional(),
      end_date: fields.end_date.optional(),
      text: fields.text.optional(),
    })
    .openapi('AnnotationChange'),
};
const body = (which: keyof typeof inputs) => ({
  required: true,
  content: { 'application/json': { schema: inputs[which] } },
});
const one = (description: string, status = 200) =>
  jsonContent(
    s.object({ data: annotationSchema, status: s.number().int().openapi({ example: status }) }),
    description,
  );
const writeErrors = {
  401: errorResponses[401],
  403: errorResponses[403],
  404: errorResponses[404],
};

const routes = {
  list: defineRoute({
    method: 'get',
    path: '/websites/{id}/annotations',
    tags: TAGS,
    summary: "List a website's annotations",
    description: 'Those that touch `from`–`to` when both are given (else every one), by date.',
    security,
    request: {
      params: idParam,
      query: s.object({ from: dateField('from').optional(), to: dateField('to').optional() }),
    },
    responses: {
      200: jsonContent(
        s.object({ data: s.array(annotationSchema), status: s.number().int() }),
        'The annotations.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  create: defineRoute({
    method: 'post',
    path: '/websites/{id}/annotations',
    tags: TAGS,
    summary: 'Annotate a date',
    description:
      'A note on a date (or from `date` to `end_date`), shown to every reader of the website: on the chart, under it, in the CSV and in the e-mail reports of its period.',
    security,
    request: { params: idParam, body: body('all') },
    responses: { 201: one('The new annotation.', 201), ...writeErrors, 422: errorResponses[422] },
  }),
  update: defineRoute({
    method: 'patch',
    path: '/websites/{id}/annotations/{annotation_id}',
    tags: TAGS,
    summary: 'Change an annotation',
    security,
    request: { params: annotationParams, body: body('some') },
    responses: { 200: one('The annotation, changed.'), ...writeErrors, 422: errorResponses[422] },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}/annotations/{annotation_id}',
    tags: TAGS,
    summary: 'Delete an annotation',
    security,
    request: { params: annotationParams },
    responses: {
      200: deletedResponse('annotation', 'The annotation was deleted.'),
      ...writeErrors,
    },
  }),
};

const noSuchAnnotation = () => new ApiError(404, 'No annotation with this id.');

export function registerAnnotationRoutes(api: ApiApp) {
  serveRoute(api, routes.list, async (c, { id, query }) => {
    const { db, website } = await websiteOf(c, id, 'viewer');
    const { from, to } = query();
    if ((from === undefined) !== (to === undefined))
      throw validationFailed({ [from === undefined ? 'from' : 'to']: ['Give both from and to.'] });
    const range = from && to ? { from, to } : undefined;
    const rows = await listAnnotations(db, website.id, range);
    return c.json({ data: rows.map(toAnnotationRecord), status: 200 });
  });

  serveRoute(api, routes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const row = await createAnnotation(db, website.id, c.get('ownerId'), annotationInput(body));
    return c.json({ data: toAnnotationRecord(row), status: 201 }, 201);
  });

  serveRoute(api, routes.update, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const annotationId = parseId(c.req.param('annotation_id'));
    const current =
      annotationId === null ? undefined : await annotationOf(db, website.id, annotationId);
    if (!current) throw noSuchAnnotation();
    const input = annotationInput(body, true, current);
    const row = await updateAnnotation(db, website.id, current.id, input);
    if (!row) throw noSuchAnnotation();
    return c.json({ data: toAnnotationRecord(row), status: 200 });
  });

  serveRoute(api, routes.delete, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const annotationId = parseId(c.req.param('annotation_id'));
    if (annotationId === null || !(await deleteAnnotation(db, website.id, annotationId)))
      throw noSuchAnnotation();
    return c.json({ id: annotationId, object: 'annotation', deleted: true, status: 200 });
  });
}
