/**
 * Bearer authentication for API v1 (docs/ARCHITECTURE.md, The HTTP contract): `Authorization: Bearer <key>` is the only
 * credential the API accepts. Missing, malformed or unknown keys all get the same 401. Each
 * key has its own rate limit (`RATE_LIMIT_API`): over it, a 429 with `Retry-After`.
 */
import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { unauthenticated } from '../lib/errors.ts';
import { tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { findOwnerIdByApiKey } from './api-keys.ts';

/** Limits per client address, then per presented key, then looks the key up. */
export const bearerAuth = () =>
  createMiddleware<AppEnv>(async function bearerAuth(c, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const key = match?.[1];
    // Counted per presented key, before the key is looked up.
    if (key && !(await withinLimit(c.env, 'RATE_LIMIT_API', [key]))) throw tooManyRequests();
    const ownerId = key ? await findOwnerIdByApiKey(createDb(c.env.DB), key) : null;
    if (ownerId === null) throw unauthenticated();
    c.set('ownerId', ownerId);
    await next();
  });
