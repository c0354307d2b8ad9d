/**
 * The query engine proven equal (docs/ARCHITECTURE.md, "The query engine"), on random traffic:
 * - Stats API v2 answers what API v1 answers, for every v1 statistic that has a v2 question
 *   and the summary, over random ranges, sorts, pages and filters (both through HTTP);
 * - breakdowns by one to three dimensions, under random filters, equal a reference worked
 *   out here from the raw hits, from the definitions alone.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StatName } from '../../../src/counting/statistics.ts';
import type { Filter } from '../../../src/query/parse/v1.ts';
import type { LoggedEvent } from '../../../src/website-log/events.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call } from '../../support/api.ts';
import { loggedEvents, logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

const DATES = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04'];

type Site = Awaited<ReturnType<typeof site>>;
let s: Site;
let events: LoggedEvent[];

/** Random traffic over three days: visitors, pages, referrers, campaigns, browsers, events. */
async function randomTraffic(siteId: number) {
  const log = websiteLog(env, siteId);
  const hits = fc.sample(
    fc.record({
      who: fc.integer({ min: 0, max: 9 }),
      gapSeconds: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 7200 })),
      page: fc.integer({ min: 0, max: 5 }),
      referrer: fc.integer({ min: 0, max: 5 }),
      event: fc.integer({ min: 0, max: 6 }),
    }),
    { numRuns: 400, seed: 31 },
  );
  let time = Date.parse('2026-06-01T05:00:00Z');
  for (const h of hits) {
    time += h.gapSeconds * 1000;
    const event = h.event === 0 ? `e${h.page % 2}` : null;
    await record(
      log,
      logHit(siteId, {
        kind: event ? 'event' : 'pageview',
        event,
        name: event ?? 'pageview',
        page: event ? '' : `/p${h.page}`,
        referrer: h.referrer >= 4 ? `r${h.referrer}.example.net` : '',
        source: h.referrer >= 4 ? `r${h.referrer}.example.net` : '',
        campaign: h.referrer === 5 ? 'spring' : null,
        ip: `203.0.113.${h.who + 1}`,
        browser: h.who % 3 === 0 ? 'Safari' : 'Chrome',
        language: h.who % 2 === 0 ? 'en' : 'de',
        resolution: h.who % 4 === 0 ? null : '1920x1080',
        time,
        date: new Date(time).toISOString().slice(0, 10),
        hour: new Date(time).toISOString().slice(11, 13),
      }),
    );
  }
  return loggedEvents(log);
}

beforeAll(async () => {
  s = await site('query-engine');
  events = await randomTraffic(s.id);
});

async function v2(body: Record<string, unknown>) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key: s.key,
    body: { json: { site_id: s.domain, ...body } },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return (res.json as { results: { metrics: number[]; dimensions: string[] }[] }).results;
}

/** v1's filters as v2's. */
const V2_FILTER: Record<string, string> = {
  page: 'event:page',
  landing_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  referrer: 'visit:referrer',
  campaign: 'visit:utm_campaign',
  browser: 'visit:browser',
  language: 'visit:language',
  resolution: 'visit:resolution',
  event: 'event:name',
};
const v2Filters = (filters: Filter[]) =>
  filters.map((f) => {
    const leaf =
      f.operator === 'contains'
        ? ['contains', V2_FILTER[f.dimension], [f.value], { case_sensitive: false }]
        : [f.operator === 'not' ? 'is_not' : 'is', V2_FILTER[f.dimension], [f.value]];
    // v1's events are the custom ones; v2's names are a page view's too (`pageview`).
    return f.dimension === 'event' && f.operator === 'contains'
      ? ['and', [leaf, ['is_not', 'event:name', ['pageview']]]]
      : leaf;
  });
const v1Query = (filters: Filter[]) =>
  filters.map((f) =>
    f.operator === 'is'
      ? `&filter[${f.dimension}]=${encodeURIComponent(f.value)}`
      : `&filter[${f.dimension}][${f.operator}]=${encodeURIComponent(f.value)}`,
  );

