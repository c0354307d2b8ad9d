/**
 * The flush can always make progress (src/website-log/object/flush.ts, docs/ARCHITECTURE.md "The
 * flush"): flushes queue behind each other however long their storage calls take, and a D1
 * that is behind the log — restored with Time Travel, or repaired by hand — gets the roll-ups
 * of every event the log still holds after its position, instead of refusing every flush (and
 * so every unfiltered read) for ever.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rollupOf } from '../../../src/counting/statistics.ts';
import type { LogStorage } from '../../../src/website-log/answers.ts';
import { WebsiteLogCore } from '../../../src/website-log/object/core.ts';
import type { WebsiteLog } from '../../../src/website-log/object/durable-object.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call } from '../../support/api.ts';
import { injectD1Failure } from '../../support/d1-faults.ts';
import { loggedEvents, logHit, record } from '../../support/event-log.ts';
import { rollups, rollupsWithVisitors } from '../../support/hits.ts';
import { site } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const T0 = Date.parse('2026-03-10T10:00:00Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The log's storage, its alarm calls taking `ms` each and telling `onAlarmCall` they began. */
function slowStorage(state: DurableObjectState, ms: number, onAlarmCall: () => void): LogStorage {
  const storage = state.storage;
  const slow =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      onAlarmCall();
      await sleep(ms);
      return f(...args);
    };
  return {
    sql: storage.sql,
    transactionSync: (work) => storage.transactionSync(work),
    getAlarm: slow(() => storage.getAlarm()),
    setAlarm: slow((at: number) => storage.setAlarm(at)),
    deleteAlarm: slow(() => storage.deleteAlarm()),
    deleteAll: slow(() => storage.deleteAll()),
  };
}

describe('flushes queue behind each other', () => {
  it('a flush asked for while a failed one sets its retry (slow storage) runs after it', async () => {
    const { id: websiteId } = await site('flush-queue');
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await runInDurableObject(websiteLog(env, websiteId), async (_: WebsiteLog, state) => {
      const recording = new WebsiteLogCore(state.storage, { DB: env.DB });
      for (let i = 0; i < 3; i++) await record(recording, logHit(websiteId, { time: T0 + i }));
      // A log that has not read its alarm yet: setting the retry is storage calls (slow here).
      let armed: (() => void) | undefined;
      const log = new WebsiteLogCore(
        slowStorage(state, 30, () => armed?.()),
        { DB: env.DB },
      );
      const fault = injectD1Failure({ matches: (sql) => /json_each/.test(sql), failBatches: true });
      let second: Promise<unknown> | undefined;
      // When the failed flush sets its retry alarm (slow), another flush is asked for.
      armed = () => {
        armed = undefined;
        fault.restore();
        second = log.flush();
      };
      expect(await log.flush()).toEqual({ ok: false });
      expect(second).toBeDefined();
      expect(await second).toMatchObject({ ok: true, events: 3 });
    });
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 3 });
  });

  it('every caller gets a flush that began after it asked, one at a time', async () => {
    const { id: websiteId } = await site('flush-queue-many');
    await runInDurableObject(websiteLog(env, websiteId), async (_: WebsiteLog, state) => {
      const log = new WebsiteLogCore(
        slowStorage(state, 5, () => undefined),
        { DB: env.DB },
      );
      const flushes: Promise<unknown>[] = [];
      for (let i = 0; i < 6; i++) {
        await record(log, logHit(websiteId, { time: T0 + i, ip: `192.0.2.${i}` }));
        flushes.push(log.flush());
      }
      const outcomes = (await Promise.all(flushes)) as { ok: boolean; events: number }[];
      expect(outcomes.every((o) => o.ok)).toBe(true);
      expect(outcomes.reduce((n, o) => n + o.events, 0)).toBe(6);
    });
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 6 });
  });
});

/** D1's roll-ups and position of a website, to put back as a restore would. */
async function d1State(websiteId: number) {
  const [stats, position] = await env.DB.batch<Record<string, SqlStorageValue>>([
    env.DB.prepare('SELECT * FROM stats WHERE website_id = ?').bind(websiteId),
    env.DB.prepare('SELECT * FROM log_positions WHERE website_id = ?').bind(websiteId),
  ]);
  return { stats: stats?.results ?? [], position: position?.results ?? [] };
}

/** Puts D1's roll-ups and position of a website back to a state read before. */
async function restoreD1(websiteId: number, state: Awaited<ReturnType<typeof d1State>>) {
  await env.DB.batch([
    env.DB.prepare('DELETE FROM stats WHERE website_id = ?').bind(websiteId),
    env.DB.prepare('DELETE FROM log_positions WHERE website_id = ?').bind(websiteId),
    ...state.stats.map((r) =>
      env.DB.prepare(
        'INSERT INTO stats (website_id, name, date, value, count, visitors) VALUES (?, ?, ?, ?, ?, ?)',
      ).bind(r.website_id, r.name, r.date, r.value, r.count, r.visitors),
    ),
    ...state.position.map((r) =>
      env.DB.prepare(
        'INSERT INTO log_positions (website_id, position, visitors_from) VALUES (?, ?, ?)',
      ).bind(r.website_id, r.position, r.visitors_from),
    ),
  ]);
}

