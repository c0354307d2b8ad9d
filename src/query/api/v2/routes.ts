/**
 * Plausible's Stats API v2 on Sightline (docs/ARCHITECTURE.md, "Stats API v2"):
 * `POST /api/v2/query`, its request and answer as Plausible's documentation gives them
 * (src/query/parse/v2/), authenticated by a Sightline API key, `site_id` a domain of its owner's.
 * Errors are `{"error": "…"}` (the app's one error path writes them so under `/api/v2`): 401
 * without a valid key or for a domain the key does not own (the same as an unknown one), 400
 * for a malformed question, 429 over the limits.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { findOwnerIdByApiKey } from '../../../accounts/api-keys.ts';
import { createDb } from '../../../db/client.ts';
import type { AppEnv } from '../../../env.ts';
import { ApiError } from '../../../lib/errors.ts';
import { clientAddressKey } from '../../../lib/ip.ts';
import { addressRateLimit, withinLimit } from '../../../lib/rate-limit.ts';
import { QueryError } from '../../parse/v2/query-error.ts';
import { askV2, INVALID_KEY, tooManyV2 } from './ask.ts';

/** A question is small; the body limit leaves room for long filters all the same. */
const BODY_LIMIT = 64 * 1024;

const MISSING_KEY = 'Missing API key. Please use a valid Sightline API key as a Bearer Token.';

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
    if (!(await withinLimit(c.env, 'RATE_LIMIT_API', [key]))) throw tooManyV2();
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
      return c.json(await askV2(c.env, db, ownerId, clientAddressKey(c), body));
    } catch (err) {
      if (err instanceof QueryError) throw new ApiError(400, err.message);
      throw err;
    }
  });
  return api;
}
