/**
 * A question of Plausible's Stats API v2 asked with a person's API key (docs/ARCHITECTURE.md,
 * "Stats API v2"): the website its `site_id` names among those the person may read, the
 * reader's limits, the question parsed in the website's time zone and answered by the engine
 * (../../present/v2-results.ts). Asked by `POST /api/v2/query` (./routes.ts) and by the MCP server's `query`
 * tool (src/mcp/tools.ts), with the same checks and the same error texts: an `ApiError` 401
 * for a website the person may not read (the same as an unknown one), a 429 over the limits,
 * a `QueryError` for a malformed question.
 */
import type { Database } from '../../../db/client.ts';
import type { Env } from '../../../env.ts';
import { listGoals } from '../../../goals/goals.ts';
import { ApiError } from '../../../lib/errors.ts';
import { RETRY_AFTER_SECONDS, withinReadLimits } from '../../../lib/rate-limit.ts';
import { websiteAccessByDomain } from '../../../websites/queries.ts';
import { parseQuery, siteIdOf } from '../../parse/v2/question.ts';
import { withSegments } from '../../parse/v2/saved-segments.ts';
import { firstDateOf } from '../../present/numbers.ts';
import { answerQuery } from '../../present/v2-results.ts';
import { readerOf } from '../../run/reader.ts';

export const INVALID_KEY =
  "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.";

/** The 429 of the Stats API v2. */
export const tooManyV2 = () =>
  new ApiError(
    429,
    'Too many API requests. Your API key is limited; try again in a minute.',
    undefined,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );

/** Answers `body`, a v2 question, for the person `personId` reading from `address`. */
export async function askV2(
  env: Env,
  db: Database,
  personId: number,
  address: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const site = (await websiteAccessByDomain(db, personId, siteIdOf(body)))?.website;
  if (!site) throw new ApiError(401, INVALID_KEY);
  // Readers pay their way: per client address and website (src/lib/rate-limit.ts).
  if (!(await withinReadLimits(env, address, site.id, true))) throw tooManyV2();
  const all = (body as { date_range?: unknown }).date_range === 'all';
  // Saved segments stand for their filters (src/segments/segments.ts), echoed expanded.
  const filters = (body as { filters?: unknown }).filters;
  const expanded = await withSegments(db, site.id, personId, filters);
  const query = parseQuery(
    expanded === filters ? body : { ...(body as object), filters: expanded },
    {
      timeZone: site.timezone,
      now: Date.now(),
      firstDate: all ? await firstDateOf(env, db, site.id) : null,
    },
  );
  const goals = await listGoals(db, site.id);
  const readerFor = (imports: boolean) => readerOf(db, site.id, env, { imports });
  return answerQuery(readerFor, query, goals);
}
