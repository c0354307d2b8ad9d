/**
 * The statistics page's long views: "Last 12 months", "This year" and "All time", a chart
 * that sums weeks or months over long ranges, and a page that stays small for ten years.
 * Hits go through the public endpoint on known dates; the hourly maintenance compacts the
 * months that are over.
 */
import { exports } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { compactedThrough } from '../../../src/rollups/compaction.ts';
import { db } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { sendHit } from '../../support/hits.ts';
import { chartRows, linkNamed, totalsOf } from '../../support/html.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const TODAY = '2026-11-23T12:00:00Z';
/** One page view on each of these dates (two on the last). */
const HITS = [
  '2018-05-10T10:00:00Z',
  '2020-02-29T10:00:00Z',
  '2025-12-31T10:00:00Z',
  '2026-01-01T10:00:00Z',
  '2026-11-20T10:00:00Z',
  '2026-11-20T11:00:00Z',
];

let s: Awaited<ReturnType<typeof site>>;

beforeAll(async () => {
  s = await site('long-views', { privacy: '0' });
  for (const [i, at] of HITS.entries()) {
    freezeAt(at);
    const hit = await sendHit({ page: `https://${s.domain}/p${i}` }, { ip: `203.0.113.${i + 1}` });
    expect(hit.status).toBe(202);
  }
  freezeAt(TODAY);
  await runCron();
  vi.useRealTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

async function page(query: string) {
  freezeAt(TODAY);
  const res = await exports.default.fetch(`https://sightline.test/stats/${s.domain}?${query}`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('long ranges on the statistics page', () => {
  it('compacts every month that is over', async () => {
    expect(await compactedThrough(db(), s.id)).toBe('2026-10');
  });

  it('offers the long ranges beside the others', async () => {
    const html = await page('range=30d');
    expect(linkNamed(html, 'Last 12 months')?.search).toBe('?range=12mo');
    expect(linkNamed(html, 'This year')?.search).toBe('?range=this_year');
    expect(linkNamed(html, 'All time')?.search).toBe('?range=all');
  });

  it('all time starts at the oldest date with data and charts months', async () => {
    const html = await page('range=all');
    expect(totalsOf(html).pageviews.value).toBe('6');
    const rows = chartRows(html);
    // May 2018 to November 2026: one point a month.
    expect(rows).toHaveLength(8 * 12 + 7);
    expect(rows[0]).toEqual(['2018-05', 1, 1]);
    expect(rows.find((r) => r[0] === '2020-02')).toEqual(['2020-02', 1, 1]);
    expect(rows.at(-1)).toEqual(['2026-11', 2, 2]);
    expect(rows.reduce((n, r) => n + r[2], 0)).toBe(6);
  });

  it('all time starts at the oldest hit even before the log has flushed it', async () => {
    const fresh = await site('long-fresh', { privacy: '0' });
    freezeAt('2024-07-04T10:00:00Z');
    const hit = await sendHit({ page: `https://${fresh.domain}/` }, { ip: '203.0.113.90' });
    expect(hit.status).toBe(202);
    freezeAt(TODAY);
    const res = await exports.default.fetch(
      `https://sightline.test/stats/${fresh.domain}?range=all`,
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(totalsOf(html).pageviews.value).toBe('1');
    expect(chartRows(html)[0]).toEqual(['2024-07', 1, 1]);
  });

  it('the last 12 months and this year chart weeks, from Monday', async () => {
    const year = chartRows(await page('range=12mo'));
    // From 1 December 2025: the first week is cut at the range's start.
    expect(year[0]?.[0]).toBe('2025-12-01');
    expect(year.find((r) => r[0] === '2025-12-29')).toEqual(['2025-12-29', 2, 2]);
    expect(year.at(-1)).toEqual(['2026-11-23', 0, 0]);
    expect(year.find((r) => r[0] === '2026-11-16')).toEqual(['2026-11-16', 2, 2]);
    expect(year.reduce((n, r) => n + r[2], 0)).toBe(4);
    const thisYear = chartRows(await page('range=this_year'));
    expect(thisYear[0]).toEqual(['2026-01-01', 1, 1]);
    expect(thisYear.reduce((n, r) => n + r[2], 0)).toBe(3);
  });

  it('keeps a ten-year page under 100 KB gzipped', async () => {
    const html = await page('from=2016-11-24&to=2026-11-23');
    const rows = chartRows(html);
    expect(rows).toHaveLength(121);
    expect(rows.reduce((n, r) => n + r[2], 0)).toBe(6);
    const gzipped = await new Response(
      new Blob([html]).stream().pipeThrough(new CompressionStream('gzip')),
    ).arrayBuffer();
    expect(gzipped.byteLength).toBeLessThan(100 * 1024);
  });
});
