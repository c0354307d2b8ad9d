/**
 * Replaying hits through the one ingestion entry point inside the running Worker: how
 * `npm run dev` loads its demo traffic (scripts/lib/traffic.ts). `POST /__replay` takes a
 * JSON array of hits as trackers sent them, each with what its request said — client
 * address, User-Agent, headers, Cloudflare's geolocation, the instant — and answers how many
 * were stored and why the others were dropped. Hits are ingested one after another, in the
 * order given, as a tracker's calls would arrive, and the websites' logs are flushed before
 * the answer, so the traffic is in D1's roll-ups when the replay answers.
 *
 * The route exists only when the `REPLAY` variable is `on` (scripts/dev.ts passes it to
 * `wrangler dev`; wrangler.toml never sets it) and only for requests to localhost: a deployed
 * Worker answers it with the 404 of any unknown address.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { flushBeforeReading } from '../website-log/worker/partitions.ts';
import { fromEventBody } from './formats.ts';
import { ingestCall } from './ingest.ts';
import type { CfGeo } from './steps/geo.ts';

/** One replayed hit: the body of `POST /api/event` and its request. */
export type ReplayedHit = {
  body: unknown;
  ip: string;
  userAgent: string;
  headers?: Record<string, string>;
  cf?: CfGeo;
  now: number;
};

export type ReplayResult = { stored: number; dropped: Record<string, number> };

/** The hosts of requests the local-only routes answer. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export async function replayHits(c: Context<AppEnv>): Promise<Response> {
  if (c.env.REPLAY !== 'on' || !LOCAL_HOSTS.has(new URL(c.req.url).hostname)) {
    throw new ApiError(404, 'Not found.');
  }
  const hits = (await c.req.json()) as ReplayedHit[];
  if (!Array.isArray(hits)) throw new ApiError(400, 'Send a JSON array of hits.');
  const result: ReplayResult = { stored: 0, dropped: {} };
  // Replayed traffic is not rate limited: many visitors' hits arrive from one local client.
  const env = { ...c.env, RATE_LIMIT_EVENTS: undefined };
  const touched = new Set<number>();
  for (const hit of hits) {
    const dropped = await ingestCall(env, fromEventBody(hit.body), {
      ip: hit.ip,
      userAgent: hit.userAgent,
      headers: new Headers(hit.headers),
      cf: hit.cf,
      now: hit.now,
      replayed: true,
      touched,
    });
    if (dropped === null) result.stored++;
    else result.dropped[dropped] = (result.dropped[dropped] ?? 0) + 1;
  }
  // Into D1's roll-ups before answering, as a reader's flush would do: the replayed traffic
  // is in D1 when the replay answers.
  for (const websiteId of touched) await flushBeforeReading(c.env, websiteId);
  return c.json(result);
}
