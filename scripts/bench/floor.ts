/**
 * The Worker the benchmark serves under `wrangler dev` for its throughput and latency runs:
 * Sightline's own (src/index.ts) with the floor added — `POST /__floor` does what every hit
 * does that is not Sightline's own work (the body read as JSON, the website found by its
 * domain from the isolate's cache, as a busy website's hits find it, the same two rate
 * limits, one call to the website's object that does nothing) and answers 202. A hit's rate
 * against it measures the ingestion code, not the platform or the local simulator
 * (docs/BENCHMARKS.md, "Ingestion throughput"). It is not part of the deployed Worker.
 */
import { Hono } from 'hono';
import { createApp } from '../../src/app/app.tsx';
import { createDb } from '../../src/db/client.ts';
import type { AppEnv, Env } from '../../src/env.ts';
import worker from '../../src/index.ts';
import { findSiteByDomain } from '../../src/ingest/pipeline.ts';
import { ApiError } from '../../src/lib/errors.ts';
import { clientAddressKey } from '../../src/lib/ip.ts';
import { tooManyRequests, withinLimit } from '../../src/lib/rate-limit.ts';
import { WebsiteLog as SightlineLog } from '../../src/website-log/object/durable-object.ts';
import { logName } from '../../src/website-log/object/partition.ts';

/** The Durable Object of the website's log, with a method that does nothing to call. */
export class WebsiteLog extends SightlineLog {
  ping(): void {}
}

const floor = new Hono<AppEnv>();
floor.post('/__floor', async (c) => {
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
  const logs = c.env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  await logs.get(logs.idFromName(logName(site.id, 0))).ping();
  return c.body(null, 202);
});
const app = createApp();

export default {
  fetch: (request, env, ctx) =>
    request.method === 'POST' && new URL(request.url).pathname === '/__floor'
      ? floor.fetch(request, env, ctx)
      : app.fetch(request, env, ctx),
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
