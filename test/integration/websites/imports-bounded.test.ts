/**
 * Single hits' imports in bounded memory (docs/ARCHITECTURE.md, "Imported history"): the
 * visitor-days and visits that do not fit are staged in the pending import's D1 rows and
 * counted there, and the rows come out exactly as counting everything in memory gave them,
 * whatever the order of the hits and wherever the bound cuts a visitor-day or a visit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedEventName } from '../../../src/counting/statistics.ts';
import { ImportStaging } from '../../../src/imports/d1-staging.ts';
import { Tally } from '../../../src/imports/format.ts';
import { RawCounter, type RawHit } from '../../../src/imports/raw.ts';
import { abandonImport, beginImport, writeImported } from '../../../src/imports/store.ts';
import { localDateHour } from '../../../src/lib/time/dates.ts';
import { call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { newlineBomb } from '../../support/bombs.ts';

/**
 * The counter as it was before the bound, kept as the reference: every visitor-day and visit
 * in memory until the end.
 */
class InMemoryCounter {
  private visitors = new Map<
    string,
    Omit<RawHit, 'visitor' | 'visit' | 'kind' | 'page' | 'referrer' | 'campaign'> & { hour: string }
  >();
  private visits = new Map<
    string,
    {
      firstAt: number;
      hour: string;
      landing: string;
      referrer: string;
      campaign: string;
      lastAt: number;
      exit: string;
      views: number;
    }
  >();

  constructor(
    private readonly tally: Tally,
    private readonly timeZone: string,
  ) {}

  add(hit: RawHit): void {
    const { date, hour } = localDateHour(hit.at, this.timeZone);
    if (hit.kind === 'event') {
      this.tally.add('event', date, storedEventName(hit.page), 1);
      return;
    }
    this.tally.add('pageviews', date, date, 1);
    this.tally.add('pageviews_hours', date, hour, 1);
    this.tally.add('page', date, hit.page, 1);
    const visitorKey = `${date}\u0000${hit.visitor}`;
    const known = this.visitors.get(visitorKey);
    if (!known || hit.at < known.at) {
      const { at, browser, os, device, country, language, resolution } = hit;
      this.visitors.set(visitorKey, {
        at,
        browser,
        os,
        device,
        country,
        language,
        resolution,
        hour,
      });
    }
    const visitKey = `${date}\u0000${hit.visit}`;
    const visit = this.visits.get(visitKey);
    if (!visit) {
      this.visits.set(visitKey, {
        firstAt: hit.at,
        hour,
        landing: hit.page,
        referrer: hit.referrer,
        campaign: hit.campaign,
        lastAt: hit.at,
        exit: hit.page,
        views: 1,
      });
      return;
    }
    visit.views++;
    if (hit.at < visit.firstAt) {
      Object.assign(visit, { firstAt: hit.at, hour, landing: hit.page });
      Object.assign(visit, { referrer: hit.referrer, campaign: hit.campaign });
    }
    if (hit.at >= visit.lastAt) Object.assign(visit, { lastAt: hit.at, exit: hit.page });
  }

  finish(): void {
    const t = this.tally;
    for (const [key, v] of this.visitors) {
      const date = key.slice(0, 10);
      t.add('visitors', date, date, 1);
      t.add('visitors_hours', date, v.hour, 1);
      for (const name of ['browser', 'os', 'device', 'country', 'language', 'resolution'] as const)
        t.add(name, date, v[name], 1);
    }
    for (const [key, v] of this.visits) {
      const date = key.slice(0, 10);
      t.add('visits', date, date, 1);
      t.add('visits_hours', date, v.hour, 1);
      t.add('landing_page', date, v.landing, 1);
      t.add('referrer', date, v.referrer, 1);
      t.add('campaign', date, v.campaign, 1);
      t.add('exit_page', date, v.exit, 1);
      if (v.views === 1) t.add('bounces', date, date, 1);
      t.add('visit_duration', date, date, Math.floor((v.lastAt - v.firstAt) / 1000));
    }
  }
}

let sites = 0;

const newSite = async (timezone: string) => {
  const { key } = await makeOwner(`bounded-${++sites}`);
  return makeWebsite(key, { domain: `bounded-${sites}.example.com`, timezone });
};

/** An import's rows, as `name|date|value → count`, and the rows staged that are left. */
async function importRows(importId: number) {
  const { results } = await db()
    .$client.prepare('SELECT name, date, value, count FROM imported_stats WHERE import_id = ?')
    .bind(importId)
    .all<{ name: string; date: string; value: string; count: number }>();
  return Object.fromEntries(results.map((r) => [`${r.name}|${r.date}|${r.value}`, r.count]));
}

/** Counts hits into a new pending import's rows, with records held up to `limit` bytes. */
async function countBounded(hits: RawHit[], timeZone: string, limit: number, settleEvery: number) {
  const website = await newSite(timeZone);
  const importId = await beginImport(db(), website.id, 'umami');
  const tally = new Tally();
  const staging = new ImportStaging(db(), website.id, importId);
  const write = () => writeImported(db(), website.id, importId, tally.take());
  const flush = async () => {
    if (tally.size > 20) await write();
  };
  const counter = new RawCounter(tally, timeZone, { spill: staging, flush, limit });
  let held = 0;
  for (const [i, hit] of hits.entries()) {
    counter.add(hit);
    if ((i + 1) % settleEvery === 0) {
      await counter.settle();
      held = Math.max(held, counter.held);
    }
  }
  await counter.finish();
  await write();
  return { rows: await importRows(importId), held, staged: staging.rowsWritten > 0 };
}

