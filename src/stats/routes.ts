/** `GET /api/v1/stats/{id}`: one statistic of a website over a date range, paginated. */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { pageRange, pageUrl, pageWindow, pathOf } from '../api/pagination.ts';
import { errorResponses } from '../api/responses.ts';
import { serveRoute } from '../api/route.ts';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { flushBeforeReading } from '../event-log/client.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { findWebsite } from '../websites/queries.ts';
import { queryStats } from './queries.ts';
import { statsQuerySchema, statsResponseSchema } from './schemas.ts';

/** A one-page response for the documentation. */
function example(summary: string, query: string, data: { value: string; count: number }[]) {
  const url = `https://sightline.example/api/v1/stats/1?${query}&page=1`;
  return {
    summary,
    value: {
      current_page: 1,
      data,
      first_page_url: url,
      from: 1,
      last_page: 1,
      last_page_url: url,
      next_page_url: null,
      path: 'https://sightline.example/api/v1/stats/1',
      per_page: 25,
      prev_page_url: null,
      to: data.length,
      total: data.length,
      status: 200,
    },
  };
}

const statsRoute = createRoute({
  method: 'get',
  path: '/stats/{id}',
  tags: ['Stats'],
  summary: 'Show a statistic',
  description:
    'Sums a statistic of the website over the date range per value. Dimensions (`browser`, `page`, …) give one row per value; time series give one row per date (`pageviews`, `visitors`) or per hour of the day summed over the range (`pageviews_hours`, `visitors_hours`). Days without traffic have no row.',
  security: [{ bearerAuth: [] }],
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
    }),
    query: statsQuerySchema,
  },
  responses: {
    200: {
      description: 'A page of values with their counts.',
      content: {
        'application/json': {
          schema: statsResponseSchema,
          examples: {
            browser: example(
              'A dimension: name=browser',
              'name=browser&from=2026-11-01&to=2026-11-30',
              [
                { value: 'Chrome', count: 1204 },
                { value: 'Safari', count: 731 },
                { value: 'Firefox', count: 152 },
              ],
            ),
            pageviews: example(
              'A time series: name=pageviews&sort_by=value&sort=asc',
              'name=pageviews&from=2026-11-01&to=2026-11-03&sort_by=value&sort=asc',
              [
                { value: '2026-11-01', count: 311 },
                { value: '2026-11-02', count: 287 },
                { value: '2026-11-03', count: 342 },
              ],
            ),
          },
        },
      },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

export function registerStatsRoutes(api: OpenAPIHono<AppEnv>) {
  serveRoute(api, statsRoute, async (c, { id, query }) => {
    const db = createDb(c.env.DB);
    const website = await findWebsite(db, c.get('ownerId'), id);
    if (!website) throw notFound();
    const q = query();
    await flushBeforeReading(c.env, website.id);
    if (q.from > q.to) {
      throw validationFailed({ to: ['The to field must be a date after or equal to from.'] });
    }
    const perPage = q.per_page ?? 25;
    const page = q.page ?? 1;
    const { rows, total } = await queryStats(db, {
      websiteId: website.id,
      name: q.name,
      from: q.from,
      to: q.to,
      search: q.search || undefined,
      sortBy: q.sort_by ?? 'count',
      sort: q.sort ?? 'desc',
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    const { lastPage, offset } = pageWindow(total, page, perPage);
    const range = pageRange(offset, rows.length);
    return c.json({
      current_page: page,
      data: rows,
      first_page_url: pageUrl(c.req.url, 1),
      from: range.from,
      last_page: lastPage,
      last_page_url: pageUrl(c.req.url, lastPage),
      next_page_url: page < lastPage ? pageUrl(c.req.url, page + 1) : null,
      path: pathOf(c.req.url),
      per_page: perPage,
      prev_page_url: page > 1 ? pageUrl(c.req.url, page - 1) : null,
      to: range.to,
      total,
      status: 200,
    });
  });
}
