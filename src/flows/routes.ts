/**
 * Funnels and journeys through the API (docs/ARCHITECTURE.md, "Funnels and journeys"): saved
 * funnels at `…/websites/{id}/funnels` — listed (paged as the website list is), added, shown,
 * replaced and deleted (./funnels.ts) — and the answers, `GET /api/v1/stats/{id}/funnels/{funnel_id}`
 * (a saved funnel's visitors per step over a range, with their conversion and drop-off) and
 * `GET /api/v1/stats/{id}/journeys` (the paths visits took from or to a page), which take the
 * statistics' dates, filters and errors (src/query/api/v1/routes.ts) and are read from the website's
 * event log (./questions.ts). Another owner's website, a funnel of another website and an id
 * that names nothing are the same 404.
 */

import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { listGoals } from '../goals/goals.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import {
  linksSchema,
  listPage,
  metaSchema,
  pageField,
  perPageField,
  statsPage,
} from '../http/pagination.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { s } from '../lib/json-schema.ts';
import {
  checkedQuery,
  FILTERS_DOCUMENTATION,
  goalFilterFailure,
  readableWebsite,
  unavailable,
} from '../query/api/v1/routes.ts';
import { summaryQuerySchema } from '../query/api/v1/schemas.ts';
import { isUnavailable, needsGoals } from '../query/present/numbers.ts';
import { websiteOf } from '../websites/http.ts';
import { createFunnel, deleteFunnel, findFunnel, pageOfFunnels, updateFunnel } from './funnels.ts';
import { funnelOf, journeysOf } from './questions.ts';
import {
  funnelBodyContent,
  funnelResponseSchema,
  funnelSchema,
  journeyQuerySchema,
  journeyResponseSchema,
} from './schemas.ts';

const funnelParams = idParam.extend({
  funnel_id: pathId('2'),
});
const security = [{ bearerAuth: [] }];
const TAGS = ['Funnels'];

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
    request: { params: idParam, body: { required: true, content: funnelBodyContent } },
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
    request: { params: funnelParams, body: { required: true, content: funnelBodyContent } },
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

function registerFunnels(api: ApiApp) {
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

const FILTERED_VISITS =
  ' The filters choose whole visits: a visit counts, all its hits, when the filters keep any of its hits.';

const funnelRoute = defineRoute({
  method: 'get',
  path: '/stats/{id}/funnels/{funnel_id}',
  tags: ['Stats'],
  summary: "Show a funnel's steps",
  description: `The visitors who took each step of a saved funnel (\`/api/v1/websites/{id}/funnels\`): a visitor of a day takes step k when that day, in one or more visits, they took steps 1 to k in that order (not necessarily one right after the other). \`conversion_rate\` is the share of the first step's visitors, \`dropoff\` and \`dropoff_rate\` are against the step before.${FILTERED_VISITS}${FILTERS_DOCUMENTATION}`,
  security,
  request: {
    params: idParam.extend({
      funnel_id: pathId('2'),
    }),
    query: summaryQuerySchema,
  },
  responses: {
    200: {
      description: 'The funnel and its steps.',
      content: { 'application/json': { schema: funnelResponseSchema } },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

const journeysRoute = defineRoute({
  method: 'get',
  path: '/stats/{id}/journeys',
  tags: ['Stats'],
  summary: 'Show the paths from or to a page',
  description: `The paths visits took from a page (\`direction=next\`) or to it (\`previous\`), one to three pages beyond it, with the visits that took each: a visit counts once, from the first time it viewed the page; a path cut by the visit's end shows \`(exit)\` (or \`(entrance)\` before its first page). Paths read in the order they were walked. Pages are numbered by \`page_number\` (\`page\` names the page).${FILTERED_VISITS}${FILTERS_DOCUMENTATION}`,
  security,
  request: { params: idParam, query: journeyQuerySchema },
  responses: {
    200: {
      description: 'A page of paths with their visits.',
      content: { 'application/json': { schema: journeyResponseSchema } },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

function registerAnswers(api: ApiApp) {
  serveRoute(api, funnelRoute, async (c, { id, query }) => {
    const { db, website } = await readableWebsite(c, id);
    const funnelId = parseId(c.req.param('funnel_id'));
    const funnel = funnelId === null ? undefined : await findFunnel(db, website.id, funnelId);
    if (!funnel) throw notFound();
    const { q, filters } = await checkedQuery(c, query, db, website.id);
    const goals = await listGoals(db, website.id);
    const steps = await funnelOf(c.env, website.id, funnel, q, filters, goals).catch((err) => {
      throw goalFilterFailure(err);
    });
    if (isUnavailable(steps)) throw unavailable(steps);
    return c.json({
      data: { funnel: { id: funnel.id, name: funnel.name }, steps },
      status: 200,
    });
  });

  serveRoute(api, journeysRoute, async (c, { id, query }) => {
    const { db, website } = await readableWebsite(c, id);
    const { q, filters } = await checkedQuery(c, query, db, website.id);
    const perPage = q.per_page ?? 25;
    const page = q.page_number ?? 1;
    const goals = filters.some(needsGoals) ? await listGoals(db, website.id) : [];
    const answer = await journeysOf(
      c.env,
      website.id,
      {
        from: q.from,
        to: q.to,
        page: q.page,
        direction: q.direction ?? 'next',
        steps: q.steps ?? 1,
        sortBy: q.sort_by ?? 'count',
        sort: q.sort ?? 'desc',
        limit: perPage,
        offset: (page - 1) * perPage,
      },
      filters,
      goals,
    ).catch((err) => {
      throw goalFilterFailure(err);
    });
    if (isUnavailable(answer)) throw unavailable(answer);
    return c.json(
      statsPage(c.req.url, { page, perPage, name: 'page_number' }, answer.rows, answer.total),
    );
  });
}

export function registerFlowRoutes(api: ApiApp) {
  registerFunnels(api);
  registerAnswers(api);
}
