/**
 * A log that keeps its events for a while (`EVENT_RETENTION_DAYS`, src/website-log/object/retention.ts):
 * retention forgets whole dates of rolled-up events, found through the log's `days`, and never
 * stops the website — positions never go backwards, so a quiet website whose every event was
 * forgotten takes its next hits as any other: each 202, counted once, rolled up, filterable.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { addDays, utcDate } from '../../../src/lib/time/dates.ts';
import { WebsiteLogCore } from '../../../src/website-log/object/core.ts';
import { forgetExpired } from '../../../src/website-log/object/retention.ts';
import { LogDb } from '../../../src/website-log/object/tables/log-db.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, errorOf, listOf } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { rollups, sendHit } from '../../support/hits.ts';
import { site } from '../../support/ingest-fixtures.ts';

const DAY_MS = 86_400_000;
const day = (ms: number) => utcDate(ms);

/** What the log holds: its events' ids, its `days` and the dates of its events. */
function held(state: DurableObjectState) {
  const ids = state.storage.sql
    .exec<{ id: number }>('SELECT id FROM log ORDER BY id')
    .toArray()
    .map((r) => r.id);
  const days = state.storage.sql
    .exec<{ first: number; date: string }>('SELECT first, date FROM days ORDER BY first')
    .toArray()
    .map((r) => ({ ...r }));
  return { ids, days };
}

/** Runs the log's hourly work with a retention of `days` days, as the object's alarm does. */
function withRetention(
  websiteId: number,
  days: number,
  work: (log: WebsiteLogCore) => Promise<void>,
) {
  return runInDurableObject(websiteLog(env, websiteId), async (_instance, state) => {
    await work(
      new WebsiteLogCore(state.storage, { DB: env.DB, EVENT_RETENTION_DAYS: String(days) }),
    );
  });
}

describe('a quiet website whose every event retention forgot', () => {
  it('takes its next hits as before: each 202, counted once, rolled up, filterable', async () => {
    const s = await site('retention-quiet', { privacy: '0' });
    const now = Date.now();
    const old = now - 40 * DAY_MS;
    let before: ReturnType<typeof held> | undefined;
    await withRetention(s.id, 30, async (log) => {
      for (const [i, time] of [old, old + 60_000, old + DAY_MS].entries())
        await record(log, logHit(s.id, { time, date: day(time), ip: `192.0.2.${i}` }));
      expect(await log.flush()).toMatchObject({ ok: true, events: 3 });
      await log.alarm();
    });
    await runInDurableObject(websiteLog(env, s.id), (_i, state) => {
      before = held(state);
    });
    // Every event and every date it noted are gone.
    expect(before).toEqual({ ids: [], days: [] });
    await evictDurableObject(websiteLog(env, s.id));

    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.1']) {
      const res = await sendHit({ page: `https://${s.domain}/after` }, { ip });
      expect(res.status, res.text).toBe(202);
    }
    // Positions went on from where they were: no event of the log has an id used before.
    await runInDurableObject(websiteLog(env, s.id), (_i, state) => {
      expect(held(state).ids).toEqual([4, 5, 6]);
    });
    const today = day(Date.now());
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ [day(old)]: 2, [day(old + DAY_MS)]: 1, [today]: 3 });
    expect(r.page).toEqual({ '/': 3, '/after': 3 });
    expect(r.visitors?.[today]).toBe(2);

    // Filtered, the log answers for the dates it holds: from the day after the last it forgot.
    const firstHeld = addDays(day(old + DAY_MS), 1);
    const filtered = await call(
      `/api/v1/stats/${s.id}?name=page&from=${firstHeld}&to=${today}&filter[page]=/after`,
      { key: s.key },
    );
    expect(filtered.status, filtered.text).toBe(200);
    expect(listOf(filtered).data).toEqual([{ value: '/after', count: 3 }]);
    const earlier = await call(
      `/api/v1/stats/${s.id}?name=page&from=${addDays(firstHeld, -1)}&to=${today}&filter[page]=/after`,
      { key: s.key },
    );
    expect(earlier.status).toBe(422);
    expect(errorOf(earlier).errors.from?.[0]).toContain(firstHeld);
  });
});

describe('what retention deletes, and what it costs', () => {
  it('deletes whole rolled-up dates through `days`, reading about what it deletes', async () => {
    const s = await site('retention-cost');
    const now = Date.parse('2026-06-30T12:00:00Z');
    const first = now - 45 * DAY_MS;
    await withRetention(s.id, 30, async (log) => {
      // 40 old events on 2 dates, then 2,000 recent ones on 10 dates.
      for (let i = 0; i < 40; i++) {
        const time = first + (i < 20 ? 0 : DAY_MS) + i * 1000;
        await record(log, logHit(s.id, { time, date: day(time), ip: `192.0.2.${i}` }));
      }
      for (let i = 0; i < 2_000; i++) {
        const time = now - 10 * DAY_MS + Math.floor(i / 200) * DAY_MS + i * 1000;
        await record(
          log,
          logHit(s.id, { time, date: day(time), ip: `198.51.${i >> 8}.${i & 255}` }),
        );
      }
      expect(await log.flush()).toMatchObject({ ok: true, events: 2_040 });
    });
    await runInDurableObject(websiteLog(env, s.id), (_i, state) => {
      const db = new LogDb(state.storage.sql);
      const deleted = forgetExpired(db, now, 30, (work) => state.storage.transactionSync(work));
      expect(deleted).toBe(40);
      // The 40 rows deleted and what finds them; never a scan of the 2,000 kept.
      expect(db.io.rowsRead).toBeLessThan(200);
      const { ids, days } = held(state);
      expect(ids).toHaveLength(2_000);
      expect(ids[0]).toBe(41);
      expect(days.map((d) => d.date)).toEqual(
        Array.from({ length: 10 }, (_, i) => day(now - 10 * DAY_MS + i * DAY_MS)),
      );
    });
  });

  it('keeps what is not rolled up yet, and a late run of an old date goes with its date', async () => {
    const s = await site('retention-unflushed');
    const now = Date.parse('2026-06-30T12:00:00Z');
    const old = now - 40 * DAY_MS;
    await withRetention(s.id, 30, async (log) => {
      await record(log, logHit(s.id, { time: old, date: day(old) }));
      await record(log, logHit(s.id, { time: now, date: day(now), ip: '192.0.2.7' }));
      // Late, from another Worker's clock: the old date again, after a newer one.
      await record(log, logHit(s.id, { time: old + 1000, date: day(old), ip: '192.0.2.8' }));
      expect(await log.flush()).toMatchObject({ ok: true, events: 3 });
      // Not rolled up yet: kept, whatever its date.
      await record(log, logHit(s.id, { time: old + 2000, date: day(old), ip: '192.0.2.9' }));
    });
    await runInDurableObject(websiteLog(env, s.id), (_i, state) => {
      const db = new LogDb(state.storage.sql);
      expect(forgetExpired(db, now, 30, (work) => state.storage.transactionSync(work))).toBe(2);
      expect(held(state).ids).toEqual([2, 4]);
    });
  });
});
