/**
 * A website's event log (src/website-log/): the Durable Object through its real binding —
 * visitors and visits decided in arrival order, the exact rows it writes, and the flush into
 * D1's roll-ups exactly once, whatever fails or repeats.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rollupOf } from '../../../src/counting/statistics.ts';
import { appliedPosition, applyFlush } from '../../../src/rollups/increments.ts';
import type { WebsiteLog } from '../../../src/website-log/object/durable-object.ts';
import {
  STAGE_GIVE_UP_MS,
  STAGE_TTL_MS,
} from '../../../src/website-log/object/write/staged-calls.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';

/** A flush's figures for the directory, of a flush written by hand. */
const NO_FIGURES = { firstDate: null, lastDate: null, events: 0, bytes: 0 };

import { injectD1Failure } from '../../support/d1-faults.ts';
import { loggedEvents, logHit, logTables, record } from '../../support/event-log.ts';
import { rollups } from '../../support/hits.ts';
import { MINUTE, site } from '../../support/ingest-fixtures.ts';

/**
 * A fresh website and its log. The log itself needs no website row, but its flush writes
 * only while D1 has the website (src/website-log/object/flush.ts).
 */
async function freshLog() {
  const { id: websiteId } = await site('log');
  return { websiteId, log: websiteLog(env, websiteId) };
}

const T0 = Date.parse('2026-03-10T10:00:00Z');

const pageview = logHit;

