/**
 * The tools Sightline's MCP server offers an assistant (docs/ARCHITECTURE.md, "Ask from an
 * assistant"): each a JSON Schema of its input, a description an assistant can act on, and a
 * read through the use cases the API itself calls — the websites a person may read (viewer
 * and up), the Stats API v2's questions (src/query/api/v2/ask.ts), goals, funnels and their
 * answers, journeys, realtime visitors. Read-only: no tool changes anything. A website the
 * person may not read answers as an unknown one.
 */
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { findFunnel, listFunnels } from '../flows/funnels.ts';
import { funnelOf, journeysOf } from '../flows/questions.ts';
import { listGoals, toGoalRecord } from '../goals/goals.ts';
import { ApiError } from '../lib/errors.ts';
import { withinReadLimits } from '../lib/rate-limit.ts';
import { askV2, INVALID_KEY } from '../query/api/v2/ask.ts';
import { filterParam, parseV1Filters } from '../query/parse/v1-filters.ts';
import { resolveDateRange } from '../query/parse/v2/date-range.ts';
import { QueryError } from '../query/parse/v2/query-error.ts';
import { withSavedSegments } from '../query/parse/v2/saved-segments.ts';
import { isUnavailable } from '../query/present/numbers.ts';
import { listSegments, toSegmentRecord } from '../segments/segments.ts';
import { realtimeVisitors } from '../website-log/worker/partitions.ts';
import { listWebsites, websiteAccessByDomain } from '../websites/queries.ts';
import type { Schema } from './arguments.ts';

/** Who asks, and from where (their reads count against their limits). */
export type Asker = { env: Env; db: Database; personId: number; address: string };

/** A tool's answer: its figures as structured content. */
type Answer = Record<string, unknown>;

/** A failure the assistant should read (a tool result with `isError`). */
export class ToolFailure extends Error {}

type Tool = {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  run: (asker: Asker, args: Record<string, unknown>) => Promise<Answer>;
};

const SITE_ID: Schema = {
  type: 'string',
  description: 'The website, by its domain as list_websites gives it (e.g. "example.com").',
};
const DATE_RANGE: Schema = {
  type: ['string', 'array'],
  description:
    'As the Stats API v2 takes it: "day", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all", or ["YYYY-MM-DD", "YYYY-MM-DD"]. Default "30d".',
  items: { type: 'string' },
};
const FILTERS: Schema = {
  type: 'array',
  description:
    'Filters combined with AND, as API v1 has them: the hits (page, event) or the visits and visitors (the others) with that value.',
  items: {
    type: 'object',
    properties: {
      dimension: {
        type: 'string',
        description:
          'page, landing_page, exit_page, referrer, campaign, country, browser, os, device, event, goal, segment (a saved segment: its id as the value), …',
      },
      operator: { type: 'string', enum: ['is', 'not', 'contains'] },
      value: { type: 'string' },
    },
    required: ['dimension', 'value'],
    additionalProperties: false,
  },
};

const object = (properties: Record<string, Schema>, required: string[] = []) => ({
  type: 'object' as const,
  properties,
  required,
  additionalProperties: false,
});

/** The website `siteId` names among those the asker may read, its reads counted. */
async function readable(asker: Asker, siteId: unknown) {
  const site = (await websiteAccessByDomain(asker.db, asker.personId, String(siteId)))?.website;
  if (!site) throw new ToolFailure(INVALID_KEY);
  if (!(await withinReadLimits(asker.env, asker.address, site.id, true)))
    throw new ToolFailure('Too many API requests. Your API key is limited; try again in a minute.');
  return site;
}

/** A range of dates in the website's time zone (`"30d"` when none is given). */
function datesOf(site: { timezone: string }, value: unknown) {
  try {
    const range = resolveDateRange(value ?? '30d', {
      timeZone: site.timezone,
      now: Date.now(),
      firstDate: null,
    });
    return { from: range.from, to: range.to };
  } catch (err) {
    if (err instanceof QueryError) throw new ToolFailure(err.message);
    throw err;
  }
}

/**
 * API v1's filters from the tool's list, checked as the API checks them, on website
 * `siteId` (a saved segment's, `segment`, read as the key's person sees it).
 */
async function filtersOf(asker: Asker, siteId: number, value: unknown) {
  const params = new URLSearchParams();
  for (const f of (value ?? []) as { dimension: string; operator?: 'is'; value: string }[])
    params.append(
      filterParam({ dimension: f.dimension, operator: f.operator ?? 'is' } as never),
      f.value,
    );
  const { filters, errors } = parseV1Filters(params);
  const first = Object.values(errors)[0]?.[0];
  if (first) throw new ToolFailure(first);
  const read = await withSavedSegments(asker.db, siteId, asker.personId, filters);
  if (read.unknown[0]) throw new ToolFailure(`No saved segment ${read.unknown[0].value}.`);
  return read.filters;
}

const unavailableText = (firstDate: string) =>
  `The website's events are kept from ${firstDate}; ask for a range that starts then or later.`;

