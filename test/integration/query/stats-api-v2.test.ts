/**
 * `POST /api/v2/query`, Plausible's Stats API v2 (docs/ARCHITECTURE.md, "Stats API v2"), on a
 * day of traffic whose every number is known (test/support/three-visitors.ts): metrics by
 * dimensions, filters of the whole grammar, date ranges, order, pages and what to include,
 * and the errors Plausible answers — a Sightline key, a domain of its owner's.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

type Site = Awaited<ReturnType<typeof threeVisitors>>;
let s: Site;

beforeAll(async () => {
  s = await threeVisitors();
  vi.useRealTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

async function query(body: Record<string, unknown>, key: string | null = s.key) {
  return call('/api/v2/query', {
    method: 'POST',
    key,
    body: { json: { site_id: s.domain, date_range: [DAY, DAY], ...body } },
  });
}

type Result = { metrics: (number | null)[]; dimensions: string[] };
type Body = { results: Result[]; meta: Record<string, unknown>; query: Record<string, unknown> };

async function results(body: Record<string, unknown>): Promise<Result[]> {
  const res = await query(body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return (res.json as Body).results;
}

async function error(body: Record<string, unknown>, key: string | null = s.key) {
  const res = await query(body, key);
  return { status: res.status, error: (res.json as { error?: string }).error };
}

describe('aggregates', () => {
  it("answers the day's figures: Plausible's example, and every metric", async () => {
    const res = await query({ metrics: ['visitors', 'events'] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      results: [{ metrics: [3, 7], dimensions: [] }],
      meta: {},
      query: {
        site_id: s.domain,
        metrics: ['visitors', 'events'],
        date_range: [`${DAY}T00:00:00+00:00`, `${DAY}T23:59:59+00:00`],
        filters: [],
        dimensions: [],
        order_by: [['visitors', 'desc']],
        include: {},
        pagination: { offset: 0, limit: 10000 },
      },
    });
    expect(
      await results({
        metrics: [
          'visitors',
          'visits',
          'pageviews',
          'events',
          'bounce_rate',
          'visit_duration',
          'views_per_visit',
        ],
      }),
    ).toEqual([{ metrics: [3, 4, 6, 7, 50, 105, 1.5], dimensions: [] }]);
  });

  it('answers zeros for a range without traffic', async () => {
    expect(
      await results({
        metrics: ['visitors', 'pageviews'],
        date_range: ['2020-01-01', '2020-01-31'],
      }),
    ).toEqual([{ metrics: [0, 0], dimensions: [] }]);
  });
});

describe('dimensions', () => {
  it('groups visits by source, with the visit metrics of each', async () => {
    expect(
      await results({
        metrics: ['visitors', 'visits', 'bounce_rate'],
        dimensions: ['visit:source'],
      }),
    ).toEqual([
      { metrics: [2, 2, 50], dimensions: ['Direct / None'] },
      { metrics: [1, 1, 0], dimensions: ['Google'] },
      { metrics: [1, 1, 100], dimensions: ['news.example.org'] },
    ]);
  });

  it('groups by page (visitors, page views and events on it) and by page and browser', async () => {
    expect(
      await results({
        metrics: ['visitors', 'pageviews', 'events'],
        dimensions: ['event:page'],
        order_by: [['events', 'desc']],
      }),
    ).toEqual([
      { metrics: [2, 2, 3], dimensions: ['/pricing'] },
      { metrics: [2, 2, 2], dimensions: ['/'] },
      { metrics: [2, 2, 2], dimensions: ['/blog'] },
    ]);
    expect(
      await results({
        metrics: ['visitors'],
        dimensions: ['event:page', 'visit:browser'],
        order_by: [
          ['event:page', 'asc'],
          ['visit:browser', 'asc'],
        ],
      }),
    ).toEqual([
      { metrics: [2], dimensions: ['/', 'Chrome'] },
      { metrics: [1], dimensions: ['/blog', 'Chrome'] },
      { metrics: [1], dimensions: ['/blog', 'Safari'] },
      { metrics: [2], dimensions: ['/pricing', 'Chrome'] },
    ]);
  });

  it('groups by time: hours of a day, with every label when asked', async () => {
    const res = await query({
      metrics: ['visitors', 'pageviews'],
      dimensions: ['time:hour'],
      include: { time_labels: true },
    });
    const body = res.json as Body;
    expect(body.results).toEqual([{ metrics: [3, 6], dimensions: [`${DAY} 09:00:00`] }]);
    expect(body.meta.time_labels).toHaveLength(24);
    expect((body.meta.time_labels as string[])[9]).toBe(`${DAY} 09:00:00`);
    expect(body.query.order_by).toEqual([
      ['time:hour', 'asc'],
      ['visitors', 'desc'],
    ]);
    // `time` is the hour for a day.
    expect(await results({ metrics: ['visitors'], dimensions: ['time'] })).toEqual([
      { metrics: [3], dimensions: [`${DAY} 09:00:00`] },
    ]);
  });

  it('reads places and devices as Plausible does', async () => {
    expect(
      await results({
        metrics: ['visitors'],
        dimensions: ['visit:country', 'visit:country_name', 'visit:city_name'],
      }),
    ).toEqual([{ metrics: [3], dimensions: ['US', 'United States', 'Austin'] }]);
    expect(
      await results({ metrics: ['visitors', 'percentage'], dimensions: ['visit:device'] }),
    ).toEqual([
      { metrics: [2, 66.7], dimensions: ['Desktop'] },
      { metrics: [1, 33.3], dimensions: ['Mobile'] },
    ]);
  });

  it('counts exits per exit page, and the visits that ended there', async () => {
    expect(await results({ metrics: ['visits'], dimensions: ['visit:exit_page'] })).toEqual(
      [
        { metrics: [2], dimensions: ['/pricing'] },
        { metrics: [2], dimensions: ['/blog'] },
      ].sort((a, b) => (a.dimensions[0] as string).localeCompare(b.dimensions[0] as string)),
    );
    expect(
      await results({
        metrics: ['visitors', 'visits', 'bounce_rate'],
        dimensions: ['visit:exit_page'],
      }),
    ).toEqual([
      { metrics: [2, 2, 50], dimensions: ['/blog'] },
      { metrics: [2, 2, 50], dimensions: ['/pricing'] },
    ]);
  });
});

describe('filters', () => {
  it('keeps what a filter of each kind keeps', async () => {
    const visitors = async (filters: unknown[]) =>
      (await results({ metrics: ['visitors'], filters }))[0]?.metrics[0];
    expect(await visitors([['is', 'visit:browser', ['Safari']]])).toBe(1);
    expect(await visitors([['is_not', 'visit:browser', ['Safari']]])).toBe(2);
    expect(await visitors([['contains', 'event:page', ['/pri']]])).toBe(2);
    expect(await visitors([['contains', 'event:page', ['BLOG'], { case_sensitive: false }]])).toBe(
      2,
    );
    expect(await visitors([['contains', 'event:page', ['BLOG']]])).toBe(0);
    expect(await visitors([['matches', 'event:page', ['^/(blog|pricing)$']]])).toBe(3);
    expect(await visitors([['matches_not', 'event:page', ['^/']]])).toBe(0);
    expect(await visitors([['matches_not', 'event:page', ['^/blog']]])).toBe(2);
    expect(await visitors([['is', 'visit:source', ['Direct / None']]])).toBe(2);
    expect(
      await visitors([
        [
          'or',
          [
            ['is', 'visit:source', ['Google']],
            ['not', ['is', 'visit:browser', ['Chrome']]],
          ],
        ],
      ]),
    ).toBe(2);
    expect(await visitors([['has_done', ['is', 'event:name', ['signup']]]])).toBe(1);
    expect(await visitors([['has_not_done', ['is', 'event:name', ['signup']]]])).toBe(2);
    expect(await visitors([['is', 'visit:country', ['US']]])).toBe(3);
    expect(await visitors([['is', 'visit:country', ['DE']]])).toBe(0);
  });

  it('echoes the filters as asked', async () => {
    const filters = [['contains', 'event:page', ['/pri'], { case_sensitive: false }]];
    const res = await query({ metrics: ['visitors'], filters });
    expect((res.json as Body).query.filters).toEqual(filters);
  });
});

describe('pages and totals', () => {
  it('pages the rows and counts them', async () => {
    const res = await query({
      metrics: ['pageviews'],
      dimensions: ['event:page'],
      order_by: [['event:page', 'asc']],
      pagination: { limit: 2, offset: 1 },
      include: { total_rows: true },
    });
    const body = res.json as Body;
    expect(body.results).toEqual([
      { metrics: [2], dimensions: ['/blog'] },
      { metrics: [2], dimensions: ['/pricing'] },
    ]);
    expect(body.meta).toEqual({ total_rows: 3 });
    expect(body.query.pagination).toEqual({ offset: 1, limit: 2 });
  });

  it('says imported data is not included (there is none)', async () => {
    const res = await query({ metrics: ['visitors'], include: { imports: true } });
    expect((res.json as Body).meta).toEqual({
      imports_included: false,
      imports_skip_reason: 'no_imported_data',
    });
  });
});

describe('errors', () => {
  it('401 without a key, with an unknown one, and for a domain the key does not own', async () => {
    expect(await error({ metrics: ['visitors'] }, null)).toEqual({
      status: 401,
      error: 'Missing API key. Please use a valid Sightline API key as a Bearer Token.',
    });
    const unknown = await error({ metrics: ['visitors'] }, 'sl_not-a-key');
    expect(unknown.status).toBe(401);
    const other = await makeOwner('v2-other');
    const theirs = await makeWebsite(other.key, {
      domain: `v2-${crypto.randomUUID().slice(0, 8)}.example.net`,
    });
    const foreign = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { json: { site_id: theirs.domain, metrics: ['visitors'], date_range: 'day' } },
    });
    const missing = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { json: { site_id: 'nowhere.example.org', metrics: ['visitors'], date_range: 'day' } },
    });
    expect(foreign.status).toBe(401);
    expect(foreign.json).toEqual(missing.json);
    expect(foreign.json).toEqual(unknown.error ? { error: unknown.error } : {});
  });

  it.each<[string, Record<string, unknown>, string | RegExp]>([
    ['an unknown metric', { metrics: ['nope'] }, `Unknown metric '"nope"'.`],
    ['no metric', { metrics: [] }, /metrics/],
    [
      'an unknown dimension',
      { metrics: ['visitors'], dimensions: ['visit:nope'] },
      /Invalid dimension/,
    ],
    ['the GeoNames city', { metrics: ['visitors'], dimensions: ['visit:city'] }, /visit:city_name/],
    [
      'a goal that is not configured',
      { metrics: ['visitors'], filters: [['is', 'event:goal', ['Signup']]] },
      /The goal `Signup` is not configured/,
    ],
    [
      'a bad range',
      { metrics: ['visitors'], date_range: 'fortnight' },
      'Invalid date_range "fortnight"',
    ],
    [
      'a reversed range',
      { metrics: ['visitors'], date_range: ['2026-02-01', '2026-01-01'] },
      /Invalid date_range/,
    ],
    [
      'a session metric by event name',
      { metrics: ['bounce_rate'], dimensions: ['event:name'] },
      'Session metric(s) `bounce_rate` cannot be queried along with event dimension(s) `event:name`',
    ],
    [
      'page views by entry page',
      { metrics: ['pageviews'], dimensions: ['visit:entry_page'] },
      'Event metric(s) `pageviews` cannot be queried along with session dimension(s) `visit:entry_page`',
    ],
    [
      'views per visit by anything',
      { metrics: ['views_per_visit'], dimensions: ['visit:browser'] },
      'Metric `views_per_visit` cannot be queried with `dimensions`.',
    ],
    [
      'an order by something not asked',
      { metrics: ['visitors'], order_by: [['visits', 'desc']] },
      /Entry is not a queried metric or dimension/,
    ],
    [
      'time labels without time',
      { metrics: ['visitors'], include: { time_labels: true } },
      'Invalid include.time_labels: requires a time dimension.',
    ],
    [
      'an unknown operator',
      { metrics: ['visitors'], filters: [['like', 'event:page', ['/']]] },
      /Unknown operator for filter/,
    ],
    [
      'a bad pattern',
      { metrics: ['visitors'], filters: [['matches', 'event:page', ['(']]] },
      /Invalid filter/,
    ],
    [
      'case on a pattern',
      {
        metrics: ['visitors'],
        filters: [['matches', 'event:page', ['a'], { case_sensitive: false }]],
      },
      /case_sensitive modifier is not allowed/,
    ],
    [
      'nested behaviour',
      { metrics: ['visitors'], filters: [['has_done', ['has_done', ['is', 'event:page', ['/']]]]] },
      /cannot be nested/,
    ],
    [
      'a visit filter in has_done',
      { metrics: ['visitors'], filters: [['has_done', ['is', 'visit:browser', ['Chrome']]]] },
      /can only be used with event dimension filters/,
    ],
    [
      'a country that is no code',
      { metrics: ['visitors'], filters: [['is', 'visit:country', ['Estonia']]] },
      'Invalid visit:country filter, visit:country needs to be a valid 2-letter country code.',
    ],
    [
      'a time dimension as a filter',
      { metrics: ['visitors'], filters: [['is', 'time:day', ['2026-06-02']]] },
      /Invalid filter/,
    ],
    ['an unknown key', { metrics: ['visitors'], nope: 1 }, /unknown key "nope"/],
    [
      'too big a page',
      { metrics: ['visitors'], pagination: { limit: 10001 } },
      /Invalid pagination/,
    ],
  ])('400 for %s', async (_what, body, message) => {
    const { status, error: text } = await error(body);
    expect(status).toBe(400);
    if (typeof message === 'string') expect(text).toBe(message);
    else expect(text).toMatch(message);
  });

  it('400 for a body that is not JSON, and a missing site_id', async () => {
    const res = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { raw: '{nope', type: 'application/json' },
    });
    expect(res.status).toBe(400);
    const none = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { json: { metrics: ['visitors'], date_range: 'day' } },
    });
    expect(none).toMatchObject({
      status: 400,
      json: {
        error: 'Missing site ID. Please provide the required site_id parameter with your request.',
      },
    });
  });
});
