/**
 * Exports through the API: `GET …/websites/{id}/export?format=plausible` (the website's own
 * numbers as Plausible's CSV export, ./plausible.ts) and `format=events` (its event log, NDJSON
 * or, with `as=csv`, CSV: src/event-log/export-reads.ts), each streamed as a download.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { errorResponses } from '../api/responses.ts';
import { serveRoute } from '../api/route.ts';
import type { AppEnv } from '../env.ts';
import { readableWebsite } from '../stats/routes.ts';
import { exportResponse } from './exports.ts';

const file = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: z.string().openapi({ format: 'binary' }) } },
});

const exportRoute = createRoute({
  method: 'get',
  path: '/websites/{id}/export',
  tags: ['Exports'],
  summary: "Export a website's data",
  description:
    "`format=plausible`: the website's own numbers as Plausible's CSV export (a zip of ten tables, which Plausible and Sightline import). `format=events`: every event of its log, oldest first, as NDJSON (`as=csv`: CSV); the README lists the columns. Streamed as a download; imported history is not exported.",
  security: [{ bearerAuth: [] }],
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
    }),
    query: z.object({
      format: z.enum(['plausible', 'events']),
      as: z.enum(['ndjson', 'csv']).optional().openapi({
        description: "The events' file format (default `ndjson`).",
      }),
    }),
  },
  responses: {
    200: {
      description: 'The file.',
      content: {
        ...file('application/zip', "Plausible's CSV export.").content,
        ...file('application/x-ndjson', 'The events, a JSON object a line.').content,
        ...file('text/csv', 'The events, a header line and a line each.').content,
      },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

export function registerExportRoutes(api: OpenAPIHono<AppEnv>) {
  serveRoute(api, exportRoute, async (c, { id, query }) => {
    // An export reads all of a website: readers' limits apply (src/lib/rate-limit.ts).
    const { db, website } = await readableWebsite(c, id);
    return exportResponse(c.env, db, website, query());
  });
}
