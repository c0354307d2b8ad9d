/**
 * Engagement (docs/ARCHITECTURE.md, "Time on page and scroll depth"): an engagement updates
 * the page view it belongs to — its time onto the visit's last view of its page, its scroll
 * onto the visit's first — and adds no hit; Sightline's totals are kept as the maximum of
 * what arrived (a retry counts once), Plausible's `e` is added up; one that names no page view
 * of its visitor's visit under way is dropped with a reason. Time on page and scroll depth
 * then read in API v1 and v2 as sums over those rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, listOf } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';
import { advance, freezeAt, site } from '../../support/ingest-fixtures.ts';

type Site = Awaited<ReturnType<typeof site>>;
let s: Site;

/** Sends a tracker call from `ip`; its status and drop reason. */
async function send(body: Record<string, unknown>, ip: string) {
  const { status, dropReason } = await sendHit(body, { ip });
  return { status, drop: dropReason };
}

const view = (path: string, ip: string) => send({ page: `https://${s.domain}${path}` }, ip);
/** An engagement, sent ten seconds after the hit before it (never longer than its page view's age). */
const engage = (path: string, ip: string, ms: number, scroll?: number) => {
  advance(10_000);
  return send(
    {
      page: `https://${s.domain}${path}`,
      engagement: { ms, ...(scroll === undefined ? {} : { scroll }) },
    },
    ip,
  );
};

const A = '198.51.100.1';
const B = '198.51.100.2';
const C = '198.51.100.3';
const D = '198.51.100.4';

async function v2(metrics: string[], extra: Record<string, unknown> = {}) {
  return call('/api/v2/query', {
    method: 'POST',
    key: s.key,
    body: {
      json: { site_id: s.domain, date_range: ['2026-08-03', '2026-08-03'], metrics, ...extra },
    },
  });
}

beforeAll(async () => {
  s = await site('engagement', { privacy: '0' });
  freezeAt('2026-08-03T10:00:00Z');
  // A reads /a to 60 % for 5 s, then 8 s in all (its tracker's totals; one sent twice).
  expect(await view('/a', A)).toEqual({ status: 202, drop: null });
  for (const [ms, scroll] of [
    [5_000, 60],
    [5_000, 60],
    [8_000, 40],
  ] as const)
    expect(await engage('/a', A, ms, scroll)).toEqual({ status: 202, drop: null });
  // B views /a and leaves without an engagement; then Plausible's tracker says 2 s at 80 %.
  expect(await view('/a', B)).toEqual({ status: 202, drop: null });
  // C goes /a → /b → /a: the second view of /a gets its time, the first the deeper scroll.
  await view('/a', C);
  await view('/b', C);
  await view('/a', C);
  await engage('/a', C, 3_000, 90);
  await engage('/b', C, 1_000, 30);
});

afterAll(() => freezeAt(Date.now()));

