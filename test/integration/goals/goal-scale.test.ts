/**
 * Many goals and patterns (docs/ARCHITECTURE.md, "Goals" and "Filters"): a goal filter that
 * names more page goals than SQLite binds values answers on the API, the page and v2; a
 * grouping by goals is one read of the log, however many goals; and the dictionary search
 * that turns patterns into ids (src/website-log/object/read/filters/dictionary-search.ts) works in turns of bounded
 * work and remembers what it found.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DictionarySearch,
  type Lookup,
} from '../../../src/website-log/object/read/filters/dictionary-search.ts';
import { Dictionary } from '../../../src/website-log/object/tables/dictionary.ts';
import { LogDb } from '../../../src/website-log/object/tables/log-db.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, listOf } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const DAY = '2026-05-04';
/** Page goals, more than the 100 values SQLite binds in one statement. */
const GOALS = 150;

afterEach(() => {
  vi.useRealTimers();
});

describe('a filter of more page goals than SQLite binds values', () => {
  let s: Awaited<ReturnType<typeof site>>;
  beforeAll(async () => {
    s = await site('many-goals', { privacy: '0' });
    freezeAt(`${DAY}T10:00:00Z`);
    // One visitor per goal's page, and one on a page no goal names.
    for (let i = 0; i <= GOALS; i++) {
      const path = i === GOALS ? '/elsewhere' : `/px${i}`;
      const res = await sendHit(
        { page: `https://${s.domain}${path}` },
        { ip: `10.0.${i >> 8}.${i & 255}` },
      );
      expect(res.status).toBe(202);
    }
    vi.useRealTimers();
    for (let i = 0; i < GOALS; i++) {
      const res = await call(`/api/v1/websites/${s.id}/goals`, {
        method: 'POST',
        key: s.key,
        body: { json: { page: `/px${i}`, display_name: `PX${i}` } },
      });
      expect(res.status).toBe(201);
    }
  });

  const range = `from=${DAY}&to=${DAY}`;

  it('API v1 counts them', async () => {
    const res = await call(`/api/v1/stats/${s.id}/summary?${range}&filter[goal][contains]=px`, {
      key: s.key,
    });
    expect(res.status, res.text).toBe(200);
    expect((res.json as { data: { visitors: number } }).data.visitors).toBe(GOALS);
    const goals = await call(`/api/v1/stats/${s.id}?name=goal&${range}&per_page=100`, {
      key: s.key,
    });
    expect(goals.status, goals.text).toBe(200);
    const list = listOf<{ value: string; count: number }>(goals);
    const rows = list.data;
    expect(rows).toHaveLength(100);
    expect(list).toMatchObject({ total: GOALS });
    expect(rows.every((r) => r.count === 1)).toBe(true);
  });

  it('the statistics page counts them', async () => {
    const res = await call(`/stats/${s.domain}?range=custom&${range}&filter[goal][contains]=px`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.text).toContain('PX149');
  });

  it('the Stats API v2 counts them, as a filter and by goal', async () => {
    const v2 = (body: Record<string, unknown>) =>
      call('/api/v2/query', {
        method: 'POST',
        key: s.key,
        body: { json: { site_id: s.domain, date_range: [DAY, DAY], ...body } },
      });
    const filtered = await v2({
      metrics: ['visitors', 'conversion_rate'],
      filters: [['contains', 'event:goal', ['px']]],
    });
    expect(filtered.status, filtered.text).toBe(200);
    expect((filtered.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [GOALS, 99.3] },
    ]);
    const byGoal = await v2({
      metrics: ['visitors', 'events'],
      dimensions: ['event:goal'],
      pagination: { limit: 5, offset: 10 },
      include: { total_rows: true },
    });
    expect(byGoal.status, byGoal.text).toBe(200);
    const body = byGoal.json as {
      results: { dimensions: string[] }[];
      meta: { total_rows: number };
    };
    expect(body.meta.total_rows).toBe(GOALS);
    // Ties sort by the goal's name, by code point.
    expect(body.results.map((r) => r.dimensions[0])).toEqual(
      [...Array(GOALS).keys()]
        .map((i) => `PX${i}`)
        .sort()
        .slice(10, 15),
    );
  });
});

