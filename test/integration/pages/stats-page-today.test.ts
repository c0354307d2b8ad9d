/**
 * Honest time on the statistics page: today's chart draws the hours so far — the hour under
 * way dotted, as partial, and none of the hours to come; a range that ends today draws today
 * dotted; a past range draws every point whole. A figure with nothing before it says so.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeOwner, makeWebsite } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { totalsOf } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

afterAll(() => freezeAt(Date.now()));

const points = (html: string) => html.match(/<g class="pt"/g)?.length ?? 0;
/** Dotted lines of the wide drawing (the phone's, drawn after it, has the same). */
const partial = (html: string) =>
  html.slice(0, html.indexOf('<svg class="narrow"')).match(/class="[a-z]+ partial"/g)?.length ?? 0;

describe("today's figures", () => {
  it('compare with the same hours of yesterday, not the whole of it', async () => {
    const owner = await makeOwner('today-hours');
    const site = await makeWebsite(owner.key, {
      domain: `today-hours-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    const visit = async (at: string, ip: string) => {
      freezeAt(at);
      const res = await sendHit({ name: 'pageview', url: `https://${site.domain}/` }, { ip });
      expect(res.status).toBe(202);
    };
    await visit('2026-11-27T09:00:00Z', '203.0.113.1'); // yesterday, before 10:30
    await visit('2026-11-27T20:00:00Z', '203.0.113.2'); // yesterday, after 10:30
    await visit('2026-11-28T08:00:00Z', '203.0.113.3'); // today
    freezeAt('2026-11-28T10:30:00Z');
    const today = (await newBrowser().get(`/stats/${site.domain}?range=today`)).text;
    // One visitor today against one by 10:30 yesterday (two over the whole day).
    expect(totalsOf(today).visitors).toEqual({
      value: '1',
      change: '0% vs 1 on Nov 27, 00:00–10:30',
    });
  });
});

describe("today's chart", () => {
  it('draws the hours so far, the one under way as partial', async () => {
    const owner = await makeOwner('today');
    const site = await makeWebsite(owner.key, {
      domain: `today-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    freezeAt('2026-11-28T10:30:00Z');
    expect((await sendHit({ name: 'pageview', url: `https://${site.domain}/` })).status).toBe(202);
    const b = newBrowser();
    const today = (await b.get(`/stats/${site.domain}?range=today`)).text;
    expect(points(today)).toBe(11); // 00:00 … 10:00
    expect(partial(today)).toBe(2); // visitors and page views, each dotted to 10:00
    expect(today).toContain('none on Nov 27, 00:00–10:30 to compare with');
    const week = (await b.get(`/stats/${site.domain}?range=7d`)).text;
    const yesterday = (await b.get(`/stats/${site.domain}?range=yesterday`)).text;
    expect(points(yesterday)).toBe(24);
    expect(partial(yesterday)).toBe(0);
    // "Last 7 days" ends today: its last day is drawn dotted.
    expect(points(week)).toBe(7);
    expect(partial(week)).toBe(2);
    const custom = (await b.get(`/stats/${site.domain}?from=2026-11-20&to=2026-11-30`)).text;
    expect(points(custom)).toBe(9); // November 20 … 28: the days to come are not drawn
    expect(partial(custom)).toBe(2);
  });
});

describe("the chart's interval", () => {
  it('is chosen among those the range allows, and kept by the range links', async () => {
    const owner = await makeOwner('interval');
    const site = await makeWebsite(owner.key, {
      domain: `interval-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    freezeAt('2026-11-28T10:30:00Z');
    expect((await sendHit({ name: 'pageview', url: `https://${site.domain}/` })).status).toBe(202);
    const b = newBrowser();
    const base = `/stats/${site.domain}`;
    const intervals = (html: string) =>
      [
        ...(html.match(/<nav class="chart-metrics intervals"[\s\S]*?<\/nav>/)?.[0] ?? '').matchAll(
          /<(?:a href="[^"]*"|strong( aria-current="true"))>([^<]*)<\/(?:a|strong)>/g,
        ),
      ].map((m) => `${m[2]}${m[1] ? ' (shown)' : ''}`);
    const month = (await b.get(`${base}?range=30d`)).text;
    expect(points(month)).toBe(30);
    expect(intervals(month)).toEqual(['Days (shown)', 'Weeks']);
    const weeks = (await b.get(`${base}?range=30d&interval=week`)).text;
    // 2026-10-30 (a Friday) to 2026-11-28: the first week from the range's first day, then
    // the weeks from 2 November, 9, 16 and 23.
    expect(points(weeks)).toBe(5);
    expect(intervals(weeks)).toEqual(['Days', 'Weeks (shown)']);
    expect(weeks).toMatch(/href="[^"]*range=7d[^"]*interval=week/);
    // An interval the range does not allow is its own.
    expect(points((await b.get(`${base}?range=30d&interval=month`)).text)).toBe(30);
    const year = (await b.get(`${base}?range=12mo`)).text;
    expect(intervals(year)).toEqual(['Days', 'Weeks (shown)', 'Months']);
    expect(points((await b.get(`${base}?range=12mo&interval=month`)).text)).toBe(12);
    expect(intervals((await b.get(`${base}?range=today`)).text)).toEqual([]);
  });
});