/** What every event the log holds adds up to, as `{name: {value: count}}`. */
async function expectedRollups(websiteId: number) {
  const events = await loggedEvents(websiteLog(env, websiteId));
  const out: Record<string, Record<string, number>> = {};
  for (const [name, , value, count] of rollupOf(events)) {
    out[name] ??= {};
    const bucket = out[name] as Record<string, number>;
    bucket[value] = (bucket[value] ?? 0) + count;
  }
  return out;
}

describe('a D1 behind the log', () => {
  it.each([
    ['restored to an earlier flush, then a hit', 3, 'hit'],
    ['restored to before the first flush, then a hit', 0, 'hit'],
    ['restored to an earlier flush, the object restarted', 3, 'restart'],
    ['restored to before the first flush, the object restarted', 0, 'restart'],
  ])('%s: gets the roll-ups of every event again, and reads answer', async (_, kept, then) => {
    const s = await site('flush-behind', { privacy: '0' });
    const log = websiteLog(env, s.id);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (let i = 0; i < 3; i++)
      await record(log, logHit(s.id, { time: T0 + i * 1000, page: `/a${i}`, ip: `192.0.2.${i}` }));
    if (kept) await log.flush();
    const snapshot = await d1State(s.id);
    for (let i = 3; i < 5; i++)
      await record(log, logHit(s.id, { time: T0 + i * 1000, page: `/b${i}`, ip: `192.0.2.${i}` }));
    expect(await log.flush()).toMatchObject({ ok: true });
    await restoreD1(s.id, snapshot);
    // A flush that has events finds D1 behind by its guard; one that has none compares the
    // positions when the object has started (and every five minutes).
    if (then === 'hit') await record(log, logHit(s.id, { time: T0 + 9000, page: '/c' }));
    else await evictDurableObject(log);

    // The next flush and the reads that ask for it succeed; D1 holds every event once.
    const res = await call(`/api/v1/stats/${s.id}?name=page&from=2026-03-10&to=2026-03-10`, {
      key: s.key,
    });
    expect(res.status, res.text).toBe(200);
    expect(await rollupsWithVisitors(s.id)).toEqual(await expectedRollups(s.id));
    expect((await rollups(s.id)).pageviews).toEqual({ '2026-03-10': then === 'hit' ? 6 : 5 });
    expect(JSON.stringify(logged.mock.calls)).toContain('D1 is behind the log');
  });

  it('rolls up what the log still holds, and says (logged) what retention took with it', async () => {
    const s = await site('flush-behind-retention');
    const log = websiteLog(env, s.id);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const now = Date.now();
    const old = now - 40 * 86_400_000;
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await runInDurableObject(log, async (_: WebsiteLog, state) => {
      const retaining = new WebsiteLogCore(state.storage, {
        DB: env.DB,
        EVENT_RETENTION_DAYS: '30',
      });
      for (const [i, time] of [old, old + 1000, now - 1000, now].entries())
        await record(retaining, logHit(s.id, { time, date: day(time), ip: `192.0.2.${i}` }));
      expect(await retaining.flush()).toMatchObject({ ok: true, events: 4 });
      await retaining.alarm(); // deletes the two old events
    });
    // The object's own log starts again on the storage the one above wrote.
    await evictDurableObject(log);
    await restoreD1(s.id, { stats: [], position: [] });
    expect(await log.flush()).toMatchObject({ ok: true, events: 2 });
    expect((await rollups(s.id)).pageviews).toEqual({ [day(now)]: 2 });
    expect(JSON.stringify(logged.mock.calls)).toContain('roll-ups lost');
  });
});

describe("an engagement on a visit's last page view, after it was rolled up", () => {
  it('adds its seconds to the roll-ups once, and once again only to a D1 restored before it', async () => {
    const s = await site('flush-late-duration', { privacy: '0' });
    const log = websiteLog(env, s.id);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const engage = (after: number, page: string, ms: number) =>
      log.engage(
        logHit(s.id, {
          kind: 'engagement',
          time: T0 + after,
          page,
          engagement: { ms, scroll: null, added: false },
        }),
      );
    const snapshot = await d1State(s.id);
    // One visit: /a, seen 12 s; /b 30 s later, rolled up, then seen 8 s, then 20 s in all.
    await record(log, logHit(s.id, { time: T0, page: '/a' }));
    await engage(15_000, '/a', 12_000);
    await record(log, logHit(s.id, { time: T0 + 30_000, page: '/b' }));
    expect(await log.flush()).toMatchObject({ ok: true, events: 2 });
    expect(await engage(40_000, '/b', 8_000)).toMatchObject({ engaged: true, late: true });
    await engage(50_000, '/b', 20_900);
    // An engagement of a page view no longer the visit's last changes its time on page only.
    expect(await engage(55_000, '/a', 40_000)).toMatchObject({ engaged: true });
    expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
    // 12 s on /a, the rest of the 30 s gap (18 s), 20 s on /b.
    expect((await rollups(s.id)).visit_duration).toEqual({ '2026-03-10': 50 });
    const events = await loggedEvents(log);
    expect(events.map((e) => e.visitSeconds)).toEqual([12, 38]);
    // D1 restored to before the first flush: each page view is rolled up again as it is now,
    // the changes it holds not added twice.
    await restoreD1(s.id, snapshot);
    await record(log, logHit(s.id, { time: T0 + 90_000, page: '/c', ip: '192.0.2.77' }));
    await log.flush();
    expect((await rollups(s.id)).visit_duration).toEqual({ '2026-03-10': 50 });
    expect(await rollupsWithVisitors(s.id)).toEqual(await expectedRollups(s.id));
  });
});