/**
 * Each v1 statistic as a v2 question: its dimension and metric, and the rows v1 has no row
 * for (no referrer, no campaign, no language or screen) left out by a filter.
 */
const AS_V2: Partial<Record<StatName, { dimension: string; metric: string; without?: string }>> = {
  pageviews: { dimension: 'time:day', metric: 'pageviews' },
  visitors: { dimension: 'time:day', metric: 'visitors' },
  visits: { dimension: 'time:day', metric: 'visits' },
  page: { dimension: 'event:page', metric: 'pageviews' },
  landing_page: { dimension: 'visit:entry_page', metric: 'visits' },
  exit_page: { dimension: 'visit:exit_page', metric: 'visits' },
  referrer: { dimension: 'visit:referrer', metric: 'visits', without: 'Direct / None' },
  campaign: { dimension: 'visit:utm_campaign', metric: 'visits', without: '(not set)' },
  browser: { dimension: 'visit:browser', metric: 'visitors' },
  language: { dimension: 'visit:language', metric: 'visitors', without: '(not set)' },
  resolution: { dimension: 'visit:resolution', metric: 'visitors', without: '(not set)' },
  event: { dimension: 'event:name', metric: 'events', without: 'pageview' },
};

const VALUES: Record<string, string[]> = {
  page: ['/p0', '/p1', '/p5', 'P2'],
  landing_page: ['/p1', '/p3'],
  exit_page: ['/p2', '/p4'],
  referrer: ['r4.example.net', 'r5.example.net', 'R5'],
  campaign: ['spring'],
  browser: ['Safari', 'Chrome', 'saf'],
  language: ['en', 'de'],
  resolution: ['1920x1080', '1920'],
  event: ['e0', 'e1', 'E'],
};

const filterArb = fc
  .constantFrom(...(Object.keys(VALUES) as Filter['dimension'][]))
  .chain((dimension) =>
    fc.record({
      dimension: fc.constant(dimension),
      operator: fc.constantFrom('is' as const, 'not' as const, 'contains' as const),
      value: fc.constantFrom(...(VALUES[dimension] as string[])),
    }),
  )
  // Plain objects: fast-check's own carry symbols that do not cross to the Worker.
  .map((f) => ({ ...f }));
const filtersArb = fc.uniqueArray(filterArb, {
  maxLength: 3,
  selector: (f) => `${f.dimension} ${f.operator}`,
});
const rangeArb = fc
  .tuple(fc.constantFrom(...DATES), fc.constantFrom(...DATES))
  .map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [string, string]);

