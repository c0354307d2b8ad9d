/**
 * Filters (src/query/parse/v1-filters.ts, docs/ARCHITECTURE.md "Filters"): hits of known visitors
 * through `POST /api/event`, then filtered statistics and summaries through the Stats API,
 * compared with answers worked out by hand; the validation of filters; and, for random
 * traffic, the log's unfiltered answers compared with the roll-ups' for every statistic.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import { createDb } from '../../../src/db/client.ts';
import { FILTER_DIMENSIONS, type Filter, MAX_FILTER_LENGTH } from '../../../src/query/parse/v1.ts';
import { queryStats } from '../../../src/rollups/sums.ts';
import { WebsiteLogCore } from '../../../src/website-log/object/core.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, errorOf, listOf, makeOwner } from '../../support/api.ts';
import { loggedEvents, logHit, record } from '../../support/event-log.ts';
import { referenceStatistic } from '../../support/filter-reference.ts';
import { flushLog, site } from '../../support/ingest-fixtures.ts';
import { v1Reads } from '../../support/log-reads.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

afterEach(() => {
  vi.useRealTimers();
});

type Site = Awaited<ReturnType<typeof site>>;

/** A statistic through the Stats API with a query string of filters, as `{value: count}`. */
async function stat(s: Site, name: string, filters: string) {
  const res = await call(
    `/api/v1/stats/${s.id}?name=${name}&from=${DAY}&to=${DAY}&per_page=100&${filters}`,
    { key: s.key },
  );
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(
    (res.json.data as { value: string; count: number }[]).map((r) => [r.value, r.count]),
  );
}

