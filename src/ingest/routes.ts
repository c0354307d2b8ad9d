/**
 * The hit endpoints: thin — read the body, translate it when it comes from another tracker,
 * hand it to the one ingestion entry point (`ingestCall`), answer. Open to any origin without credentials: trackers run on
 * other sites.
 *
 * - `POST /api/event`: Sightline's (and phpAnalytics') payload, or Plausible's (told apart by
 *   its keys); answers 202 (docs/ARCHITECTURE.md, The HTTP contract).
 * - `POST /api/send`: Umami's payload; answers 200 with a JSON object, as Umami does, because
 *   Umami's tracker reads the response as JSON.
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { requestContext } from '../lib/log.ts';
import { addressRateLimit } from '../lib/rate-limit.ts';
import { mediaType } from '../lib/text/body.ts';
import { fromEventBody, fromUmami } from './formats.ts';
import { type CallFacts, ingestCall } from './ingest.ts';

/** Largest hit body; a real hit is a few hundred bytes (docs/ARCHITECTURE.md, The HTTP contract: 16 KB). */
const EVENT_BODY_LIMIT = 16 * 1024;

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const type = mediaType(c.req);
  // sendBeacon and Plausible send text/plain (no CORS preflight); fetch may send JSON.
  if (type !== '' && type !== 'text/plain' && type !== 'application/json') {
    throw new ApiError(415, 'Send the hit as text/plain or application/json.');
  }
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw new ApiError(400, 'The hit is not valid JSON.');
  }
}

/** What the request tells about the hit besides its payload. */
function factsOf(c: Context<AppEnv>): CallFacts {
  return {
    ip: c.req.header('cf-connecting-ip') ?? null,
    userAgent: c.req.header('user-agent') ?? '',
    headers: c.req.raw.headers,
    cf: c.req.raw.cf as CallFacts['cf'],
    now: Date.now(),
    where: requestContext(c.req.raw),
    ...waitUntilOf(c),
  };
}

/** The request's `waitUntil`, when it has an execution context: dropped hits counted after the answer. */
function waitUntilOf(c: Context<AppEnv>): Pick<CallFacts, 'waitUntil'> {
  try {
    const ctx = c.executionCtx;
    return { waitUntil: (work) => ctx.waitUntil(work) };
  } catch {
    return {};
  }
}

export function createIngestRoutes() {
  const ingestRoutes = new Hono<AppEnv>();
  const limit = bodyLimit({
    maxSize: EVENT_BODY_LIMIT,
    onError: () => {
      throw new ApiError(413, 'The hit is too large.');
    },
  });
  const openCors = (headers: string[]) =>
    cors({
      origin: '*',
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: headers,
      exposeHeaders: ['X-Drop-Reason'],
      maxAge: 86_400,
      credentials: false,
    });

  // Counted per client address before any website is looked up.
  const perAddress = addressRateLimit('hits');
  ingestRoutes.use('/event', openCors(['Content-Type']));
  ingestRoutes.post('/event', perAddress, limit, async (c) => {
    const dropped = await ingestCall(c.env, fromEventBody(await readJson(c)), factsOf(c));
    if (dropped) c.header('X-Drop-Reason', dropped);
    return c.body(null, 202);
  });

  // Umami's tracker sends `x-umami-cache` back once it has one; it is accepted and ignored.
  ingestRoutes.use('/send', openCors(['Content-Type', 'x-umami-cache']));
  ingestRoutes.post('/send', perAddress, limit, async (c) => {
    const dropped = await ingestCall(c.env, fromUmami(await readJson(c)), factsOf(c));
    if (dropped) c.header('X-Drop-Reason', dropped);
    return c.json({}, 200);
  });
  return ingestRoutes;
}
