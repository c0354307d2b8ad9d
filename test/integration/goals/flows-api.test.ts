/**
 * Funnels and journeys through API v1 and the statistics page (docs/ARCHITECTURE.md,
 * "Funnels and journeys"), on hits sent to `/api/event` whose funnels and paths are known by
 * construction: shapes, rates, filters, dates, pages of paths, CSVs, and another owner's ids.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Answer, call, makeOwner, makeWebsite } from '../../support/api.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { barsOf } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

let key: string;
let site: { id: number; domain: string };
let funnelId: number;
const DAY = '2026-07-01';

/** A page view (or event) of person `who` at `time` (UTC; the website keeps UTC). */
async function hit(who: number, time: string, what: { page?: string; event?: string }) {
  freezeAt(`${DAY}T${time}Z`);
  const page = `https://${site.domain}${what.page ?? '/signup'}`;
  const res = await sendHit(what.event ? { page, event: { name: what.event } } : { page }, {
    ip: `192.0.2.${who + 1}`,
    ua: CHROME_WINDOWS,
  });
  expect(res.status, res.text).toBe(202);
}

beforeAll(async () => {
  ({ key } = await makeOwner('flows-api'));
  site = await makeWebsite(key, { domain: 'flows-api.example.com', privacy: '0' });
  // Five visitors: 0 and 1 complete the funnel, 2 reaches its second step, 3 its first, and 4
  // goes elsewhere. Paths from /pricing: 0 → /signup → (exit)… (see each below).
  const visits: [number, string, { page?: string; event?: string }][] = [
    [0, '10:00:00', { page: '/' }],
    [0, '10:01:00', { page: '/pricing' }],
    [0, '10:02:00', { page: '/signup' }],
    [0, '10:03:00', { event: 'Signup' }],
    [1, '10:00:00', { page: '/pricing' }],
    [1, '10:01:00', { page: '/signup' }],
    [1, '10:02:00', { event: 'Signup' }],
    [1, '10:03:00', { page: '/welcome' }],
    [2, '10:00:00', { page: '/pricing' }],
    [2, '10:01:00', { page: '/signup' }],
    [3, '10:00:00', { page: '/pricing' }],
    [4, '10:00:00', { page: '/blog' }],
  ];
  for (const [who, time, what] of visits) await hit(who, time, what);
  vi.useRealTimers();
  const saved = await call(`/api/v1/websites/${site.id}/funnels`, {
    method: 'POST',
    key,
    body: {
      json: {
        name: 'Sign-up',
        steps: [{ page: '/pricing' }, { page: '/signup' }, { event: 'Signup' }],
      },
    },
  });
  expect(saved.status).toBe(201);
  funnelId = (saved.json as { data: { id: number } }).data.id;
});

afterAll(() => {
  vi.useRealTimers();
});

const range = `from=${DAY}&to=${DAY}`;
const api = (path: string, k = key) => call(`/api/v1${path}`, { key: k });
const errors = (res: Answer) => (res.json as { errors: Record<string, string[]> }).errors;

describe('GET /api/v1/stats/{id}/funnels/{funnel_id}', () => {
  it('answers each step with its visitors, conversion and drop-off', async () => {
    const res = await api(`/stats/${site.id}/funnels/${funnelId}?${range}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toEqual({
      data: {
        funnel: { id: funnelId, name: 'Sign-up' },
        steps: [
          {
            step: 1,
            label: '/pricing',
            visitors: 4,
            conversion_rate: 100,
            dropoff: 0,
            dropoff_rate: 0,
          },
          {
            step: 2,
            label: '/signup',
            visitors: 3,
            conversion_rate: 75,
            dropoff: 1,
            dropoff_rate: 25,
          },
          {
            step: 3,
            label: 'Signup',
            visitors: 2,
            conversion_rate: 50,
            dropoff: 1,
            dropoff_rate: 33.33,
          },
        ],
      },
      status: 200,
    });
  });

  it('follows the filters: the visits they keep', async () => {
    // Visitor 0 alone landed on /.
    const res = await api(`/stats/${site.id}/funnels/${funnelId}?${range}&filter[landing_page]=/`);
    const steps = (res.json as { data: { steps: { visitors: number }[] } }).data.steps;
    expect(steps.map((s) => s.visitors)).toEqual([1, 1, 1]);
    const none = await api(`/stats/${site.id}/funnels/${funnelId}?from=2026-06-01&to=2026-06-30`);
    const empty = (
      none.json as { data: { steps: { visitors: number; conversion_rate: number }[] } }
    ).data.steps;
    expect(empty.map((s) => [s.visitors, s.conversion_rate])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('validates dates and filters as the statistics do', async () => {
    const reversed = await api(`/stats/${site.id}/funnels/${funnelId}?from=${DAY}&to=2026-06-01`);
    expect(reversed.status).toBe(422);
    expect(Object.keys(errors(reversed))).toEqual(['to']);
    const bad = await api(`/stats/${site.id}/funnels/${funnelId}?from=nope&to=${DAY}&filter[x]=1`);
    expect(bad.status).toBe(422);
    expect(Object.keys(errors(bad)).sort()).toEqual(['filter[x]', 'from']);
    const goal = await api(`/stats/${site.id}/funnels/${funnelId}?${range}&filter[goal]=Nope`);
    expect(goal.status).toBe(422);
    expect(Object.keys(errors(goal))).toEqual(['filter[goal]']);
  });

  it("answers another owner's website or funnel, and a missing one, with the same 404", async () => {
    const other = await makeOwner('flows-api-other');
    const theirs = await makeWebsite(other.key, { domain: 'flows-api-other.example.com' });
    const missing = await api(`/stats/${site.id}/funnels/987654321?${range}`);
    expect(missing.status).toBe(404);
    for (const res of [
      await api(`/stats/${site.id}/funnels/${funnelId}?${range}`, other.key),
      await api(`/stats/${theirs.id}/funnels/${funnelId}?${range}`, other.key),
      await api(`/stats/${site.id}/funnels/nope?${range}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.json).toEqual(missing.json);
    }
  });
});