async function summary(s: Site, filters: string) {
  const res = await call(`/api/v1/stats/${s.id}/summary?from=${DAY}&to=${DAY}&${filters}`, {
    key: s.key,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data as Record<string, number>;
}

describe('filtered statistics, worked out by hand', () => {
  it('a page filter keeps the page views of that page, and the visitors and visits that have one', async () => {
    const s = await threeVisitors();
    const f = 'filter[page]=/pricing';
    expect(await stat(s, 'page', f)).toEqual({ '/pricing': 2 });
    expect(await stat(s, 'browser', f)).toEqual({ Chrome: 2 });
    expect(await stat(s, 'visitors', f)).toEqual({ [DAY]: 2 });
    // Ann's visit and Cy's first one; their landing pages, referrers and exit pages.
    expect(await stat(s, 'landing_page', f)).toEqual({ '/': 1, '/pricing': 1 });
    expect(await stat(s, 'referrer', f)).toEqual({ 'www.google.com': 1, 'news.example.org': 1 });
    expect(await stat(s, 'exit_page', f)).toEqual({ '/pricing': 2 });
    expect(await stat(s, 'bounces', f)).toEqual({ [DAY]: 1 });
    expect(await stat(s, 'event', f)).toEqual({});
    // Page views per visit: the kept visits' page views (Ann's two, Cy's one) per visit.
    expect(await summary(s, f)).toEqual({
      visitors: 2,
      visits: 2,
      pageviews: 2,
      views_per_visit: 1.5,
      bounce_rate: 50,
      visit_duration: 60,
      events: 0,
    });
  });

  it('a referrer filter keeps every hit of the visits it started', async () => {
    const s = await threeVisitors();
    const f = 'filter[referrer]=www.google.com';
    expect(await stat(s, 'page', f)).toEqual({ '/': 1, '/pricing': 1 });
    expect(await stat(s, 'event', f)).toEqual({ signup: 1 });
    expect(await stat(s, 'visit_duration', f)).toEqual({ [DAY]: 120 });
    expect(await summary(s, f)).toMatchObject({ visitors: 1, visits: 1, pageviews: 2, events: 1 });
  });

  it('a browser filter keeps every hit of those visitors that day', async () => {
    const s = await threeVisitors();
    const f = 'filter[browser]=Chrome';
    expect(await stat(s, 'page', f)).toEqual({ '/': 2, '/pricing': 2, '/blog': 1 });
    expect(await stat(s, 'visits', f)).toEqual({ [DAY]: 3 });
    expect(await stat(s, 'device', f)).toEqual({ desktop: 2 });
    expect(await stat(s, 'browser', 'filter[browser][not]=Chrome')).toEqual({ Safari: 1 });
    expect(await stat(s, 'page', 'filter[os][not]=Windows')).toEqual({ '/blog': 1 });
  });

  it('an event filter keeps the events, and counts the visitors and visits that have one', async () => {
    const s = await threeVisitors();
    const f = 'filter[event]=signup';
    expect(await stat(s, 'event', f)).toEqual({ signup: 1 });
    expect(await stat(s, 'page', f)).toEqual({});
    expect(await stat(s, 'referrer', f)).toEqual({ 'www.google.com': 1 });
    expect(await summary(s, f)).toMatchObject({ visitors: 1, visits: 1, pageviews: 0, events: 1 });
  });

  it('exit and landing page filters; contains ignores case; filters combine with AND', async () => {
    const s = await threeVisitors();
    expect(await stat(s, 'landing_page', 'filter[exit_page]=/blog')).toEqual({
      '/blog': 1,
      '/': 1,
    });
    expect(await stat(s, 'page', 'filter[landing_page]=/pricing')).toEqual({ '/pricing': 1 });
    expect(await stat(s, 'page', 'filter[page][contains]=PRIC')).toEqual({ '/pricing': 2 });
    expect(await stat(s, 'referrer', 'filter[referrer][contains]=NEWS')).toEqual({
      'news.example.org': 1,
    });
    // Chrome and a visit that ended on /blog: Cy's second visit only.
    expect(await stat(s, 'page', 'filter[browser]=Chrome&filter[exit_page]=/blog')).toEqual({
      '/': 1,
      '/blog': 1,
    });
    expect(await stat(s, 'page', 'filter[browser]=Chrome&filter[page][not]=/pricing')).toEqual({
      '/': 2,
      '/blog': 1,
    });
    // A value nobody has: nothing, not everything.
    expect(await stat(s, 'visitors', 'filter[country]=FR:France')).toEqual({});
    expect(await stat(s, 'visitors', 'filter[country]=US:United States')).toEqual({ [DAY]: 3 });
  });

  it('sorts, pages and searches like the unfiltered statistic', async () => {
    const s = await threeVisitors();
    const ask = (q: string) =>
      call(`/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&filter[browser]=Chrome&${q}`, {
        key: s.key,
      });
    const byValue = await ask('sort_by=value&sort=asc');
    expect(byValue.json.data).toEqual([
      { value: '/', count: 2 },
      { value: '/blog', count: 1 },
      { value: '/pricing', count: 2 },
    ]);
    // Ties by value, whatever the direction.
    const byCount = await ask('sort=asc');
    expect(listOf<{ value: string }>(byCount).data.map((r) => r.value)).toEqual([
      '/blog',
      '/',
      '/pricing',
    ]);
    const pastTheEnd = await ask('per_page=10&page=2');
    expect(pastTheEnd.json).toMatchObject({ data: [], total: 3, last_page: 1 });
    expect(await stat(s, 'page', 'filter[browser]=Chrome&search=BL')).toEqual({ '/blog': 1 });
  });
});

describe('a website without hits', () => {
  it('answers filtered questions with nothing, as unfiltered ones', async () => {
    const s = await site('filters-empty');
    expect(await stat(s, 'page', 'filter[page]=/')).toEqual({});
    expect(await summary(s, 'filter[browser]=Chrome')).toEqual({
      visitors: 0,
      visits: 0,
      pageviews: 0,
      views_per_visit: 0,
      bounce_rate: 0,
      visit_duration: 0,
      events: 0,
    });
  });
});

describe('filters that cannot be used', () => {
  it('answers 422 naming an unknown dimension or operator, and more than ten filters', async () => {
    const s = await site('filters-bad');
    const ask = (q: string) =>
      call(`/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&${q}`, { key: s.key });
    const unknown = await ask('filter[nope]=x');
    expect(unknown.status).toBe(422);
    expect(Object.keys(errorOf(unknown).errors)).toEqual(['filter[nope]']);
    const operator = await ask('filter[page][like]=x');
    expect(Object.keys(errorOf(operator).errors)).toEqual(['filter[page][like]']);
    const empty = await ask('filter[page]=');
    expect(Object.keys(errorOf(empty).errors)).toEqual(['filter[page]']);
    const long = await ask(`filter[page]=${'x'.repeat(MAX_FILTER_LENGTH + 1)}`);
    expect(Object.keys(errorOf(long).errors)).toEqual(['filter[page]']);
    const eleven = FILTER_DIMENSIONS.slice(0, 11)
      .map((d) => `filter[${d}]=x`)
      .join('&');
    const many = await ask(eleven);
    expect(many.status).toBe(422);
    expect(Object.keys(errorOf(many).errors)).toEqual(['filter']);
    // With a bad field too: one 422 names both.
    const both = await call(`/api/v1/stats/${s.id}/summary?from=nope&to=${DAY}&filter[x]=1`, {
      key: s.key,
    });
    expect(both.status).toBe(422);
    expect(Object.keys(errorOf(both).errors).sort()).toEqual(['filter[x]', 'from']);
  });

  it('takes hostile values as values: quotes, % and _, the longest value allowed', async () => {
    const s = await threeVisitors();
    for (const value of [
      "/'; DROP TABLE events; --",
      '%',
      '_',
      '/pri%',
      '"',
      'x'.repeat(MAX_FILTER_LENGTH),
    ]) {
      const q = encodeURIComponent(value);
      expect(await stat(s, 'page', `filter[page]=${q}`)).toEqual({});
      expect(await stat(s, 'page', `filter[page][contains]=${q}`)).toEqual({});
    }
    expect(await stat(s, 'page', 'filter[page][not]=%25')).toEqual({
      '/': 2,
      '/pricing': 2,
      '/blog': 2,
    });
  });

  it("answers another owner's website with the 404 of a missing one", async () => {
    const s = await threeVisitors();
    const other = await makeOwner('filters-other@example.com');
    const res = await call(
      `/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&filter[page]=/pricing`,
      { key: other.key },
    );
    expect(res.status).toBe(404);
    const summaryRes = await call(
      `/api/v1/stats/${s.id}/summary?from=${DAY}&to=${DAY}&filter[page]=/pricing`,
      { key: other.key },
    );
    expect(summaryRes.status).toBe(404);
  });
});

describe('a log that keeps its events for a while (EVENT_RETENTION_DAYS)', () => {
  it('answers a filtered range before its oldest whole date with a 422 naming that date', async () => {
    const s = await site('filters-retention', { privacy: '0' });
    const now = Date.now();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const old = now - 40 * 86_400_000;
    const recent = now - 86_400_000;
    const held = day(old + 86_400_000);
    await runInDurableObject(websiteLog(env, s.id), async (_instance, state) => {
      const log = new WebsiteLogCore(state.storage, { DB: env.DB, EVENT_RETENTION_DAYS: '30' });
      for (const time of [old, old + 1000, recent])
        await record(log, logHit(s.id, { time, date: day(time), hour: '10' }));
      expect(await log.flush()).toMatchObject({ ok: true, events: 3 });
      await log.alarm(); // forgets the events older than 30 days
      const q = { name: 'pageviews' as const, sortBy: 'value' as const, sort: 'asc' as const };
      const page = { limit: 10, offset: 0, filters: [] };
      // The dates after the last one deleted are whole (those without events too).
      expect(
        await v1Reads(log.reads).statistic({ ...q, ...page, from: day(old), to: day(now) }),
      ).toEqual({
        ok: false,
        firstDate: held,
      });
      const kept = await v1Reads(log.reads).statistic({ ...q, ...page, from: held, to: day(now) });
      expect(kept).toMatchObject({ ok: true, value: { rows: [{ value: day(recent), count: 1 }] } });
    });
    // The object's own log starts again on the storage the one above wrote.
    await evictDurableObject(websiteLog(env, s.id));
    const res = await call(
      `/api/v1/stats/${s.id}?name=page&from=${day(old)}&to=${day(now)}&filter[page]=/`,
      { key: s.key },
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).errors.from?.[0]).toContain(held);
    // The statistics page says so, and offers the dates it has; its CSV is the same 422.
    const range = `from=${day(old)}&to=${day(now)}&filter[page]=/`;
    const html = (await call(`/stats/${s.domain}?${range}`)).text;
    expect(html).toContain(`Filtered statistics are kept from ${held} on`);
    expect(html).toContain(`Show ${held} – ${day(now)}`);
    expect(html).not.toContain('class="totals"');
    expect((await call(`/stats/${s.domain}/page.csv?${range}`)).status).toBe(422);
    // The roll-ups keep everything: unfiltered, the old day is there.
    const all = await call(`/api/v1/stats/${s.id}?name=pageviews&from=${day(old)}&to=${day(now)}`, {
      key: s.key,
    });
    expect(listOf(all).total).toBe(2);
  });
});

describe('where each date is in the log', () => {
  it('reads only the dates asked for', async () => {
    const s = await site('filters-days');
    const log = websiteLog(env, s.id);
    const at = (date: string, ip: string) =>
      record(log, logHit(s.id, { time: Date.parse(`${date}T10:00:00Z`), date, ip }));
    await at('2026-06-01', '203.0.113.1');
    await at('2026-06-02', '203.0.113.2');
    await at('2026-06-02', '203.0.113.3');
    await at('2026-06-01', '203.0.113.4'); // late, from another Worker's clock
    await at('2026-06-03', '203.0.113.5');
    const ask = async () => {
      const read = await v1Reads(log).statistic({
        name: 'pageviews',
        from: '2026-06-01',
        to: '2026-06-02',
        filters: [{ dimension: 'page', operator: 'is', value: '/' }],
        sortBy: 'value',
        sort: 'asc',
        limit: 10,
        offset: 0,
      });
      if (!read.ok) throw new Error('no answer');
      return read.value.rows;
    };
    const want = [
      { value: '2026-06-01', count: 2 },
      { value: '2026-06-02', count: 2 },
    ];
    expect(await ask()).toEqual(want);
    await at('2026-06-02', '203.0.113.6');
    expect(await ask()).toEqual([want[0], { value: '2026-06-02', count: 3 }]);
  });
});

/** Random traffic over three days: a few visitors, pages, referrers, browsers, events. */
async function randomTraffic(log: ReturnType<typeof websiteLog>, siteId: number) {
  const hits = fc.sample(
    fc.record({
      who: fc.integer({ min: 0, max: 7 }),
      gapSeconds: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 7200 })),
      page: fc.integer({ min: 0, max: 5 }),
      referrer: fc.integer({ min: 0, max: 5 }),
      event: fc.integer({ min: 0, max: 6 }),
    }),
    { numRuns: 300, seed: 11 },
  );
  let time = Date.parse('2026-06-01T05:00:00Z');
  for (const h of hits) {
    time += h.gapSeconds * 1000;
    const date = new Date(time).toISOString().slice(0, 10);
    await record(
      log,
      logHit(siteId, {
        kind: h.event === 0 ? 'event' : 'pageview',
        event: h.event === 0 ? `e${h.page % 2}` : null,
        page: h.event === 0 ? '' : `/p${h.page}`,
        referrer: h.referrer >= 4 ? `r${h.referrer}.example.net` : '',
        campaign: h.referrer === 5 ? 'spring' : null,
        ip: `203.0.113.${h.who + 1}`,
        browser: h.who % 3 === 0 ? 'Safari' : 'Chrome',
        language: h.who % 2 === 0 ? 'en' : 'de',
        resolution: h.who % 4 === 0 ? null : '1920x1080',
        time,
        date,
        hour: new Date(time).toISOString().slice(11, 13),
      }),
    );
  }
}