/** The same hits counted the way they were before the bound, written the same way. */
async function countInMemory(hits: RawHit[], timeZone: string) {
  const website = await newSite(timeZone);
  const importId = await beginImport(db(), website.id, 'umami');
  const tally = new Tally();
  const counter = new InMemoryCounter(tally, timeZone);
  for (const hit of hits) counter.add(hit);
  counter.finish();
  await writeImported(db(), website.id, importId, tally.take());
  return importRows(importId);
}

/** Hits over two days around local midnights, at instants that often tie. */
const BASE = Date.parse('2024-03-09T20:00:00Z');
const text = (values: string[]) => fc.constantFrom(...values);
const LONG = `/${'x'.repeat(253)}😀/tail`;
const hitArb: fc.Arbitrary<RawHit> = fc.record({
  at: fc
    .tuple(fc.integer({ min: 0, max: 12 }), fc.constantFrom(0, 999, 1000))
    .map(([step, ms]) => BASE + step * 233 * 60_000 + ms),
  visitor: text(['a', 'b', 'c']),
  visit: text(['v1', 'v2', 'v3', 'v4']),
  kind: fc.constantFrom<'pageview' | 'event'>('pageview', 'pageview', 'pageview', 'event'),
  page: text(['/', '/a', '/b?x=1', LONG, 'Signup']),
  referrer: text(['', 'google.com', 'news.ycombinator.com']),
  campaign: text(['', 'spring', 'fall']),
  browser: text(['Chrome', 'Firefox', 'Unknown']),
  os: text(['Windows', 'macOS', 'Unknown']),
  device: text(['desktop', 'mobile', 'Unknown']),
  country: text(['', 'DE:Germany', 'US:United States']),
  language: text(['', 'de', 'en']),
  resolution: text(['', '1440x900', '390x844']),
});

/** A page view of many visitors and visits, a minute after the one before. */
const plainHit = (i: number): RawHit => ({
  at: BASE + i * 60_000,
  visitor: `s${i % 150}`,
  visit: `v${i % 170}`,
  kind: 'pageview',
  page: `/p${i % 7}`,
  referrer: '',
  campaign: '',
  browser: 'Chrome',
  os: 'Linux',
  device: 'desktop',
  country: '',
  language: 'en',
  resolution: '',
});

describe('counting single hits in bounded memory', () => {
  it('gives the rows counting in memory gave, for any order and any bound', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hitArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom('UTC', 'Asia/Kolkata', 'America/New_York', 'Pacific/Kiritimati'),
        fc.constantFrom(300, 300, 700, 2_500, 1e9),
        fc.constantFrom(1, 1, 2, 7, 1000),
        async (hits, timeZone, limit, settleEvery) => {
          const expected = await countInMemory(hits, timeZone);
          const bounded = await countBounded(hits, timeZone, limit, settleEvery);
          expect(bounded.rows).toEqual(expected);
          // Memory held what the bound allows, between pieces.
          expect(bounded.held).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 100, seed: 46 },
    );
  });

  it('stages what does not fit and leaves no staged row behind', async () => {
    const hits = [...Array(400).keys()].map(plainHit);
    const { rows, staged } = await countBounded(hits, 'Europe/Berlin', 4_000, 10);
    expect(staged).toBe(true);
    expect(Object.keys(rows).filter((key) => key.startsWith('~'))).toEqual([]);
    expect(rows).toEqual(await countInMemory(hits, 'Europe/Berlin'));
  });

  it('an import that fails after staging leaves none of its staged rows', async () => {
    const website = await newSite('UTC');
    const importId = await beginImport(db(), website.id, 'goatcounter');
    const staging = new ImportStaging(db(), website.id, importId);
    const bound = { spill: staging, flush: async () => {}, limit: 1 };
    const counter = new RawCounter(new Tally(), 'UTC', bound);
    counter.add(plainHit(0));
    await counter.settle();
    const staged = Object.keys(await importRows(importId)).map((key) => key.split('|')[0]);
    expect(staged.sort()).toEqual(['~visitor-days', '~visits']);
    await abandonImport(db(), website.id, importId);
    expect(await importRows(importId)).toEqual({});
  });
});

describe('a compressed bomb through the API', () => {
  it('1 GB of line breaks in 1 MB of gzip is a 422 naming the file and its line, early', async () => {
    const { key } = await makeOwner('bomb');
    const website = await makeWebsite(key, { domain: 'bomb.example.com' });
    const res = await call(
      `/api/v1/websites/${website.id}/imports?source=goatcounter&file_name=goatcounter-export.csv.gz`,
      { method: 'POST', key, body: { raw: newlineBomb(), type: 'application/gzip' } },
    );
    expect(res.status).toBe(422);
    // It stopped after 1 MiB of text without a record, on line 1,048,577 of a gigabyte's
    // (test/unit/import-bombs.test.ts counts the bytes read).
    expect(res.json.message).toBe(
      'goatcounter-export.csv, line 1048577: 1048576 characters without a record',
    );
    const { results } = await db()
      .$client.prepare('SELECT count(*) AS n FROM imported_stats WHERE website_id = ?')
      .bind(website.id)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(0);
  });
});
