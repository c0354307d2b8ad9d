/**
 * Website management routes of API v1. Each route is one OpenAPI definition, which both
 * documents it and is served by `serveRoute` (validation from the same schemas); each
 * handler calls one domain function and shapes the response.
 */

import { createDb } from '../db/client.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { linksSchema, listPage, metaSchema } from '../http/pagination.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import { storageOf } from '../website-log/worker/calls.ts';
import { websiteInputSchema } from './input.ts';
import { assetSuffixes } from './public-suffixes.ts';
import { deleteWebsite, listWebsites, websiteFor } from './queries.ts';
import {
  storageRecord,
  storageSchema,
  toWebsiteRecord,
  websiteListQuerySchema,
  websiteSchema,
} from './schemas.ts';
import { changeWebsite, createWebsite } from './service.ts';

const security = [{ bearerAuth: [] }];
const bodyContent = {
  'application/x-www-form-urlencoded': { schema: websiteInputSchema },
  'application/json': { schema: websiteInputSchema },
  'multipart/form-data': { schema: websiteInputSchema },
};
const one = (status: number) =>
  s.object({ data: websiteSchema, status: s.number().int().openapi({ example: status }) });

/** PUT and PATCH do the same: both change only the fields sent. */
const updateRoute = (method: 'put' | 'patch') =>
  defineRoute({
    method,
    path: '/websites/{id}',
    tags: ['Websites'],
    summary: method === 'put' ? 'Update a website' : 'Update a website (PATCH)',
    description:
      'Changes only the fields sent; PUT and PATCH are the same. A `domain` equal to the current one is ignored; a different one is rejected.',
    security,
    request: { params: idParam, body: { content: bodyContent } },
    responses: {
      200: jsonContent(one(200), 'The updated website.'),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  });

const websiteRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/websites',
    tags: ['Websites'],
    summary: 'List websites',
    description:
      "Lists the websites the key's person may read — those they own and those they are a member of — with their `role` on each, newest first by default.",
    security,
    request: { query: websiteListQuerySchema },
    responses: {
      200: jsonContent(
        s.object({
          data: s.array(websiteSchema),
          links: linksSchema,
          meta: metaSchema,
          status: s.number().int(),
        }),
        'A page of websites.',
      ),
      401: errorResponses[401],
      422: errorResponses[422],
    },
  }),
  show: defineRoute({
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
  create: defineRoute({
    method: 'post',
    path: '/websites',
    tags: ['Websites'],
    summary: 'Create a website',
    description:
      '`domain` is required. Defaults: privacy 1, email 0, exclude_bots 1, exclude_datacenters 1, timezone UTC.',
    security,
    request: { body: { required: true, content: bodyContent } },
    responses: {
      201: jsonContent(one(201), 'The new website.'),
      401: errorResponses[401],
      422: errorResponses[422],
    },
  }),
  update: updateRoute('put'),
  patch: updateRoute('patch'),
  storage: defineRoute({
    method: 'get',
    path: '/websites/{id}/storage',
    tags: ['Websites'],
    summary: "Show a website's storage",
    description:
      "What the website's event log keeps: its events (page views and custom events), the bytes of its storage, and each partition of it — the dates it holds, its events and bytes, and whether it is closed (a closed partition takes no more hits). Partitions are oldest first, the last one open (`LOG_PARTITION_EVENTS`). Before the first hit: no events and no partition. Viewers and up.",
    security,
    request: { params: idParam },
    responses: {
      200: jsonContent(
        s.object({ data: storageSchema, status: s.number().int().openapi({ example: 200 }) }),
        "The website's storage.",
      ),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}',
    tags: ['Websites'],
    summary: 'Delete a website',
    description:
      'Deletes the website and everything recorded for it; its data disappears from every read at once.',
    security,
    request: { params: idParam },
    responses: {
      200: deletedResponse('website', 'The website was deleted.'),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
};

export function registerWebsiteRoutes(api: ApiApp) {
  serveRoute(api, websiteRoutes.list, async (c, { query }) => {
    const { search, sort_by = 'id', sort = 'desc', per_page = 25, page = 1 } = query();
    const { rows, total } = await listWebsites(createDb(c.env.DB), c.get('ownerId'), {
      search: search?.trim() || undefined,
      sortBy: sort_by,
      sort,
      limit: per_page,
      offset: (page - 1) * per_page,
    });
    return c.json(
      listPage(
        c.req.url,
        { page, perPage: per_page },
        rows.map(({ role, ...row }) => toWebsiteRecord(row, role ?? 'viewer')),
        total,
      ),
    );
  });

  serveRoute(api, websiteRoutes.show, async (c, { id }) => {
    const { website, role } = await websiteFor(createDb(c.env.DB), c.get('ownerId'), id, 'viewer');
    return c.json({ data: toWebsiteRecord(website, role), status: 200 });
  });

  serveRoute(api, websiteRoutes.storage, async (c, { id }) => {
    await websiteFor(createDb(c.env.DB), c.get('ownerId'), id, 'viewer');
    return c.json({ data: storageRecord(await storageOf(c.env, id)), status: 200 });
  });

  serveRoute(api, websiteRoutes.create, async (c, { body }) => {
    const row = await createWebsite(
      createDb(c.env.DB),
      c.get('ownerId'),
      body,
      assetSuffixes(c.env.ASSETS),
      Date.now(),
      { local: c.env.DEVELOPMENT === 'on' },
    );
    return c.json({ data: toWebsiteRecord(row, 'owner'), status: 201 }, 201);
  });

  for (const route of [websiteRoutes.update, websiteRoutes.patch]) {
    serveRoute(api, route, async (c, { id, body }) => {
      const { website, role } = await changeWebsite(createDb(c.env.DB), c.get('ownerId'), id, body);
      return c.json({ data: toWebsiteRecord(website, role), status: 200 });
    });
  }

  serveRoute(api, websiteRoutes.delete, async (c, { id }) => {
    const db = createDb(c.env.DB);
    await websiteFor(db, c.get('ownerId'), id, 'owner');
    if (!(await deleteWebsite(db, c.get('ownerId'), id))) throw notFound();
    return c.json({ id, object: 'website', deleted: true, status: 200 });
  });
}
