/**
 * A log's answers from its parts (docs/ARCHITECTURE.md, "When a website outgrows one
 * object"): the same traffic recorded into one log, and split by local date into two logs;
 * each grouping's groups as the two parts read them, added together (`mergeGroupReads`) and
 * made into rows (`answerOf`), answer exactly what the one log answers — sums, percentages,
 * sorting, searching and paging included — on random questions.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf, mergeGroupReads } from '../../../src/counting/group-reads.ts';
import type { GroupQuery, LogQuery } from '../../../src/counting/query.ts';
import type { LogHit } from '../../../src/website-log/events.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

/** The parts' edge: the whole log holds every date; the first part those before, the second the rest. */
const EDGE = '2026-06-03';

type Logs = { whole: number; before: number; after: number };
let logs: Logs;

/** Random traffic over four days (visitors, pages, referrers, browsers, events, properties). */
function traffic(): Omit<LogHit, 'websiteId'>[] {
  const hits = fc.sample(
    fc.record({
      who: fc.integer({ min: 0, max: 11 }),
      gapSeconds: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 7200 })),
      page: fc.integer({ min: 0, max: 6 }),
      referrer: fc.integer({ min: 0, max: 5 }),
      event: fc.integer({ min: 0, max: 6 }),
    }),
    { numRuns: 400, seed: 48 },
  );
  let time = Date.parse('2026-06-01T05:00:00Z');
  return hits.map((h) => {
    time += h.gapSeconds * 1000;
    const event = h.event === 0 ? `e${h.page % 2}` : null;
    const { websiteId: _, ...hit } = logHit(0, {
      kind: event ? 'event' : 'pageview',
      event,
      name: event ?? 'pageview',
      page: event ? '' : `/p${h.page}`,
      referrer: h.referrer >= 4 ? `r${h.referrer}.example.net` : '',
      source: h.referrer >= 4 ? `r${h.referrer}.example.net` : '',
      ip: `203.0.113.${h.who + 1}`,
      browser: h.who % 3 === 0 ? 'Safari' : 'Chrome',
      country: h.who % 4 === 0 ? 'DE:Germany' : 'US:United States',
      props: h.who % 2 === 0 ? [['plan', h.who % 4 === 0 ? 'pro' : 'free']] : [],
      time,
      date: new Date(time).toISOString().slice(0, 10),
      hour: new Date(time).toISOString().slice(11, 13),
    });
    return hit;
  });
}

beforeAll(async () => {
  logs = {
    whole: (await site('parts-whole')).id,
    before: (await site('parts-before')).id,
    after: (await site('parts-after')).id,
  };
  for (const hit of traffic()) {
    await record(websiteLog(env, logs.whole), { ...hit, websiteId: logs.whole });
    const part = hit.date < EDGE ? logs.before : logs.after;
    await record(websiteLog(env, part), { ...hit, websiteId: part });
  }
});

/** What the whole log answers, and what its two parts' groups make together. */
async function bothWays(q: LogQuery) {
  const whole = await websiteLog(env, logs.whole).query(q);
  const parts = await Promise.all(
    [logs.before, logs.after].map((id) => websiteLog(env, id).groupReads(q)),
  );
  if (!whole.ok || !parts.every((p) => p.ok)) throw new Error('a log did not answer');
  const now = <T>(work: () => T) => Promise.resolve(work());
  const merged = await Promise.all(
    q.groups.map((g, i) =>
      answerOf(g, mergeGroupReads(parts.map((p) => (p.ok ? p.value[i] : undefined) as never)), now),
    ),
  );
  return { whole: whole.value, merged };
}

const DIMENSIONS = [
  [],
  ['sl:page'],
  ['visit:entry_page'],
  ['visit:exit_page'],
  ['sl:browser'],
  ['sl:country'],
  ['time:day'],
  ['time:week'],
  ['sl:event'],
  ['sl:props:plan'],
  ['sl:page', 'sl:browser'],
];
const METRICS = [
  ['visitors'],
  ['visitors', 'percentage'],
  ['visits', 'bounce_rate', 'visit_duration'],
  ['pageviews', 'views_per_visit'],
  ['events'],
];

