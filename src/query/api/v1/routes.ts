/**
 * `GET /api/v1/stats/{id}`: one statistic of a website over a date range, paginated;
 * `GET /api/v1/stats/{id}/summary`: the six figures of a date range and of the period before.
 */
import type { Context } from 'hono';
import { createDb, type Database } from '../../../db/client.ts';
import type { AppEnv } from '../../../env.ts';
import { listGoals } from '../../../goals/goals.ts';
import { type ApiApp, defineRoute } from '../../../http/openapi.ts';
import { statsPage } from '../../../http/pagination.ts';
import { errorResponses } from '../../../http/responses.ts';
import { idParam, serveRoute } from '../../../http/route.ts';
import { ApiError, checkDateOrder, validationFailed } from '../../../lib/errors.ts';
import { clientAddressKey } from '../../../lib/ip.ts';
import { tooManyRequests, withinReadLimits } from '../../../lib/rate-limit.ts';
import { addDays, daysBetween, MAX_RANGE_DAYS } from '../../../lib/time/dates.ts';
import { websiteFor } from '../../../websites/queries.ts';
import { type Goal, UnknownGoal } from '../../parse/goal-filters.ts';
import { FILTER_DIMENSIONS, type Filter, GOAL_FILTER, MAX_FILTERS } from '../../parse/v1.ts';
import { filterParam, foldingProblem, parseV1Filters } from '../../parse/v1-filters.ts';
import { withSavedSegments } from '../../parse/v2/saved-segments.ts';
import { comparisonOf } from '../../present/comparison.ts';
import {
  isGoalFilter,
  isUnavailable,
  needsGoals,
  sourceOf,
  summaryOf,
  type Unavailable,
  websiteNumbers,
} from '../../present/numbers.ts';
import { conversionOf } from '../../present/overview.ts';
import { formatNumber } from '../../present/readable.ts';
import {
  statsQuerySchema,
  statsResponseSchema,
  summaryQuerySchema,
  summaryResponseSchema,
} from './schemas.ts';

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

/** How the filters are documented on both routes. */
export const FILTERS_DOCUMENTATION = ` Filters narrow every number: \`filter[<dimension>]=<value>\` keeps the hits with that value, \`filter[<dimension>][not]=<value>\` those without it, \`filter[<dimension>][contains]=<text>\` those whose value contains the text in any case; several combine with AND (at most ${MAX_FILTERS}). Dimensions: ${FILTER_DIMENSIONS.map((d) => `\`${d}\``).join(', ')}; values exactly as this API returns them. \`page\` and \`event\` keep the matching hits; \`landing_page\`, \`exit_page\`, \`referrer\`, \`campaign\`, \`channel\`, \`source\` and the \`utm_*\` tags every hit of the visits that have the value; the others every hit of the visitors that have it that day. Each statistic then counts over the kept hits as it does over all of them. Filtered answers are read from the website's event log: a range that starts before the oldest date it holds (see EVENT_RETENTION_DAYS) is a 422 naming \`from\`.`;