describe('an engagement', () => {
  it('that names no page view of its visitor is dropped with a reason, counting nothing', async () => {
    expect(await engage('/never-viewed', A, 1_000, 50)).toEqual({
      status: 202,
      drop: 'no_page_view',
    });
    expect(await engage('/a', D, 1_000, 50)).toEqual({ status: 202, drop: 'no_page_view' });
  });

  it("in Plausible's shape adds its time since the last send", async () => {
    const body = { n: 'engagement', u: `https://${s.domain}/a`, d: s.domain, e: 2_000, sd: 80 };
    expect(await send(body, B)).toEqual({ status: 202, drop: null });
    expect(await send(body, B)).toEqual({ status: 202, drop: null });
  });

  it('is malformed when its time or scroll is not a number in range', async () => {
    for (const engagement of [{ ms: -1 }, { ms: 'x' }, { ms: 10, scroll: 101 }, 'soon']) {
      const res = await send({ page: `https://${s.domain}/a`, engagement }, A);
      expect(res.status, JSON.stringify(engagement)).toBe(400);
    }
  });

  it('makes time on page and scroll depth, per page, in v2 and in API v1', async () => {
    const res = await v2(['visitors', 'pageviews', 'time_on_page', 'scroll_depth'], {
      dimensions: ['event:page'],
    });
    expect(res.status).toBe(200);
    // /a: visitors A, B, C; seconds 8 + 2 + 2 + 3 = 15 → 15 / 3 = 5; scrolls 60, 80, 90.
    // /b: visitor C, 1 s, 30 %. The engagements added no page view.
    expect((res.json as { results: unknown[] }).results).toEqual([
      { dimensions: ['/a'], metrics: [3, 4, 5, 77] },
      { dimensions: ['/b'], metrics: [1, 1, 1, 30] },
    ]);
    const filtered = await v2(['time_on_page', 'scroll_depth'], {
      filters: [['is', 'event:page', ['/b']]],
    });
    expect((filtered.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [1, 30] },
    ]);
    const v1 = await call(`/api/v1/stats/${s.id}?name=time_on_page&from=2026-08-03&to=2026-08-03`, {
      key: s.key,
    });
    expect(v1.status).toBe(200);
    expect(listOf(v1).data).toEqual([
      { value: '/a', count: 5 },
      { value: '/b', count: 1 },
    ]);
    const scroll = await call(
      `/api/v1/stats/${s.id}?name=scroll_depth&from=2026-08-03&to=2026-08-03&sort=asc`,
      { key: s.key },
    );
    expect(listOf(scroll).data).toEqual([
      { value: '/b', count: 30 },
      { value: '/a', count: 77 },
    ]);
  });

  it("shows on the statistics page's Pages panel and its full view", async () => {
    for (const path of [`/stats/${s.domain}`, `/stats/${s.domain}/page`]) {
      const page = await call(`${path}?from=2026-08-03&to=2026-08-03`);
      expect(page.status).toBe(200);
      const table = page.text.slice(page.text.indexOf('Time on page'));
      expect(table, path).toMatch(/Scroll depth[\s\S]*\/a[\s\S]*5s<\/td><td class="num[^"]*">77%/);
      expect(table, path).toMatch(/\/b[\s\S]*1s<\/td><td class="num[^"]*">30%/);
    }
  });

  it("needs a page to be about in v2, with Plausible's message", async () => {
    for (const metric of ['time_on_page', 'scroll_depth']) {
      const res = await v2([metric]);
      expect(res.status).toBe(400);
      expect((res.json as { error: string }).error).toBe(
        `Metric \`${metric}\` can only be queried with event:page filters or dimensions.`,
      );
    }
    expect(errorOf(await call(`/api/v1/stats/${s.id}?name=time_off`, { key: s.key })).status).toBe(
      422,
    );
  });
});

