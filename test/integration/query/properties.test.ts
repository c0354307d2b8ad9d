/**
 * Custom properties (docs/ARCHITECTURE.md, "Custom properties"): sent by Sightline's,
 * Plausible's and Umami's payloads, kept with the hit within Plausible's limits, broken down
 * and filtered on by the Stats API v2 (`event:props:<name>`) and API v1 (`name=property`,
 * `filter[props:<name>]`).
 */
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { advance, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

const DAY = '2026-07-01';
type Site = Awaited<ReturnType<typeof site>>;
let s: Site;

async function umami(payload: Record<string, unknown>, ip: string) {
  const res = await exports.default.fetch(
    new Request('https://sightline.test/api/send', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': CHROME_WINDOWS,
        'cf-connecting-ip': ip,
      },
      body: JSON.stringify({ type: 'event', payload }),
    }),
  );
  expect(res.status, await res.text()).toBe(200);
}

/**
 * One day: Ann views / with `author=ana`, then signs up with `plan=pro` (Sightline's
 * payload); Bob views /blog with `author=bo` and signs up with `plan=free`, `trial=true`
 * (Plausible's, props as a JSON text); Cy views /pricing with no property, then sends
 * Umami's `Signup` with `plan=pro`.
 */
beforeAll(async () => {
  s = await site('props');
  const page = (path: string) => `https://${s.domain}${path}`;
  const ok = async (r: Promise<{ status: number; text: string }>) => {
    const res = await r;
    expect(res.status, res.text).toBe(202);
  };
  freezeAt(`${DAY}T10:00:00Z`);
  await ok(sendHit({ page: page('/'), props: { author: 'ana' } }, { ip: '198.51.100.1' }));
  await ok(
    sendHit({ page: page('/'), event: 'Signup', props: { plan: 'pro' } }, { ip: '198.51.100.1' }),
  );
  advance(MINUTE);
  await ok(
    sendHit(
      { n: 'pageview', u: page('/blog'), d: s.domain, p: { author: 'bo' } },
      { ip: '198.51.100.2' },
    ),
  );
  await ok(
    sendHit(
      {
        n: 'Signup',
        u: page('/blog'),
        d: s.domain,
        p: JSON.stringify({ plan: 'free', trial: true }),
      },
      { ip: '198.51.100.2' },
    ),
  );
  advance(MINUTE);
  await ok(sendHit({ page: page('/pricing') }, { ip: '198.51.100.3' }));
  await umami(
    {
      website: String(s.id),
      hostname: s.domain,
      url: '/pricing',
      name: 'Signup',
      data: { plan: 'pro' },
    },
    '198.51.100.3',
  );
  vi.useRealTimers();
});

async function v2(body: Record<string, unknown>) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key: s.key,
    body: { json: { site_id: s.domain, date_range: [DAY, DAY], ...body } },
  });
  return res;
}

