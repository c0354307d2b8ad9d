/**
 * Exports through the API: `GET …/websites/{id}/export?format=plausible` (the website's own
 * numbers as Plausible's CSV export, ./plausible-export.ts) and `format=events` (its event log, NDJSON
 * or, with `as=csv`, CSV: src/website-log/object/read/event-lines.ts; with `as=parquet`, Parquet:
 * src/parquet/), each streamed as a download; the events of a range of dates with `from`, `to`.
 */
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { errorResponses } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { checkDateOrder, validationFailed } from '../lib/errors.ts';
import { stringChoice } from '../lib/fields.ts';
import { s } from '../lib/json-schema.ts';
import { MAX_DATE, MIN_DATE } from '../lib/time/dates.ts';
import { readableWebsite } from '../query/api/v1/routes.ts';
import { dateField } from '../query/api/v1/schemas.ts';
import { exportResponse } from './exports.ts';

const file = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: s.string().openapi({ format: 'binary' }) } },
});

const exportRoute = defineRoute({
  method: 'get',
  path: '/websites/{id}/export',
  tags: ['Exports'],
  summary: "Export a website's data",
  description:
    "`format=plausible`: the website's own numbers as Plausible's CSV export (a zip of ten tables, which Plausible and Sightline import). `format=events`: every event of its log, oldest first, as NDJSON (`as=csv`: CSV; `as=parquet`: Parquet, typed columns in row groups), or only those of the dates `from` to `to` (the website's time zone, inclusive; either alone: from the first or up to the last); the README lists the columns. Streamed as a download; imported history is not exported.",
  security: [{ bearerAuth: [] }],
  request: {
    params: idParam,
    query: s.object({
      format: stringChoice(
        'format',
        ['plausible', 'events'],
        "`plausible`: Plausible's CSV export; `events`: the event log.",
      ),
      as: stringChoice(
        'as',
        ['ndjson', 'csv', 'parquet'],
        "The events' file format (default `ndjson`).",
      ).optional(),
      from: dateField('from').optional(),
      to: dateField('to').optional(),
    }),
  },
  responses: {
    200: {
      description: 'The file.',
      content: {
        ...file('application/zip', "Plausible's CSV export.").content,
        ...file('application/x-ndjson', 'The events, a JSON object a line.').content,
        ...file('text/csv', 'The events, a header line and a line each.').content,
        ...file('application/vnd.apache.parquet', 'The events, a row each.').content,
      },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

export function registerExportRoutes(api: ApiApp) {
  serveRoute(api, exportRoute, async (c, { id, query }) => {
    // An export reads all of a website: readers' limits apply (src/lib/rate-limit.ts).
    const { db, website } = await readableWebsite(c, id);
    const { from, to, ...format } = query();
    if ((from !== undefined || to !== undefined) && format.format !== 'events')
      throw validationFailed({ from: ['The from and to fields apply to format=events only.'] });
    if (from !== undefined && to !== undefined) checkDateOrder(from, to);
    const range =
      from !== undefined || to !== undefined
        ? { from: from ?? MIN_DATE, to: to ?? MAX_DATE }
        : undefined;
    return exportResponse(c.env, db, website, { ...format, range });
  });
}
