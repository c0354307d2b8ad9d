/**
 * Goals through the API (./goals.ts): Sightline's `…/websites/{id}/goals`, and Plausible's
 * Sites API goal endpoints (`PUT`, `GET /sites/goals`, `DELETE /sites/goals/{goal_id}`, the
 * website named by its domain as `site_id`), with their shapes, so that tools written for
 * Plausible manage Sightline's goals unchanged. Plausible's answer their errors as
 * `{"error": …}` (src/app/app.tsx) and another owner's domain as an unknown one.
 */
import type { Context } from 'hono';
import { createDb } from '../db/client.ts';
import type { GoalRow } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import type { ApiApp } from '../http/openapi.ts';
import { websiteResource } from '../http/resource.ts';
import { jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { ApiError, notFound } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import { readFields } from '../lib/text/body.ts';
import { websiteOf } from '../websites/http.ts';
import { mayActAs, roleTooLow, websiteAccessByDomain } from '../websites/queries.ts';
import { createGoal, deleteGoal, goalInput, listGoals, toGoalRecord } from './goals.ts';

const goalSchema = s
  .object({
    id: s.number().int().openapi({ example: 3 }),
    event: s.string().nullable().openapi({ example: 'Signup' }),
    page: s.string().nullable().openapi({ example: null }),
    display_name: s.string().openapi({ example: 'Sign-ups' }),
    currency: s.string().nullable().openapi({ example: 'EUR' }),
    scroll_threshold: s.number().int().nullable().openapi({ example: null }),
  })
  .openapi('Goal');

const goalInputSchema = s
  .object({
    event: s
      .string()
      .optional()
      .openapi({ description: "A custom event's name (1–120 characters)." }),
    page: s.string().optional().openapi({
      description: 'A path, or a pattern: `*` any characters within a segment, `**` across.',
    }),
    display_name: s.string().optional().openapi({
      description: 'The name statistics show; default the event name or `Visit <page>`.',
    }),
    currency: s.string().optional().openapi({
      description: 'ISO 4217 code: the goal counts revenue in it (event goals only).',
    }),
    scroll_threshold: s.union([s.number().int(), s.string()]).nullable().optional().openapi({
      description:
        "Page goals only: the page viewed and scrolled at least this far, 0–100 percent (its visit's deepest scroll); -1 or none: viewed, however far. Default name `Scroll <n>% on <page>`.",
    }),
  })
  .openapi('GoalInput');

const bodyContent = {
  'application/json': { schema: goalInputSchema },
  'application/x-www-form-urlencoded': { schema: goalInputSchema },
};

const goals = websiteResource({
  tag: 'Goals',
  plural: 'goals',
  item: { name: 'goal_id', example: '3' },
  record: goalSchema,
});

const goalRoutes = {
  list: goals.route({
    method: 'get',
    path: goals.collection,
    summary: "List a website's goals",
    request: { params: idParam },
    responses: { 200: goals.many('The goals, oldest first.'), ...goals.reads },
  }),
  create: goals.route({
    method: 'post',
    path: goals.collection,
    summary: 'Add a goal',
    description:
      'An event goal (`event`) or a page goal (`page`), not both; a name unique to the website; a currency for an event goal that counts revenue.',
    request: { params: idParam, body: { required: true, content: bodyContent } },
    responses: { 201: goals.one('The new goal.', 201), ...goals.reads, ...goals.invalid },
  }),
  delete: goals.route({
    method: 'delete',
    path: goals.item,
    summary: 'Delete a goal',
    request: { params: goals.itemParams },
    responses: { 200: goals.deleted('goal', 'The goal was deleted.'), ...goals.reads },
  }),
};

/** Plausible's Sites API goal endpoints, documented; their handlers answer as Plausible's do. */
const plausibleGoalSchema = s
  .object({
    id: s.number().int().openapi({ example: 3 }),
    display_name: s.string().openapi({ example: 'Signup' }),
    goal_type: s.enum(['event', 'page']),
    event_name: s.string().nullable().openapi({ example: 'Signup' }),
    page_path: s.string().nullable().openapi({ example: null }),
    scroll_threshold: s.number().int().openapi({ example: -1 }),
    custom_props: s.object({}),
  })
  .openapi('PlausibleGoal');
const plausibleError = {
  description: 'What went wrong: `{"error": "…"}`.',
  content: { 'application/json': { schema: s.object({ error: s.string() }) } },
};
const siteQuery = s.object({
  site_id: s.string().openapi({ description: "The website's domain.", example: 'example.com' }),
});
const sitesRoutes = [
  goals.route({
    method: 'get',
    path: '/sites/goals',
    summary: "List a website's goals (Plausible's Sites API)",
    request: { query: siteQuery },
    responses: {
      200: jsonContent(
        s.object({
          goals: s.array(plausibleGoalSchema),
          meta: s.object({
            after: s.string().nullable(),
            before: s.string().nullable(),
            limit: s.number().int(),
          }),
        }),
        'Every goal of the website, oldest first (one page).',
      ),
      400: plausibleError,
      404: plausibleError,
    },
  }),
  goals.route({
    method: 'put',
    path: '/sites/goals',
    summary: "Find or create a goal (Plausible's Sites API)",
    description:
      '`{site_id, goal_type: "event" | "page", event_name | page_path, display_name?, currency?}`: the goal of that event or page, made when there is none.',
    request: {
      body: {
        content: {
          'application/json': {
            schema: siteQuery.extend({
              goal_type: s.enum(['event', 'page']),
              event_name: s.string().optional(),
              page_path: s.string().optional(),
              display_name: s.string().optional(),
              currency: s.string().optional(),
            }),
          },
        },
      },
    },
    responses: {
      200: jsonContent(
        plausibleGoalSchema.extend({ domain: s.string() }),
        'The goal, found or made.',
      ),
      400: plausibleError,
      404: plausibleError,
    },
  }),
  goals.route({
    method: 'delete',
    path: '/sites/goals/{goal_id}',
    summary: "Delete a goal (Plausible's Sites API)",
    description: '`site_id` in the body (or the query).',
    request: {
      params: s.object({
        goal_id: pathId('3'),
      }),
    },
    responses: {
      200: jsonContent(s.object({ deleted: s.literal(true) }), 'The goal was deleted.'),
      400: plausibleError,
      404: plausibleError,
    },
  }),
];

/** A goal id of a path: a positive integer, else none. */
const goalIdOf = (raw: string | undefined) =>
  raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;

/** A goal as Plausible's Sites API shows it. */
const plausibleGoal = (row: GoalRow) => ({
  id: row.id,
  display_name: row.displayName,
  goal_type: row.eventName !== null ? 'event' : 'page',
  event_name: row.eventName,
  page_path: row.pagePath,
  scroll_threshold: row.scrollThreshold,
  custom_props: {},
});

/** Plausible's 400 for a request without what it needs. */
const badRequest = (message: string) => new ApiError(400, message);

export function registerGoalRoutes(api: ApiApp) {
  serveRoute(api, goalRoutes.list, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'viewer');
    const rows = await listGoals(db, website.id);
    return c.json({ data: rows.map(toGoalRecord), status: 200 });
  });

  serveRoute(api, goalRoutes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const { row } = await createGoal(db, website.id, goalInput(body));
    return c.json({ data: toGoalRecord(row), status: 201 }, 201);
  });

  serveRoute(api, goalRoutes.delete, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const goalId = goalIdOf(c.req.param('goal_id'));
    if (goalId === null || !(await deleteGoal(db, website.id, goalId))) throw notFound();
    return goals.gone(c, goalId, 'goal');
  });

  // Plausible's Sites API (https://plausible.io/docs/sites-api): the website by its domain.
  api.definitions.push(...sitesRoutes);
  const site = async (c: Context<AppEnv>, siteId: unknown, action: string) => {
    if (typeof siteId !== 'string' || siteId === '')
      throw badRequest(`Parameter \`site_id\` is required to ${action}`);
    const db = createDb(c.env.DB);
    const access = await websiteAccessByDomain(db, c.get('ownerId'), siteId);
    if (!access) throw new ApiError(404, 'Site could not be found');
    const need = action === 'list goals' ? 'viewer' : 'admin';
    if (!mayActAs(access.role, need)) throw roleTooLow(need);
    return { db, website: access.website };
  };

  api.get('/sites/goals', async (c) => {
    const { db, website } = await site(c, c.req.query('site_id'), 'list goals');
    const rows = await listGoals(db, website.id);
    return c.json({
      goals: rows.map(plausibleGoal),
      meta: { after: null, before: null, limit: Math.max(100, rows.length) },
    });
  });

  api.put('/sites/goals', async (c) => {
    const body = await readFields(c.req);
    const { db, website } = await site(c, body.site_id, 'create a goal');
    const type = body.goal_type;
    if (type !== 'event' && type !== 'page')
      throw badRequest('Parameter `goal_type` is required to create a goal');
    const field = type === 'event' ? 'event_name' : 'page_path';
    if (typeof body[field] !== 'string' || body[field] === '')
      throw badRequest(`Parameter \`${field}\` is required to create a goal`);
    let input: ReturnType<typeof goalInput>;
    try {
      input = goalInput(
        {
          ...body,
          event_name: type === 'event' ? body.event_name : undefined,
          page_path: type === 'page' ? body.page_path : undefined,
        },
        { event: 'event_name', page: 'page_path' },
      );
    } catch (err) {
      if (err instanceof ApiError) throw badRequest(`Something went wrong: ${err.message}`);
      throw err;
    }
    const { row } = await createGoal(db, website.id, input, 'return');
    return c.json({ domain: website.domain, ...plausibleGoal(row) });
  });

  api.delete('/sites/goals/:goal_id', async (c) => {
    const body = await readFields(c.req);
    const { db, website } = await site(c, body.site_id ?? c.req.query('site_id'), 'delete a goal');
    const goalId = goalIdOf(c.req.param('goal_id'));
    if (goalId === null || !(await deleteGoal(db, website.id, goalId)))
      throw new ApiError(404, 'Goal could not be found');
    return c.json({ deleted: true });
  });
}