/** D1's roll-up rows of a website as they are, without flushing its log first. */
async function storedRows(websiteId: number): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM stats WHERE website_id = ?')
    .bind(websiteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('recording', () => {
  it("decides a visitor's first page view of the day and the visits, as the rules say", async () => {
    const { websiteId, log } = await freshLog();
    const first = await record(log, pageview(websiteId));
    const again = await record(log, pageview(websiteId, { time: T0 + 10 * MINUTE, page: '/a' }));
    const afterGap = await record(log, pageview(websiteId, { time: T0 + 41 * MINUTE, page: '/b' }));
    const fromElsewhere = await record(
      log,
      pageview(websiteId, { time: T0 + 42 * MINUTE, referrer: 'news.example' }),
    );
    const sameReferrer = await record(
      log,
      pageview(websiteId, { time: T0 + 43 * MINUTE, referrer: 'news.example' }),
    );
    const other = await record(log, pageview(websiteId, { ip: '203.0.113.6' }));
    const nextDay = await record(
      log,
      pageview(websiteId, { time: T0 + 24 * 60 * MINUTE, date: '2026-03-11' }),
    );
    const pick = ({ visitor, visit, newVisitor, newVisit }: typeof first) => ({
      visitor,
      visit,
      newVisitor,
      newVisit,
    });
    expect([first, again, afterGap, fromElsewhere, sameReferrer, other, nextDay].map(pick)).toEqual(
      [
        { visitor: 1, visit: 1, newVisitor: true, newVisit: true },
        { visitor: 1, visit: 1, newVisitor: false, newVisit: false },
        { visitor: 1, visit: 2, newVisitor: false, newVisit: true },
        { visitor: 1, visit: 3, newVisitor: false, newVisit: true },
        { visitor: 1, visit: 3, newVisitor: false, newVisit: false },
        { visitor: 2, visit: 4, newVisitor: true, newVisit: true },
        // A new day: a new salt, so a new visitor with a new visit, numbered from 1 again.
        { visitor: 1, visit: 1, newVisitor: true, newVisit: true },
      ],
    );
  });

  it('gives a custom event its visitor and visit without counting either', async () => {
    const { websiteId, log } = await freshLog();
    await record(log, pageview(websiteId));
    const event = await record(
      log,
      pageview(websiteId, { kind: 'event', event: 'signup', time: T0 + MINUTE }),
    );
    expect(event).toMatchObject({ visitor: 1, visit: 1, newVisitor: false, newVisit: false });
    const stranger = await record(
      log,
      pageview(websiteId, { kind: 'event', event: 'signup', ip: '198.51.100.1' }),
    );
    expect(stranger).toMatchObject({ visitor: 0, visit: 0, newVisitor: false, newVisit: false });
  });

  it('decides concurrent page views of one visitor one after the other', async () => {
    const { websiteId, log } = await freshLog();
    const all = await Promise.all(
      Array.from({ length: 12 }, (_, i) => record(log, pageview(websiteId, { time: T0 + i }))),
    );
    expect(all.filter((r) => r.newVisitor)).toHaveLength(1);
    expect(all.filter((r) => r.newVisit)).toHaveLength(1);
    expect(new Set(all.map((r) => r.visitor))).toEqual(new Set([1]));
  });

  it('writes the event and, when a visit starts, the visitor; a new value once: nothing else', async () => {
    const { websiteId, log } = await freshLog();
    const first = await record(log, pageview(websiteId));
    const later = await record(log, pageview(websiteId, { time: T0 + MINUTE, page: '/x' }));
    const otherVisitor = await record(log, pageview(websiteId, { ip: '203.0.113.77' }));
    const event = await record(
      log,
      pageview(websiteId, { kind: 'event', event: 'e', time: T0 + 2 * MINUTE }),
    );
    const nextVisit = await record(log, pageview(websiteId, { time: T0 + 40 * MINUTE }));
    // The first also stores the day's salt, which website the log is, where the date's events
    // begin (the log's `days`), and its fifteen texts in the dictionary: page, referrer, four
    // places (country, continent, city, region) and language, browser and its version,
    // system, device, screen, host, the event name `pageview` and the channel.
    expect(first.cost.rowsWritten).toBe(5 + 15);
    // Its one new text, the page /x.
    expect(later).toMatchObject({ newVisit: false, cost: { rowsWritten: 1 + 1 } });
    expect(otherVisitor.cost.rowsWritten).toBe(2);
    // Its label `e` and its name are new texts.
    expect(event.cost.rowsWritten).toBe(1 + 2);
    expect(nextVisit).toMatchObject({ newVisit: true, cost: { rowsWritten: 2 } });
  });

  it('goes on with the visits under way after a restart, reading them back from the events', async () => {
    const { websiteId, log } = await freshLog();
    const walker = { ip: '198.51.100.1' };
    const idle = { ip: '198.51.100.2' };
    await record(log, pageview(websiteId, { ...walker, page: '/a' }));
    await record(log, pageview(websiteId, { ...walker, time: T0 + MINUTE, page: '/b' }));
    await record(log, pageview(websiteId, { ...idle, time: T0 - 40 * MINUTE, page: '/idle' }));
    // More events than one read-back batch after the walker's last page view.
    for (let i = 0; i < 1_200; i++)
      await record(
        log,
        pageview(websiteId, { kind: 'event', event: 'tick', time: T0 + MINUTE + i * 100 }),
      );
    await evictDurableObject(log);
    expect(await log.realtime(T0 + 3 * MINUTE)).toBe(1);
    const goesOn = await record(log, pageview(websiteId, { ...walker, time: T0 + 5 * MINUTE }));
    const idleAgain = await record(log, pageview(websiteId, { ...idle, time: T0 + 5 * MINUTE }));
    expect(goesOn).toMatchObject({ newVisitor: false, newVisit: false, visit: 1 });
    expect(idleAgain).toMatchObject({ newVisitor: false, newVisit: true });
    const r = await rollups(websiteId);
    expect(r.visits).toEqual({ '2026-03-10': 3 });
    // The walker's visit: /a, /b, / over five minutes, so no bounce and 300 seconds.
    expect(r.bounces).toEqual({ '2026-03-10': 2 });
    expect(r.visit_duration).toEqual({ '2026-03-10': 300 });
    expect(r.exit_page).toEqual({ '/': 2, '/idle': 1 });
  });

  it('stores no address, User-Agent or hash in its events', async () => {
    const { websiteId, log } = await freshLog();
    await record(log, pageview(websiteId));
    const stored = await runInDurableObject(log, (_: WebsiteLog, state) =>
      JSON.stringify([
        ...state.storage.sql.exec('SELECT * FROM log').toArray(),
        ...state.storage.sql.exec('SELECT * FROM dict').toArray(),
      ]),
    );
    expect(stored).toContain('Firefox');
    expect(stored).not.toContain('203.0.113.5');
    expect(stored).not.toContain('Firefox/133.0');
    expect(stored).not.toMatch(/[0-9a-f]{32}/);
  });
});

describe('flushing into the roll-ups', () => {
  it('adds exactly what the events add up to, and nothing the second time', async () => {
    const { websiteId, log } = await freshLog();
    await record(log, pageview(websiteId, { referrer: 'www.google.com', campaign: 'spring' }));
    await record(log, pageview(websiteId, { time: T0 + MINUTE, page: '/pricing' }));
    await record(
      log,
      pageview(websiteId, { kind: 'event', event: 'signup', time: T0 + 2 * MINUTE }),
    );
    const flushed = await log.flush();
    if (!flushed.ok) throw new Error('flush failed');
    expect(flushed.events).toBe(3);
    expect(await rollups(websiteId)).toEqual({
      pageviews: { '2026-03-10': 2 },
      pageviews_hours: { '10': 2 },
      page: { '/': 1, '/pricing': 1 },
      visitors: { '2026-03-10': 1 },
      visitors_hours: { '10': 1 },
      browser: { Firefox: 1 },
      os: { Linux: 1 },
      device: { desktop: 1 },
      country: { 'US:United States': 1 },
      continent: { 'NA:North America': 1 },
      city: { 'US:Austin, TX': 1 },
      language: { en: 1 },
      resolution: { '1920x1080': 1 },
      landing_page: { '/': 1 },
      referrer: { 'www.google.com': 1 },
      campaign: { spring: 1 },
      event: { signup: 1 },
      // One visit of two page views a minute apart: no bounce (its +1 and -1 cancel in the
      // flush, so no row is written), ended on /pricing.
      visits: { '2026-03-10': 1 },
      visits_hours: { '10': 1 },
      visit_duration: { '2026-03-10': 60 },
      exit_page: { '/pricing': 1 },
    });
    expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
    expect(await appliedPosition(env.DB, { websiteId, partition: 0 })).toBe(flushed.position);
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 2 });
  });

  it('runs on the alarm the first unflushed event set', async () => {
    const { websiteId, log } = await freshLog();
    const recorded = await record(log, pageview(websiteId));
    expect(await storedRows(websiteId)).toBe(0);
    expect(await runDurableObjectAlarm(log)).toBe(true);
    // The alarm flushed: D1 has the rows before any reader asks for a flush.
    expect(await storedRows(websiteId)).toBeGreaterThan(0);
    expect(await appliedPosition(env.DB, { websiteId, partition: 0 })).toBe(recorded.id);
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
  });

  it('a flush that fails part-way adds nothing, and its retry adds everything once', async () => {
    const { websiteId, log } = await freshLog();
    for (let i = 0; i < 5; i++)
      await record(log, pageview(websiteId, { time: T0 + i, page: `/p${i}` }));
    const fault = injectD1Failure({
      matches: (sql) => /json_each/.test(sql),
      failBatches: true,
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await log.flush()).toEqual({ ok: false });
    fault.restore();
    expect(await storedRows(websiteId)).toBe(0);
    expect(await appliedPosition(env.DB, { websiteId, partition: 0 })).toBe(0);
    await log.flush();
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 5 });
  });

  it('a flush whose commit the object never learnt of is not applied again', async () => {
    const { websiteId, log } = await freshLog();
    for (let i = 0; i < 4; i++) await record(log, pageview(websiteId, { time: T0 + i }));
    // The commit happens, then the object is gone before noting its position.
    const events = await loggedEvents(log);
    await applyFlush(
      env.DB,
      { websiteId, partition: 0 },
      0,
      events.at(-1)?.id ?? 0,
      rollupOf(events),
      NO_FIGURES,
    );
    await evictDurableObject(log);
    await record(log, pageview(websiteId, { time: T0 + MINUTE, page: '/late' }));
    await log.flush();
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 5 });
    expect((await rollups(websiteId)).page).toEqual({ '/': 4, '/late': 1 });
  });

  it('flushes asked for at once count every event once', async () => {
    const { websiteId, log } = await freshLog();
    const writes = Array.from({ length: 30 }, (_, i) =>
      record(log, pageview(websiteId, { time: T0 + i, ip: `198.51.100.${i}` })),
    );
    const flushes = Array.from({ length: 5 }, () => log.flush());
    await Promise.all([...writes, ...flushes]);
    await log.flush();
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 30 });
    expect((await rollups(websiteId)).visitors).toEqual({ '2026-03-10': 30 });
  });

  it('another flush racing for the same website cannot apply the same events twice', async () => {
    const { websiteId, log } = await freshLog();
    await record(log, pageview(websiteId));
    const events = await loggedEvents(log);
    await applyFlush(env.DB, { websiteId, partition: 0 }, 0, 1, rollupOf(events), NO_FIGURES);
    await expect(
      applyFlush(env.DB, { websiteId, partition: 0 }, 0, 1, rollupOf(events), NO_FIGURES),
    ).rejects.toThrow();
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
  });
});

