/**
 * The benchmark's floor (docs/BENCHMARKS.md, "Ingestion throughput"): `POST /__floor` does
 * what every hit does that is not Sightline's own work — the body read as JSON, the website
 * found by its domain (from the isolate's cache, as a busy website's hits find it), the same
 * two rate limits, one call to the website's object that does nothing — and answers 202. A
 * hit's rate against it measures the ingestion code, not the platform or the local simulator.
 *
 * It exists only when the `BENCH` variable is `on` (the benchmark passes it to `wrangler
 * dev`; wrangler.toml never sets it) and only for requests to localhost; everywhere else it is
 * the 404 of any unknown address.
 */
import type { Context } from 'hono';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { websiteLog } from '../event-log/stub.ts';
import { ApiError } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { findSiteByDomain } from './pipeline.ts';
import { LOCAL_HOSTS } from './replay.ts';

export async function floorHit(c: Context<AppEnv>): Promise<Response> {
  if (c.env.BENCH !== 'on' || !LOCAL_HOSTS.has(new URL(c.req.url).hostname)) {
    throw new ApiError(404, 'Not found.');
  }
  const address = clientAddressKey(c);
  if (!(await withinLimit(c.env, 'RATE_LIMIT_ADDRESSES', [address, 'hits'])))
    throw tooManyRequests();
  const body = (await c.req.json()) as { domain?: unknown };
  const site =
    typeof body.domain === 'string'
      ? await findSiteByDomain(createDb(c.env.DB), body.domain)
      : undefined;
  if (!site) throw new ApiError(404, 'Not found.');
  if (!(await withinLimit(c.env, 'RATE_LIMIT_EVENTS', [address, String(site.id)])))
    throw tooManyRequests();
  await websiteLog(c.env, site.id).ping();
  return c.body(null, 202);
}
