/**
 * Goals (docs/ARCHITECTURE.md, "Goals"): managed through Sightline's API and Plausible's
 * Sites API, and counted by the Stats API v2 — `event:goal` as a dimension and a filter,
 * conversion rates over the visitors the other filters keep — on a day of traffic whose
 * every number is known (test/support/three-visitors.ts).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { topGoals } from '../../../src/query/present/overview.ts';
import { reportData, textOf } from '../../../src/reports/content.ts';
import { type Answer, call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

type Site = Awaited<ReturnType<typeof threeVisitors>>;
let s: Site;

beforeAll(async () => {
  s = await threeVisitors();
  vi.useRealTimers();
});

const goals = (path = '', init: Parameters<typeof call>[1] = { key: s.key }) =>
  call(`/api/v1/websites/${s.id}/goals${path}`, init);
const post = (json: Record<string, unknown>, key = s.key) =>
  goals('', { method: 'POST', key, body: { json } });
const sites = (method: string, json?: Record<string, unknown>, query = '') =>
  call(`/api/v1/sites/goals${query}`, { method, key: s.key, ...(json ? { body: { json } } : {}) });
const errorsOf = (res: Answer) => (res.json as { errors: Record<string, string[]> }).errors;

describe("Sightline's goal API", () => {
  it('adds event and page goals, lists them and deletes them', async () => {
    const event = await post({ event: 'Signup', display_name: 'Sign-ups', currency: 'eur' });
    expect(event.status, JSON.stringify(event.json)).toBe(201);
    expect(event.json).toEqual({
      data: {
        id: expect.any(Number),
        event: 'Signup',
        page: null,
        display_name: 'Sign-ups',
        currency: 'EUR',
        scroll_threshold: null,
      },
      status: 201,
    });
    const page = await post({ page: '/blog/**' });
    expect((page.json as { data: unknown }).data).toMatchObject({
      event: null,
      page: '/blog/**',
      display_name: 'Visit /blog/**',
      currency: null,
    });
    const list = await goals();
    expect(
      (list.json as { data: { display_name: string }[] }).data.map((g) => g.display_name),
    ).toEqual(['Sign-ups', 'Visit /blog/**']);
    const id = (page.json as { data: { id: number } }).data.id;
    const deleted = await goals(`/${id}`, { method: 'DELETE', key: s.key });
    expect(deleted.json).toEqual({ id, object: 'goal', deleted: true, status: 200 });
    expect((await goals(`/${id}`, { method: 'DELETE', key: s.key })).status).toBe(404);
    const eventId = (event.json as { data: { id: number } }).data.id;
    await goals(`/${eventId}`, { method: 'DELETE', key: s.key });
  });

  it('refuses bad goals with a 422 naming the field, storing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'event'],
      [{ event: 'a', page: '/a' }, 'event'],
      [{ event: '' }, 'event'],
      [{ event: 'x'.repeat(121) }, 'event'],
      [{ event: 'pageview' }, 'event'],
      [{ page: 'blog' }, 'page'],
      [{ event: 'Buy', currency: 'euro' }, 'currency'],
      [{ page: '/shop', currency: 'EUR' }, 'currency'],
      [{ event: 'Buy', display_name: 'x'.repeat(121) }, 'display_name'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(errorsOf(res)), JSON.stringify(body)).toEqual([field]);
    }
    expect(await post({ event: 'Twice' })).toMatchObject({ status: 201 });
    expect(errorsOf(await post({ event: 'Twice', display_name: 'Other' }))).toHaveProperty('event');
    expect(errorsOf(await post({ page: '/twice', display_name: 'Twice' }))).toHaveProperty(
      'display_name',
    );
    expect((await goals()).json).toMatchObject({ data: [{ event: 'Twice' }] });
  });

  it("answers another owner's website as a missing one", async () => {
    const other = await makeOwner('goals-other');
    expect((await post({ event: 'Signup' }, other.key)).status).toBe(404);
    expect((await goals('', { key: other.key })).status).toBe(404);
    const theirs = await makeWebsite(other.key, { domain: 'goals-theirs.example.com' });
    const res = await call(`/api/v1/websites/${theirs.id}/goals`, {
      method: 'POST',
      key: s.key,
      body: { json: { event: 'Signup' } },
    });
    expect(res.status).toBe(404);
  });
});

describe("Plausible's Sites API", () => {
  it('finds or creates, lists and deletes goals by the domain', async () => {
    const created = await sites('PUT', {
      site_id: s.domain,
      goal_type: 'event',
      event_name: 'Newsletter',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json).toEqual({
      domain: s.domain,
      id: expect.any(Number),
      display_name: 'Newsletter',
      goal_type: 'event',
      event_name: 'Newsletter',
      page_path: null,
      scroll_threshold: -1,
      custom_props: {},
    });
    const again = await sites('PUT', {
      site_id: s.domain,
      goal_type: 'event',
      event_name: 'Newsletter',
    });
    expect((again.json as { id: number }).id).toBe((created.json as { id: number }).id);
    const page = await sites('PUT', { site_id: s.domain, goal_type: 'page', page_path: '/docs/*' });
    expect(page.json).toMatchObject({
      goal_type: 'page',
      page_path: '/docs/*',
      display_name: 'Visit /docs/*',
    });
    const listed = await sites('GET', undefined, `?site_id=${s.domain}`);
    expect(listed.json).toMatchObject({
      goals: expect.arrayContaining([
        expect.objectContaining({ display_name: 'Newsletter', goal_type: 'event' }),
      ]),
      meta: { after: null, before: null },
    });
    const id = (page.json as { id: number }).id;
    expect((await sites('DELETE', { site_id: s.domain }, `/${id}`)).json).toEqual({
      deleted: true,
    });
    expect(await sites('DELETE', { site_id: s.domain }, `/${id}`)).toMatchObject({
      status: 404,
      json: { error: 'Goal could not be found' },
    });
    await sites('DELETE', { site_id: s.domain }, `/${(created.json as { id: number }).id}`);
  });

  it("answers Plausible's errors: a missing parameter, an unknown or another owner's site", async () => {
    expect(await sites('GET')).toMatchObject({
      status: 400,
      json: { error: 'Parameter `site_id` is required to list goals' },
    });
    expect(await sites('PUT', { site_id: s.domain, goal_type: 'event' })).toMatchObject({
      status: 400,
      json: { error: 'Parameter `event_name` is required to create a goal' },
    });
    expect(await sites('PUT', { site_id: s.domain, goal_type: 'visit' })).toMatchObject({
      status: 400,
    });
    expect(await sites('GET', undefined, '?site_id=nobody.example.com')).toMatchObject({
      status: 404,
      json: { error: 'Site could not be found' },
    });
  });
});

describe('goals in the Stats API v2', () => {
  beforeAll(async () => {
    for (const goal of [{ event: 'signup' }, { page: '/pricing' }, { page: '/b*' }])
      expect((await post(goal)).status).toBe(201);
  });

  async function v2(body: Record<string, unknown>) {
    return call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { json: { site_id: s.domain, date_range: [DAY, DAY], ...body } },
    });
  }
  async function results(body: Record<string, unknown>) {
    const res = await v2(body);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return (res.json as { results: unknown[] }).results;
  }

  it('breaks down by goal: unique and total conversions, and the conversion rate', async () => {
    // Ann and Cy saw /pricing, Bob and Cy /blog; Ann signed up. Three visitors in all.
    expect(
      await results({
        metrics: ['visitors', 'events', 'conversion_rate'],
        dimensions: ['event:goal'],
      }),
    ).toEqual([
      { dimensions: ['Visit /b*'], metrics: [2, 2, 66.7] },
      { dimensions: ['Visit /pricing'], metrics: [2, 2, 66.7] },
      { dimensions: ['signup'], metrics: [1, 1, 33.3] },
    ]);
  });

  it('filters by goal; the rate divides by the visitors the other filters keep', async () => {
    expect(
      await results({
        metrics: ['visitors', 'conversion_rate'],
        filters: [['is', 'event:goal', ['signup']]],
      }),
    ).toEqual([{ dimensions: [], metrics: [1, 33.3] }]);
    // Ann and Cy browse with Chrome: one of the two signed up.
    expect(
      await results({
        metrics: ['visitors', 'conversion_rate'],
        filters: [
          ['is', 'event:goal', ['signup']],
          ['is', 'visit:browser', ['Chrome']],
        ],
      }),
    ).toEqual([{ dimensions: [], metrics: [1, 50] }]);
    expect(
      await results({
        metrics: ['visitors'],
        filters: [['contains', 'event:goal', ['visit']]],
      }),
    ).toEqual([{ dimensions: [], metrics: [3] }]);
  });

  it('rates per group with group_conversion_rate', async () => {
    expect(
      await results({
        metrics: ['visitors', 'group_conversion_rate'],
        dimensions: ['event:goal', 'visit:browser'],
        filters: [['is', 'event:goal', ['signup', 'Visit /b*']]],
      }),
    ).toEqual([
      { dimensions: ['Visit /b*', 'Chrome'], metrics: [1, 50] },
      { dimensions: ['Visit /b*', 'Safari'], metrics: [1, 100] },
      { dimensions: ['signup', 'Chrome'], metrics: [1, 50] },
    ]);
  });

  it("answers Plausible's errors for goals", async () => {
    const unknown = await v2({ metrics: ['visitors'], filters: [['is', 'event:goal', ['Nope']]] });
    expect(unknown.status).toBe(400);
    expect((unknown.json as { error: string }).error).toContain(
      'The goal `Nope` is not configured',
    );
    const rate = await v2({ metrics: ['conversion_rate'] });
    expect(rate.json).toEqual({
      error: 'Metric `conversion_rate` can only be queried with event:goal filters or dimensions.',
    });
    const nested = await v2({
      metrics: ['visitors'],
      filters: [['not', ['is', 'event:goal', ['signup']]]],
    });
    expect((nested.json as { error: string }).error).toContain('only be filtered at the top level');
  });
});

describe('goals in API v1', () => {
  const stats = (query: string) =>
    call(`/api/v1/stats/${s.id}?from=${DAY}&to=${DAY}&${query}`, { key: s.key });
  const summary = (query: string) =>
    call(`/api/v1/stats/${s.id}/summary?from=${DAY}&to=${DAY}&${query}`, { key: s.key });

  it('lists the goals with their converting visitors: name=goal', async () => {
    const res = await stats('name=goal');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({
      data: [
        { value: 'Visit /b*', count: 2 },
        { value: 'Visit /pricing', count: 2 },
        { value: 'signup', count: 1 },
      ],
      total: 3,
    });
    expect((await stats('name=goal&search=PRIC')).json).toMatchObject({
      data: [{ value: 'Visit /pricing', count: 2 }],
      total: 1,
    });
    // Under a filter: the Safari visitor (Bob) read the blog only.
    expect((await stats('name=goal&filter[browser]=Safari')).json).toMatchObject({
      data: [{ value: 'Visit /b*', count: 1 }],
    });
  });

  it('filters by goal, and the summary gives the conversion rate', async () => {
    const res = await summary('filter[goal]=signup');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((res.json as { data: Record<string, number> }).data).toMatchObject({
      visitors: 1,
      conversion_rate: 33.3,
    });
    const chrome = await summary('filter[goal]=signup&filter[browser]=Chrome');
    expect((chrome.json as { data: Record<string, number> }).data).toMatchObject({
      visitors: 1,
      conversion_rate: 50,
    });
    // Without a goal filter the summary is as it always was.
    expect((await summary('')).json).not.toHaveProperty('data.conversion_rate');
    // A goal filter keeps the hits that complete the goal: here the page views of /pricing.
    expect((await stats('name=page&filter[goal][contains]=pricing')).json).toMatchObject({
      data: [{ value: '/pricing', count: 2 }],
    });
  });

  it('refuses a goal the website does not have, and [not]', async () => {
    const unknown = await summary('filter[goal]=Nope');
    expect(unknown.status).toBe(422);
    expect(errorsOf(unknown)['filter[goal]']).toEqual([
      'The goal `Nope` is not configured for this site.',
    ]);
    expect((await summary('filter[goal][not]=signup')).status).toBe(422);
  });
});

describe('goals in e-mail reports', () => {
  it('lists the top goals with their conversion rates', async () => {
    const rows = await topGoals(env, db(), s.id, { from: DAY, to: DAY });
    expect(rows).toEqual([
      { value: 'Visit /pricing (66.7% conversion)', count: 2 },
      { value: 'Visit /b* (66.7% conversion)', count: 2 },
      { value: 'signup (33.3% conversion)', count: 1 },
    ]);
    const report = await reportData(
      db(),
      { id: s.id, domain: s.domain },
      { interval: 'weekly', from: DAY, to: DAY, key: DAY },
      { statsUrl: 'https://sightline.test/stats', unsubscribeUrl: 'https://sightline.test/u' },
      rows,
    );
    expect(textOf(report)).toContain('Top goals:\r\n        2  Visit /pricing (66.7% conversion)');
  });
});