/** A log with one event and `texts` more texts in its dictionary (`/t0` … and `/keep/…`). */
async function logWithTexts(texts: number) {
  const s = await site('dictionary');
  const log = websiteLog(env, s.id);
  await record(log, logHit(s.id));
  await runInDurableObject(log, (_instance, state) => {
    const db = new LogDb(state.storage.sql);
    db.rows(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
      INSERT INTO dict (id, value) SELECT 10000000 + i,
        CASE WHEN i % 100 = 0 THEN '/keep/' || i ELSE '/t' || i END FROM n`,
      texts,
    );
  });
  return log;
}

describe('the dictionary search', () => {
  it('compares every text once per value in turns of bounded work, then only texts added', async () => {
    const log = await logWithTexts(35_000);
    await runInDurableObject(log, async (_instance, state) => {
      const db = new LogDb(state.storage.sql);
      const dict = new Dictionary(db);
      const search = new DictionarySearch(db, dict);
      let turn = 0;
      const perTurn: number[] = [];
      const step = async <T>(work: () => T): Promise<T> => {
        turn = perTurn.push(0) - 1;
        return work();
      };
      // 300 values, each text costing 100 of a turn's work.
      const lookups: Lookup[] = Array.from({ length: 300 }, (_, i) => ({
        key: `v${i}`,
        where: null,
        test: (text) => {
          perTurn[turn] = (perTurn[turn] ?? 0) + 1;
          return { found: text === `/keep/${i * 100}`, work: 100 };
        },
      }));
      const first = await search.find(lookups, step);
      expect(first.get('v3')).toEqual([10000300]);
      expect(first.get('v299')).toEqual([10029900]);
      const texts = db.one<{ n: number }>('SELECT count(*) AS n FROM dict').n;
      // Every text compared with every value, once.
      expect(perTurn.reduce((a, b) => a + b, 0)).toBe(texts * 300);
      // No turn compares more than its work allows (1,000,000: 10,000 comparisons of 100),
      // give or take the values of one text.
      expect(Math.max(...perTurn)).toBeLessThanOrEqual(10_000 + 300);
      expect(perTurn.length).toBeGreaterThan(1_000);
      // Asked again: nothing compared; after a text is added, that text alone.
      perTurn.length = 0;
      await search.find(lookups, step);
      expect(perTurn.reduce((a, b) => a + b, 0)).toBe(0);
      dict.encode('/keep/500');
      const again = await search.find(lookups, step);
      expect(perTurn.reduce((a, b) => a + b, 0)).toBe(300);
      expect(again.get('v5')?.length).toBe(2);
    });
  });

  it('a goal filter over a large dictionary reads it once, then never again', async () => {
    const log = await logWithTexts(35_000);
    const goals = Array.from({ length: 300 }, (_, i) => ({
      op: 'matches' as const,
      dimension: 'sl:page',
      values: [`^/keep/${i}(\\?.*)?$`],
      caseSensitive: true,
    }));
    const ask = () =>
      log.query({
        from: '2026-01-01',
        to: '2026-12-31',
        filters: [{ op: 'or', nodes: goals }],
        groups: [{ dimensions: [], metrics: ['visitors'], order: [], limit: 1, offset: 0 }],
      });
    const first = await ask();
    const second = await ask();
    if (!first.ok || !second.ok) throw new Error('the log did not answer');
    expect(first.rowsRead).toBeGreaterThan(35_000);
    expect(second.rowsRead).toBeLessThan(100);
  });

  it('a question of more conditions than SQLite binds values packs the rest into one', async () => {
    const s = await site('conditions');
    const log = websiteLog(env, s.id);
    await record(log, logHit(s.id));
    await runInDurableObject(log, (_instance, state) => {
      const dict = new Dictionary(new LogDb(state.storage.sql));
      for (let i = 1; i <= 120; i++) dict.encode(`/t${i}`);
    });
    const leaf = (op: 'is' | 'is_not', page: string) => ({
      op,
      dimension: 'sl:page',
      values: [page],
      caseSensitive: true,
    });
    const ask = (filters: ReturnType<typeof leaf>[]) =>
      log.query({
        from: '2026-01-01',
        to: '2026-12-31',
        filters,
        groups: [{ dimensions: [], metrics: ['visitors'], order: [], limit: 1, offset: 0 }],
      });
    // 120 texts the log holds, none the page of its one hit: every condition keeps it...
    const notThese = Array.from({ length: 120 }, (_, i) => leaf('is_not', `/t${i + 1}`));
    const kept = await ask(notThese);
    if (!kept.ok) throw new Error('the log did not answer');
    expect(kept.value[0]?.rows[0]?.metrics).toEqual([1]);
    // ...and the 121st, past the packed ones, still counts.
    const none = await ask([...notThese, leaf('is_not', '/')]);
    if (!none.ok) throw new Error('the log did not answer');
    expect(none.value[0]?.rows[0]?.metrics).toEqual([0]);
  });
});

describe('a grouping by goals', () => {
  it('a grouping by many page goals reads the chunk once, not once a goal', async () => {
    const s = await site('goal-rows');
    const log = websiteLog(env, s.id);
    // 200 visitors' page views of 200 pages, each the page of one goal.
    for (let i = 0; i < 200; i++)
      await record(log, logHit(s.id, { page: `/g${i}`, ip: `10.1.${i >> 8}.${i & 255}` }));
    const splits = Array.from({ length: 200 }, (_, i) => ({
      name: `G${i}`,
      filter: { op: 'is' as const, dimension: 'sl:page', values: [`/g${i}`], caseSensitive: true },
    }));
    const read = await log.query({
      from: '2026-01-01',
      to: '2026-12-31',
      filters: [],
      groups: [
        {
          dimensions: ['event:goal'],
          metrics: ['visitors'],
          order: [],
          limit: 300,
          offset: 0,
          goals: splits,
        },
      ],
    });
    if (!read.ok) throw new Error('the log did not answer');
    expect(read.value[0]?.rows).toHaveLength(200);
    // Once a goal, it read 200 × 200 rows and more.
    expect(read.rowsRead).toBeLessThan(5_000);
  });
});
