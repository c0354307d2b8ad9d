/**
 * What the event log costs in rows written per page view (docs/ARCHITECTURE.md, Cost): the
 * object's own rows plus its share of each flush's D1 rows, exact (SQLite's and D1's
 * counts), for generated traffic (Zipf-distributed pages, real devices and places) arriving
 * at a steady rate, the log flushing when its policy says (`flushDueAt`: enough events, or
 * the oldest a day old), as its alarm does. The website has run a day before the week
 * measured, as a website in use has: a value's first sight writes it into the log's
 * dictionary (one row), its next ones nothing.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { trafficDays } from '../../../scripts/lib/traffic.ts';
import type { WebsiteRow } from '../../../src/db/schema.ts';
import { websites } from '../../../src/db/schema.ts';
import { parseHit } from '../../../src/ingest/payload.ts';
import { prepareSiteHit } from '../../../src/ingest/pipeline.ts';
import { flushDueAt } from '../../../src/website-log/object/flush.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { db } from '../../support/api.ts';
import { record } from '../../support/event-log.ts';
import { site as ingestSite } from '../../support/ingest-fixtures.ts';

/** Rows written per page view over a week when `perSecond` page views arrive each second. */
async function rowsPerPageview(perSecond: number) {
  // A website D1 has: a flush writes only for those (src/website-log/object/flush.ts).
  const made = await ingestSite('cost');
  const site = (await db()
    .select()
    .from(websites)
    .where(eq(websites.id, made.id))
    .get()) as WebsiteRow;
  const log = websiteLog(env, site.id);
  const days = trafficDays({
    seed: 21,
    domain: made.domain,
    days: 8,
    end: Date.UTC(2026, 9, 1),
    visitorsPerDay: 150,
    pages: 10_000,
  });
  let now = Date.UTC(2026, 8, 1, 10);
  const waiting = { count: 0, oldest: null as number | null };
  const tally = { object: 0, d1: 0, pageviews: 0, visits: 0, flushes: 0 };
  const flush = async (counted: boolean) => {
    const flushed = await log.flush();
    if (!flushed.ok) throw new Error('flush failed');
    if (counted) tally.d1 += flushed.cost.rowsWritten;
    if (counted) tally.flushes += 1;
    waiting.count = 0;
    waiting.oldest = null;
  };
  let day = 0;
  for (const hits of days) {
    const counted = day++ > 0;
    for (const { body, req } of hits) {
      const parsed = parseHit(body);
      if (!parsed.ok || body.event) continue;
      // The same visitors and pages, arriving at a steady rate.
      now += 1000 / perSecond;
      const prepared = await prepareSiteHit(site, parsed.hit, { ...req, now: Math.floor(now) });
      if (!prepared.stored) continue;
      const recorded = await record(log, prepared.hit);
      waiting.count += 1;
      waiting.oldest ??= now;
      if (counted) {
        tally.object += recorded.cost.rowsWritten;
        tally.pageviews += 1;
        if (recorded.newVisit) tally.visits += 1;
      }
      const due = flushDueAt(waiting);
      if (due !== null && due <= now) await flush(counted);
    }
    // The day before the week measured ends flushed.
    if (!counted) await flush(false);
  }
  await flush(true);
  return { ...tally, total: (tally.object + tally.d1) / tally.pageviews };
}

describe('rows written per page view with the event log', () => {
  it.each([0.1, 1, 10, 50])('stay at or under 3 at %s page views a second', async (perSecond) => {
    const cost = await rowsPerPageview(perSecond);
    expect(cost.pageviews).toBeGreaterThan(1_500);
    expect(cost.d1).toBeGreaterThan(0);
    expect(cost.total).toBeLessThanOrEqual(3);
    // The object writes the event of every page view and the visitor when a visit starts;
    // besides, a value's first sight (the dictionary) and the day's salt.
    expect(cost.object).toBeGreaterThanOrEqual(cost.pageviews + cost.visits);
  });
});
