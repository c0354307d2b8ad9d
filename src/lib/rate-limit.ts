/**
 * Request rate limits through Cloudflare's rate-limiting bindings (`[[ratelimits]]` in
 * wrangler.toml). The limits themselves — requests per 10 or 60 seconds — are configuration;
 * the code only decides what a request is counted against:
 *
 * - `RATE_LIMIT_EVENTS`: hits, per client IP and website;
 * - `RATE_LIMIT_API`: API v1 requests, per API key;
 * - `RATE_LIMIT_FORMS`: log-in, sign-up, statistics-password and password-change submissions,
 *   per client IP.
 *
 * Keys are SHA-256 hashes, so no IP address or API key leaves the Worker even as a counter
 * name. A binding that is not configured means no limit. A limiter that fails lets the
 * request through (and logs): an outage of the counter must not become an outage of the
 * service.
 */
import type { Env } from '../env.ts';
import { sha256Hex } from './crypto.ts';
import { ApiError } from './errors.ts';
import { logError } from './log.ts';

export type Limiter = 'RATE_LIMIT_EVENTS' | 'RATE_LIMIT_API' | 'RATE_LIMIT_FORMS';

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

/** The JSON 429 of the API and the hit endpoints. */
export const tooManyRequests = () =>
  new ApiError(429, 'Too many requests. Try again later.', undefined, {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
