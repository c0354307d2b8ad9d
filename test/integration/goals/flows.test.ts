/**
 * Funnels and journeys read from the event log (docs/ARCHITECTURE.md, "Funnels and
 * journeys"), against a reference worked out here from the log's raw hits: visitors of a day
 * follow a funnel's steps in order across their visits of that day, never across days; a
 * journey is each kept visit's pages from the first time it viewed the page. The filters keep
 * whole visits: those with a hit they keep.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENTRANCE, EXIT, type FunnelStep } from '../../../src/counting/flow-queries.ts';
import { funnelOf, journeysOf } from '../../../src/flows/questions.ts';
import type { Filter } from '../../../src/query/parse/v1.ts';
import { isUnavailable } from '../../../src/query/run/reader.ts';
import type { LoggedEvent, LogHit } from '../../../src/website-log/events.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { loggedEvents, logHit, record } from '../../support/event-log.ts';
import { keptByFilters } from '../../support/filter-reference.ts';
import { site } from '../../support/ingest-fixtures.ts';

type Site = Awaited<ReturnType<typeof site>>;

/** A hit of person `who` at an instant (UTC: the fixture's websites keep UTC). */
function hitAt(siteId: number, who: number, iso: string, what: { page?: string; event?: string }) {
  const time = Date.parse(iso);
  const event = what.event ?? null;
  const over: Partial<LogHit> = {
    kind: event ? 'event' : 'pageview',
    event,
    name: event ?? 'pageview',
    page: what.page ?? '/',
    ip: `198.51.100.${who + 1}`,
    browser: who % 3 === 0 ? 'Safari' : 'Chrome',
    language: who % 2 === 0 ? 'en' : 'de',
    time,
    date: iso.slice(0, 10),
    hour: iso.slice(11, 13),
  };
  return logHit(siteId, over);
}

async function funnel(
  s: Site,
  steps: FunnelStep[],
  range: [string, string],
  filters: Filter[] = [],
) {
  const answer = await funnelOf(
    env,
    s.id,
    { steps },
    { from: range[0], to: range[1] },
    filters,
    [],
  );
  if (isUnavailable(answer)) throw new Error('unavailable');
  return answer;
}

describe('a funnel follows each visitor of a day', () => {
  let s: Site;
  beforeAll(async () => {
    s = await site('funnel-cases');
    const log = websiteLog(env, s.id);
    const hits: [number, string, { page?: string; event?: string }][] = [
      // 0: every step in one visit, an event before its first page view left out.
      [0, '2026-06-01T09:59:00Z', { event: 'Signup' }],
      [0, '2026-06-01T10:00:00Z', { page: '/pricing' }],
      [0, '2026-06-01T10:01:00Z', { page: '/signup/form' }],
      [0, '2026-06-01T10:02:00Z', { event: 'Signup' }],
      // 1: out of order: the sign-up page before the pricing page.
      [1, '2026-06-01T10:00:00Z', { page: '/signup/form' }],
      [1, '2026-06-01T10:01:00Z', { page: '/pricing' }],
      [1, '2026-06-01T10:02:00Z', { event: 'Signup' }],
      // 2: repeated steps, then a nested sign-up page (`**`).
      [2, '2026-06-01T10:00:00Z', { page: '/pricing' }],
      [2, '2026-06-01T10:01:00Z', { page: '/pricing' }],
      [2, '2026-06-01T10:02:00Z', { page: '/signup/team/form' }],
      // 3: two visits of the day (an hour apart): one funnel.
      [3, '2026-06-01T10:00:00Z', { page: '/pricing' }],
      [3, '2026-06-01T11:30:00Z', { page: '/signup/form' }],
      [3, '2026-06-01T11:31:00Z', { event: 'Signup' }],
      // 4: two days: the first step on each, the second on the second only after it.
      [4, '2026-06-01T10:00:00Z', { page: '/pricing' }],
      [4, '2026-06-02T09:00:00Z', { page: '/signup/form' }],
      // 5: a visit that reaches midnight: the second step is the next day's.
      [5, '2026-06-01T23:55:00Z', { page: '/pricing' }],
      [5, '2026-06-02T00:05:00Z', { page: '/signup/form' }],
    ];
    for (const [who, iso, what] of hits) await record(log, hitAt(s.id, who, iso, what));
  });

  const steps: FunnelStep[] = [{ page: '/pricing' }, { page: '/signup/**' }, { event: 'Signup' }];

  it('counts each step taken in order, within the local day, across its visits', async () => {
    const answer = await funnel(s, steps, ['2026-06-01', '2026-06-02']);
    expect(answer).toEqual([
      {
        step: 1,
        label: '/pricing',
        visitors: 6,
        conversion_rate: 100,
        dropoff: 0,
        dropoff_rate: 0,
      },
      {
        step: 2,
        label: '/signup/**',
        visitors: 3,
        conversion_rate: 50,
        dropoff: 3,
        dropoff_rate: 50,
      },
      {
        step: 3,
        label: 'Signup',
        visitors: 2,
        conversion_rate: 33.33,
        dropoff: 1,
        dropoff_rate: 33.33,
      },
    ]);
  });

  it('counts the days of the range only, and a `*` within one segment', async () => {
    const second = await funnel(s, steps, ['2026-06-02', '2026-06-02']);
    expect(second.map((step) => step.visitors)).toEqual([0, 0, 0]);
    const oneSegment = await funnel(
      s,
      [{ page: '/pricing' }, { page: '/signup/*' }],
      ['2026-06-01', '2026-06-01'],
    );
    expect(oneSegment.map((step) => step.visitors)).toEqual([6, 2]);
  });

  it('keeps the visits the filters keep', async () => {
    // Visitors 0 and 3 use Safari: only their visits count.
    const safari = await funnel(
      s,
      steps,
      ['2026-06-01', '2026-06-01'],
      [{ dimension: 'browser', operator: 'is', value: 'Safari' }],
    );
    expect(safari.map((step) => step.visitors)).toEqual([2, 2, 2]);
    // The visits with the event: visitor 3's second visit alone, which has no pricing page.
    const signedUp = await funnel(
      s,
      steps,
      ['2026-06-01', '2026-06-01'],
      [{ dimension: 'event', operator: 'is', value: 'Signup' }],
    );
    expect(signedUp.map((step) => step.visitors)).toEqual([2, 1, 1]);
  });
});

