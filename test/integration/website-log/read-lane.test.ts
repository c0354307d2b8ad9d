/**
 * A website's hits never wait behind its readers (docs/ARCHITECTURE.md, "Reads that never
 * stall hits"): a filtered read of many events runs in chunks of whole dates, one at a time,
 * and the object takes the hits that came in between. The read answers from the events the
 * log held when it began — a hit taken between two of its chunks is in the next read, never
 * half in this one.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LogDb } from '../../../src/website-log/object/tables/log-db.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { logHit, record } from '../../support/event-log.ts';
import { flushLog, site } from '../../support/ingest-fixtures.ts';
import { v1Reads } from '../../support/log-reads.ts';

/** Events per date of the bulk the test adds, and its dates (2026-03-01 to 2026-03-08). */
const PER_DATE = 25_000;
const DATES = 8;

/**
 * Adds `DATES × PER_DATE` page views after a log's first event, each its own visitor and
 * visit, as already rolled up (the object's and D1's flush positions moved past them), then
 * restarts the object so that it reads its log afresh.
 */
async function addBulk(websiteId: number): Promise<number> {
  const log = websiteLog(env, websiteId);
  const last = await runInDurableObject(log, (_instance, state) => {
    const db = new LogDb(state.storage.sql);
    const first = db.one<{ id: number }>('SELECT max(id) AS id FROM log').id;
    const day0 = db.one<{ day: number }>('SELECT day FROM log WHERE id = ?', first).day - 9;
    const total = DATES * PER_DATE;
    db.rows(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
      INSERT INTO log (id, kind, time, day, hour, visitor, visit, firsts, page, visit_views,
          visit_seconds, visit_hour, landing, referrer, visitor_hour, country, continent, city,
          language, browser, os, device, resolution)
        SELECT ?2 + 1 + n.i, e.kind, e.time, ?3 + n.i / CAST(?4 AS INTEGER), e.hour, ?2 + 1 + n.i, ?2 + 1 + n.i, 3,
          e.page, 1, 0, e.visit_hour, e.landing, e.referrer, e.visitor_hour, e.country,
          e.continent, e.city, e.language, e.browser, e.os, e.device, e.resolution
        FROM n, log e WHERE e.id = ?2`,
      total,
      first,
      day0,
      PER_DATE,
    );
    for (let d = 0; d < DATES; d++) {
      const date = new Date((day0 + d) * 86_400_000).toISOString().slice(0, 10);
      db.rows('INSERT INTO days (first, date) VALUES (?, ?)', first + 1 + d * PER_DATE, date);
    }
    db.setMeta('flushed', first + total);
    return first + total;
  });
  await env.DB.prepare('UPDATE log_positions SET position = ? WHERE website_id = ?')
    .bind(last, websiteId)
    .run();
  await evictDurableObject(log);
  return last;
}

describe('reads that never stall hits', () => {
  it('a hit sent during a long read is taken between its chunks; the read counts its start', async () => {
    const s = await site('read-lane');
    const log = websiteLog(env, s.id);
    await record(log, logHit(s.id));
    await flushLog(s.id);
    await addBulk(s.id);
    const q = { from: '2026-03-01', to: '2026-03-10', filters: [] };
    const order: string[] = [];
    const reading = v1Reads(log)
      .sums(q)
      .then((read) => {
        order.push('read');
        return read;
      });
    const hit = record(
      log,
      logHit(s.id, { ip: '203.0.113.99', time: Date.parse('2026-03-10T11:00:00Z'), hour: '11' }),
    ).then((recorded) => {
      order.push('hit');
      return recorded;
    });
    const [read] = await Promise.all([reading, hit]);
    if (!read.ok) throw new Error('the read failed');
    expect(read.chunks).toBeGreaterThanOrEqual(2);
    expect(order).toEqual(['hit', 'read']);
    // The read counts the events the log held when it began: not the hit.
    expect(read.value.pageviews).toBe(1 + DATES * PER_DATE);
    const next = await v1Reads(log).sums(q);
    expect(next.ok && next.value.pageviews).toBe(2 + DATES * PER_DATE);
  });
});

describe('filters that name a value the log never held', () => {
  it('an `is` or `contains` reads no chunk and counts nothing; a hit’s `not` reads as no filter', async () => {
    const s = await site('read-lane-unknown');
    const log = websiteLog(env, s.id);
    await record(log, logHit(s.id));
    await record(log, logHit(s.id, { ip: '203.0.113.6', page: '/pricing', browser: 'Chrome' }));
    const range = { from: '2026-03-10', to: '2026-03-10' };
    const never = { operator: 'is', value: '/never-sent' } as const;
    for (const filters of [
      [{ dimension: 'page', ...never }],
      [{ dimension: 'referrer', ...never }],
      [{ dimension: 'page', operator: 'contains', value: 'never-sent' }],
    ] as const) {
      const read = await v1Reads(log).sums({ ...range, filters: [...filters] });
      expect(read).toMatchObject({ ok: true, chunks: 0 });
      expect(read.ok && read.value).toEqual({
        visitors: 0,
        visits: 0,
        pageviews: 0,
        bounces: 0,
        visit_duration: 0,
        event: 0,
      });
    }
    const names = ['browser', 'page', 'visitors', 'exit_page'] as const;
    const ask = (filters: { dimension: 'page'; operator: 'not'; value: string }[]) =>
      v1Reads(log).topValues({ ...range, filters, names: [...names], limit: 10 });
    const none = await ask([]);
    const notNever = await ask([{ dimension: 'page', operator: 'not', value: '/never-sent' }]);
    if (!none.ok || !notNever.ok) throw new Error('a read failed');
    expect(none.value[0]?.rows).toHaveLength(2);
    expect(notNever.value).toEqual(none.value);
    // The same statement as with no filter: the same rows read, and one more where the
    // dictionary was asked for '/never-sent'.
    expect(notNever.rowsRead).toBe(none.rowsRead + 1);
  });
});