async function rows(body: Record<string, unknown>) {
  const res = await v2(body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return (res.json as { results: { dimensions: string[]; metrics: number[] }[] }).results;
}

describe('the Stats API v2', () => {
  it('breaks down by a property: every hit with it, and (none) for those without', async () => {
    expect(
      await rows({ metrics: ['visitors', 'events'], dimensions: ['event:props:plan'] }),
    ).toEqual([
      { dimensions: ['(none)'], metrics: [3, 3] },
      { dimensions: ['pro'], metrics: [2, 2] },
      { dimensions: ['free'], metrics: [1, 1] },
    ]);
    expect(
      await rows({
        metrics: ['pageviews'],
        dimensions: ['event:props:author'],
        filters: [['is_not', 'event:props:author', ['(none)']]],
      }),
    ).toEqual([
      { dimensions: ['ana'], metrics: [1] },
      { dimensions: ['bo'], metrics: [1] },
    ]);
  });

  it('keeps a number or a boolean as its text, and groups by two properties', async () => {
    expect(
      await rows({
        metrics: ['events'],
        dimensions: ['event:props:plan', 'event:props:trial'],
        filters: [['is_not', 'event:props:plan', ['(none)']]],
      }),
    ).toEqual([
      { dimensions: ['pro', '(none)'], metrics: [2] },
      { dimensions: ['free', 'true'], metrics: [1] },
    ]);
  });

  it('filters on a property: is, contains, is_not, has_done, and a name nobody sent', async () => {
    const visitors = async (filters: unknown[]) =>
      (await rows({ metrics: ['visitors'], filters }))[0]?.metrics[0];
    expect(await visitors([['is', 'event:props:plan', ['pro']]])).toBe(2);
    expect(await visitors([['contains', 'event:props:plan', ['r']]])).toBe(3);
    expect(await visitors([['contains', 'event:props:plan', ['FR']]])).toBe(0);
    expect(
      await visitors([['contains', 'event:props:plan', ['FR'], { case_sensitive: false }]]),
    ).toBe(1);
    expect(await visitors([['is', 'event:props:nobody', ['x']]])).toBe(0);
    // The visits of those who signed up on the free plan: all of Bob's hits.
    expect(
      await rows({
        metrics: ['pageviews', 'events'],
        filters: [['has_done', ['is', 'event:props:plan', ['free']]]],
      }),
    ).toEqual([{ dimensions: [], metrics: [1, 2] }]);
    expect(await rows({ metrics: ['events'], dimensions: ['event:props:nobody'] })).toEqual([
      { dimensions: ['(none)'], metrics: [6] },
    ]);
  });

  it('refuses a property without a name, and visit metrics by a property', async () => {
    const empty = await v2({ metrics: ['visitors'], dimensions: ['event:props:'] });
    expect(empty.status).toBe(400);
    expect((empty.json as { error: string }).error).toContain('1 to 300 characters');
    const bounce = await v2({ metrics: ['bounce_rate'], dimensions: ['event:props:plan'] });
    expect(bounce.status).toBe(400);
    expect((bounce.json as { error: string }).error).toContain('event:props:plan');
  });
});

describe('API v1', () => {
  const stats = (query: string) =>
    call(`/api/v1/stats/${s.id}?from=${DAY}&to=${DAY}&${query}`, { key: s.key });

  it("answers a property's values with their hits: name=property", async () => {
    const res = await stats('name=property&property=plan');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((res.json as { data: unknown[]; total: number }).data).toEqual([
      { value: 'pro', count: 2 },
      { value: 'free', count: 1 },
    ]);
    const missing = await stats('name=property');
    expect(missing.status).toBe(422);
    expect((missing.json as { errors: Record<string, string[]> }).errors.property).toBeDefined();
  });

  it('filters by a property: filter[props:<name>], [not] and [contains]', async () => {
    const summary = async (filter: string) => {
      const res = await call(`/api/v1/stats/${s.id}/summary?from=${DAY}&to=${DAY}&${filter}`, {
        key: s.key,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (res.json as { data: { visitors: number; pageviews: number } }).data;
    };
    expect(await summary('filter[props:author]=ana')).toMatchObject({ pageviews: 1 });
    expect(await summary('filter[props:author][contains]=B')).toMatchObject({ pageviews: 1 });
    expect(await summary('filter[props:author][not]=ana')).toMatchObject({ pageviews: 2 });
    const page = await stats('name=page&filter[props:plan]=pro');
    expect((page.json as { data: unknown[] }).data).toEqual([]);
    const bad = await stats('name=page&filter[props:]=x');
    expect(bad.status).toBe(422);
  });
});

describe('what is kept', () => {
  it('keeps the first 30 properties with a value, names and values cut to their limits', async () => {
    const t = await site('props-limits');
    const props: Record<string, unknown> = { empty: '', list: [1], object: { a: 1 }, none: null };
    for (let i = 0; i < 35; i++) props[`p${String(i).padStart(2, '0')}`] = `v${i}`;
    props[`${'n'.repeat(310)}`] = `${'é'.repeat(2100)}`;
    freezeAt(`${DAY}T12:00:00Z`);
    const res = await sendHit({ page: `https://${t.domain}/`, props }, { ip: '198.51.100.9' });
    expect(res.status, res.text).toBe(202);
    const long = await sendHit(
      { page: `https://${t.domain}/`, props: { [`${'n'.repeat(310)}`]: `${'😀'.repeat(2100)}` } },
      { ip: '198.51.100.9' },
    );
    expect(long.status).toBe(202);
    vi.useRealTimers();
    const query = async (dimension: string) => {
      const out = await call('/api/v2/query', {
        method: 'POST',
        key: t.key,
        body: {
          json: {
            site_id: t.domain,
            date_range: [DAY, DAY],
            metrics: ['events'],
            dimensions: [dimension],
          },
        },
      });
      return (out.json as { results: { dimensions: string[]; metrics: number[] }[] }).results;
    };
    expect(await query('event:props:p29')).toEqual([
      { dimensions: ['(none)'], metrics: [1] },
      { dimensions: ['v29'], metrics: [1] },
    ]);
    expect(await query('event:props:p30')).toEqual([{ dimensions: ['(none)'], metrics: [2] }]);
    expect(await query('event:props:empty')).toEqual([{ dimensions: ['(none)'], metrics: [2] }]);
    expect(await query('event:props:list')).toEqual([{ dimensions: ['(none)'], metrics: [2] }]);
    const cut = await query(`event:props:${'n'.repeat(300)}`);
    expect(cut).toEqual([
      { dimensions: ['(none)'], metrics: [1] },
      { dimensions: ['😀'.repeat(2000)], metrics: [1] },
    ]);
  });

  it('refuses props that are not an object, storing nothing', async () => {
    const t = await site('props-bad');
    const res = await sendHit({ page: `https://${t.domain}/`, props: ['a'] });
    expect(res.status).toBe(400);
    expect(res.text).toContain('props must be an object');
  });
});
