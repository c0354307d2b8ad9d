/**
 * What a stats query costs, in D1's exact `meta.rows_read`: it reads the roll-up rows of its
 * range (each key merged in value order, so no grouping sorter), never rows outside the range
 * and never raw traffic. See the cost model in src/rollups/sums.ts.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { type StatName, TIME_VALUED } from '../../../src/counting/statistics.ts';
import { fromEventBody } from '../../../src/ingest/formats.ts';
import { ingestCall } from '../../../src/ingest/ingest.ts';
import { daysBetween } from '../../../src/lib/time/dates.ts';
import { compactMonths } from '../../../src/rollups/compaction.ts';
import { queryStats } from '../../../src/rollups/sums.ts';
import { db, flushAllLogs, makeOwner, makeWebsite } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS, SAFARI_IPHONE } from '../../support/hits.ts';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1, 9);

/** Sends `days` days of traffic through the real pipeline: `perDay` visitors, 3 pages each. */
async function traffic(domain: string, from: number, days: number, perDay: number) {
  await sendTraffic(domain, from, days, perDay);
  // Into D1's roll-ups, which the queries read.
  await flushAllLogs();
}

async function sendTraffic(domain: string, from: number, days: number, perDay: number) {
  for (let d = 0; d < days; d++) {
    for (let v = 0; v < perDay; v++) {
      for (let p = 0; p < 3; p++) {
        const body = {
          page: `https://${domain}/page-${(v * 3 + p) % 12}`,
          screen_resolution: '1920x1080',
        };
        await ingestCall(env, fromEventBody(body), {
          ip: `198.51.100.${v + 1}`,
          userAgent: v % 2 ? SAFARI_IPHONE : CHROME_WINDOWS,
          headers: new Headers(),
          cf: AUSTIN,
          now: from + d * DAY + v * 60_000 + p * 1000,
        });
      }
    }
  }
}

async function rangeShape(websiteId: number, name: string, from: string, to: string) {
  const row = await env.DB.prepare(
    'SELECT count(*) AS r, count(DISTINCT value) AS g FROM stats WHERE website_id = ? AND name = ? AND date BETWEEN ? AND ?',
  )
    .bind(websiteId, name, from, to)
    .first<{ r: number; g: number }>();
  return { r: row?.r ?? 0, g: row?.g ?? 0 };
}

const query = (websiteId: number, name: StatName, from: string, to: string, offset = 0) =>
  queryStats(db(), {
    websiteId,
    through: null,
    name,
    from,
    to,
    sortBy: 'count',
    sort: 'desc',
    limit: 25,
    offset,
  });