/** Random traffic over three days, with visits that reach midnight. */
async function randomTraffic(s: Site): Promise<LoggedEvent[]> {
  const log = websiteLog(env, s.id);
  const hits = fc.sample(
    fc.record({
      who: fc.integer({ min: 0, max: 11 }),
      gapSeconds: fc.oneof(fc.integer({ min: 0, max: 240 }), fc.integer({ min: 0, max: 5400 })),
      page: fc.integer({ min: 0, max: 7 }),
      event: fc.integer({ min: 0, max: 9 }),
    }),
    { numRuns: 500, seed: 33 },
  );
  let time = Date.parse('2026-06-01T20:00:00Z');
  for (const h of hits) {
    time += h.gapSeconds * 1000;
    const iso = new Date(time).toISOString();
    const what =
      h.event <= 1 ? { event: h.event === 0 ? 'Signup' : 'Buy' } : { page: PAGES[h.page] };
    await record(log, {
      ...hitAt(s.id, h.who, iso, what),
      referrer: h.who % 4 === 1 ? 'r.example.net' : '',
      source: h.who % 4 === 1 ? 'r.example.net' : '',
    });
  }
  return loggedEvents(log);
}

const PAGES = ['/', '/pricing', '/docs', '/docs/a', '/docs/a/b', '/p1', '/p2', '/signup'];

/** A step as a test of a raw hit (a page pattern: `*` within a segment, `**` across). */
function takes(step: FunnelStep): (e: LoggedEvent) => boolean {
  if ('event' in step) return (e) => e.kind === 'event' && e.event === step.event;
  const pattern = 'page' in step ? step.page : '';
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((p) => (p === '**' ? '.*' : p === '*' ? '[^/]*' : p.replace(/[.]/g, '\\.')))
    .join('');
  const re = new RegExp(`^${source}$`);
  return (e) => e.kind === 'pageview' && re.test(e.page);
}

const visitKey = (e: LoggedEvent) => `${e.date} ${e.visitor} ${e.visit}`;

/** The events of the range in the visits the filters keep, in the log's order. */
function keptVisits(all: LoggedEvent[], from: string, to: string, filters: Filter[]) {
  const events = all.filter((e) => e.date >= from && e.date <= to && e.visitor > 0);
  const keeps = keptByFilters(events, filters);
  const visits = new Set(events.filter((e) => e.visit > 0 && keeps(e)).map(visitKey));
  return events
    .filter((e) => filters.length === 0 || visits.has(visitKey(e)))
    .sort((a, b) => a.id - b.id);
}

