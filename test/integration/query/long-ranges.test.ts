/**
 * Long ranges (src/rollups/compaction.ts, docs/ARCHITECTURE.md "Long ranges"): complete months
 * compacted into month and year roll-ups, late events added to them by the flush, and every
 * range read as the fewest pieces — for random daily roll-ups, ranges, sorts, searches and
 * pages, the answer equals the sum of the days. Then the same through the public paths: hits
 * sent, the hourly maintenance run, the Stats API asked.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StatName } from '../../../src/counting/statistics.ts';
import { addDays, MAX_DATE, MIN_DATE, piecesOf } from '../../../src/lib/time/dates.ts';
import { compactedThrough, compactMonths } from '../../../src/rollups/compaction.ts';
import { applyFlush } from '../../../src/rollups/increments.ts';
import { queryStats, rollupSums } from '../../../src/rollups/sums.ts';
import { call, db, flushAllLogs } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const NAMES: StatName[] = ['page', 'pageviews', 'browser', 'exit_page'];

/** Daily rows written as the flush writes them (`applyFlush`), `position` its guard. */
async function flushRows(
  websiteId: number,
  position: number,
  rows: [string, string, string, number][],
) {
  await applyFlush(env.DB, { websiteId, partition: 0 }, position, position + 1, rows, {
    firstDate: null,
    lastDate: null,
    events: 0,
    bytes: 0,
  });
  return position + 1;
}

describe('a range read as years, months and days', () => {
  it('of every date Sightline takes: read as key ranges, its 2.9 million days never listed', async () => {
    const s = await site('long-ranges-all');
    await flushRows(s.id, 0, [['page', '2026-01-02', '/a', 2]]);
    const q = { sortBy: 'count', sort: 'desc', limit: 10, offset: 0 } as const;
    for (const through of [null, '2025-12'])
      expect(
        await queryStats(db(), {
          ...q,
          websiteId: s.id,
          through,
          name: 'page',
          from: MIN_DATE,
          to: MAX_DATE,
        }),
      ).toMatchObject({ rows: [{ value: '/a', count: 2 }], total: 1 });
  });

  it('equals the sum of its days, compacted or not, with late events', async () => {
    const s = await site('long-ranges', { timezone: 'Pacific/Kiritimati' });
    // Random daily rows over three years and a half; some values counted 0 (an exit page
    // whose visit went on), some dates without any row.
    const rows = fc.sample(
      fc.tuple(
        fc.constantFrom(...NAMES),
        fc.integer({ min: 0, max: 1300 }),
        fc.constantFrom('/', '/a', '/b', '/B', '/c', 'x_%'),
        fc.integer({ min: -1, max: 9 }),
      ),
      { numRuns: 1500, seed: 7 },
    );
    const day = (n: number) => addDays('2023-06-15', n);
    let position = 0;
    const increments = rows.map(
      ([name, n, value, count]) =>
        [name, day(n), value, Math.max(count, 0)] as [string, string, string, number],
    );
    for (let i = 0; i < increments.length; i += 300)
      position = await flushRows(s.id, position, increments.slice(i, i + 300));

    // Months over in Kiritimati (UTC+14) at 2026-10-31T12:00Z, but not yet in UTC: October.
    const now = Date.parse('2026-10-31T12:00:00Z');
    expect((await compactMonths(db(), now)).websites).toBeGreaterThan(0);
    // Twelve months at a time, from the first month with data.
    expect(await compactedThrough(db(), s.id)).toBe('2024-05');
    while ((await compactMonths(db(), now)).websites > 0);
    expect(await compactedThrough(db(), s.id)).toBe('2026-10');

    // Late events: days of compacted months and of others, through the flush.
    const late = fc.sample(
      fc.tuple(
        fc.constantFrom(...NAMES),
        fc.integer({ min: 0, max: 1300 }),
        fc.constantFrom('/', '/a', '/late'),
        fc.integer({ min: 1, max: 3 }),
      ),
      { numRuns: 200, seed: 8 },
    );
    position = await flushRows(
      s.id,
      position,
      late.map(([name, n, value, count]) => [name, day(n), value, count]),
    );

    const through = await compactedThrough(db(), s.id);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NAMES),
        fc.integer({ min: -20, max: 1320 }),
        fc.integer({ min: 0, max: 1340 }),
        fc.constantFrom('count' as const, 'value' as const),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(undefined, 'b', '%', '_'),
        async (name, start, length, sortBy, sort, limit, page, search) => {
          const from = day(start);
          const to = day(Math.min(start + length, 1320));
          const q = {
            websiteId: s.id,
            name,
            from,
            to,
            sortBy,
            sort,
            limit,
            offset: page * limit,
            search,
          };
          const pieces = await queryStats(db(), { ...q, through });
          const days = await queryStats(db(), { ...q, through: null });
          expect(pieces.rows).toEqual(days.rows);
          expect(pieces.total).toBe(days.total);
          const sums = (t: string | null, perValue: boolean) =>
            rollupSums(db(), { websiteId: s.id, through: t }, NAMES, { from, to }, perValue);
          const sorted = (x: Awaited<ReturnType<typeof sums>>) =>
            x
              .filter((r) => r.count !== 0)
              .sort((a, b) => `${a.name}${a.value}`.localeCompare(`${b.name}${b.value}`));
          expect(sorted(await sums(through, true))).toEqual(sorted(await sums(null, true)));
          expect(sorted(await sums(through, false))).toEqual(sorted(await sums(null, false)));
        },
      ),
      { numRuns: 250 },
    );
  });

  it('cuts a range into the fewest pieces', () => {
    expect(piecesOf({ from: '2025-11-23', to: '2026-11-22' }, '2026-10')).toEqual({
      days: [
        { from: '2025-11-23', to: '2025-11-30' },
        { from: '2026-11-01', to: '2026-11-22' },
      ],
      months: [{ from: '2025-12', to: '2025-12' }],
      years: [{ from: '2026', to: '2026' }],
    });
    // A year's row holds its months up to the last compacted one.
    expect(piecesOf({ from: '2024-01-01', to: '2026-11-22' }, '2026-05')).toEqual({
      days: [{ from: '2026-06-01', to: '2026-11-22' }],
      months: [],
      years: [{ from: '2024', to: '2026' }],
    });
    expect(piecesOf({ from: '2026-01-01', to: '2026-03-31' }, '2026-05')).toEqual({
      days: [],
      months: [{ from: '2026-01', to: '2026-03' }],
      years: [],
    });
    expect(piecesOf({ from: '2026-01-01', to: '2026-12-31' }, null)).toEqual({
      days: [{ from: '2026-01-01', to: '2026-12-31' }],
      months: [],
      years: [],
    });
  });
});

