/**
 * The one ingestion entry point (docs/ARCHITECTURE.md, "The path of a hit"). Every hit that
 * Sightline counts goes through `ingestCall`: the hit endpoints, `npm run dev`'s demo data
 * and the screenshots (through the replay route, src/ingest/replay.ts), the benchmark's
 * loader and Worker, and the tests. It takes
 * a translated tracker call and what the request told about it, runs each hit through the
 * pipeline — lookup, drops, rate limit, enrichment — and writes the stored ones.
 */
import { createDb, type Database } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import type { Env } from '../env.ts';
import { ApiError, tryAgainSoon } from '../lib/errors.ts';
import { addressKey } from '../lib/ip.ts';
import { type LogContext, logError } from '../lib/log.ts';
import { tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { localDateHour } from '../lib/time/dates.ts';
import type { LogHit } from '../website-log/events.ts';
import type { DroppedHit } from '../website-log/object/dropped.ts';
import { engageInLog, noteDropped, storeInLogs } from '../website-log/worker/calls.ts';
import type { Translated } from './formats.ts';
import { type Hit, parseHit } from './payload.ts';
import {
  type DropReason,
  findSite,
  findSiteByDomain,
  findSiteById,
  type HitRequest,
  type PreparedHit,
  prepareSiteHit,
} from './pipeline.ts';

/** What a request tells about its hits besides the payload. */
export type CallFacts = Omit<HitRequest, 'withinLimit'> & {
  /** Where the call came in, for the log line of a failure (method and path). */
  where?: LogContext;
  /** Collects the ids of the websites whose logs stored a hit (src/ingest/replay.ts). */
  touched?: Set<number>;
  /** Hits of past days loaded by the replay route (src/ingest/replay.ts). */
  replayed?: boolean;
  /**
   * Runs work after the answer (the request's `waitUntil`): the counting of dropped hits,
   * which the answer does not wait for. None: the call waits for it.
   */
  waitUntil?: (work: Promise<unknown>) => void;
};

/**
 * Runs a tracker call's hits through the pipeline and stores the kept ones in their
 * websites' event logs (answering once they are durable there); returns the drop reason when
 * none was stored. A failure anywhere — a lookup, a log — is a 503 with `Retry-After` and
 * nothing counted, so the tracker's retry counts every hit exactly once; so is a rate limit
 * (429) on any of the websites named. A malformed hit is a 400.
 */
export async function ingestCall(
  env: Env,
  translated: Translated,
  facts: CallFacts,
): Promise<DropReason | null> {
  if (translated.kind === 'malformed') throw new ApiError(400, translated.message);
  if (translated.kind === 'invalid')
    throw new ApiError(400, `The hit is invalid: ${translated.message}.`);
  if (translated.kind === 'ignored') return translated.reason;
  const db = createDb(env.DB);
  try {
    const hits = await parsedHits(db, translated);
    if (!Array.isArray(hits)) return hits;
    const req: HitRequest = {
      ...facts,
      withinLimit: (websiteId) =>
        withinLimit(env, 'RATE_LIMIT_EVENTS', [
          addressKey(facts.ip ?? 'unknown'),
          String(websiteId),
        ]),
    };
    let firstDrop: DropReason | null = null;
    const writes: LogHit[] = [];
    const drops: DroppedHit[] = [];
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
      const prepared = await prepareSiteHit(site, hit, req);
      if (prepared.stored) {
        writes.push(facts.replayed ? { ...prepared.hit, replayed: true } : prepared.hit);
        continue;
      }
      drops.push(droppedHit(site, prepared, facts.now));
      if (prepared.reason === 'rate_limited') {
        await countDropped(env, drops, facts);
        throw tooManyRequests();
      }
      firstDrop ??= prepared.reason;
    }
    await countDropped(env, drops, facts);
    if (writes.length === 0) return firstDrop;
    // An engagement updates its page view (each website's on its own: it adds no hit).
    const engagements = writes.filter((w) => w.kind === 'engagement');
    const counted = writes.filter((w) => w.kind !== 'engagement');
    const engaged = await Promise.all(engagements.map((e) => engageInLog(env, e)));
    const dropped = await storeInLogs(env, counted);
    for (const write of writes) facts.touched?.add(write.websiteId);
    if ((counted.length > 0 && !dropped) || engaged.includes('engaged')) return null;
    const why = (['too_fast', 'engagement_cut'] as const).find((r) => engaged.includes(r));
    return dropped ?? why ?? 'no_page_view';
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Nothing of this call was counted (a call naming several websites stages all first;
    // storeInLogs says when a failed commit leaves it counted in another log).
    logError('hit not stored', facts.where ?? {}, err);
    throw tryAgainSoon('The hit could not be stored; try again.');
  }
}

/** A dropped hit as its website's log counts it: its local date, reason, and bot. */
function droppedHit(
  site: WebsiteRow,
  prepared: Extract<PreparedHit, { stored: false }>,
  now: number,
): DroppedHit {
  const bot = prepared.bot === 'unnamed' ? undefined : prepared.bot;
  return {
    websiteId: site.id,
    date: localDateHour(now, site.timezone).date,
    reason: prepared.reason,
    name: bot?.name ?? '',
    kind: bot?.kind ?? '',
  };
}

/**
 * Counts the dropped hits of a call, each in its website's log (docs/ARCHITECTURE.md,
 * "Filtered traffic"): after the answer when the request can (`waitUntil`), else before it.
 * A failure is logged, never the call's: the hits were dropped either way.
 */
async function countDropped(env: Env, drops: DroppedHit[], facts: CallFacts): Promise<void> {
  if (drops.length === 0) return;
  const work = Promise.all(drops.map((drop) => noteDropped(env, drop))).catch((err: unknown) =>
    logError('dropped hits not counted', facts.where ?? {}, err),
  );
  if (facts.waitUntil) facts.waitUntil(work);
  else await work;
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
