/**
 * Annotations through the API (./annotations.ts): `…/websites/{id}/annotations`. Every reader
 * of a website lists them; its owner and admins write, change and delete them (403 for a
 * viewer).
 */
import type { ApiApp } from '../http/openapi.ts';
import { websiteResource } from '../http/resource.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { ApiError, validationFailed } from '../lib/errors.ts';
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

const notes = websiteResource({
  tag: 'Annotations',
  plural: 'annotations',
  item: { name: 'annotation_id', example: '4' },
  record: annotationSchema,
  inputs: {
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
  },
});

const routes = {
  list: notes.route({
    method: 'get',
    path: notes.collection,
    summary: "List a website's annotations",
    description: 'Those that touch `from`–`to` when both are given (else every one), by date.',
    request: {
      params: idParam,
      query: s.object({ from: dateField('from').optional(), to: dateField('to').optional() }),
    },
    responses: { 200: notes.many('The annotations.'), ...notes.reads, ...notes.invalid },
  }),
  create: notes.route({
    method: 'post',
    path: notes.collection,
    summary: 'Annotate a date',
    description:
      'A note on a date (or from `date` to `end_date`), shown to every reader of the website: on the chart, under it, in the CSV and in the e-mail reports of its period.',
    request: { params: idParam, body: notes.body(false) },
    responses: {
      201: notes.one('The new annotation.', 201),
      ...notes.writes,
      ...notes.invalid,
    },
  }),
  update: notes.route({
    method: 'patch',
    path: notes.item,
    summary: 'Change an annotation',
    request: { params: notes.itemParams, body: notes.body(true) },
    responses: { 200: notes.one('The annotation, changed.'), ...notes.writes, ...notes.invalid },
  }),
  delete: notes.route({
    method: 'delete',
    path: notes.item,
    summary: 'Delete an annotation',
    request: { params: notes.itemParams },
    responses: {
      200: notes.deleted('annotation', 'The annotation was deleted.'),
      ...notes.writes,
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
    const annotationId = notes.itemId(c);
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
    const annotationId = notes.itemId(c);
    if (annotationId === null || !(await deleteAnnotation(db, website.id, annotationId)))
      throw noSuchAnnotation();
    return notes.gone(c, annotationId, 'annotation');
  });
}
