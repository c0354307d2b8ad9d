/**
 * Funnels through the API (./funnels.ts): `…/websites/{id}/funnels` to list (paged as the
 * website list is) and add, `…/funnels/{funnel_id}` to show, replace and delete. Another
 * owner's website, a funnel of another website and an id that names nothing are the same 404.
 */

import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { linksSchema, listPage, metaSchema, pageField, perPageField } from '../http/pagination.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { s } from '../lib/schema.ts';
import { websiteOf } from '../websites/http.ts';
import { createFunnel, deleteFunnel, findFunnel, pageOfFunnels, updateFunnel } from './funnels.ts';

const funnelParams = idParam.extend({
  funnel_id: pathId('2'),
});
const security = [{ bearerAuth: [] }];
const TAGS = ['Funnels'];

const stepSchema = s
  .union([
    s.object({
      page: s.string().openapi({
        description:
          'A path starting with / (at most 255 characters, no spaces), or a pattern: `*` any characters within a segment, `**` across.',
        example: '/signup/**',
      }),
    }),
    s.object({
      event: s.string().openapi({
        description: "A custom event's name (1–120 characters, not `pageview`).",
        example: 'Signup',
      }),
    }),
    s.object({
      goal: s.string().openapi({
        description: "The display name of one of the website's goals.",
        example: 'Sign-ups',
      }),
    }),
  ])
  .openapi('FunnelStep', { description: 'Exactly one of `page`, `event` or `goal`.' });

const funnelSchema = s
  .object({
    id: s.number().int().openapi({ example: 2 }),
    name: s.string().openapi({ example: 'Signup' }),
    steps: s.array(stepSchema).openapi({
      example: [{ page: '/pricing' }, { page: '/signup/**' }, { event: 'Signup' }],
    }),
    created_at: s.string().openapi({ example: '2026-11-22T09:30:00.000000Z' }),
  })
  .openapi('Funnel');

const funnelInputSchema = s
  .object({
    name: s.string().openapi({ description: 'Unique to the website; 1–120 characters.' }),
    steps: s.array(stepSchema).min(2).max(8).openapi({ description: '2 to 8 steps, in order.' }),
  })
  .openapi('FunnelInput');

const bodyContent = {
  'application/json': { schema: funnelInputSchema },
  'application/x-www-form-urlencoded': {
    schema: s.object({
      name: s.string(),
      steps: s.string().openapi({ description: 'The list of steps as JSON text.' }),
    }),
  },
};

const one = (status: number, description: string) =>
  jsonContent(
    s.object({ data: funnelSchema, status: s.number().int().openapi({ example: status }) }),
    description,
  );

const funnelRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/websites/{id}/funnels',
    tags: TAGS,
    summary: "List a website's funnels",
    description: 'The funnels, oldest first, a page at a time.',
    security,
    request: {
      params: idParam,
      query: s.object({ per_page: perPageField(25), page: pageField }),
    },
    responses: {
      200: jsonContent(
        s.object({
          data: s.array(funnelSchema),
          links: linksSchema,
          meta: metaSchema,
          status: s.number().int(),
        }),
        'A page of funnels.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  create: defineRoute({
    method: 'post',
    path: '/websites/{id}/funnels',
    tags: TAGS,
    summary: 'Add a funnel',
    description:
      'A name unique to the website and 2 to 8 steps; a bad step is a 422 naming it (`steps.2.page`, steps counted from 1). At most 100 funnels a website.',
    security,
    request: { params: idParam, body: { required: true, content: bodyContent } },
    responses: {
      201: one(201, 'The new funnel.'),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  show: defineRoute({
    method: 'get',
    path: '/websites/{id}/funnels/{funnel_id}',
    tags: TAGS,
    summary: 'Show a funnel',
    security,
    request: { params: funnelParams },
    responses: {
      200: one(200, 'The funnel.'),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
  update: defineRoute({
    method: 'put',
    path: '/websites/{id}/funnels/{funnel_id}',
    tags: TAGS,
    summary: 'Replace a funnel',
    description: 'A new name and steps, checked as a new funnel is.',
    security,
    request: { params: funnelParams, body: { required: true, content: bodyContent } },
    responses: {
      200: one(200, 'The changed funnel.'),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}/funnels/{funnel_id}',
    tags: TAGS,
    summary: 'Delete a funnel',
    security,
    request: { params: funnelParams },
    responses: {
      200: deletedResponse('funnel', 'The funnel was deleted.'),
      401: errorResponses[401],
      404: errorResponses[404],
    },
  }),
};

/** The `{funnel_id}` of the path, else the 404 of a missing funnel. */
function funnelIdOf(c: Context<AppEnv>): number {
  const id = parseId(c.req.param('funnel_id'));
  if (id === null) throw notFound();
  return id;
}

export function registerFunnelRoutes(api: ApiApp) {
  serveRoute(api, funnelRoutes.list, async (c, { id, query }) => {
    const { db, website } = await websiteOf(c, id, 'viewer');
    const { per_page = 25, page = 1 } = query();
    const offset = (page - 1) * per_page;
    const { rows, total } = await pageOfFunnels(db, website.id, per_page, offset);
    return c.json(listPage(c.req.url, { page, perPage: per_page }, rows, total));
  });

  serveRoute(api, funnelRoutes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    return c.json({ data: await createFunnel(db, website.id, body), status: 201 }, 201);
  });

  serveRoute(api, funnelRoutes.show, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'viewer');
    const funnel = await findFunnel(db, website.id, funnelIdOf(c));
    if (!funnel) throw notFound();
    return c.json({ data: funnel, status: 200 });
  });

  serveRoute(api, funnelRoutes.update, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const funnel = await updateFunnel(db, website.id, funnelIdOf(c), body);
    if (!funnel) throw notFound();
    return c.json({ data: funnel, status: 200 });
  });

  serveRoute(api, funnelRoutes.delete, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const funnelId = funnelIdOf(c);
    if (!(await deleteFunnel(db, website.id, funnelId))) throw notFound();
    return c.json({ id: funnelId, object: 'funnel', deleted: true, status: 200 });
  });
}