const statsRoute = defineRoute({
  method: 'get',
  path: '/stats/{id}',
  tags: ['Stats'],
  summary: 'Show a statistic',
  description: `Sums a statistic of the website over the date range per value. Dimensions (\`browser\`, \`page\`, \`exit_page\`, …) give one row per value; time series give one row per date (\`pageviews\`, \`visitors\`, \`visits\`, \`bounces\`, \`visit_duration\` in seconds) or per hour of the day summed over the range (\`pageviews_hours\`, \`visitors_hours\`, \`visits_hours\`). A visit counts on the date and hour it started. Values whose count is 0 have no row.${FILTERS_DOCUMENTATION}`,
  security: [{ bearerAuth: [] }],
  request: { params: idParam, query: statsQuerySchema },
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

const summaryRoute = defineRoute({
  method: 'get',
  path: '/stats/{id}/summary',
  tags: ['Stats'],
  summary: 'Show the summary figures',
  description: `Visitors, visits, page views, views per visit, bounce rate, visit duration and custom events of the website over the date range, and the same for the period of equal length just before it. A visit belongs to the date it started on.${FILTERS_DOCUMENTATION}`,
  security: [{ bearerAuth: [] }],
  request: { params: idParam, query: summaryQuerySchema },
  responses: {
    200: {
      description: 'The figures of the range and of the period before.',
      content: { 'application/json': { schema: summaryResponseSchema } },
    },
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

/** The website of `{id}` when the key's person may read it (any role); else the 404 of a missing one. */
export async function readableWebsite(c: Context<AppEnv>, id: number) {
  const db = createDb(c.env.DB);
  const { website } = await websiteFor(db, c.get('ownerId'), id, 'viewer');
  // Readers pay their way: per client address and website (src/lib/rate-limit.ts).
  if (!(await withinReadLimits(c.env, clientAddressKey(c), website.id, true)))
    throw tooManyRequests();
  return { db, website };
}

/**
 * The validated query and its filters (`filter[…]`, src/query/parse/v1-filters.ts) on website
 * `websiteId`, the saved segments they name read: one 422 names every bad field and filter.
 * A range whose `to` is before its `from` is a 422 naming `to`.
 */
export async function checkedQuery<
  Q extends { from: string; to: string; search?: string | undefined },
>(
  c: Context<AppEnv>,
  query: () => Q,
  db: Database,
  websiteId: number,
): Promise<{ q: Q; filters: Filter[] }> {
  const parsed = parseV1Filters(new URL(c.req.url).searchParams);
  const { errors, foldings } = parsed;
  const { filters, unknown } = await withSavedSegments(
    db,
    websiteId,
    c.get('ownerId'),
    parsed.filters,
  );
  for (const f of unknown)
    errors[filterParam(f)] = ['No saved segment of this website that you see has this id.'];
  const failed = Object.keys(errors).length > 0;
  let q: Q;
  try {
    q = query();
  } catch (err) {
    if (failed && err instanceof ApiError && err.errors)
      throw validationFailed({ ...err.errors, ...errors });
    throw err;
  }
  if (failed) throw validationFailed(errors);
  // A filtered question folds the case of its search too (src/query/parse/v1-filters.ts).
  const searched =
    filters.length > 0 && q.search ? foldingProblem('search', q.search, foldings) : null;
  if (searched) throw validationFailed({ search: [searched] });
  checkDateOrder(q.from, q.to);
  if (daysBetween(q.from, q.to) > MAX_RANGE_DAYS) {
    const last = addDays(q.from, MAX_RANGE_DAYS - 1);
    throw validationFailed({
      to: [
        `The range must be at most ${formatNumber(MAX_RANGE_DAYS)} days: to must be ${last} or earlier.`,
      ],
    });
  }
  return { q, filters };
}

/**
 * The website's numbers under its filters (with `goals`, the website's, when they are the
 * rows); a goal filter naming no goal of it is a 422.
 */
async function filteredSource(
  c: Context<AppEnv>,
  websiteId: number,
  filters: Filter[],
  goals?: Goal[],
) {
  try {
    return await sourceOf(c.env, createDb(c.env.DB), websiteId, filters, goals);
  } catch (err) {
    throw goalFilterFailure(err);
  }
}

/** A goal filter naming no goal of the website is a 422 naming it; anything else as it was. */
export function goalFilterFailure(err: unknown): unknown {
  return err instanceof UnknownGoal
    ? validationFailed({ [filterParam({ dimension: GOAL_FILTER, operator: 'is' })]: [err.message] })
    : err;
}

/** The 422 of a filtered range that starts before the oldest date the event log holds. */
export function unavailable(u: Unavailable): ApiError {
  return validationFailed({
    from: [
      `The from field must be ${u.firstDate} or later: filtered statistics are kept from that date.`,
    ],
  });
}

export function registerStatsRoutes(api: ApiApp) {
  serveRoute(api, summaryRoute, async (c, { id, query }) => {
    const { db, website } = await readableWebsite(c, id);
    const { q, filters } = await checkedQuery(c, query, db, website.id);
    const compared = comparisonOf(q, {
      compare: q.compare,
      from: q.compare_from,
      to: q.compare_to,
    });
    if ('errors' in compared) throw validationFailed(compared.errors);
    const answer = await summaryOf(await filteredSource(c, website.id, filters), q, compared);
    if (isUnavailable(answer)) throw unavailable(answer);
    if (!filters.some(isGoalFilter)) return c.json({ ...answer, compared, status: 200 });
    // Under a goal filter, the conversion rate: its visitors ÷ those of the other filters.
    const goals = filters.some(needsGoals) ? await listGoals(db, website.id) : [];
    const numbers = websiteNumbers(c.env, db, website.id, filters, goals);
    const rate = await conversionOf(numbers, q, filters, answer, isGoalFilter, compared);
    if (isUnavailable(rate)) throw unavailable(rate);
    return c.json({
      data: { ...answer.data, conversion_rate: rate.rate },
      previous: { ...answer.previous, conversion_rate: rate.previous },
      compared,
      status: 200,
    });
  });

  serveRoute(api, statsRoute, async (c, { id, query }) => {
    const { db, website } = await readableWebsite(c, id);
    const { q, filters } = await checkedQuery(c, query, db, website.id);
    const perPage = q.per_page ?? 25;
    const page = q.page ?? 1;
    if (q.name === 'property' && !q.property)
      throw validationFailed({
        property: ['The property field is required when name is property.'],
      });
    // Each goal is a question of its own: the website's goals are the rows.
    const goals = q.name === 'goal' ? await listGoals(db, website.id) : undefined;
    const source = await filteredSource(c, website.id, filters, goals);
    const answer = await source.page({
      ...(q.name === 'property'
        ? { name: 'property', property: q.property as string }
        : { name: q.name }),
      from: q.from,
      to: q.to,
      search: q.search || undefined,
      sortBy: q.sort_by ?? 'count',
      sort: q.sort ?? 'desc',
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    if (isUnavailable(answer)) throw unavailable(answer);
    return c.json(statsPage(c.req.url, { page, perPage }, answer.rows, answer.total));
  });
}