describe('GET /api/v1/stats/{id}/journeys', () => {
  type Paths = { data: { path: string[]; visits: number }[]; total: number };

  it('answers the paths after a page, from the first time each visit viewed it', async () => {
    const res = await api(
      `/stats/${site.id}/journeys?page=/pricing&direction=next&steps=2&${range}`,
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((res.json as Paths).data).toEqual([
      { path: ['/pricing', '/signup', '(exit)'], visits: 2 },
      { path: ['/pricing', '(exit)'], visits: 1 },
      { path: ['/pricing', '/signup', '/welcome'], visits: 1 },
    ]);
    expect(res.json).toMatchObject({ current_page: 1, per_page: 25, total: 3, from: 1, to: 3 });
  });

  it('answers the paths before a page, in the order walked', async () => {
    const res = await api(
      `/stats/${site.id}/journeys?page=/signup&direction=previous&steps=2&${range}`,
    );
    expect((res.json as Paths).data).toEqual([
      { path: ['(entrance)', '/pricing', '/signup'], visits: 2 },
      { path: ['/', '/pricing', '/signup'], visits: 1 },
    ]);
  });

  it('pages and sorts like the statistics', async () => {
    const first = await api(
      `/stats/${site.id}/journeys?page=/pricing&steps=2&${range}&per_page=10&sort_by=value&sort=asc`,
    );
    expect((first.json as Paths).data.map((r) => r.path.join(' '))).toEqual([
      '/pricing (exit)',
      '/pricing /signup (exit)',
      '/pricing /signup /welcome',
    ]);
    const one = await api(`/stats/${site.id}/journeys?page=/pricing&steps=1&${range}&per_page=10`);
    expect((one.json as Paths).data).toEqual([
      { path: ['/pricing', '/signup'], visits: 3 },
      { path: ['/pricing', '(exit)'], visits: 1 },
    ]);
    const paged = await api(
      `/stats/${site.id}/journeys?page=/pricing&steps=1&${range}&per_page=10&page_number=2`,
    );
    expect(paged.json).toMatchObject({ current_page: 2, data: [], total: 2, from: null });
    expect((paged.json as { prev_page_url: string }).prev_page_url).toContain('page_number=1');
    expect((paged.json as { prev_page_url: string }).prev_page_url).toContain('page=%2Fpricing');
  });

  it('refuses what it cannot answer with a 422 naming the field', async () => {
    const cases: [string, string][] = [
      [`${range}`, 'page'],
      [`page=/pricing&direction=sideways&${range}`, 'direction'],
      [`page=/pricing&steps=4&${range}`, 'steps'],
      [`page=/pricing&steps=0&${range}`, 'steps'],
      [`page=/pricing&page_number=0&${range}`, 'page_number'],
      [`page=/pricing&from=${DAY}&to=2026-06-01`, 'to'],
    ];
    for (const [query, field] of cases) {
      const res = await api(`/stats/${site.id}/journeys?${query}`);
      expect(res.status, query).toBe(422);
      expect(Object.keys(errors(res)), query).toEqual([field]);
    }
  });
});

describe('the statistics page', () => {
  it('shows a funnel with a bar per step, and its CSV', async () => {
    const page = await call(`/stats/${site.domain}/funnels/${funnelId}?from=${DAY}&to=${DAY}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Funnel: Sign-up');
    expect(page.text.match(/<svg class="bar"/g)).toHaveLength(3);
    expect(page.text).toContain('1 (25%)');
    const csv = await call(`/stats/${site.domain}/funnels/${funnelId}.csv?from=${DAY}&to=${DAY}`);
    expect(csv.text.split('\r\n').filter(Boolean)).toEqual([
      'step,label,visitors,conversion_rate,dropoff,dropoff_rate',
      '1,/pricing,4,100,0,0',
      '2,/signup,3,75,1,25',
      '3,Signup,2,50,1,33.33',
    ]);
  });

  it('links each page row to its journeys, which have their CSV', async () => {
    const overview = await call(`/stats/${site.domain}?from=${DAY}&to=${DAY}`);
    expect(overview.text).toContain(`/stats/${site.domain}/journeys?`);
    const view = await call(
      `/stats/${site.domain}/journeys?page=%2Fpricing&steps=2&from=${DAY}&to=${DAY}`,
    );
    expect(view.status).toBe(200);
    expect(view.text).toContain('/pricing → /signup → /welcome');
    // A bar behind each path, as long as its visits of the most taken path's.
    expect(barsOf(view.text)).toEqual(['100.0', '50.0', '50.0']);
    const csv = await call(
      `/stats/${site.domain}/journeys.csv?page=%2Fpricing&steps=2&from=${DAY}&to=${DAY}`,
    );
    expect(csv.text.split('\r\n').filter(Boolean)).toEqual([
      'page_1,page_2,page_3,visits',
      '/pricing,/signup,(exit),2',
      '/pricing,(exit),,1',
      '/pricing,/signup,/welcome,1',
    ]);
  });
});
