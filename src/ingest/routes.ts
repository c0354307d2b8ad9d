/**
 * `POST /api/event` (DESIGN §3.2): thin — read the body, parse the hit, run the pipeline,
 * answer 202. Open to any origin without credentials: the tracker runs on other sites.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { parseHit } from './payload.ts';
import { processHit } from './pipeline.ts';

/** Largest hit body; a real hit is a few hundred bytes (DESIGN: ~16 KB). */
export const EVENT_BODY_LIMIT = 16 * 1024;

export function createIngestRoutes() {
  const ingest = new Hono<AppEnv>();
  ingest.use(
    '/event',
    cors({
      origin: '*',
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['Content-Type'],
      exposeHeaders: ['X-Drop-Reason'],
      maxAge: 86_400,
      credentials: false,
    }),
  );
  ingest.post(
    '/event',
    bodyLimit({
      maxSize: EVENT_BODY_LIMIT,
      onError: () => {
        throw new ApiError(413, 'The hit is too large.');
      },
    }),
    async (c) => {
      const type =
        (c.req.header('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
      // sendBeacon sends text/plain (no CORS preflight); fetch may send application/json.
      if (type !== '' && type !== 'text/plain' && type !== 'application/json') {
        throw new ApiError(415, 'Send the hit as text/plain or application/json.');
      }
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new ApiError(400, 'The hit is not valid JSON.');
      }
      const parsed = parseHit(body);
      if (!parsed.ok) throw new ApiError(400, parsed.message);

      let outcome: Awaited<ReturnType<typeof processHit>>;
      try {
        outcome = await processHit(createDb(c.env.DB), parsed.hit, {
          ip: c.req.header('cf-connecting-ip') ?? null,
          userAgent: c.req.header('user-agent') ?? '',
          headers: c.req.raw.headers,
          cf: c.req.raw.cf as Record<string, unknown> | undefined,
          now: Date.now(),
        });
      } catch (err) {
        // The batch is a transaction: nothing of this hit was written. Tell the client.
        console.error('hit not stored', {
          error: err instanceof Error ? err.message : String(err),
        });
        throw new ApiError(503, 'The hit could not be stored; try again.', undefined, {
          'Retry-After': '5',
        });
      }
      if (!outcome.stored) {
        c.header('X-Drop-Reason', outcome.reason);
      }
      return c.body(null, 202);
    },
  );
  return ingest;
}