function referenceFunnel(
  all: LoggedEvent[],
  range: [string, string],
  steps: FunnelStep[],
  filters: Filter[],
): number[] {
  const tests = steps.map(takes);
  const taken = new Map<string, number>();
  for (const e of keptVisits(all, range[0], range[1], filters)) {
    const visitor = `${e.date} ${e.visitor}`;
    const k = taken.get(visitor) ?? 0;
    if (k < tests.length && tests[k]?.(e)) taken.set(visitor, k + 1);
  }
  return steps.map((_, i) => [...taken.values()].filter((k) => k > i).length);
}

function referenceJourneys(
  all: LoggedEvent[],
  range: [string, string],
  page: string,
  direction: 'next' | 'previous',
  steps: number,
  filters: Filter[],
): Record<string, number> {
  const visits = new Map<string, string[]>();
  for (const e of keptVisits(all, range[0], range[1], filters))
    if (e.kind === 'pageview')
      visits.set(visitKey(e), [...(visits.get(visitKey(e)) ?? []), e.page]);
  const out: Record<string, number> = {};
  for (const pages of visits.values()) {
    const at = pages.indexOf(page);
    if (at < 0) continue;
    const path = [page];
    for (let i = 1; i <= steps; i++) {
      const next = pages[direction === 'next' ? at + i : at - i];
      if (next === undefined) {
        path.push(direction === 'next' ? EXIT : ENTRANCE);
        break;
      }
      path.push(next);
    }
    if (direction === 'previous') path.reverse();
    out[path.join(' > ')] = (out[path.join(' > ')] ?? 0) + 1;
  }
  return out;
}

const stepArb: fc.Arbitrary<FunnelStep> = fc.constantFrom(
  { page: '/' },
  { page: '/pricing' },
  { page: '/docs' },
  { page: '/docs/*' },
  { page: '/docs/**' },
  { page: '/p*' },
  { page: '/signup' },
  { event: 'Signup' },
  { event: 'Buy' },
);

const filterArb: fc.Arbitrary<Filter[]> = fc.subarray(
  [
    { dimension: 'browser', operator: 'is', value: 'Chrome' },
    { dimension: 'language', operator: 'not', value: 'de' },
    { dimension: 'page', operator: 'contains', value: 'docs' },
    { dimension: 'event', operator: 'is', value: 'Buy' },
    { dimension: 'referrer', operator: 'is', value: 'r.example.net' },
  ] as Filter[],
  { maxLength: 2 },
);

const DATES = ['2026-06-01', '2026-06-02', '2026-06-03'];
const rangeArb = fc
  .tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }))
  .map(([a, b]) => [DATES[Math.min(a, b)], DATES[Math.max(a, b)]] as [string, string]);

describe('funnels and journeys on random traffic', () => {
  let s: Site;
  let events: LoggedEvent[];
  beforeAll(async () => {
    s = await site('flows-random');
    events = await randomTraffic(s);
  });

  it('holds traffic whose visits reach midnight', () => {
    expect(new Set(events.map((e) => e.date)).size).toBeGreaterThanOrEqual(2);
  });

  it('counts every funnel as the reference does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 2, maxLength: 5 }),
        rangeArb,
        filterArb,
        async (steps, range, filters) => {
          const answer = await funnel(s, steps, range, filters);
          expect(answer.map((step) => step.visitors)).toEqual(
            referenceFunnel(events, range, steps, filters),
          );
        },
      ),
      { numRuns: 40, seed: 331 },
    );
  });

  it('follows every journey as the reference does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PAGES),
        fc.constantFrom('next' as const, 'previous' as const),
        fc.integer({ min: 1, max: 3 }),
        rangeArb,
        filterArb,
        async (page, direction, steps, range, filters) => {
          const answer = await journeysOf(
            env,
            s.id,
            {
              ...{ from: range[0], to: range[1], page, direction, steps },
              ...{ sortBy: 'count', sort: 'desc', limit: 10_000, offset: 0 },
            },
            filters,
            [],
          );
          if (isUnavailable(answer)) throw new Error('unavailable');
          const got = Object.fromEntries(answer.rows.map((r) => [r.path.join(' > '), r.visits]));
          expect(got).toEqual(referenceJourneys(events, range, page, direction, steps, filters));
          expect(answer.total).toBe(answer.rows.length);
          const visits = answer.rows.map((r) => r.visits);
          expect(visits).toEqual([...visits].sort((a, b) => b - a));
        },
      ),
      { numRuns: 40, seed: 332 },
    );
  });
});