describe('Stats API v2 and API v1', () => {
  it('answer alike every statistic, range, sort, page and filter', async () => {
    let rows = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(AS_V2) as StatName[])),
        rangeArb,
        fc.constantFrom('count' as const, 'value' as const),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 2 }),
        filtersArb,
        async (name, [from, to], sortBy, sort, page, filters) => {
          const { dimension, metric, without } = AS_V2[name] as NonNullable<
            (typeof AS_V2)[StatName]
          >;
          const v1 = await call(
            `/api/v1/stats/${s.id}?name=${name}&from=${from}&to=${to}&sort_by=${sortBy}&sort=${sort}&per_page=10&page=${page}${v1Query(filters).join('')}`,
            { key: s.key },
          );
          expect(v1.status, JSON.stringify(v1.json)).toBe(200);
          const other = [
            ...v2Filters(filters),
            ...(without ? [['is_not', dimension, [without]]] : []),
          ];
          const results = await v2({
            metrics: [metric],
            dimensions: [dimension],
            date_range: [from, to],
            filters: other,
            order_by: [[sortBy === 'value' ? dimension : metric, sort]],
            pagination: { limit: 10, offset: (page - 1) * 10 },
          });
          const expected = (v1.json as { data: { value: string; count: number }[] }).data;
          expect(
            results.map((r) => ({ value: r.dimensions[0], count: r.metrics[0] })),
            `${name} ${from}–${to} ${sortBy} ${sort} ${page} ${JSON.stringify(filters)}`,
          ).toEqual(expected);
          rows += expected.length;
        },
      ),
      { numRuns: 150 },
    );
    expect(rows).toBeGreaterThan(100);
  });

  it('give the same summary', async () => {
    await fc.assert(
      fc.asyncProperty(rangeArb, filtersArb, async ([from, to], filters) => {
        const v1 = await call(
          `/api/v1/stats/${s.id}/summary?from=${from}&to=${to}${v1Query(filters).join('')}`,
          { key: s.key },
        );
        const data = (v1.json as { data: Record<string, number> }).data;
        // Page views per visit: one definition (the kept visits' page views per visit), which
        // v2 refuses under a filter on a page, as Plausible does.
        const perVisit = !filters.some((f) => f.dimension === 'page');
        const [row] = await v2({
          metrics: [
            'visitors',
            'visits',
            'pageviews',
            'bounce_rate',
            'visit_duration',
            ...(perVisit ? ['views_per_visit'] : []),
          ],
          date_range: [from, to],
          filters: v2Filters(filters),
        });
        expect(row?.metrics).toEqual([
          data.visitors,
          data.visits,
          data.pageviews,
          data.bounce_rate,
          data.visit_duration,
          ...(perVisit ? [data.views_per_visit] : []),
        ]);
      }),
      { numRuns: 60 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The reference: breakdowns from the raw hits.

type Visit = { start: LoggedEvent; views: LoggedEvent[] };

const REFERENCE_DIMENSIONS = [
  'event:page',
  'visit:referrer',
  'visit:browser',
  'visit:language',
  'time:day',
];

/** A breakdown's rows, keyed by their dimensions, worked out from the hits. */
function reference(
  all: LoggedEvent[],
  q: { from: string; to: string; dimensions: string[]; filters: [string, string, string[]][] },
): Map<string, number[]> {
  const hits = all.filter((e) => e.date >= q.from && e.date <= q.to);
  const visits = new Map<string, Visit>();
  const visitors = new Map<string, LoggedEvent>();
  for (const e of hits) {
    if (e.kind !== 'pageview') continue;
    if (e.newVisitor) visitors.set(`${e.date} ${e.visitor}`, e);
    const key = `${e.date} ${e.visitor} ${e.visit}`;
    const visit = visits.get(key) ?? { start: e, views: [] };
    if (e.newVisit) visit.start = e;
    visit.views.push(e);
    visits.set(key, visit);
  }
  const visitOf = (e: LoggedEvent) =>
    e.visit > 0 ? visits.get(`${e.date} ${e.visitor} ${e.visit}`) : undefined;
  const visitorOf = (e: LoggedEvent) =>
    e.visitor > 0 ? visitors.get(`${e.date} ${e.visitor}`) : undefined;
  /** A hit's value of a dimension, as v2 reads it; null: the hit has none. */
  const value = (d: string, e: LoggedEvent, session = false): string | null => {
    switch (d) {
      case 'event:page':
        if (session) return visitOf(e)?.start.page ?? null;
        return e.page === '' ? null : e.page;
      case 'visit:referrer': {
        const r = (visitOf(e)?.start ?? e).referrer;
        return r === '' ? 'Direct / None' : r;
      }
      case 'visit:browser':
        return (visitorOf(e) ?? e).browser;
      case 'visit:language':
        return (visitorOf(e) ?? e).language ?? '(not set)';
      default:
        return e.date;
    }
  };
  const level = (d: string) =>
    d === 'event:page'
      ? 'hit'
      : d === 'visit:referrer'
        ? 'visit'
        : d === 'time:day'
          ? 'date'
          : 'visitor';
  const keeps = (e: LoggedEvent) =>
    q.filters.every(([op, d, values]) => {
      if (level(d) === 'visit' && e.visit === 0) return false;
      if (level(d) === 'visitor' && e.visitor === 0) return false;
      const v = value(d, e);
      const is = v !== null && values.includes(v);
      return op === 'is' ? is : !is;
    });
  const kept = hits.filter(keeps);
  const groups = new Map<
    string,
    { visitors: Set<string>; visits: Set<string>; pv: number; ev: number }
  >();
  for (const e of kept) {
    const key = q.dimensions.map((d) => value(d, e));
    if (key.some((k) => k === null)) continue;
    const id = JSON.stringify(key);
    const g = groups.get(id) ?? { visitors: new Set(), visits: new Set(), pv: 0, ev: 0 };
    if (e.visitor > 0) g.visitors.add(`${e.date} ${e.visitor}`);
    if (e.visit > 0) g.visits.add(`${e.date} ${e.visitor} ${e.visit}`);
    if (e.kind === 'pageview') g.pv++;
    g.ev++;
    groups.set(id, g);
  }
  // The visit metrics: every kept visit, by its dimensions' values as a visit has them.
  const sessions = new Map<string, { visits: number; bounces: number; seconds: number }>();
  const keptVisits = new Set(
    kept.filter((e) => e.visit > 0).map((e) => `${e.date} ${e.visitor} ${e.visit}`),
  );
  for (const key of keptVisits) {
    const visit = visits.get(key);
    if (!visit) continue;
    const values = q.dimensions.map((d) => value(d, visit.start, true));
    if (values.some((v) => v === null)) continue;
    const id = JSON.stringify(values);
    const t = sessions.get(id) ?? { visits: 0, bounces: 0, seconds: 0 };
    t.visits++;
    if (visit.views.length === 1) t.bounces++;
    t.seconds += visit.views.reduce((n, v) => n + v.visitSeconds, 0);
    sessions.set(id, t);
  }
  const out = new Map<string, number[]>();
  for (const [id, g] of groups) {
    const t = sessions.get(id);
    const per = (n: number) => (t && t.visits > 0 ? Math.round(n / t.visits) : 0);
    out.set(id, [
      g.visitors.size,
      g.visits.size,
      g.pv,
      g.ev,
      per((t?.bounces ?? 0) * 100),
      per(t?.seconds ?? 0),
    ]);
  }
  return out;
}

describe('breakdowns by up to three dimensions', () => {
  it('equal a reference worked out from the raw hits, under random filters', async () => {
    const leaf = fc.oneof(
      fc.record({
        op: fc.constantFrom('is', 'is_not'),
        d: fc.constant('event:page'),
        v: fc.constantFrom('/p0', '/p1', '/p3'),
      }),
      fc.record({
        op: fc.constantFrom('is', 'is_not'),
        d: fc.constant('visit:referrer'),
        v: fc.constantFrom('r4.example.net', 'Direct / None'),
      }),
      fc.record({
        op: fc.constantFrom('is', 'is_not'),
        d: fc.constant('visit:browser'),
        v: fc.constantFrom('Safari', 'Chrome'),
      }),
      fc.record({
        op: fc.constantFrom('is', 'is_not'),
        d: fc.constant('visit:language'),
        v: fc.constantFrom('en', 'de'),
      }),
    );
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...REFERENCE_DIMENSIONS), { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(leaf, { maxLength: 2, selector: (l) => l.d }),
        rangeArb,
        async (dimensions, leaves, [from, to]) => {
          const filters = leaves.map((l) => [l.op, l.d, [l.v]] as [string, string, string[]]);
          const metrics = [
            'visitors',
            'visits',
            'pageviews',
            'events',
            'bounce_rate',
            'visit_duration',
          ];
          const results = await v2({ metrics, dimensions, date_range: [from, to], filters });
          const got = new Map(results.map((r) => [JSON.stringify(r.dimensions), r.metrics]));
          const want = reference(events, { from, to, dimensions, filters });
          expect(got, `${dimensions} ${from}–${to} ${JSON.stringify(filters)}`).toEqual(want);
          compared += got.size;
        },
      ),
      { numRuns: 100 },
    );
    expect(compared).toBeGreaterThan(300);
  });
});
