/**
 * A log that keeps its events for a while (`EVENT_RETENTION_DAYS`, src/event-log/retention.ts):
 * retention forgets whole dates of rolled-up events, found through the log's `days`, and never
 * stops the website — positions never go backwards, so a quiet website whose every event was
 * forgotten takes its next hits as any other: each 202, counted once, rolled up, filterable.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/event-log/event-log.ts';
import { LogDb } from '../../src/event-log/log-db.ts';
import { forgetExpired } from '../../src/event-log/retention.ts';
import { websiteLog } from '../../src/event-log/stub.ts';
import { addDays, utcDate } from '../../src/lib/dates.ts';
import { call, errorOf, listOf } from '../support/api.ts';
import { AS_VERSION_4, logHit, record } from '../support/event-log.ts';
import { rollups, sendHit } from '../support/hits.ts';
import { site } from '../support/ingest-fixtures.ts';
import { v1Reads } from '../support/log-reads.ts';

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
function withRetention(websiteId: number, days: number, work: (log: EventLog) => Promise<void>) {
  return runInDurableObject(websiteLog(env, websiteId), async (_instance, state) => {
    await work(new EventLog(state.storage, { DB: env.DB, EVENT_RETENTION_DAYS: String(days) }));
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

describe('a log an older Sightline pruned', () => {
  it('holds whole dates from its oldest event on, its `days` without the runs it deleted', async () => {
    const s = await site('retention-upgrade');
    const log = websiteLog(env, s.id);
    const at = (date: string, ip: string) =>
      record(log, logHit(s.id, { time: Date.parse(`${date}T10:00:00Z`), date, ip }));
    await at('2026-06-01', '203.0.113.1');
    await at('2026-06-02', '203.0.113.2');
    await at('2026-06-03', '203.0.113.3');
    expect(await log.flush()).toMatchObject({ ok: true, events: 3 });
    // Version 4's retention: events deleted by date, `days` left as it was, `pruned` noted.
    await runInDurableObject(log, async (_instance, state) => {
      // No alarm of the newer log's runs on these tables before the restart.
      await state.storage.deleteAlarm();
      state.storage.sql.exec(
        `${AS_VERSION_4} DELETE FROM events WHERE date < '2026-06-02';
        INSERT INTO meta (key, value) VALUES ('pruned', 1);
        DELETE FROM meta WHERE key = 'kept_from';
        UPDATE meta SET value = 4 WHERE key = 'schema'`,
      );
    });
    await evictDurableObject(log);
    const read = (from: string) =>
      v1Reads(log).statistic({
        name: 'pageviews',
        from,
        to: '2026-06-03',
        filters: [],
        sortBy: 'value',
        sort: 'asc',
        limit: 10,
        offset: 0,
      });
    expect(await read('2026-06-01')).toEqual({ ok: false, firstDate: '2026-06-02' });
    expect(await read('2026-06-02')).toMatchObject({ ok: true, value: { total: 2 } });
    await runInDurableObject(log, (_instance, state) => {
      expect(held(state).days.map((d) => d.date)).toEqual(['2026-06-02', '2026-06-03']);
      expect(
        state.storage.sql.exec("SELECT count(*) AS n FROM meta WHERE key = 'pruned'").one().n,
      ).toBe(0);
    });
    // The next event comes after every id used before.
    expect((await at('2026-06-03', '203.0.113.4')).id).toBe(4);
  });
});
