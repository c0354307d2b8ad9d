/**
 * The backfill of the daily archive (./archive.ts): `POST …/websites/{id}/archive?from=&to=`
 * writes the website's closed local dates of that range not written yet, oldest first, up to
 * `BACKFILL_DATES` a request, claimed as the hourly run claims them (so the two never write
 * a date twice), and answers where to go on (`next`). `npm run archive` (scripts/archive.ts)
 * calls it until the range is done.
 */

import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { ApiError, checkDateOrder } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import { addDays, earlierDate } from '../lib/time/dates.ts';
import { dateField } from '../query/api/v1/schemas.ts';
import { websiteOf } from '../websites/http.ts';
import { archiveDate, manifestDue } from './archive.ts';
import { archiveSite, lastClosedDate, registerSites } from './claims.ts';

/** Dates one request writes at most: a few seconds each, well inside a request's limits. */
const BACKFILL_DATES = 7;
/** Dates one request looks at at most, written before or not. */
const LOOKED_AT = 200;

const archiveRoute = defineRoute({
  method: 'post',
  path: '/websites/{id}/archive',
  tags: ['Exports'],
  summary: 'Write past dates to the archive bucket',
  description: `The backfill of the daily archive (docs/ARCHIVE.md): writes the website's closed dates of \`from\`–\`to\` not written yet to the \`ARCHIVE\` bucket as Parquet, oldest first, at most ${BACKFILL_DATES} a request; \`next\` is the first date left (null: done). A date another run is writing is left for later (\`busy\`). 409 without an \`ARCHIVE\` binding.`,
  security: [{ bearerAuth: [] }],
  request: { params: idParam, query: s.object({ from: dateField('from'), to: dateField('to') }) },
  responses: {
    200: jsonContent(
      s.object({
        data: s.object({
          written: s.array(s.string()).openapi({ example: ['2026-11-01', '2026-11-02'] }),
          written_before: s.number().int(),
          busy: s.array(s.string()),
          next: s.string().nullable().openapi({ example: '2026-11-08' }),
        }),
        status: s.number().int().openapi({ example: 200 }),
      }),
      'The dates written by this request, and the first date left.',
    ),
    401: errorResponses[401],
    403: errorResponses[403],
    404: errorResponses[404],
    409: errorResponses[409],
    422: errorResponses[422],
  },
});

export function registerArchiveRoutes(api: ApiApp) {
  serveRoute(api, archiveRoute, async (c, { id, query }) => {
    const { website } = await websiteOf(c, id, 'admin');
    const { from, to } = query();
    checkDateOrder(from, to);
    const bucket = c.env.ARCHIVE;
    if (!bucket) throw new ApiError(409, 'No archive bucket: the ARCHIVE binding is not set.');
    const now = Date.now();
    const d1 = c.env.DB;
    let site = await archiveSite(d1, website.id);
    if (!site) {
      await registerSites(d1, now, { only: website.id });
      site = await archiveSite(d1, website.id);
    }
    if (!site) throw new Error('the website was not registered in the archive');
    const last = earlierDate(to, lastClosedDate(now, site.timezone));
    const answer = { written: [] as string[], written_before: 0, busy: [] as string[] };
    // Dates found written cost a statement or two each: a request looks at `LOOKED_AT` at most.
    let date = from;
    for (
      let looked = 0;
      date <= last && answer.written.length < BACKFILL_DATES && looked < LOOKED_AT;
      looked++, date = addDays(date, 1)
    ) {
      const outcome = await archiveDate(c.env, d1, bucket, site, date, now);
      if (outcome === 'written') answer.written.push(date);
      else if (outcome === 'busy') answer.busy.push(date);
      else answer.written_before++;
    }
    if (answer.written.length > 0) await manifestDue(d1, bucket, site, now);
    return c.json({ data: { ...answer, next: date <= last ? date : null }, status: 200 });
  });
}
