/**
 * What the event log costs in rows written per page view (docs/ARCHITECTURE.md, Cost): the
 * object's own rows plus its share of each flush's D1 rows, exact (SQLite's and D1's
 * counts), for generated traffic (Zipf-distributed pages, real devices and places) arriving
 * at a steady rate and flushed every `FLUSH_DELAY_MS` of its time, as the alarm does.
 * Measured here, with the visit statistics: 2.59 rows at 50 page views a second (1.52 in the
 * object: the event, and the visitor for the 52% of page views that start a visit; 1.07 in
 * D1), 3.51 at 10, 6.9 at 1 — low traffic flushes few page views at a time.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { generateTraffic } from '../../scripts/lib/traffic.ts';
import type { WebsiteRow } from '../../src/db/schema.ts';
import { websites } from '../../src/db/schema.ts';
import { websiteLog } from '../../src/event-log/client.ts';
import { FLUSH_DELAY_MS } from '../../src/event-log/event-log.ts';
import { parseHit } from '../../src/ingest/payload.ts';
import { prepareSiteHit } from '../../src/ingest/pipeline.ts';
import { db } from '../support/api.ts';
import { record } from '../support/event-log.ts';
import { site as ingestSite } from '../support/ingest-fixtures.ts';

/** Rows written per page view when `perSecond` page views arrive each second. */
async function rowsPerPageview(perSecond: number, pageviews: number) {
  // A website D1 has: a flush writes only for those (src/event-log/flush.ts).
  const made = await ingestSite('cost');
  const domain = made.domain;
  const site = (await db()
    .select()
    .from(websites)
    .where(eq(websites.id, made.id))
    .get()) as WebsiteRow;
  const log = websiteLog(env, site.id);
  const traffic = generateTraffic({
    seed: 7,
    domain,
    days: 30,
    end: Date.UTC(2026, 9, 1),
    visitorsPerDay: 400,
    pages: 2_000,
  });
  const start = Date.UTC(2026, 8, 1, 10);
  let objectRows = 0;
  let d1Rows = 0;
  let counted = 0;
  let visits = 0;
  let lastFlush = start;
  for (const { body, req } of traffic) {
    if (counted >= pageviews) break;
    const parsed = parseHit(body);
    if (!parsed.ok || body.event) continue;
    // The same visitors and pages, arriving at a steady rate.
    const now = start + Math.floor((counted * 1000) / perSecond);
    const prepared = await prepareSiteHit(site, parsed.hit, { ...req, now });
    if (!prepared.stored) continue;
    const recorded = await record(log, prepared.hit);
    objectRows += recorded.cost.rowsWritten;
    if (recorded.newVisit) visits++;
    counted++;
    if (now - lastFlush >= FLUSH_DELAY_MS) {
      const flushed = await log.flush();
      if (!flushed.ok) throw new Error('flush failed');
      d1Rows += flushed.cost.rowsWritten;
      lastFlush = now;
    }
  }
  const flushed = await log.flush();
  if (!flushed.ok) throw new Error('flush failed');
  d1Rows += flushed.cost.rowsWritten;
  return {
    total: (objectRows + d1Rows) / counted,
    objectRows,
    d1Rows,
    pageviews: counted,
    visits,
  };
}

describe('rows written per page view with the event log', () => {
  it('stays at or under 3 at 50 page views a second on one website', async () => {
    const at50 = await rowsPerPageview(50, 3_000);
    const at10 = await rowsPerPageview(10, 1_000);
    const at1 = await rowsPerPageview(1, 300);
    expect(at50.d1Rows).toBeGreaterThan(0);
    expect(at50.total).toBeLessThanOrEqual(3);
    // The busier the website, the more page views one flush sums, the fewer rows each costs.
    expect(at10.total).toBeLessThan(at1.total);
    expect(at50.total).toBeLessThan(at10.total);
    // The object writes the event of every page view and the visitor when a visit starts;
    // besides, the day's salt and the log's own notes (website, version).
    expect(at50.objectRows - at50.pageviews - at50.visits).toBeGreaterThanOrEqual(0);
    expect(at50.objectRows - at50.pageviews - at50.visits).toBeLessThanOrEqual(3);
  });
});
