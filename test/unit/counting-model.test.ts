/**
 * The counting model without a runtime (docs/ARCHITECTURE.md, "The query engine"): each
 * metric from its sums, the ratios every answer shares, API v1's statistics and labels as
 * engine questions, the roll-ups' table of what they hold, the rows' order, what a hit adds
 * to the roll-ups, and the log's one list of columns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupQuery, ResultRow } from '../../src/counting/query.ts';
import { QUERY_DIMENSIONS } from '../../src/counting/query-dimensions.ts';
import {
  conversionRate,
  noPartials,
  type Partials,
  percentOf,
  queryMetric,
  REVENUE_UNIT,
} from '../../src/counting/query-metrics.ts';
import { sortRows } from '../../src/counting/row-order.ts';
import { type CountedEvent, rollupOf, STAT_NAMES } from '../../src/counting/statistics.ts';
import {
  FILTER_DIMENSIONS,
  V1_FILTER_LABELS,
  V1_STATISTICS,
  v1Filters,
  v1Grouping,
} from '../../src/query/parse/v1.ts';
import { unfilteredStore } from '../../src/query/plan/plan.ts';
import {
  addedLogColumns,
  createLogTable,
  EXPORTED_TEXTS,
  LOG_COLUMN_NAMES,
  LOG_COLUMNS,
} from '../../src/website-log/object/tables/columns.ts';

const sums = (p: Partial<Partials>): Partials => ({ ...noPartials(), ...p });
const value = (metric: string, p: Partial<Partials>, total: Partial<Partials> = p) =>
  queryMetric(metric).value(sums(p), sums(total));

describe('metrics', () => {
  it('make each figure from its sums, as Plausible defines it', () => {
    const p = { vis: 3, vst: 4, svst: 4, pv: 10, ev: 12, ce: 2, bnc: 1, dur: 130, vpv: 9 };
    expect(value('visitors', p)).toBe(3);
    expect(value('visits', p)).toBe(4);
    expect(value('pageviews', p)).toBe(10);
    expect(value('events', p)).toBe(12);
    expect(value('bounce_rate', p)).toBe(25);
    expect(value('visit_duration', p)).toBe(33);
    // Page views of the visits (vpv) per visit, not the group's own page views.
    expect(value('views_per_visit', p)).toBe(2.25);
    expect(value('sl:bounces', p)).toBe(1);
    expect(value('sl:duration', p)).toBe(130);
    expect(value('sl:custom_events', p)).toBe(2);
  });

  it('give 0 for a ratio of no visits, and no percentage of no visitors', () => {
    expect(value('bounce_rate', {})).toBe(0);
    expect(value('visit_duration', {})).toBe(0);
    expect(value('views_per_visit', {})).toBe(0);
    expect(value('percentage', { vis: 0 }, { vis: 0 })).toBeNull();
    expect(value('percentage', { vis: 1 }, { vis: 3 })).toBe(33.3);
  });

  it('keep revenue exact in millionths and average it over the events that carry it', () => {
    const p = { rev: 3 * REVENUE_UNIT + 500_000, rvn: 2 };
    expect(value('total_revenue', p)).toBe(3.5);
    expect(value('average_revenue', p)).toBe(1.75);
    expect(value('average_revenue', { rev: 0, rvn: 0 })).toBe(0);
  });

  it('refuse a name the registry does not hold', () => {
    expect(() => queryMetric('bounces')).toThrow(/not a metric/);
  });

  it('need only sums that exist, and a session sum only with its visits', () => {
    for (const metric of ['bounce_rate', 'visit_duration', 'views_per_visit'])
      expect(queryMetric(metric).needs).toContain('svst');
  });
});

describe('percentages', () => {
  it('round half away from zero to the digits asked, and give 0 of nothing', () => {
    expect(percentOf(1, 3, 1)).toBe(33.3);
    expect(percentOf(2, 3, 2)).toBe(66.67);
    expect(percentOf(5, 0, 1)).toBe(0);
    expect(conversionRate(1, 8)).toBe(12.5);
  });

  it('stay within 0 and 100 for a part of its whole', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), (a, b) => {
        const [part, whole] = a <= b ? [a, b] : [b, a];
        const rate = conversionRate(part, whole);
        return rate >= 0 && rate <= 100;
      }),
    );
  });
});

describe("API v1's statistics as engine questions", () => {
  it('name a dimension and a metric of the engine for every statistic, with one title each', () => {
    expect(Object.keys(V1_STATISTICS).sort()).toEqual([...STAT_NAMES].sort());
    const titles = new Set<string>();
    for (const name of STAT_NAMES) {
      const { dimension, metric, title } = V1_STATISTICS[name];
      expect(QUERY_DIMENSIONS.has(dimension), `${name}: ${dimension}`).toBe(true);
      expect(() => queryMetric(metric)).not.toThrow();
      expect(titles.has(title), title).toBe(false);
      titles.add(title);
    }
  });

  it('are each held by the roll-up of the same name, so no filter needs the log', () => {
    const page = { sortBy: 'count', sort: 'desc', limit: 10, offset: 0 } as const;
    for (const name of STAT_NAMES)
      expect(unfilteredStore(v1Grouping(name, page)), name).toEqual({ store: 'statistic', name });
    const twoDimensions: GroupQuery = {
      dimensions: ['sl:page', 'sl:country'],
      metrics: ['visitors'],
      order: [],
      limit: 10,
      offset: 0,
    };
    expect(unfilteredStore(twoDimensions)).toEqual({ store: 'log' });
    const eventsByDay = { ...twoDimensions, dimensions: ['time:day'], metrics: ['events'] };
    expect(unfilteredStore(eventsByDay)).toEqual({ store: 'log' });
  });

  it('sort by value on the dimension and by count on the metric, and carry the search', () => {
    const byValue = v1Grouping(
      'page',
      { sortBy: 'value', sort: 'asc', limit: 5, offset: 10 },
      'blog',
    );
    expect(byValue).toEqual({
      dimensions: ['sl:page'],
      metrics: ['pageviews'],
      order: [['sl:page', 'asc']],
      limit: 5,
      offset: 10,
      search: 'blog',
    });
    const property = v1Grouping(
      { property: 'plan' },
      { sortBy: 'count', sort: 'desc', limit: 5, offset: 0 },
    );
    expect(property.dimensions).toEqual(['sl:props:plan']);
    expect(property.order).toEqual([['events', 'desc']]);
  });

  it('label every filter once for its tab and once for its chip', () => {
    for (const dimension of FILTER_DIMENSIONS) {
      expect(V1_FILTER_LABELS[dimension].tab).not.toBe('');
      expect(V1_FILTER_LABELS[dimension].chip).not.toBe('');
    }
  });

  it("turn v1's filters into the engine's: is exact, not none of it, contains in any case", () => {
    const nodes = v1Filters([
      { dimension: 'page', operator: 'is', value: '/a' },
      { dimension: 'country', operator: 'not', value: 'DE' },
      { dimension: 'browser', operator: 'contains', value: 'fire' },
    ]);
    expect(JSON.stringify(nodes)).toContain('sl:page');
    expect(JSON.stringify(nodes)).toContain('sl:country');
    expect(nodes).toHaveLength(3);
  });
});

describe('rows', () => {
  const row = (page: string, visitors: number | null): ResultRow => ({
    dimensions: [page],
    metrics: [visitors],
  });
  const g = (order: GroupQuery['order']) => ({
    order,
    dimensions: ['sl:page'],
    metrics: ['visitors'],
  });

  it('sort by the order asked, then by the dimensions by code point, a missing metric lowest', () => {
    const rows = [row('/b', 2), row('/a', 2), row('/c', null), row('/😀', 5), row('/\uff5e', 5)];
    sortRows(g([['visitors', 'desc']]), rows);
    expect(rows.map((r) => r.dimensions[0])).toEqual(['/\uff5e', '/😀', '/a', '/b', '/c']);
    sortRows(g([['sl:page', 'desc']]), rows);
    expect(rows.map((r) => r.dimensions[0])).toEqual(['/😀', '/\uff5e', '/c', '/b', '/a']);
  });
});

describe('what a hit adds to the roll-ups', () => {
  const view = (over: Partial<CountedEvent>): CountedEvent => ({
    kind: 'pageview',
    date: '2026-01-02',
    hour: '09',
    visitor: 1,
    newVisitor: false,
    newVisit: false,
    visitViews: null,
    previousPage: null,
    visitSeconds: 0,
    page: '/',
    referrer: '',
    campaign: null,
    country: null,
    continent: null,
    city: null,
    language: null,
    browser: 'Firefox',
    os: 'Linux',
    device: 'desktop',
    resolution: null,
    event: null,
    ...over,
  });
  const added = (events: CountedEvent[]) =>
    Object.fromEntries(rollupOf(events).map(([name, , value, n]) => [`${name} ${value}`, n]));

  it("counts a visit's bounce once and takes it back at its second page view", () => {
    const first = view({ newVisitor: true, newVisit: true, visitViews: 1, page: '/a' });
    const second = view({ visitViews: 2, page: '/b', previousPage: '/a', visitSeconds: 30 });
    expect(added([first])).toMatchObject({
      'bounces 2026-01-02': 1,
      'exit_page /a': 1,
      'visitors 2026-01-02': 1,
      'visits 2026-01-02': 1,
      'browser Firefox': 1,
    });
    const both = added([first, second]);
    expect(both['bounces 2026-01-02']).toBeUndefined();
    expect(both['exit_page /a']).toBeUndefined();
    expect(both).toMatchObject({ 'exit_page /b': 1, 'visit_duration 2026-01-02': 30 });
    expect(both['pageviews 2026-01-02']).toBe(2);
  });

  it('counts a custom event by its name only, and no unknown place', () => {
    expect(added([view({ kind: 'event', event: 'signup' })])).toEqual({ 'event signup': 1 });
    expect(Object.keys(added([view({ newVisitor: true })]))).not.toContain('country ');
  });
});

describe("the log's columns", () => {
  it('make the table of version 6 as that version made it', () => {
    expect(createLogTable(6).replace(/\s+/g, ' ')).toBe(
      `CREATE TABLE log ( id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, time INTEGER NOT NULL,
      day INTEGER NOT NULL, hour INTEGER NOT NULL, visitor INTEGER NOT NULL, visit INTEGER NOT NULL,
      firsts INTEGER NOT NULL, page INTEGER, event INTEGER, visit_views INTEGER,
      previous_page INTEGER, visit_seconds INTEGER NOT NULL DEFAULT 0, visit_hour INTEGER,
      landing INTEGER, referrer INTEGER, campaign INTEGER, visitor_hour INTEGER,
      country INTEGER, continent INTEGER, city INTEGER, language INTEGER, browser INTEGER,
      os INTEGER, device INTEGER, resolution INTEGER );`.replace(/\s+/g, ' '),
    );
  });

  it("add later versions' columns to an older log, each once", () => {
    expect(addedLogColumns(8)).toBe(
      'ALTER TABLE log ADD COLUMN props TEXT;\n' +
        'ALTER TABLE log ADD COLUMN revenue INTEGER;\n' +
        'ALTER TABLE log ADD COLUMN currency INTEGER;',
    );
    const added = [6, 7, 8, 10].flatMap((v) =>
      v === 6
        ? LOG_COLUMNS.filter((c) => c.since === 6).map((c) => c.name)
        : [...addedLogColumns(v).matchAll(/ADD COLUMN (\w+)/g)].map((m) => m[1]),
    );
    expect(added).toEqual([...LOG_COLUMN_NAMES]);
  });

  it('export the text of every id of the dictionary the export names, each once', () => {
    const exported = EXPORTED_TEXTS.map(([name]) => name);
    expect(new Set(exported).size).toBe(exported.length);
    for (const [, column] of EXPORTED_TEXTS)
      expect(LOG_COLUMNS.find((c) => c.name === column)).toMatchObject({ dict: true });
  });
});
