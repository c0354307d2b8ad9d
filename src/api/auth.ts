/**
 * Bearer authentication for API v1 (DESIGN §3.1): `Authorization: Bearer <key>` is the only
 * credential the API accepts. Missing, malformed or unknown keys all get the same 401.
 */
import { createMiddleware } from 'hono/factory';
import { findOwnerIdByApiKey } from '../accounts/api-keys.ts';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { unauthenticated } from '../lib/errors.ts';

export const bearerAuth = () =>
  createMiddleware<AppEnv>(async function bearerAuth(c, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const ownerId = match?.[1] ? await findOwnerIdByApiKey(createDb(c.env.DB), match[1]) : null;
    if (ownerId === null) throw unauthenticated();
    c.set('ownerId', ownerId);
    await next();
  });