describe('a page goal with a scroll threshold', () => {
  it('converts the visitors whose visit scrolled the page that far, in v1, v2 and funnels', async () => {
    const made = await call(`/api/v1/websites/${s.id}/goals`, {
      method: 'POST',
      key: s.key,
      body: { json: { page: '/a', scroll_threshold: 70 } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({
      data: { page: '/a', display_name: 'Scroll 70% on /a', scroll_threshold: 70 },
    });
    // Plausible's Sites API: the same path, deeper, is another goal.
    const put = await call('/api/v1/sites/goals', {
      method: 'PUT',
      key: s.key,
      body: {
        json: { site_id: s.domain, goal_type: 'page', page_path: '/a', scroll_threshold: 85 },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ display_name: 'Scroll 85% on /a', scroll_threshold: 85 });
    for (const json of [
      { event: 'Signup', scroll_threshold: 50 },
      { page: '/a', scroll_threshold: 101 },
    ]) {
      const res = await call(`/api/v1/websites/${s.id}/goals`, {
        method: 'POST',
        key: s.key,
        body: { json },
      });
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(errorOf(res).errors.scroll_threshold).toBeDefined();
    }
    // /a scrolled by A to 60 %, B to 80 %, C to 90 %.
    const goals = await v2(['visitors', 'events', 'conversion_rate'], {
      dimensions: ['event:goal'],
    });
    expect(goals.status, goals.text).toBe(200);
    expect((goals.json as { results: unknown[] }).results).toEqual([
      { dimensions: ['Scroll 70% on /a'], metrics: [2, 2, 66.7] },
      { dimensions: ['Scroll 85% on /a'], metrics: [1, 1, 33.3] },
    ]);
    const v1 = await call(`/api/v1/stats/${s.id}?name=goal&from=2026-08-03&to=2026-08-03`, {
      key: s.key,
    });
    expect(listOf(v1).data).toEqual([
      { value: 'Scroll 70% on /a', count: 2 },
      { value: 'Scroll 85% on /a', count: 1 },
    ]);
    const funnel = await call(`/api/v1/websites/${s.id}/funnels`, {
      method: 'POST',
      key: s.key,
      body: { json: { name: 'read /a', steps: [{ goal: 'Scroll 70% on /a' }, { page: '/b' }] } },
    });
    expect(funnel.status, funnel.text).toBe(201);
    const id = (funnel.json as { data: { id: number } }).data.id;
    const steps = await call(`/api/v1/stats/${s.id}/funnels/${id}?from=2026-08-03&to=2026-08-03`, {
      key: s.key,
    });
    expect(steps.status, steps.text).toBe(200);
    expect(
      (steps.json as { data: { steps: { visitors: number }[] } }).data.steps.map((x) => x.visitors),
    ).toEqual([2, 1]);
  });
});

describe('an engagement longer than its page view has existed', () => {
  it('is cut to the page view’s age: twenty days sent after one view add up to its age', async () => {
    const t = await site('engagement-cut', { privacy: '0' });
    freezeAt('2026-08-05T10:00:00Z');
    const ip = '198.51.100.20';
    expect((await sendHit({ page: `https://${t.domain}/long` }, { ip })).status).toBe(202);
    advance(90_000);
    const day = { n: 'engagement', u: `https://${t.domain}/long`, d: t.domain, e: 86_400_000 };
    // The first is cut to the 90 s the page view has existed; the rest bring nothing.
    expect(await sendHit(day, { ip })).toMatchObject({ status: 202, dropReason: null });
    for (let i = 0; i < 19; i++)
      expect(await sendHit(day, { ip })).toMatchObject({
        status: 202,
        dropReason: 'engagement_cut',
      });
    // Sightline's own shape keeps the largest total, cut the same way; a scroll still counts.
    const own = (ms: number, scroll?: number) =>
      sendHit(
        {
          page: `https://${t.domain}/long`,
          engagement: { ms, ...(scroll === undefined ? {} : { scroll }) },
        },
        { ip },
      );
    expect(await own(86_400_000)).toMatchObject({ dropReason: 'engagement_cut' });
    expect(await own(86_400_000, 40)).toMatchObject({ dropReason: null });
    advance(30_000);
    expect(await own(100_000)).toMatchObject({ dropReason: null });
    const res = await call('/api/v2/query', {
      method: 'POST',
      key: t.key,
      body: {
        json: {
          site_id: t.domain,
          date_range: ['2026-08-05', '2026-08-05'],
          metrics: ['visitors', 'time_on_page', 'scroll_depth'],
          dimensions: ['event:page'],
        },
      },
    });
    // 100 s: the last total, under the 120 s the page view has existed.
    expect((res.json as { results: unknown[] }).results).toEqual([
      { dimensions: ['/long'], metrics: [1, 100, 40] },
    ]);
    const visit = await call('/api/v2/query', {
      method: 'POST',
      key: t.key,
      body: {
        json: {
          site_id: t.domain,
          date_range: ['2026-08-05', '2026-08-05'],
          metrics: ['visits', 'visit_duration'],
        },
      },
    });
    expect((visit.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [1, 100] },
    ]);
  });
});
