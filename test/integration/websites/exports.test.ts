/**
 * Exports (docs/ARCHITECTURE.md, "Exports"): a website's numbers as Plausible's CSV export,
 * read back — imported into a new website, every statistic the format carries equals the
 * original's over every range (the round trip) — and its event log as NDJSON and CSV.
 */

import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebsiteLogCore } from '../../../src/website-log/object/core.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

let key: string;
let otherKey: string;
let site: { id: number; domain: string };

const DAYS = ['2026-03-30', '2026-03-31', '2026-04-01', '2026-04-02'];
const PAGES = ['/', '/pricing', '/docs/a', '/blog/b'];
const REFERRERS = ['', 'https://news.ycombinator.com/item', 'https://www.google.com/'];
/** Campaigns and event names (and referrers' hosts `-0.news.example`…). */
const ODD = ['+sale', '=1+1', '-x', '@home'];
const PLACES = [
  { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX', region: 'Texas' },
  { country: 'EE', continent: 'EU', city: 'Tallinn' },
  { country: 'DE', continent: 'EU' },
];

beforeAll(async () => {
  ({ key } = await makeOwner('exports'));
  ({ key: otherKey } = await makeOwner('exports-other'));
  site = await makeWebsite(key, { domain: 'exports.example.com', privacy: '0' });
  // Thirty people over four days, each one to four page views a day (a few via a campaign), an
  // event now and then: a known spread of every statistic the format carries.
  let n = 0;
  for (const [d, day] of DAYS.entries())
    for (let who = 0; who < 30; who++) {
      if ((who + d) % 4 === 0) continue;
      const views = 1 + ((who * 7 + d) % 4);
      const referrer = REFERRERS[(who + d) % 3] as string;
      const campaign = who % 5 === 0 ? '?utm_campaign=spring&utm_source=news' : '';
      for (let v = 0; v < views; v++) {
        freezeAt(
          `${day}T${String(8 + (who % 10)).padStart(2, '0')}:${String(v * 7).padStart(2, '0')}:00Z`,
        );
        const page = `https://${site.domain}${PAGES[(who + v) % 4]}${v === 0 ? campaign : ''}`;
        const res = await sendHit(
          { page, ...(v === 0 && referrer ? { referrer } : {}) },
          {
            ip: `198.51.100.${who + 1}`,
            ua: who % 3 === 0 ? SAFARI_IPHONE : CHROME_WINDOWS,
            cf: PLACES[who % 3],
          },
        );
        expect(res.status).toBe(202);
        n++;
      }
      if (who % 4 === 1) {
        const res = await sendHit(
          { page: `https://${site.domain}/pricing`, event: { name: 'Signup' } },
          { ip: `198.51.100.${who + 1}`, ua: CHROME_WINDOWS, cf: PLACES[who % 3] },
        );
        expect(res.status).toBe(202);
      }
    }
  // Values a spreadsheet would take for formulas, which the round trip keeps as they are.
  for (const [i, odd] of ODD.entries()) {
    freezeAt(`${DAYS[1]}T20:0${i}:00Z`);
    const ip = `198.51.100.${200 + i}`;
    const page = `https://${site.domain}/-x?utm_campaign=${encodeURIComponent(odd)}`;
    const view = await sendHit({ page, referrer: `https://-${i}.news.example/` }, { ip });
    expect(view.status).toBe(202);
    const event = await sendHit({ page, event: { name: odd } }, { ip });
    expect(event.status).toBe(202);
  }
  vi.useRealTimers();
  expect(n).toBeGreaterThan(100);
});

afterAll(() => {
  vi.useRealTimers();
});

const download = async (path: string, k = key) => {
  const { exports } = await import('cloudflare:workers');
  const res = await exports.default.fetch(
    new Request(`https://sightline.test/api/v1${path}`, {
      headers: { authorization: `Bearer ${k}` },
    }),
  );
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
};

/** The statistics Plausible's format carries, as API v1 names them. */
const CARRIED = [
  'pageviews',
  'visitors',
  'visits',
  'bounces',
  'visit_duration',
  'page',
  'landing_page',
  'exit_page',
  'referrer',
  'campaign',
  'country',
  'device',
  'browser',
  'os',
  'event',
];

const statistic = async (id: number, name: string, from: string, to: string) => {
  const res = await call(`/api/v1/stats/${id}?name=${name}&from=${from}&to=${to}&per_page=100`, {
    key,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data;
};

describe("Plausible's format", () => {
  let zip: Uint8Array;

  it('is a zip of the ten tables, named by the first and last dates', async () => {
    const { res, bytes } = await download(`/websites/${site.id}/export?format=plausible`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="exports_example_com_\d{8}\.zip"$/,
    );
    zip = bytes;
    const files = unzipSync(bytes);
    expect(Object.keys(files).sort()).toEqual(
      [
        'browsers',
        'custom_events',
        'devices',
        'entry_pages',
        'exit_pages',
        'locations',
        'operating_systems',
        'pages',
        'sources',
        'visitors',
      ].map((t) => `imported_${t}_20260330_20260402.csv`),
    );
    const visitors = strFromU8(files['imported_visitors_20260330_20260402.csv'] as Uint8Array);
    expect(visitors.split('\r\n')[0]).toBe('date,visitors,pageviews,bounces,visits,visit_duration');
    expect(visitors.split('\r\n')).toHaveLength(DAYS.length + 2);
    const sources = strFromU8(files['imported_sources_20260330_20260402.csv'] as Uint8Array);
    expect(sources).toContain('news.ycombinator.com');
    expect(sources).toContain(',spring,');
    // A data file, read by importers: each value exactly as it is.
    for (const odd of ODD) expect(sources).toContain(`,${odd},`);
    expect(sources).toContain(',-0.news.example,');
    const events = strFromU8(files['imported_custom_events_20260330_20260402.csv'] as Uint8Array);
    for (const odd of ODD) expect(events).toContain(`\r\n${DAYS[1]},${odd},`);
  });

  it('imported into a new website, gives the same numbers for every statistic it carries', async () => {
    const copy = await makeWebsite(key, { domain: 'exports-copy.example.com', privacy: '0' });
    const res = await call(`/api/v1/websites/${copy.id}/imports?source=plausible`, {
      method: 'POST',
      key,
      body: { raw: zip, type: 'application/zip' },
    });
    expect(res.status, res.text).toBe(201);
    const ranges = fc.sample(
      fc
        .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
        .map(([a, b]) => [DAYS[Math.min(a, b)] as string, DAYS[Math.max(a, b)] as string]),
      { numRuns: 4, seed: 34 },
    );
    for (const name of CARRIED)
      expect(
        await statistic(site.id, name, DAYS[0] as string, DAYS[3] as string),
        name,
      ).not.toEqual([]);
    const all: [string, string][] = [[DAYS[0] as string, DAYS[3] as string]];
    for (const [from = '', to = ''] of [...all, ...ranges])
      for (const name of CARRIED)
        expect(await statistic(copy.id, name, from, to), `${name} ${from}..${to}`).toEqual(
          await statistic(site.id, name, from, to),
        );
  });

  it("is another owner's 404, and a bad format a 422", async () => {
    expect(
      (await download(`/websites/${site.id}/export?format=plausible`, otherKey)).res.status,
    ).toBe(404);
    expect((await download(`/websites/${site.id}/export?format=xml`)).res.status).toBe(422);
  });
});

describe('the event log', () => {
  it('streams every event as NDJSON, oldest first, with its columns', async () => {
    const { res, bytes } = await download(`/websites/${site.id}/export?format=events`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = strFromU8(bytes).trimEnd().split('\n');
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = await call(`/api/v1/stats/${site.id}/summary?from=${DAYS[0]}&to=${DAYS[3]}`, {
      key,
    });
    const customs = events.filter((e) => e.kind === 'event');
    expect(events.length - customs.length).toBe(
      (summary.json.data as { pageviews: number }).pageviews,
    );
    expect(new Set(customs.map((e) => e.name))).toEqual(new Set(['Signup', ...ODD]));
    const first = events[0] as Record<string, unknown>;
    // The first is person 1's first page view (person 0 skips the first day).
    expect(first).toMatchObject({
      id: 1,
      kind: 'pageview',
      date: DAYS[0],
      country: 'EE',
      city: 'Tallinn',
    });
    expect(Object.keys(first)).toHaveLength(40);
    const ids = events.map((e) => e.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('streams CSV with a header line', async () => {
    const { res, bytes } = await download(`/websites/${site.id}/export?format=events&as=csv`);
    expect(res.status).toBe(200);
    const lines = strFromU8(bytes).trimEnd().split('\r\n');
    expect(lines[0]?.startsWith('id,time,date,hour,kind,name,label,page,hostname')).toBe(true);
    const ndjson = strFromU8((await download(`/websites/${site.id}/export?format=events`)).bytes);
    expect(lines).toHaveLength(ndjson.trimEnd().split('\n').length + 1);
  });
});

describe('a log that keeps its events for a while (EVENT_RETENTION_DAYS)', () => {
  it("starts Plausible's export at the first date the log holds whole", async () => {
    const s = await makeWebsite(key, { domain: 'exports-retention.example.com', privacy: '0' });
    const now = Date.now();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const old = now - 40 * 86_400_000;
    const recent = now - 86_400_000;
    const held = day(old + 86_400_000);
    await runInDurableObject(websiteLog(env, s.id), async (_instance, state) => {
      const log = new WebsiteLogCore(state.storage, { DB: env.DB, EVENT_RETENTION_DAYS: '30' });
      for (const time of [old, recent])
        await record(log, logHit(s.id, { time, date: day(time), hour: '10' }));
      expect(await log.flush()).toMatchObject({ ok: true, events: 2 });
      await log.alarm(); // forgets the events older than 30 days
    });
    await evictDurableObject(websiteLog(env, s.id));
    const { res, bytes } = await download(`/websites/${s.id}/export?format=plausible`);
    expect(res.status).toBe(200);
    const files = unzipSync(bytes);
    const compact = (d: string) => d.replaceAll('-', '');
    const name = `imported_visitors_${compact(held)}_${compact(day(recent))}.csv`;
    expect(Object.keys(files)).toContain(name);
    expect(
      strFromU8(files[name] as Uint8Array)
        .trimEnd()
        .split('\r\n'),
    ).toEqual([
      'date,visitors,pageviews,bounces,visits,visit_duration',
      `${day(recent)},1,1,1,1,0`,
    ]);
  });
});
