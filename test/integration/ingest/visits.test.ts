/**
 * Visits, bounces, visit duration, exit pages and the summary (docs/ARCHITECTURE.md, The
 * counting model): hits of known visitors through `POST /api/event` with known gaps, read
 * back through the Stats API and compared with figures worked out by hand; and, for random
 * sequences of hits, with a reference computed directly from the hits.
 */
import { evictDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, errorOf, makeOwner } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { rollups, sendHit } from '../../support/hits.ts';
import { advance, flushLog, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

const newSite = (fields: Record<string, string> = {}) => site('visits', fields);

type Site = Awaited<ReturnType<typeof newSite>>;

/** A statistic through the Stats API, as `{value: count}`. */
async function stat(s: Site, name: string, from: string, to = from) {
  const res = await call(`/api/v1/stats/${s.id}?name=${name}&from=${from}&to=${to}&per_page=100`, {
    key: s.key,
  });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(
    (res.json.data as { value: string; count: number }[]).map((r) => [r.value, r.count]),
  );
}

async function summary(s: Site, from: string, to = from) {
  const res = await call(`/api/v1/stats/${s.id}/summary?from=${from}&to=${to}`, { key: s.key });
  expect(res.status, res.text).toBe(200);
  return res.json as { data: Record<string, number>; previous: Record<string, number> };
}

/** The summary of one visitor's one visit of one page. */
const ONE_PAGE_VISIT = {
  visitors: 1,
  visits: 1,
  pageviews: 1,
  views_per_visit: 1,
  bounce_rate: 100,
  visit_duration: 0,
  events: 0,
};

const visitor =
  (s: Site, ip: string) =>
  (path: string, extra: Record<string, unknown> = {}) =>
    sendHit({ page: `https://${s.domain}${path}`, ...extra }, { ip });

describe('visits, bounces, duration and exit pages', () => {
  it('a single-page visit is a bounce of no duration, and its page is the exit page', async () => {
    const s = await newSite();
    freezeAt('2026-05-14T10:00:00Z');
    expect((await visitor(s, '198.51.100.1')('/only')).status).toBe(202);
    const day = '2026-05-14';
    expect(await stat(s, 'visits', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'visits_hours', day)).toEqual({ '10': 1 });
    expect(await stat(s, 'bounces', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'visit_duration', day)).toEqual({});
    expect(await stat(s, 'exit_page', day)).toEqual({ '/only': 1 });
    expect((await summary(s, day)).data).toEqual(ONE_PAGE_VISIT);
  });

  it('a visit goes on within 30 minutes: duration from first to last page view; then a new one', async () => {
    const s = await newSite();
    const hit = visitor(s, '198.51.100.2');
    freezeAt('2026-05-14T10:00:00Z');
    await hit('/a');
    advance(12 * MINUTE + 30_000);
    await hit('/b');
    advance(17 * MINUTE);
    await hit('/c'); // 29.5 minutes after the first, 17 after the last: the same visit
    advance(30 * MINUTE); // exactly 30 minutes without a page view: a new visit
    await hit('/d');
    const day = '2026-05-14';
    expect(await stat(s, 'visits', day)).toEqual({ [day]: 2 });
    expect(await stat(s, 'visits_hours', day)).toEqual({ '10': 2 });
    expect(await stat(s, 'bounces', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'visit_duration', day)).toEqual({ [day]: 29 * 60 + 30 });
    expect(await stat(s, 'exit_page', day)).toEqual({ '/c': 1, '/d': 1 });
    expect((await summary(s, day)).data).toMatchObject({
      visits: 2,
      pageviews: 4,
      views_per_visit: 2,
      bounce_rate: 50,
      visit_duration: Math.round((29 * 60 + 30) / 2),
    });
  });

  it('a visit belongs to its local date and hour: at midnight in its time zone a new one starts', async () => {
    const s = await newSite({ timezone: 'America/New_York' });
    const hit = visitor(s, '198.51.100.3');
    freezeAt('2026-05-15T03:50:00Z'); // 23:50 on the 14th in New York
    await hit('/late');
    advance(10 * MINUTE); // 00:00 on the 15th
    await hit('/later');
    advance(5 * MINUTE);
    await hit('/latest');
    expect(await stat(s, 'visits', '2026-05-14', '2026-05-15')).toEqual({
      '2026-05-14': 1,
      '2026-05-15': 1,
    });
    expect(await stat(s, 'visits_hours', '2026-05-14', '2026-05-15')).toEqual({ '23': 1, '00': 1 });
    expect(await stat(s, 'bounces', '2026-05-14', '2026-05-15')).toEqual({ '2026-05-14': 1 });
    expect(await stat(s, 'visit_duration', '2026-05-15')).toEqual({ '2026-05-15': 300 });
    expect(await stat(s, 'exit_page', '2026-05-14')).toEqual({ '/late': 1 });
    expect(await stat(s, 'exit_page', '2026-05-15')).toEqual({ '/latest': 1 });
  });

  it('counts the same across flushes as in one', async () => {
    const one = await newSite();
    const many = await newSite();
    freezeAt('2026-05-14T10:00:00Z');
    const steps: [string, number][] = [
      ['/a', 0],
      ['/b', 2 * MINUTE],
      ['/a', 3 * MINUTE],
      ['/c', 40 * MINUTE],
    ];
    const start = Date.now();
    for (const [path, at] of steps) {
      vi.setSystemTime(start + at);
      await visitor(one, '198.51.100.4')(path);
    }
    for (const [path, at] of steps) {
      vi.setSystemTime(start + at);
      await visitor(many, '198.51.100.4')(path);
      await flushLog(many.id); // a reader between every two hits: a flush each time
    }
    const day = '2026-05-14';
    for (const name of ['visits', 'bounces', 'visit_duration', 'exit_page']) {
      expect(await stat(many, name, day), name).toEqual(await stat(one, name, day));
    }
    expect(await stat(many, 'exit_page', day)).toEqual({ '/a': 1, '/c': 1 });
    expect(await stat(many, 'visit_duration', day)).toEqual({ [day]: 180 });
  });

  it("concurrent hits of one visitor are one visit, decided in the log's arrival order", async () => {
    const s = await newSite();
    freezeAt('2026-05-14T10:00:00Z');
    const hit = visitor(s, '198.51.100.5');
    const answers = await Promise.all(['/1', '/2', '/3', '/4', '/5'].map((p) => hit(p)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    const day = '2026-05-14';
    expect(await stat(s, 'visits', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'bounces', day)).toEqual({});
    const exits = await stat(s, 'exit_page', day);
    expect(Object.values(exits)).toEqual([1]);
  });

  it('arriving from another site starts a new visit: the first one ends where it was', async () => {
    const s = await newSite();
    const hit = visitor(s, '198.51.100.6');
    freezeAt('2026-05-14T10:00:00Z');
    await hit('/a');
    advance(MINUTE);
    await hit('/b');
    advance(MINUTE);
    await hit('/c', { referrer: 'https://news.example.net/story' });
    const day = '2026-05-14';
    expect(await stat(s, 'visits', day)).toEqual({ [day]: 2 });
    expect(await stat(s, 'bounces', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'exit_page', day)).toEqual({ '/b': 1, '/c': 1 });
    expect(await stat(s, 'visit_duration', day)).toEqual({ [day]: 60 });
  });

  it('custom events inside a bounce leave it a bounce, and count as events', async () => {
    const s = await newSite();
    const hit = visitor(s, '198.51.100.7');
    freezeAt('2026-05-14T10:00:00Z');
    await hit('/landing');
    advance(MINUTE);
    await hit('/landing', { event: { name: 'Signup' } });
    advance(MINUTE);
    await hit('/landing', { event: { name: 'Download' } });
    const day = '2026-05-14';
    expect(await stat(s, 'bounces', day)).toEqual({ [day]: 1 });
    expect(await stat(s, 'exit_page', day)).toEqual({ '/landing': 1 });
    expect((await summary(s, day)).data).toMatchObject({
      visits: 1,
      pageviews: 1,
      bounce_rate: 100,
      visit_duration: 0,
      events: 2,
    });
  });
});

describe('the statistics page', () => {
  it('shows the six figures, and its chart switches to visits, bounce rate and visit duration', async () => {
    const s = await newSite({ privacy: '0' });
    freezeAt('2026-05-14T10:00:00Z');
    const hit = visitor(s, '198.51.100.9');
    await hit('/a');
    advance(2 * MINUTE);
    await hit('/b');
    await visitor(s, '198.51.100.10')('/a');
    const page = async (q: string) => {
      const res = await exports.default.fetch(`https://sightline.test/stats/${s.domain}?${q}`);
      expect(res.status).toBe(200);
      return res.text();
    };
    const range = 'from=2026-05-13&to=2026-05-14';
    const overview = await page(range);
    const figures = [...overview.matchAll(/<p class="big">([^<]*)<\/p>/g)].map((m) => m[1]);
    expect(figures).toEqual(['2', '2', '3', '1.50', '50%', '1m 00s']);
    expect(overview).toContain('<title id="chart-title">Visitors and page views</title>');
    expect(overview).toContain('id="panel-exit_page"');

    const bounce = await page(`${range}&chart=bounce_rate`);
    expect(bounce).toContain('<title id="chart-title">Bounce rate</title>');
    expect(bounce).toMatch(/<td>2026-05-14<\/td><td class="num">50%<\/td>/);
    const duration = await page(`${range}&chart=visit_duration`);
    expect(duration).toMatch(/<td>2026-05-14<\/td><td class="num">1m 00s<\/td>/);
    const visits = await page(`${range}&chart=visits`);
    expect(visits).toMatch(/<td>2026-05-14<\/td><td class="num">2<\/td>/);

    // One day is drawn by the hour, which has no bounce rate: the chart shows both lines.
    const oneDay = await page('from=2026-05-14&to=2026-05-14&chart=bounce_rate');
    expect(oneDay).toContain('<title id="chart-title">Visitors and page views</title>');
    expect(oneDay).not.toContain('chart=bounce_rate');
  });
});

describe('GET /api/v1/stats/{id}/summary', () => {
  it('answers the range and the period of equal length before it', async () => {
    const s = await newSite();
    freezeAt('2026-05-10T09:00:00Z');
    await visitor(s, '198.51.100.8')('/');
    freezeAt('2026-05-13T09:00:00Z');
    const hit = visitor(s, '198.51.100.8');
    await hit('/');
    advance(90_000);
    await hit('/x');
    const both = await summary(s, '2026-05-12', '2026-05-13');
    expect(both.data).toEqual({
      visitors: 1,
      visits: 1,
      pageviews: 2,
      views_per_visit: 2,
      bounce_rate: 0,
      visit_duration: 90,
      events: 0,
    });
    expect(both.previous).toEqual(ONE_PAGE_VISIT);
  });

  it("is the same 404 for another owner's website and a missing one, and 422 names bad fields", async () => {
    const s = await newSite();
    const stranger = await makeOwner('stranger');
    const theirs = await call(`/api/v1/stats/${s.id}/summary?from=2026-05-01&to=2026-05-02`, {
      key: stranger.key,
    });
    const missing = await call('/api/v1/stats/99999999/summary?from=2026-05-01&to=2026-05-02', {
      key: s.key,
    });
    expect([theirs.status, theirs.json]).toEqual([missing.status, missing.json]);
    expect(theirs.status).toBe(404);
    const bad = await call(`/api/v1/stats/${s.id}/summary?from=2026-13-01`, { key: s.key });
    expect(bad.status).toBe(422);
    expect(Object.keys(errorOf(bad).errors).sort()).toEqual(['from', 'to']);
    const reversed = await call(`/api/v1/stats/${s.id}/summary?from=2026-05-02&to=2026-05-01`, {
      key: s.key,
    });
    expect(reversed.status).toBe(422);
    expect(Object.keys(errorOf(reversed).errors)).toEqual(['to']);
    const anonymous = await call(`/api/v1/stats/${s.id}/summary?from=2026-05-01&to=2026-05-02`);
    expect(anonymous.status).toBe(401);
  });
});

describe('for any sequence of hits', () => {
  /**
   * One hit of a sequence: who, how long after the previous hit, what; and whether the object
   * restarts before it (the visits under way are then read back from its events).
   */
  type Step = {
    who: number;
    gapSeconds: number;
    page: number;
    referrer: number;
    event: boolean;
    restart: boolean;
  };
  const step = fc.record({
    who: fc.integer({ min: 0, max: 2 }),
    gapSeconds: fc.oneof(
      fc.integer({ min: 0, max: 120 }),
      fc.constantFrom(1799, 1800, 1801),
      fc.integer({ min: 0, max: 3600 }),
    ),
    page: fc.integer({ min: 0, max: 3 }),
    referrer: fc.integer({ min: 0, max: 4 }), // 0–2: none; 3, 4: another site
    event: fc.boolean(),
    restart: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  });

  /** The figures worked out from the hits alone, by the definitions. */
  function reference(steps: Step[], start: number) {
    type Visit = { views: number; first: number; last: number; exit: string; referrer: string };
    const current = new Map<number, Visit>();
    const visits: Visit[] = [];
    let time = start;
    for (const s of steps) {
      time += s.gapSeconds * 1000;
      const page = `/p${s.page}`;
      const referrer = s.referrer >= 3 ? `r${s.referrer}.example.net` : '';
      const open = current.get(s.who);
      if (s.event) continue;
      const goesOn =
        open !== undefined &&
        open.last > time - 30 * MINUTE &&
        (referrer === '' || referrer === open.referrer);
      if (goesOn) {
        open.views += 1;
        open.last = Math.max(open.last, time);
        open.exit = page;
      } else {
        const visit = { views: 1, first: time, last: time, exit: page, referrer };
        current.set(s.who, visit);
        visits.push(visit);
      }
    }
    const exits: Record<string, number> = {};
    for (const v of visits) exits[v.exit] = (exits[v.exit] ?? 0) + 1;
    return {
      visits: visits.length,
      bounces: visits.filter((v) => v.views === 1).length,
      duration: visits.reduce((n, v) => n + Math.floor((v.last - v.first) / 1000), 0),
      exits,
    };
  }

  it("the log's visits, bounces, duration and exit pages equal the reference, across restarts", async () => {
    const s = await newSite();
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        round += 1;
        // Each round on its own date (a visitor is a visitor of one day).
        const date = new Date(Date.UTC(2025, 0, 1) + round * 86_400_000).toISOString().slice(0, 10);
        const start = Date.parse(`${date}T01:00:00Z`);
        const log = websiteLog(env, s.id);
        let time = start;
        let running = round > 1;
        for (const st of steps) {
          time += st.gapSeconds * 1000;
          // (Only an object that runs can be evicted: not before its first hit.)
          if (st.restart && running) await evictDurableObject(log);
          running = true;
          await record(
            log,
            logHit(s.id, {
              kind: st.event ? 'event' : 'pageview',
              event: st.event ? 'e' : null,
              page: st.event ? '' : `/p${st.page}`,
              referrer: st.referrer >= 3 ? `r${st.referrer}.example.net` : '',
              ip: `203.0.113.${st.who + 1}`,
              time,
              date,
              hour: '01',
            }),
          );
        }
        const want = reference(steps, start);
        const r = await rollups(s.id, date);
        expect(r.visits?.[date] ?? 0).toBe(want.visits);
        expect(r.bounces?.[date] ?? 0).toBe(want.bounces);
        expect(r.visit_duration?.[date] ?? 0).toBe(want.duration);
        const exits = Object.fromEntries(
          Object.entries(r.exit_page ?? {}).filter(([, n]) => n !== 0),
        );
        expect(exits).toEqual(want.exits);
      }),
      { numRuns: 40 },
    );
  });
});
