/**
 * The hit endpoints: thin — read the body, translate it when it comes from another tracker,
 * parse, run the pipeline, answer. Open to any origin without credentials: trackers run on
 * other sites.
 *
 * - `POST /api/event`: Sightline's (and phpAnalytics') payload, or Plausible's (told apart by
 *   its keys); answers 202 (DESIGN §3.2).
 * - `POST /api/send`: Umami's payload; answers 200 with a JSON object, as Umami does, because
 *   Umami's tracker reads the response as JSON.
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { createDb, type Database } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { logError, requestContext } from '../lib/log.ts';
import { addressRateLimit, tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { fromPlausible, fromUmami, isPlausible, type Translated } from './formats.ts';
import { type Hit, parseHit } from './payload.ts';
import {
  type DropReason,
  findSite,
  findSiteByDomain,
  findSiteById,
  type HitRequest,
  prepareSiteHit,
} from './pipeline.ts';
import { type HitWrite, writeHits } from './write.ts';

/** Largest hit body; a real hit is a few hundred bytes (DESIGN: ~16 KB). */
const EVENT_BODY_LIMIT = 16 * 1024;

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
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

/**
 * Runs translated hits through the pipeline and writes the stored ones in one transaction;
 * returns the drop reason when none was stored. A database failure anywhere — a lookup, the
 * salt, the write — is a 503 with `Retry-After` and nothing counted, so the tracker's retry
 * counts every hit exactly once; so is a rate limit (429) on any of the websites named.
 */
async function ingest(c: Context<AppEnv>, translated: Translated): Promise<DropReason | null> {
  if (translated.kind === 'invalid')
    throw new ApiError(400, `The hit is invalid: ${translated.message}.`);
  if (translated.kind === 'ignored') return translated.reason;
  const db = createDb(c.env.DB);
  try {
    const hits = await parsedHits(db, translated);
    if (!Array.isArray(hits)) return hits;
    const req: HitRequest = {
      ip: c.req.header('cf-connecting-ip') ?? null,
      userAgent: c.req.header('user-agent') ?? '',
      headers: c.req.raw.headers,
      cf: c.req.raw.cf as Record<string, unknown> | undefined,
      now: Date.now(),
      withinLimit: (websiteId) =>
        withinLimit(c.env, 'RATE_LIMIT_EVENTS', [clientAddressKey(c), String(websiteId)]),
    };
    let firstDrop: DropReason | null = null;
    const writes: HitWrite[] = [];
    // One tracker call may name a website more than once (Plausible's `d: "x.com,www.x.com"`).
    const seen = new Set<number>();
    for (const hit of hits) {
      const site = await findSite(db, hit);
      if (!site) {
        firstDrop ??= 'unknown_site';
        continue;
      }
      if (seen.has(site.id)) continue;
      seen.add(site.id);
      const prepared = await prepareSiteHit(db, site, hit, req);
      if (prepared.stored) writes.push(prepared.write);
      else if (prepared.reason === 'rate_limited') throw tooManyRequests();
      else firstDrop ??= prepared.reason;
    }
    if (writes.length === 0) return firstDrop;
    await writeHits(db, writes);
    return null;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Every write of this call is one transaction: nothing of it was written. Tell the client.
    logError('hit not stored', requestContext(c.req.raw), err);
    throw new ApiError(503, 'The hit could not be stored; try again.', undefined, {
      'Retry-After': '5',
    });
  }
}

/**
 * The translated hits, validated; a hit named only by website id or domain (a server-side
 * sender such as @umami/node) gets that path on the website as its page. `unknown_site`
 * when such a website does not exist.
 */
async function parsedHits(
  db: Database,
  translated: Extract<Translated, { kind: 'hits' }>,
): Promise<Hit[] | 'unknown_site'> {
  const hits: Hit[] = [];
  for (const body of translated.hits) {
    if (body.page === undefined && typeof body.path === 'string') {
      const site =
        translated.websiteId !== undefined
          ? await findSiteById(db, translated.websiteId)
          : typeof body.domain === 'string'
            ? await findSiteByDomain(db, body.domain)
            : undefined;
      if (!site) return 'unknown_site';
      body.page = `https://${site.domain}${body.path}`;
    }
    const parsed = parseHit(body);
    if (!parsed.ok) throw new ApiError(400, parsed.message);
    hits.push({
      ...parsed.hit,
      ...(translated.websiteId !== undefined ? { websiteId: translated.websiteId } : {}),
    });
  }
  return hits;
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
    const body = await readJson(c);
    const translated: Translated =
      body !== null &&
      typeof body === 'object' &&
      !Array.isArray(body) &&
      isPlausible(body as Record<string, unknown>)
        ? fromPlausible(body as Record<string, unknown>)
        : { kind: 'hits', hits: [body as Record<string, unknown>] };
    if (
      translated.kind === 'hits' &&
      translated.hits.some((h) => h === null || typeof h !== 'object' || Array.isArray(h))
    ) {
      throw new ApiError(400, 'The hit must be a JSON object.');
    }
    const dropped = await ingest(c, translated);
    if (dropped) c.header('X-Drop-Reason', dropped);
    return c.body(null, 202);
  });

  // Umami's tracker sends `x-umami-cache` back once it has one; it is accepted and ignored.
  ingestRoutes.use('/send', openCors(['Content-Type', 'x-umami-cache']));
  ingestRoutes.post('/send', perAddress, limit, async (c) => {
    const dropped = await ingest(c, fromUmami(await readJson(c)));
    if (dropped) c.header('X-Drop-Reason', dropped);
    return c.json({}, 200);
  });
  return ingestRoutes;
}