export const TOOLS: Tool[] = [
  {
    name: 'list_websites',
    title: 'List websites',
    description:
      "The websites this API key may read: each one's site_id (its domain, which the other tools take), time zone and the key's role on it (owner, admin or viewer).",
    inputSchema: object({}),
    run: async (asker) => {
      const { rows } = await listWebsites(asker.db, asker.personId, {
        sortBy: 'domain',
        sort: 'asc',
        limit: 1000,
        offset: 0,
      });
      return {
        websites: rows.map((w) => ({ site_id: w.domain, timezone: w.timezone, role: w.role })),
      };
    },
  },
  {
    name: 'query',
    title: 'Ask the Stats API v2',
    description:
      'Any question of metrics × dimensions × filters over a date range, exactly as Plausible\'s Stats API v2 asks it (POST /api/v2/query), with the same validation and error texts. Metrics: visitors, visits, pageviews, views_per_visit, bounce_rate, visit_duration, events, percentage, conversion_rate, group_conversion_rate, total_revenue, average_revenue. Dimensions: event:page, event:goal, event:props:<name>, visit:source, visit:referrer, visit:channel, visit:utm_*, visit:entry_page, visit:exit_page, visit:country, visit:region, visit:city, visit:device, visit:browser, visit:os, time, time:hour, time:day, time:week, time:month. Filters: [operator, dimension, [values]] with is, is_not, contains, contains_not, matches, matches_not, combined by and/or/not. Example: {"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d", "dimensions": ["visit:source"]}.',
    inputSchema: object(
      {
        site_id: SITE_ID,
        metrics: { type: 'array', items: { type: 'string' } },
        date_range: DATE_RANGE,
        dimensions: { type: 'array', items: { type: 'string' } },
        filters: { type: 'array' },
        order_by: { type: 'array' },
        include: { type: 'object' },
        pagination: { type: 'object' },
      },
      ['site_id', 'metrics', 'date_range'],
    ),
    run: async (asker, args) => {
      try {
        return await askV2(asker.env, asker.db, asker.personId, asker.address, args);
      } catch (err) {
        if (err instanceof QueryError) throw new ToolFailure(err.message);
        if (err instanceof ApiError && err.statusCode < 500) throw new ToolFailure(err.message);
        throw err;
      }
    },
  },
  {
    name: 'list_goals',
    title: 'List goals',
    description:
      "A website's goals: custom events and page visits it counts as conversions (their names are what the query tool's event:goal dimension and goal filters use).",
    inputSchema: object({ site_id: SITE_ID }, ['site_id']),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      return { goals: (await listGoals(asker.db, site.id)).map(toGoalRecord) };
    },
  },
  {
    name: 'list_segments',
    title: 'List segments',
    description:
      'A website\'s saved segments this key\'s person sees (the website\'s and their own): each one\'s id, name and filters. The query tool takes one as the filter ["is", "segment", [id]]; the funnel and journeys tools as {dimension: "segment", value: id}.',
    inputSchema: object({ site_id: SITE_ID }, ['site_id']),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      const rows = await listSegments(asker.db, site.id, asker.personId);
      return { segments: rows.map(toSegmentRecord) };
    },
  },
  {
    name: 'list_funnels',
    title: 'List funnels',
    description:
      "A website's saved funnels: each one's id, name and steps (pages, events or goals).",
    inputSchema: object({ site_id: SITE_ID }, ['site_id']),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      return { funnels: await listFunnels(asker.db, site.id) };
    },
  },
  {
    name: 'funnel',
    title: 'Answer a funnel',
    description:
      'A saved funnel over a date range: the visitors of each step (a visitor who took the steps in order on one day), the conversion from the first step and the drop-off from the step before.',
    inputSchema: object(
      {
        site_id: SITE_ID,
        funnel_id: { type: 'integer', minimum: 1, description: 'As list_funnels gives it.' },
        date_range: DATE_RANGE,
        filters: FILTERS,
      },
      ['site_id', 'funnel_id'],
    ),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      const funnel = await findFunnel(asker.db, site.id, args.funnel_id as number);
      if (!funnel) throw new ToolFailure(`No funnel ${args.funnel_id} on ${site.domain}.`);
      const range = datesOf(site, args.date_range);
      const filters = await filtersOf(asker, site.id, args.filters);
      const goals = await listGoals(asker.db, site.id);
      const steps = await funnelOf(asker.env, site.id, funnel, range, filters, goals);
      if (isUnavailable(steps)) throw new ToolFailure(unavailableText(steps.firstDate));
      return { funnel: funnel.name, ...range, steps };
    },
  },
  {
    name: 'journeys',
    title: 'Journeys from or to a page',
    description:
      'The paths visits took after a page (direction "next") or before it ("previous"), up to three pages long, with their visits, most first.',
    inputSchema: object(
      {
        site_id: SITE_ID,
        page: { type: 'string', description: 'A page path, e.g. "/pricing".' },
        direction: { type: 'string', enum: ['next', 'previous'] },
        steps: { type: 'integer', minimum: 1, maximum: 3 },
        date_range: DATE_RANGE,
        filters: FILTERS,
        limit: { type: 'integer', minimum: 1, maximum: 100 },
      },
      ['site_id', 'page'],
    ),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      const range = datesOf(site, args.date_range);
      const filters = await filtersOf(asker, site.id, args.filters);
      const goals = await listGoals(asker.db, site.id);
      const answer = await journeysOf(
        asker.env,
        site.id,
        {
          ...range,
          page: args.page as string,
          direction: (args.direction as 'next' | 'previous' | undefined) ?? 'next',
          steps: (args.steps as number | undefined) ?? 1,
          sortBy: 'count',
          sort: 'desc',
          limit: (args.limit as number | undefined) ?? 10,
          offset: 0,
        },
        filters,
        goals,
      );
      if (isUnavailable(answer)) throw new ToolFailure(unavailableText(answer.firstDate));
      return {
        page: args.page,
        ...range,
        paths: answer.rows.map((r) => ({ path: r.path, visits: r.visits })),
        total: answer.total,
      };
    },
  },
  {
    name: 'realtime',
    title: 'Visitors now',
    description: 'The visitors on a website in the last five minutes.',
    inputSchema: object({ site_id: SITE_ID }, ['site_id']),
    run: async (asker, args) => {
      const site = await readable(asker, args.site_id);
      return { visitors: await realtimeVisitors(asker.env, site.id, Date.now()) };
    },
  },
];
