/**
 * Comparisons (docs/ARCHITECTURE.md, "Comparisons"): API v1's summary and the statistics page
 * compare a range with the period before (the default), the same dates a year before, or a
 * range of one's own — each equal to asking for that range plainly — and say what a change
 * means in words, not colour alone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { yearBefore } from '../../../src/query/present/comparison.ts';
import { call, errorOf, makeOwner, makeWebsite } from '../../support/api.ts';
import { signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };

beforeAll(async () => {
  owner = await makeOwner('compare');
  site = await makeWebsite(owner.key, { domain: 'compare.example.com' });
  // A year before: 2 visitors; the month before: 1; this range: 3.
  const visits: [string, number][] = [
    ['2025-03-10', 2],
    ['2026-02-10', 1],
    ['2026-03-10', 3],
  ];
  for (const [day, n] of visits)
    for (let i = 0; i < n; i++) {
      freezeAt(`${day}T10:0${i}:00Z`);
      const res = await sendHit({ page: `https://${site.domain}/` }, { ip: `203.0.113.${i + 1}` });
      expect(res.status).toBe(202);
    }
  vi.useRealTimers();
});
afterAll(() => vi.useRealTimers());

const summary = (query: string) =>
  call(`/api/v1/stats/${site.id}/summary?${query}`, { key: owner.key });
type Summary = { data: { visitors: number }; previous: { visitors: number }; compared: unknown };

describe("API v1's summary", () => {
  it('compares with the period before, a year before or any range, as plain questions answer', async () => {
    const range = 'from=2026-03-01&to=2026-03-31';
    const plain = async (from: string, to: string) =>
      ((await summary(`from=${from}&to=${to}`)).json as Summary).data.visitors;
    const before = (await summary(range)).json as Summary;
    expect(before.compared).toEqual({ mode: 'previous', from: '2026-01-29', to: '2026-02-28' });
    expect(before.previous.visitors).toBe(await plain('2026-01-29', '2026-02-28'));
    const year = (await summary(`${range}&compare=year`)).json as Summary;
    expect(year.compared).toEqual({ mode: 'year', from: '2025-03-01', to: '2025-03-31' });
    expect([year.data.visitors, year.previous.visitors]).toEqual([3, 2]);
    expect(year.previous.visitors).toBe(await plain('2025-03-01', '2025-03-31'));
    const custom = (
      await summary(`${range}&compare=custom&compare_from=2026-02-01&compare_to=2026-02-14`)
    ).json as Summary;
    expect(custom.previous.visitors).toBe(1);
  });

  it('names each bad comparison parameter', async () => {
    const res = await summary('from=2026-03-01&to=2026-03-31&compare=custom&compare_to=nope');
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors).sort()).toEqual(['compare_from', 'compare_to']);
    expect((await summary('from=2026-03-01&to=2026-03-31&compare=decade')).status).toBe(422);
  });

  it('takes a 29 February a year back to the 28th', () => {
    expect(yearBefore('2028-02-29')).toBe('2027-02-28');
    expect(yearBefore('2026-03-01')).toBe('2025-03-01');
  });
});

describe('the Stats API v2', () => {
  const v2 = (json: Record<string, unknown>) =>
    call('/api/v2/query', {
      method: 'POST',
      key: owner.key,
      body: { json: { site_id: site.domain, date_range: ['2026-03-01', '2026-03-31'], ...json } },
    });

  it("gives each row the compared range's, with the change (rates in points)", async () => {
    const res = await v2({
      metrics: ['visitors', 'bounce_rate'],
      include: { comparisons: { mode: 'year_over_year' } },
    });
    expect(res.status, res.text).toBe(200);
    const body = res.json as { results: unknown[]; query: Record<string, unknown> };
    expect(body.results).toEqual([
      {
        metrics: [3, 100],
        dimensions: [],
        comparison: { dimensions: [], metrics: [2, 100], change: [50, 0] },
      },
    ]);
    expect(body.query.comparison_date_range).toEqual(['2025-03-01', '2025-03-31']);
    const byPage = await v2({
      metrics: ['visitors'],
      dimensions: ['event:page'],
      include: { comparisons: { mode: 'custom', date_range: ['2026-02-01', '2026-02-28'] } },
    });
    expect((byPage.json as { results: unknown[] }).results).toEqual([
      {
        metrics: [3],
        dimensions: ['/'],
        comparison: { dimensions: ['/'], metrics: [1], change: [200] },
      },
    ]);
  });

  it('refuses a comparison it cannot make, saying why', async () => {
    for (const [include, message] of [
      [{ comparisons: { mode: 'custom' } }, /needs a date_range of two dates/],
      [{ comparisons: { mode: 'decade' } }, /Invalid include.comparisons/],
    ] as const) {
      const res = await v2({ metrics: ['visitors'], include });
      expect(res.status).toBe(400);
      expect((res.json as { error: string }).error).toMatch(message);
    }
    const timed = await v2({
      metrics: ['visitors'],
      dimensions: ['time:day'],
      include: { comparisons: { mode: 'previous_period' } },
    });
    expect((timed.json as { error: string }).error).toMatch(/without a time dimension/);
  });
});

describe('the statistics page', () => {
  it('compares with a year before on the figures and the chart, saying better or worse', async () => {
    const browser = await signedIn(owner);
    const page = await browser.get(
      `/stats/${site.domain}?range=custom&from=2026-03-01&to=2026-03-31&compare=year`,
    );
    expect(page.status).toBe(200);
    expect(page.text).toMatch(
      /<p class="hint change better">\+50% <span class="versus">vs 2 on Mar 1–31, 2025<\/span>, better<\/p>/,
    );
    // The chart's legend names both ranges.
    expect(page.text).toContain('Mar 1–31, 2026 (solid)');
    expect(page.text).toContain('Mar 1–31, 2025 (dotted)');
    expect(page.text).toMatch(/<polyline class="[a-z]+ previous"/);
    // Every panel's rows say their change too: / had 2 visitors a year before, 3 now.
    expect(page.text).toMatch(
      /<td class="num change better">\+50%<span class="sr-only"> \(better\)<\/span><\/td>/,
    );
    // Its links keep the comparison.
    expect(page.text).toMatch(/href="[^"]*chart=visitors[^"]*compare=year/);
  });
});
