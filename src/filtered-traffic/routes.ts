/**
 * `GET /api/v1/websites/{id}/filtered?from=&to=`: what a website's pipeline and log kept out,
 * per day, by reason and, for bots, by name and kind (./filtered-traffic.ts). Viewers and up;
 * another's website is the 404 of a missing one.
 */
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { s } from '../lib/json-schema.ts';
import { readableWebsite } from '../query/api/v1/routes.ts';
import { dateField } from '../query/api/v1/schemas.ts';
import { COUNTED_REASONS, checkedRange, filteredTrafficOf } from './filtered-traffic.ts';

const reasonHits = s
  .object({
    reason: s.string().openapi({ example: 'bot' }),
    hits: s.number().int().openapi({ example: 412 }),
  })
  .openapi('DroppedReason');

const botHits = s
  .object({
    name: s.string().nullable().openapi({ example: 'GPTBot' }),
    kind: s.string().nullable().openapi({ example: 'ai_training' }),
    hits: s.number().int().openapi({ example: 230 }),
  })
  .openapi('DroppedBot');

const sums = {
  total: s.number().int().openapi({ example: 431 }),
  reasons: s.array(reasonHits),
  bots: s.array(botHits),
};

const filteredSchema = s
  .object({
    from: s.string().openapi({ example: '2026-11-01' }),
    to: s.string().openapi({ example: '2026-11-30' }),
    ...sums,
    days: s.array(
      s
        .object({ date: s.string().openapi({ example: '2026-11-01' }), ...sums })
        .openapi('DroppedDay'),
    ),
  })
  .openapi('FilteredTraffic');

const filteredRoute = defineRoute({
  method: 'get',
  path: '/websites/{id}/filtered',
  tags: ['Websites'],
  summary: "Show a website's filtered traffic",
  description: `The hits the website's pipeline or event log dropped rather than counted, per local date of the range (every date, oldest first; 0 on a date without one) and over the range: in all, by reason (${COUNTED_REASONS.map((r) => `\`${r}\``).join(', ')}) and, for bots, by the crawler's name and kind (\`ai_training\`, \`ai_search\`, \`ai_agent\`, \`search_engine\`, \`seo\`, \`monitor\`, \`other\`; both null for a bot not on the known crawlers' list: an automation framework, an empty User-Agent, a prefetch). Most first. Counted, never stored: a dropped hit is one added to its counter. Viewers and up.`,
  security: [{ bearerAuth: [] }],
  request: { params: idParam, query: s.object({ from: dateField('from'), to: dateField('to') }) },
  responses: {
    200: jsonContent(
      s.object({ data: filteredSchema, status: s.number().int().openapi({ example: 200 }) }),
      "The website's dropped hits.",
    ),
    401: errorResponses[401],
    404: errorResponses[404],
    422: errorResponses[422],
  },
});

export function registerFilteredTrafficRoutes(api: ApiApp) {
  serveRoute(api, filteredRoute, async (c, { id, query }) => {
    const { website } = await readableWebsite(c, id);
    const range = checkedRange(query());
    return c.json({ data: await filteredTrafficOf(c.env, website.id, range), status: 200 });
  });
}