describe('long ranges through the public paths', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts a hit that arrives after its month was compacted, once', async () => {
    const s = await site('long-ranges-api');
    const hit = async (iso: string, page: string, ip: string) => {
      freezeAt(iso);
      expect((await sendHit({ page: `https://${s.domain}${page}` }, { ip })).status).toBe(202);
    };
    await hit('2026-03-10T10:00:00Z', '/spring', '203.0.113.1');
    await hit('2026-04-20T10:00:00Z', '/spring', '203.0.113.2');
    await flushAllLogs();
    // A hit of 30 April whose flush comes after April was compacted (a late flush).
    await hit('2026-04-30T23:00:00Z', '/late', '203.0.113.3');
    freezeAt('2026-05-02T00:00:00Z');
    await runCron();
    expect(await compactedThrough(db(), s.id)).toBe('2026-04');
    await flushAllLogs();
    const asked = async (from: string, to: string) => {
      const res = await call(`/api/v1/stats/${s.id}?name=page&from=${from}&to=${to}&per_page=10`, {
        key: s.key,
      });
      expect(res.status, res.text).toBe(200);
      return res.json.data;
    };
    const want = [
      { value: '/spring', count: 2 },
      { value: '/late', count: 1 },
    ];
    expect(await asked('2026-01-01', '2026-05-01')).toEqual(want);
    expect(await asked('2026-03-01', '2026-04-30')).toEqual(want);
    const months = await env.DB.prepare(
      "SELECT month, value, count FROM stats_months WHERE website_id = ? AND name = 'page' ORDER BY month, value",
    )
      .bind(s.id)
      .all();
    expect(months.results).toEqual([
      { month: '2026-03', value: '/spring', count: 1 },
      { month: '2026-04', value: '/late', count: 1 },
      { month: '2026-04', value: '/spring', count: 1 },
    ]);
  });
});

describe('a time zone that changes after a month was compacted', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('adds the dates it brings back to that month, once', async () => {
    const s = await site('long-ranges-zone', { timezone: 'Pacific/Kiritimati' });
    const hit = async (iso: string, page: string, ip: string) => {
      freezeAt(iso);
      expect((await sendHit({ page: `https://${s.domain}${page}` }, { ip })).status).toBe(202);
    };
    // 31 October, 12:00 UTC: already 1 November in Kiritimati (UTC+14), so October is over.
    await hit('2026-10-30T12:00:00Z', '/before', '203.0.113.1');
    freezeAt('2026-10-31T12:00:00Z');
    await runCron();
    expect(await compactedThrough(db(), s.id)).toBe('2026-10');
    // Moved to Pago Pago (UTC−11), where it is still 31 October: a date of a compacted month.
    const put = await call(`/api/v1/websites/${s.id}`, {
      method: 'PUT',
      key: s.key,
      body: { json: { timezone: 'Pacific/Pago_Pago' } },
    });
    expect(put.status, put.text).toBe(200);
    await hit('2026-10-31T12:30:00Z', '/after', '203.0.113.2');
    await flushAllLogs();
    const res = await call(`/api/v1/stats/${s.id}?name=page&from=2026-10-01&to=2026-10-31`, {
      key: s.key,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual([
      { value: '/after', count: 1 },
      { value: '/before', count: 1 },
    ]);
    const months = await env.DB.prepare(
      "SELECT value, count FROM stats_months WHERE website_id = ? AND name = 'page' AND month = '2026-10' ORDER BY value",
    )
      .bind(s.id)
      .all();
    expect(months.results).toEqual([
      { value: '/after', count: 1 },
      { value: '/before', count: 1 },
    ]);
  });
});
