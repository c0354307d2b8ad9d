/**
 * `GET /api/v1/stats/{id}/funnels/{funnel_id}`: a saved funnel's visitors per step over a
 * range, with their conversion and drop-off; `GET /api/v1/stats/{id}/journeys`: the paths
 * visits took from or to a page (docs/ARCHITECTURE.md, "Funnels and journeys"). Both take the
 * statistics' dates, filters and errors (src/stats/routes.ts) and are read from the website's
 * event log (src/stats/flows.ts).
 */

import { findFunnel } from '../funnels/funnels.ts';
import { listGoals } from '../goals/goals.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { statsPage } from '../http/pagination.ts';
import { errorResponses } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { funnelOf, journeysOf } from '../stats/flows.ts';
import {
  checkedQuery,
  FILTERS_DOCUMENTATION,
  goalFilterFailure,
  readableWebsite,
  unavailable,
} from '../stats/routes.ts';
import { summaryQuerySchema } from '../stats/schemas.ts';
import { isGoalFilter, isUnavailable } from '../stats/source.ts';
import { funnelResponseSchema, journeyQuerySchema, journeyResponseSchema } from './schemas.ts';

const security = [{ bearerAuth: [] }];

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

export function registerFlowRoutes(api: ApiApp) {
  serveRoute(api, funnelRoute, async (c, { id, query }) => {
    const { db, website } = await readableWebsite(c, id);
    const funnelId = parseId(c.req.param('funnel_id'));
    const funnel = funnelId === null ? undefined : await findFunnel(db, website.id, funnelId);
    if (!funnel) throw notFound();
    const { q, filters } = checkedQuery(c, query);
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
    const { q, filters } = checkedQuery(c, query);
    const perPage = q.per_page ?? 25;
    const page = q.page_number ?? 1;
    const goals = filters.some(isGoalFilter) ? await listGoals(db, website.id) : [];
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
