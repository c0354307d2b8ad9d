/**
 * Plausible's Stats API v2 on Sightline (docs/ARCHITECTURE.md, "Stats API v2"):
 * `POST /api/v2/query`, its request and answer as Plausible's documentation gives them
 * (src/stats/v2/), authenticated by a Sightline API key, `site_id` a domain of its owner's.
 * Errors are `{"error": "…"}` (the app's one error path writes them so under `/api/v2`): 401
 * without a valid key or for a domain the key does not own (the same as an unknown one), 400
 * for a malformed question, 429 over the limits.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { findOwnerIdByApiKey } from '../../accounts/api-keys.ts';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { ApiError } from '../../lib/errors.ts';
import { clientAddressKey } from '../../lib/ip.ts';
import {
  addressRateLimit,
  RETRY_AFTER_SECONDS,
  withinLimit,
  withinReadLimits,
} from '../../lib/rate-limit.ts';
import { websiteAccessByDomain } from '../../websites/queries.ts';
import { readerOf } from '../engine/engine.ts';
import { firstDateOf } from '../source.ts';
import { answerQuery } from './answer.ts';
import { QueryError } from './errors.ts';
import { parseQuery, siteIdOf } from './query.ts';

/** A question is small; the body limit leaves room for long filters all the same. */
const BODY_LIMIT = 64 * 1024;

const MISSING_KEY = 'Missing API key. Please use a valid Sightline API key as a Bearer Token.';
const INVALID_KEY =
  "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.";

const tooMany = () =>
  new ApiError(
    429,
    'Too many API requests. Your API key is limited; try again in a minute.',
    undefined,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );

export function createApiV2() {
  const api = new Hono<AppEnv>();
  api.use('*', addressRateLimit('api'));
  api.use(
    '*',
    bodyLimit({
      maxSize: BODY_LIMIT,
      onError: () => {
        throw new ApiError(413, 'The request body is too large.');
      },
    }),
  );
  api.post('/query', async (c) => {
    const key = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!key) throw new ApiError(401, MISSING_KEY);
    if (!(await withinLimit(c.env, 'RATE_LIMIT_API', [key]))) throw tooMany();
    const db = createDb(c.env.DB);
    const ownerId = await findOwnerIdByApiKey(db, key);
    if (ownerId === null) throw new ApiError(401, INVALID_KEY);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new ApiError(400, 'Invalid request: the body must be a JSON object.');
    }
    try {
      const site = (await websiteAccessByDomain(db, ownerId, siteIdOf(body)))?.website;
      if (!site) throw new ApiError(401, INVALID_KEY);
      // Readers pay their way: per client address and website (src/lib/rate-limit.ts).
      if (!(await withinReadLimits(c.env, clientAddressKey(c), site.id, true))) throw tooMany();
      const all = (body as { date_range?: unknown }).date_range === 'all';
      const query = parseQuery(body, {
        timeZone: site.timezone,
        now: Date.now(),
        firstDate: all ? await firstDateOf(c.env, db, site.id) : null,
      });
      const goals = await listGoals(db, site.id);
      const readerFor = (imports: boolean) => readerOf(db, site.id, c.env, { imports });
      return c.json(await answerQuery(readerFor, query, goals));
    } catch (err) {
      if (err instanceof QueryError) throw new ApiError(400, err.message);
      throw err;
    }
  });
  return api;
}