describe('stats query cost (D1 rows read)', () => {
  let siteId: number;
  let otherId: number;

  beforeAll(async () => {
    const { key } = await makeOwner('cost');
    siteId = (await makeWebsite(key, { domain: 'cost.example.com' })).id;
    otherId = (await makeWebsite(key, { domain: 'other-cost.example.com' })).id;
    await traffic('cost.example.com', START, 30, 4);
  });

  const ranges: [StatName, string, string][] = [
    ['page', '2026-01-10', '2026-01-10'],
    ['page', '2026-01-05', '2026-01-11'],
    ['page', '2026-01-01', '2026-01-30'],
    ['browser', '2026-01-01', '2026-01-30'],
    ['pageviews', '2026-01-01', '2026-01-30'],
    ['pageviews_hours', '2026-01-05', '2026-01-11'],
    ['visitors', '2026-01-03', '2026-01-20'],
  ];

  it.each(ranges)(
    '%s from %s to %s reads only its range: ≤ R + 3G + K + 2 (K days, each in value order, merged)',
    async (name, from, to) => {
      const { r, g } = await rangeShape(siteId, name, from, to);
      expect(r).toBeGreaterThan(0);
      const { rowsRead, total } = await query(siteId, name, from, to);
      expect(total).toBe(g);
      // Each day is one arm (K of them), whose seek reads one row more; time-valued statistics
      // (dates, hours) read their rows only, paged in the Worker.
      const k = daysBetween(from, to);
      const bound = TIME_VALUED.has(name) ? r + k + 1 : r + 3 * g + k + 2;
      expect(rowsRead).toBeLessThanOrEqual(bound);
      // At least the range itself is read: the count is real, not a cache.
      expect(rowsRead).toBeGreaterThanOrEqual(r);
    },
  );

  it('costs the same however much traffic lies outside the range', async () => {
    const before = await Promise.all(
      ranges.map(([name, from, to]) => query(siteId, name, from, to)),
    );
    // Ten times more data: later days of the same site, and another website on the same days.
    await traffic('cost.example.com', START + 40 * DAY, 10, 4);
    await traffic('other-cost.example.com', START, 30, 4);
    const after = await Promise.all(
      ranges.map(([name, from, to]) => query(siteId, name, from, to)),
    );
    expect(after.map((a) => a.rowsRead)).toEqual(before.map((b) => b.rowsRead));
    expect(after.map((a) => a.rows)).toEqual(before.map((b) => b.rows));
    expect((await rangeShape(otherId, 'page', '2026-01-01', '2026-01-30')).r).toBeGreaterThan(0);
  });

  it("a value looked up whole (a typed filter's) reads that value's rows, one per day at most", async () => {
    const [from, to] = ['2026-01-01', '2026-01-30'];
    const { r } = await rangeShape(siteId, 'page', from, to);
    const ask = (search: string, exact: boolean) =>
      queryStats(db(), {
        websiteId: siteId,
        through: null,
        name: 'page',
        from,
        to,
        search,
        exact,
        sortBy: 'count',
        sort: 'desc',
        limit: 1,
        offset: 0,
      });
    const [whole, searched, cased] = await Promise.all([
      ask('/page-3', true),
      ask('/page-3', false),
      ask('/PAGE-3', true),
    ]);
    expect(whole.rows).toEqual(searched.rows.slice(0, 1));
    expect(whole.total).toBe(1);
    expect(cased.rows).toEqual([]);
    // Each day's arm seeks the value (and reads one row more); the search reads every page.
    expect(whole.rowsRead).toBeLessThanOrEqual(2 * 30 + 2);
    expect(searched.rowsRead).toBeGreaterThanOrEqual(r);
    expect(r).toBeGreaterThan(4 * 30);
  });

  it('a page past the end counts the range once more, at most the cost of the page again', async () => {
    const { r } = await rangeShape(siteId, 'page', '2026-01-01', '2026-01-30');
    const past = await query(siteId, 'page', '2026-01-01', '2026-01-30', 1000);
    expect(past.rows).toEqual([]);
    expect(past.total).toBe(12);
    expect(past.rowsRead).toBeLessThanOrEqual(2 * (r + 3 * 12 + 30 + 2));
  });
});

describe('long ranges cost their months, not their days', () => {
  it('reads a compacted month as one row per value', async () => {
    const { key } = await makeOwner('cost-months');
    const id = (await makeWebsite(key, { domain: 'months-cost.example.com' })).id;
    await traffic('months-cost.example.com', START, 31, 4);
    while ((await compactMonths(db(), Date.UTC(2026, 1, 2))).websites > 0);
    const byDays = await query(id, 'page', '2026-01-01', '2026-01-31');
    const byMonth = await queryStats(db(), {
      websiteId: id,
      through: '2026-01',
      name: 'page',
      from: '2026-01-01',
      to: '2026-01-31',
      sortBy: 'count',
      sort: 'desc',
      limit: 25,
      offset: 0,
    });
    expect(byMonth.rows).toEqual(byDays.rows);
    const { r } = await rangeShape(id, 'page', '2026-01-01', '2026-01-31');
    // One month row per page (12), one arm: R + 3G + K + 2.
    expect(byMonth.rowsRead).toBeLessThanOrEqual(12 + 3 * 12 + 1 + 2);
    expect(byDays.rowsRead).toBeGreaterThanOrEqual(r);
    expect(r).toBe(31 * 12);
  });
});