describe("the log's unfiltered answers", () => {
  it('equal the roll-ups for every statistic, range, sort, search and page', async () => {
    const s = await site('filters-equal');
    const log = websiteLog(env, s.id);
    await randomTraffic(log, s.id);
    await flushLog(s.id);
    const db = createDb(env.DB);
    const dates = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...STAT_NAMES),
        fc.constantFrom(...dates),
        fc.constantFrom(...dates),
        fc.constantFrom('count' as const, 'value' as const),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(undefined, 'p', '1', 'E', '0'),
        async (name, a, b, sortBy, sort, limit, page, search) => {
          const [from, to] = a <= b ? [a, b] : [b, a];
          const q = { name, from, to, sortBy, sort, limit, offset: page * limit, search };
          const rolled = await queryStats(db, { websiteId: s.id, through: null, ...q });
          const logged = await v1Reads(log).statistic({ ...q, filters: [] });
          if (!logged.ok) throw new Error('the log did not answer');
          expect(logged.value.rows).toEqual(rolled.rows);
          expect(logged.value.total).toBe(rolled.total);
        },
      ),
      { numRuns: 300 },
    );
    // The panels' and the chart's one read answers every statistic as its own read does, under
    // any filters, by count or by value.
    const filters = fc.constantFrom<Filter[][]>(
      [],
      [{ dimension: 'page' as const, operator: 'is' as const, value: '/p1' }],
      [{ dimension: 'referrer' as const, operator: 'not' as const, value: 'r4.example.net' }],
      [{ dimension: 'browser' as const, operator: 'is' as const, value: 'Safari' }],
      [{ dimension: 'exit_page' as const, operator: 'contains' as const, value: 'P2' }],
      [
        { dimension: 'event' as const, operator: 'is' as const, value: 'e1' },
        { dimension: 'language' as const, operator: 'not' as const, value: 'de' },
      ],
    );
    await fc.assert(
      fc.asyncProperty(
        filters,
        fc.constantFrom(...dates),
        fc.constantFrom(...dates),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('count' as const, 'value' as const),
        async (filtered, a, b, limit, sortBy) => {
          const [from, to] = a <= b ? [a, b] : [b, a];
          const all = await v1Reads(log).topValues({
            from,
            to,
            filters: filtered,
            names: [...STAT_NAMES],
            limit,
            sortBy,
          });
          if (!all.ok) throw new Error('the log did not answer');
          for (const [i, name] of STAT_NAMES.entries()) {
            const q = {
              name,
              from,
              to,
              sortBy,
              sort: sortBy === 'value' ? 'asc' : 'desc',
            } as const;
            const one = await v1Reads(log).statistic({ ...q, filters: filtered, limit, offset: 0 });
            if (!one.ok) throw new Error('the log did not answer');
            expect(all.value[i], name).toEqual(one.value);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('filtered answers, for random filters', () => {
  it('equal a reference worked out from the raw hits, for every statistic and range', async () => {
    const s = await site('filters-reference');
    const log = websiteLog(env, s.id);
    await randomTraffic(log, s.id);
    const events = await loggedEvents(log);
    const dates = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04'];
    const VALUES: Partial<Record<Filter['dimension'], string[]>> = {
      page: ['/p0', '/p1', '/p5', 'P2'],
      landing_page: ['/p1', '/p3', 'p'],
      exit_page: ['/p2', '/p4', 'P'],
      referrer: ['r4.example.net', 'r5.example.net', 'R5'],
      campaign: ['spring', 'SPR'],
      browser: ['Safari', 'Chrome', 'saf'],
      language: ['en', 'de'],
      resolution: ['1920x1080', '1920'],
      event: ['e0', 'e1', 'E'],
    };
    const filter = fc
      .constantFrom(...(Object.keys(VALUES) as Filter['dimension'][]))
      .chain((dimension) =>
        fc.record({
          dimension: fc.constant(dimension),
          operator: fc.constantFrom('is' as const, 'not' as const, 'contains' as const),
          value: fc.constantFrom(...(VALUES[dimension] as string[])),
        }),
      );
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(filter, {
          minLength: 1,
          maxLength: 3,
          selector: (f) => `${f.dimension} ${f.operator}`,
        }),
        fc.constantFrom(...STAT_NAMES),
        fc.constantFrom(...dates),
        fc.constantFrom(...dates),
        async (generated, name, a, b) => {
          const [from, to] = a <= b ? [a, b] : [b, a];
          // Plain objects: fast-check's own do not cross to the object.
          const filters = generated.map(({ dimension, operator, value }) => ({
            dimension,
            operator,
            value,
          }));
          const q = { name, from, to, filters, sortBy: 'count', sort: 'desc' } as const;
          const read = await v1Reads(log).statistic({ ...q, limit: 1000, offset: 0 });
          if (!read.ok) throw new Error('the log did not answer');
          const answer = Object.fromEntries(read.value.rows.map((r) => [r.value, r.count]));
          expect(answer, `${name} ${JSON.stringify(filters)}`).toEqual(
            referenceStatistic(events, name, from, to, filters),
          );
          compared += read.value.rows.length;
        },
      ),
      { numRuns: 200 },
    );
    expect(compared).toBeGreaterThan(100);
  });
});
