/**
 * Imports through the API (./run.ts): `POST …/websites/{id}/imports?source=…` with the file as
 * the body, `GET …/imports` to list a website's imports, `DELETE …/imports/{import_id}` to
 * remove one and its rows. Another owner's website, an import of another website and an id
 * that names nothing are the same 404.
 */

import { routeBodyLimit } from '../http/body-limits.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { linksSchema, listPage, metaSchema, pageField, perPageField } from '../http/pagination.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { ApiError, notFound } from '../lib/errors.ts';
import { stringChoice, textField } from '../lib/fields.ts';
import { parseId } from '../lib/ids.ts';
import { s } from '../lib/json-schema.ts';
import { mediaType } from '../lib/text/body.ts';
import { flushBeforeReading } from '../website-log/worker/partitions.ts';
import { websiteOf } from '../websites/http.ts';
import { packingOf } from './files.ts';
import { ImportError } from './format.ts';
import { importFailed, runImport } from './run.ts';
import { deleteImport, IMPORT_SOURCES, type ImportSource, listImports } from './store.ts';

/** The largest import the API takes: what a Worker request may carry (Free and Pro plans). */
const IMPORT_BODY_LIMIT = 100 * 1024 * 1024;

const security = [{ bearerAuth: [] }];
const TAGS = ['Imports'];

const importSchema = s
  .object({
    id: s.number().int().openapi({ example: 4 }),
    source: s.enum(IMPORT_SOURCES).openapi({ example: 'plausible' }),
    from: s.string().openapi({ example: '2023-02-09' }),
    to: s.string().openapi({ example: '2024-01-23' }),
    rows: s.number().int().openapi({ description: 'Records read from the files.', example: 5120 }),
    created_at: s.string().openapi({ example: '2026-11-25T09:30:00.000000Z' }),
  })
  .openapi('Import');

const fileBody = s.string().openapi({ format: 'binary' });

const importRoutes = {
  create: defineRoute({
    method: 'post',
    path: '/websites/{id}/imports',
    tags: TAGS,
    summary: 'Import history',
    description:
      "The file is the body (`application/zip`, `application/gzip`, `text/csv` or `text/plain`; `application/octet-stream` with a `file_name`), at most 100 MB (larger ones: `npm run import`): Plausible's CSV export (its zip, or one of its CSVs), GoatCounter's CSV export (`.csv.gz` or the CSV), or Umami's `website_event` CSV (or the zip holding it). All or nothing: a malformed file is a 422 naming the file, the line and the column, and imports nothing. A new import replaces, for its dates, every earlier one. Dates with the website's own events are a 409 unless `overlap=own_wins`, which keeps its own counts for those dates.",
    security,
    request: {
      params: idParam,
      query: s.object({
        source: stringChoice('source', IMPORT_SOURCES, 'The tool the file was exported from.'),
        overlap: stringChoice(
          'overlap',
          ['refuse', 'own_wins'],
          'What to do on dates the website has events of its own (default `refuse`).',
        ).optional(),
        file_name: textField(
          'file_name',
          255,
          "A lone CSV's file name (Plausible's names its table and dates), e.g. `imported_pages_20230209_20240123.csv`.",
        ).optional(),
      }),
      body: {
        required: true,
        content: {
          'application/zip': { schema: fileBody },
          'application/gzip': { schema: fileBody },
          'text/csv': { schema: fileBody },
        },
      },
    },
    responses: {
      201: jsonContent(
        s.object({ data: importSchema, status: s.number().int().openapi({ example: 201 }) }),
        'The import, now counted.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
      409: errorResponses[409],
      413: errorResponses[413],
      415: errorResponses[415],
      422: errorResponses[422],
    },
  }),
  list: defineRoute({
    method: 'get',
    path: '/websites/{id}/imports',
    tags: TAGS,
    summary: "List a website's imports",
    description: 'The imports counted, newest first, a page at a time.',
    security,
    request: {
      params: idParam,
      query: s.object({ per_page: perPageField(25), page: pageField }),
    },
    responses: {
      200: jsonContent(
        s.object({
          data: s.array(importSchema),
          links: linksSchema,
          meta: metaSchema,
          status: s.number().int(),
        }),
        'A page of imports.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}/imports/{import_id}',
    tags: TAGS,
    summary: 'Delete an import',
    description: 'The import stops counting at once; its rows are removed.',
    security,
    request: {
      params: idParam.extend({
        import_id: pathId('4'),
      }),
    },
    responses: {
      200: deletedResponse('import', 'The import was deleted.'),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
};

export function registerImportRoutes(api: ApiApp) {
  serveRoute(
    api,
    importRoutes.create,
    async (c, { id, query }) => {
      const { db, website } = await websiteOf(c, id, 'admin');
      const q = query();
      const packing = packingOf(mediaType(c.req), q.file_name);
      if (!packing)
        throw new ApiError(
          415,
          'The body must be a zip (application/zip), a gzip (application/gzip) or a CSV (text/csv).',
        );
      const body = c.req.raw.body;
      if (!body) throw new ApiError(422, 'The body is empty.', { body: ['The body is empty.'] });
      try {
        const done = await runImport(db, website, body, {
          source: q.source as ImportSource,
          packing,
          fileName: q.file_name,
          overlap: q.overlap === 'own_wins',
          flush: () => flushBeforeReading(c.env, website.id),
        });
        return c.json({ data: done.record, status: 201 }, 201);
      } catch (err) {
        throw err instanceof ImportError ? importFailed(err) : err;
      }
    },
    routeBodyLimit(IMPORT_BODY_LIMIT, 'The request body is too large.'),
  );

  serveRoute(api, importRoutes.list, async (c, { id, query }) => {
    const { db, website } = await websiteOf(c, id, 'viewer');
    const { per_page = 25, page = 1 } = query();
    const all = await listImports(db, website.id);
    const rows = all.slice((page - 1) * per_page, page * per_page);
    return c.json(listPage(c.req.url, { page, perPage: per_page }, rows, all.length));
  });

  serveRoute(api, importRoutes.delete, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const importId = parseId(c.req.param('import_id'));
    if (importId === null || !(await deleteImport(db, website.id, importId))) throw notFound();
    return c.json({ id: importId, object: 'import', deleted: true, status: 200 });
  });
}
