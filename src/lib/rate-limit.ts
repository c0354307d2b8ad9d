/**
 * Request rate limits through Cloudflare's rate-limiting bindings (`[[ratelimits]]` in
 * wrangler.toml). The limits themselves — requests per 10 or 60 seconds — are configuration;
 * the code only decides what a request is counted against:
 *
 * - `RATE_LIMIT_ADDRESSES`: every hit request and every API v1 request, per client address
 *   (each kind on its own), before any website or API key is looked up, so that requests
 *   naming unknown websites or random keys cost a bounded number of database reads;
 * - `RATE_LIMIT_EVENTS`: hits, per client address and website;
 * - `RATE_LIMIT_API`: API v1 requests, per API key;
 * - `RATE_LIMIT_FORMS`: log-in, sign-up, statistics-password and password-change submissions,
 *   per client address;
 * - readers of a website's statistics (the statistics pages, their full views and CSV, the
 *   Stats API), per client address and website: `RATE_LIMIT_READS` for its owner (signed in,
 *   or with their API key), the tighter `RATE_LIMIT_PUBLIC_READS` for anyone else; and
 *   `RATE_LIMIT_WEBSITE_READS` for all of a website's anonymous readers together, so that a
 *   flood from many addresses cannot keep its log busy (its owner is not counted there).
 *
 * A client address is `addressKey` of `CF-Connecting-IP`: an IPv6 client counts by its /64.
 *
 * Keys are SHA-256 hashes, so no IP address or API key leaves the Worker even as a counter
 * name. A binding that is not configured means no limit. A limiter that fails lets the
 * request through (and logs): an outage of the counter must not become an outage of the
 * service.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv, Env } from '../env.ts';
import { sha256Hex } from './crypto.ts';
import { ApiError } from './errors.ts';
import { clientAddressKey } from './ip.ts';
import { logError } from './log.ts';

export type Limiter =
  | 'RATE_LIMIT_ADDRESSES'
  | 'RATE_LIMIT_EVENTS'
  | 'RATE_LIMIT_API'
  | 'RATE_LIMIT_FORMS'
  | 'RATE_LIMIT_READS'
  | 'RATE_LIMIT_PUBLIC_READS'
  | 'RATE_LIMIT_WEBSITE_READS';

/**
 * `Retry-After` of a limited request. The binding does not say when its window ends; a
 * window never lasts longer than 60 seconds (the longest period the binding accepts).
 */
export const RETRY_AFTER_SECONDS = 60;

/** Counts one request against `limiter` under the key made of `parts`; false when over the limit. */
export async function withinLimit(env: Env, limiter: Limiter, parts: string[]): Promise<boolean> {
  const binding = env[limiter];
  if (!binding) return true;
  try {
    const key = await sha256Hex(`${limiter}\u0000${parts.join('\u0000')}`);
    return (await binding.limit({ key })).success;
  } catch (err) {
    logError('rate limiter failed', { limiter }, err);
    return true;
  }
}

/**
 * Middleware: counts the request against its client address (`RATE_LIMIT_ADDRESSES`, one
 * counter per `kind`) before anything is looked up; over the limit, the JSON 429.
 */
export const addressRateLimit = (kind: 'hits' | 'api') =>
  createMiddleware<AppEnv>(async function addressRateLimit(c, next) {
    if (!(await withinLimit(c.env, 'RATE_LIMIT_ADDRESSES', [clientAddressKey(c), kind])))
      throw tooManyRequests();
    await next();
  });

/**
 * Counts a read of a website's statistics by the client at `address` (its `addressKey`):
 * against its owner's budget or an anonymous reader's, and an anonymous reader's also against
 * the website's; false when over either.
 */
export async function withinReadLimits(
  env: Env,
  address: string,
  websiteId: number,
  owner: boolean,
): Promise<boolean> {
  const site = String(websiteId);
  if (owner) return withinLimit(env, 'RATE_LIMIT_READS', [address, site]);
  const [own, all] = await Promise.all([
    withinLimit(env, 'RATE_LIMIT_PUBLIC_READS', [address, site]),
    withinLimit(env, 'RATE_LIMIT_WEBSITE_READS', [site]),
  ]);
  return own && all;
}

/** The JSON 429 of the API and the hit endpoints. */
export const tooManyRequests = () =>
  new ApiError(429, 'Too many requests. Try again later.', undefined, {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
