/**
 * Website management routes of API v1. Each handler validates, calls one domain function
 * and shapes the response; the OpenAPI definitions beside them describe the same schemas.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { parseFields } from '../api/fields.ts';
import {
  linksSchema,
  metaSchema,
  pageRange,
  pageUrl,
  pageWindow,
  pathOf,
} from '../api/pagination.ts';
import { errorResponses, jsonContent } from '../api/responses.ts';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { readFields } from '../lib/body.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { deleteWebsite, findWebsite, listWebsites, toWebsiteRecord } from './queries.ts';
import { websiteInputSchema, websiteListQuerySchema, websiteSchema } from './schemas.ts';
import { changeWebsite, createWebsite } from './service.ts';

const idParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
});
const security = [{ bearerAuth: [] }];
const bodyContent = {
  'application/x-www-form-urlencoded': { schema: websiteInputSchema },
  'application/json': { schema: websiteInputSchema },
  'multipart/form-data': { schema: websiteInputSchema },
};
const one = (status: number) =>
  z.object({ data: websiteSchema, status: z.number().int().openapi({ example: status }) });

const websiteRoutes = {
  list: createRoute({
    method: 'get',
    path: '/websites',
    tags: ['Websites'],
    summary: 'List websites',
    description: "Lists the owner's websites, newest first by default.",
    security,
    request: { query: websiteListQuerySchema },
    responses: {
      200: jsonContent(
        z.object({
          data: z.array(websiteSchema),
          links: linksSchema,
          meta: metaSchema,
          status: z.number().int(),
        }),
        'A page of websites.',
      ),
      401: errorResponses[401],
      422: errorResponses[422],
    },
  }),
  show: createRoute({
    method: 'get',
    path: '/websites/{id}',
    tags: ['Websites'],
    summary: 'Show a website',
    security,
    request: { params: idParam },
    responses: {
      200: jsonContent(one(200), 'The website.'),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
  create: createRoute({
    method: 'post',
    path: '/websites',
    tags: ['Websites'],
    summary: 'Create a website',
    description:
      '`domain` is required. Defaults: privacy 1, email 0, exclude_bots 1, timezone UTC.',
    security,
    request: { body: { required: true, content: bodyContent } },
    responses: {
      201: jsonContent(one(201), 'The new website.'),
      401: errorResponses[401],
      422: errorResponses[422],
    },
  }),
  update: createRoute({
    method: 'put',
    path: '/websites/{id}',
    tags: ['Websites'],
    summary: 'Update a website',
    description:
      'Changes only the fields sent (PATCH is accepted too). A `domain` equal to the current one is ignored; a different one is rejected.',
    security,
    request: { params: idParam, body: { content: bodyContent } },
    responses: {
      200: jsonContent(one(200), 'The updated website.'),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  delete: createRoute({
    method: 'delete',
    path: '/websites/{id}',
    tags: ['Websites'],
    summary: 'Delete a website',
    description:
      'Deletes the website and everything recorded for it; its data disappears from every read at once.',
    security,
    request: { params: idParam },
    responses: {
      200: jsonContent(
        z.object({
          id: z.number().int(),
          object: z.literal('website'),
          deleted: z.literal(true),
          status: z.number().int().openapi({ example: 200 }),
        }),
        'The website was deleted.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
};

/** A website id from a path: a positive decimal integer, or null (nothing can be named so). */
export function parseWebsiteId(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}

/** The website id of an API path; anything else is the same 404 as a missing website. */
export function websiteId(raw: string): number {
  const id = parseWebsiteId(raw);
  if (id === null) throw notFound();
  return id;
}

export function registerWebsiteRoutes(api: OpenAPIHono<AppEnv>) {
  for (const route of Object.values(websiteRoutes)) api.openAPIRegistry.registerPath(route);

  api.get('/websites', async (c) => {
    const parsed = parseFields(websiteListQuerySchema, c.req.query());
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const { search, sort_by = 'id', sort = 'desc', per_page = 25, page = 1 } = parsed.data;
    const { rows, total } = await listWebsites(createDb(c.env.DB), c.get('ownerId'), {
      search: search?.trim() || undefined,
      sortBy: sort_by,
      sort,
      limit: per_page,
      offset: (page - 1) * per_page,
    });
    const { lastPage, offset } = pageWindow(total, page, per_page);
    const range = pageRange(offset, rows.length);
    return c.json({
      data: rows.map(toWebsiteRecord),
      links: {
        first: pageUrl(c.req.url, 1),
        last: pageUrl(c.req.url, lastPage),
        prev: page > 1 ? pageUrl(c.req.url, page - 1) : null,
        next: page < lastPage ? pageUrl(c.req.url, page + 1) : null,
      },
      meta: {
        current_page: page,
        from: range.from,
        last_page: lastPage,
        path: pathOf(c.req.url),
        per_page,
        to: range.to,
        total,
      },
      status: 200,
    });
  });

  api.get('/websites/:id', async (c) => {
    const row = await findWebsite(
      createDb(c.env.DB),
      c.get('ownerId'),
      websiteId(c.req.param('id')),
    );
    if (!row) throw notFound();
    return c.json({ data: toWebsiteRecord(row), status: 200 });
  });

  api.post('/websites', async (c) => {
    const row = await createWebsite(createDb(c.env.DB), c.get('ownerId'), await readFields(c.req));
    return c.json({ data: toWebsiteRecord(row), status: 201 }, 201);
  });

  api.on(['PUT', 'PATCH'], '/websites/:id', async (c) => {
    const id = websiteId(c.req.param('id'));
    const row = await changeWebsite(
      createDb(c.env.DB),
      c.get('ownerId'),
      id,
      await readFields(c.req),
    );
    return c.json({ data: toWebsiteRecord(row), status: 200 });
  });

  api.delete('/websites/:id', async (c) => {
    const id = websiteId(c.req.param('id'));
    if (!(await deleteWebsite(createDb(c.env.DB), c.get('ownerId'), id))) throw notFound();
    return c.json({ id, object: 'website', deleted: true, status: 200 });
  });
}