describe('staging the hits of a call that names several websites', () => {
  /** Ages a log's staged hits by `ms`, as if they had been staged that long ago. */
  const age = (log: ReturnType<typeof websiteLog>, ms: number) =>
    runInDurableObject(log, (_: WebsiteLog, state) => {
      state.storage.sql.exec('UPDATE staged SET staged_at = staged_at - ?', ms);
    });

  it('counts a staged hit only once committed, and once however often committed', async () => {
    const { websiteId, log } = await freshLog();
    await log.stage('call-1', pageview(websiteId), websiteId);
    expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
    const [first, second] = await Promise.all([log.commit('call-1'), log.commit('call-1')]);
    const stored = [first, second].filter((r) => r.ok && r.recorded !== null);
    expect(stored).toHaveLength(1);
    // The leader remembers: a commit tried again after a lost answer learns it is counted.
    expect(await log.commit('call-1')).toEqual({ ok: true, outcome: 'committed', recorded: null });
    await log.flush();
    expect((await rollups(websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
  });

  it('never counts an aborted hit, or one staged and never committed', async () => {
    const { websiteId, log } = await freshLog();
    await log.stage('aborted', pageview(websiteId), websiteId);
    await log.abort('aborted');
    expect(await log.commit('aborted')).toEqual({ ok: true, outcome: 'aborted', recorded: null });
    await log.stage('forgotten', pageview(websiteId, { ip: '192.0.2.9' }), websiteId);
    // A minute later the alarm drops it.
    await age(log, STAGE_TTL_MS + 1);
    expect(await runDurableObjectAlarm(log)).toBe(true);
    expect(await log.commit('forgotten')).toEqual({ ok: true, outcome: 'aborted', recorded: null });
    // A stage that comes after its call was aborted here is refused.
    expect(await log.stage('aborted', pageview(websiteId), websiteId)).toEqual({ ok: false });
    await log.flush();
    expect(await rollups(websiteId)).toEqual({});
  });

  it('keeps no address and no User-Agent while a hit is staged', async () => {
    const { websiteId, log } = await freshLog();
    const hit = pageview(websiteId);
    await log.stage('call-2', hit, websiteId);
    const staged = await runInDurableObject(log, (_: WebsiteLog, state) =>
      JSON.stringify(state.storage.sql.exec('SELECT * FROM staged').toArray()),
    );
    expect(staged).toContain('call-2');
    expect(staged).not.toContain(hit.ip);
    expect(staged).not.toContain(hit.userAgent);
    expect(staged).not.toContain('Firefox/133.0');
    // Committed, it is the visitor it would have been: the hash was made when it was staged.
    await record(log, pageview(websiteId, { time: T0 - MINUTE }));
    expect(await log.commit('call-2')).toMatchObject({
      outcome: 'committed',
      recorded: { newVisitor: false, newVisit: false },
    });
  });

  it('settles a staged hit at its minute, though an earlier alarm came and went', async () => {
    const { websiteId, log } = await freshLog();
    const now = Date.now();
    const today = new Date(now).toISOString().slice(0, 10);
    // A hit sets the flush's alarm ten seconds out; a staged hit's minute is later than that.
    await record(log, pageview(websiteId, { time: now, date: today }));
    await log.stage(
      'call-3',
      pageview(websiteId, { time: now, date: today, ip: '192.0.2.10' }),
      websiteId,
    );
    // The flush's alarm runs before the staged hit is due: the next alarm is its minute, not
    // the hourly maintenance.
    expect(await runDurableObjectAlarm(log)).toBe(true);
    const next = await runInDurableObject(log, (_: WebsiteLog, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThanOrEqual(now + STAGE_TTL_MS);
    expect(next).toBeLessThanOrEqual(Date.now() + STAGE_TTL_MS);
  });

  describe('a log that is not its call’s leader follows the leader', () => {
    async function pair() {
      const leader = await freshLog();
      const follower = await freshLog();
      const stage = async (token: string) => {
        expect(await leader.log.stage(token, pageview(leader.websiteId), leader.websiteId)).toEqual(
          {
            ok: true,
          },
        );
        expect(
          await follower.log.stage(token, pageview(follower.websiteId), leader.websiteId),
        ).toEqual({ ok: true });
      };
      return { leader, follower, stage };
    }

    it('commits its staged hit once the leader has committed, though its own commit never came', async () => {
      const { leader, follower, stage } = await pair();
      await stage('call-4');
      expect(await leader.log.commit('call-4')).toMatchObject({ outcome: 'committed' });
      await age(follower.log, STAGE_TTL_MS + 1);
      expect(await runDurableObjectAlarm(follower.log)).toBe(true);
      expect((await rollups(follower.websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
      expect((await rollups(leader.websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
      // The commit that comes late finds nothing left to count.
      expect(await follower.log.commit('call-4')).toMatchObject({ recorded: null });
      expect((await rollups(follower.websiteId)).pageviews).toEqual({ '2026-03-10': 1 });
    });

    it('drops its staged hit when the leader had not committed, and the leader then never does', async () => {
      const { leader, follower, stage } = await pair();
      await stage('call-5');
      await age(follower.log, STAGE_TTL_MS + 1);
      expect(await runDurableObjectAlarm(follower.log)).toBe(true);
      // Asked first, the leader aborted the call: the Worker's commit comes too late.
      expect(await leader.log.commit('call-5')).toEqual({
        ok: true,
        outcome: 'aborted',
        recorded: null,
      });
      expect(await follower.log.commit('call-5')).toMatchObject({ recorded: null });
      expect(await rollups(leader.websiteId)).toEqual({});
      expect(await rollups(follower.websiteId)).toEqual({});
    });

    it('asks again while the leader cannot be reached, and gives up (logged) after an hour', async () => {
      const { leader, follower, stage } = await pair();
      await stage('call-6');
      const unreachable = vi.spyOn(env.WEBSITE_LOG, 'get').mockImplementation(() => {
        throw new Error('Durable Object is overloaded.');
      });
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      await age(follower.log, STAGE_TTL_MS + 1);
      expect(await runDurableObjectAlarm(follower.log)).toBe(true);
      const stagedRows = () =>
        runInDurableObject(follower.log, (_: WebsiteLog, state) =>
          state.storage.sql.exec('SELECT count(*) AS n FROM staged').one(),
        );
      expect(await stagedRows()).toEqual({ n: 1 });
      await age(follower.log, STAGE_GIVE_UP_MS);
      expect(await runDurableObjectAlarm(follower.log)).toBe(true);
      expect(await stagedRows()).toEqual({ n: 0 });
      expect(JSON.stringify(logged.mock.calls)).toContain('staged hit dropped');
      unreachable.mockRestore();
      expect(await rollups(follower.websiteId)).toEqual({});
      // The leader, its own stage due, aborts it too.
      await age(leader.log, STAGE_TTL_MS + 1);
      await runDurableObjectAlarm(leader.log);
      expect(await rollups(leader.websiteId)).toEqual({});
    });
  });
});

describe('realtime and deletion', () => {
  it('has no storage until its first hit: a reader asking to flush creates none', async () => {
    const { log } = await freshLog();
    expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
    expect(await log.realtime(Date.now())).toBe(0);
    const size = await runInDurableObject(log, (_: WebsiteLog, state) => [
      state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name = 'log'").one().n,
    ]);
    expect(size).toEqual([0]);
  });

  it('counts the visitors of the last five minutes', async () => {
    const { websiteId, log } = await freshLog();
    const now = Date.now();
    await record(log, pageview(websiteId, { time: now - 10 * MINUTE, ip: '192.0.2.1' }));
    await record(log, pageview(websiteId, { time: now - MINUTE, ip: '192.0.2.2' }));
    await record(log, pageview(websiteId, { time: now - 2 * MINUTE, ip: '192.0.2.3' }));
    expect(await log.realtime(now)).toBe(2);
  });

  it('forgets everything it stores when its website is deleted', async () => {
    const { websiteId, log } = await freshLog();
    await record(log, pageview(websiteId));
    await log.destroy();
    expect(await logTables(websiteId)).toEqual([]);
    expect(await log.realtime(Date.now())).toBe(0);
    expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
    expect(await runDurableObjectAlarm(log)).toBe(false);
  });
});

describe('a burst while D1 fails', () => {
  it('10,000 hits, 50 in flight, 4 websites, one flush in ten failing: each counted once', async () => {
    const sites = await Promise.all(Array.from({ length: 4 }, () => freshLog()));
    const realBatch = env.DB.batch.bind(env.DB);
    let batches = 0;
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(env.DB, 'batch').mockImplementation(async (statements) => {
      batches += 1;
      if (batches % 10 === 0) throw new Error('D1_ERROR: injected flush failure');
      return realBatch(statements);
    });
    const total = 10_000;
    let next = 0;
    let failedFlushes = 0;
    const lane = async () => {
      while (next < total) {
        const i = next++;
        const { websiteId, log } = sites[i % sites.length] as (typeof sites)[number];
        const recorded = await record(
          log,
          pageview(websiteId, {
            time: T0 + i,
            ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
            page: `/p${i % 37}`,
          }),
        );
        expect(recorded.id).toBeGreaterThan(0);
        // Readers flush now and then in the middle of the burst.
        if (i % 250 === 0 && !(await log.flush()).ok) failedFlushes++;
      }
    };
    await Promise.all(Array.from({ length: 50 }, lane));
    // Then every log is flushed until it succeeds (a failed flush is retried).
    for (const { log } of sites) {
      for (let tries = 0; tries < 5 && !(await log.flush()).ok; tries++) failedFlushes++;
    }
    vi.mocked(env.DB.batch).mockRestore();
    expect(failedFlushes).toBeGreaterThan(0);
    let counted = 0;
    for (const { websiteId, log } of sites) {
      expect(await log.flush()).toMatchObject({ ok: true, events: 0 });
      const r = await rollups(websiteId);
      const views = Object.values(r.pageviews ?? {}).reduce((a, b) => a + b, 0);
      expect(views).toBe(total / sites.length);
      expect(Object.values(r.page ?? {}).reduce((a, b) => a + b, 0)).toBe(total / sites.length);
      counted += views;
    }
    expect(counted).toBe(total);
  });
});