describe("a log's parts, added together", () => {
  it('answer what the whole log answers', async () => {
    const question = fc.record({
      dimensions: fc.constantFrom(...DIMENSIONS),
      metrics: fc.constantFrom(...METRICS),
      from: fc.constantFrom('2026-06-01', '2026-06-02', '2026-06-03'),
      days: fc.integer({ min: 0, max: 4 }),
      limit: fc.integer({ min: 1, max: 8 }),
      offset: fc.integer({ min: 0, max: 4 }),
      direction: fc.constantFrom('asc' as const, 'desc' as const),
      search: fc.constantFrom(undefined, 'p1', 'e', 'ro'),
      filtered: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(question, async (p) => {
        // A visit's metrics are not grouped by an event's name or a hit's property.
        const ofVisits = p.metrics.some(
          (m) => m !== 'visitors' && m !== 'events' && m !== 'percentage' && m !== 'pageviews',
        );
        fc.pre(
          !ofVisits || !p.dimensions.some((d) => d === 'sl:event' || d.startsWith('sl:props:')),
        );
        const to = new Date(Date.parse(p.from) + p.days * 86_400_000).toISOString().slice(0, 10);
        const g: GroupQuery = {
          dimensions: p.dimensions,
          metrics: p.metrics,
          order: [[p.metrics[0] as string, p.direction]],
          limit: p.limit,
          offset: p.offset,
          ...(p.search && p.dimensions.length > 0 ? { search: p.search } : {}),
        };
        const { whole, merged } = await bothWays({
          from: p.from,
          to,
          filters: p.filtered
            ? [{ op: 'is_not', dimension: 'sl:browser', values: ['Safari'], caseSensitive: true }]
            : [],
          groups: [g, { ...g, dimensions: [], limit: 1, offset: 0 }],
        });
        expect(merged).toEqual(whole);
      }),
      { numRuns: 60, seed: 480 },
    );
  });

  it('answer a whole value searched (`exact`) with its row alone, as the search has it', async () => {
    const g: GroupQuery = {
      dimensions: ['sl:page'],
      metrics: ['visitors', 'pageviews'],
      order: [['visitors', 'desc']],
      limit: 10,
      offset: 0,
      search: '/p1',
    };
    const q = { from: '2026-06-01', to: '2026-06-05', filters: [] };
    const searched = await bothWays({ ...q, groups: [g] });
    const exact = await bothWays({
      ...q,
      groups: [
        { ...g, exact: true },
        { ...g, search: '/P1', exact: true },
      ],
    });
    const row = searched.whole[0]?.rows.find((r) => r.dimensions[0] === '/p1');
    expect(row).toBeDefined();
    expect(exact.whole[0]).toEqual({ rows: [row], total: 1 });
    expect(exact.whole[1]).toEqual({ rows: [], total: 0 });
    expect(exact.merged).toEqual(exact.whole);
  });

  it('answer a grouping by goals as the whole log does, each goal paged alone', async () => {
    const g: GroupQuery = {
      dimensions: ['event:goal', 'sl:page'],
      metrics: ['visitors', 'percentage'],
      order: [['visitors', 'desc']],
      limit: 2,
      offset: 0,
      goals: [
        { name: 'Pages one and two', filter: pageGoal(['/p1', '/p2']) },
        { name: 'Page three', filter: pageGoal(['/p3']) },
      ],
    };
    const { whole, merged } = await bothWays({
      from: '2026-06-01',
      to: '2026-06-05',
      filters: [],
      groups: [g],
    });
    expect(whole[0]?.rows.length).toBeGreaterThan(0);
    expect(merged).toEqual(whole);
  });
});

function pageGoal(pages: string[]) {
  return {
    op: 'is' as const,
    dimension: 'event:page',
    values: pages,
    caseSensitive: true,
  };
}
