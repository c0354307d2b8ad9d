/**
 * A log an older Sightline wrote (docs/ARCHITECTURE.md, "Older logs"): each version from 6 on
 * is brought up to date when its object starts (its old rows read as the new columns' "no
 * value", new hits with theirs); one older than 6 — a development format no release wrote —
 * is not opened.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LogDb, type MetaKey } from '../../../src/website-log/object/tables/log-db.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import {
  AS_VERSION_6,
  AS_VERSION_7,
  AS_VERSION_9,
  logHit,
  record,
} from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

const meta = (websiteId: number, key: MetaKey) =>
  runInDurableObject(websiteLog(env, websiteId), (_instance, state) =>
    new LogDb(state.storage.sql).meta(key),
  );

describe('a log of a version before 6 (a development format no release wrote)', () => {
  it('is not opened: a hit sent to it is refused, and nothing of it is read as if it were new', async () => {
    const s = await site('log-upgrade-5');
    const log = websiteLog(env, s.id);
    await record(log, logHit(s.id));
    await runInDurableObject(log, async (_instance, state) => {
      await state.storage.deleteAlarm();
      state.storage.sql.exec("UPDATE meta SET value = 5 WHERE key = 'schema'");
    });
    await evictDurableObject(log);
    expect(await log.record(logHit(s.id, { ip: '203.0.113.9' }))).toEqual({ ok: false });
    expect(await log.flush()).toEqual({ ok: false });
    // Deleting its website still empties it: a hit then starts a log of today's version.
    await log.destroy();
    expect(await log.record(logHit(s.id))).toMatchObject({ ok: true });
    expect(await meta(s.id, 'schema')).toBe(11);
  });
});

describe('a log of version 6', () => {
  it('gains the columns of the query engine: its rows read "(not set)", new hits their values', async () => {
    const s = await site('log-upgrade-6');
    const log = websiteLog(env, s.id);
    const at = (time: string) => ({
      date: time.slice(0, 10),
      hour: time.slice(11, 13),
      time: Date.parse(time),
    });
    await record(log, logHit(s.id, at('2026-03-02T10:00:00Z')));
    await runInDurableObject(log, async (_instance, state) => {
      // No alarm of the newer log's runs on these tables before the restart.
      await state.storage.deleteAlarm();
      state.storage.sql.exec(AS_VERSION_6);
    });
    await evictDurableObject(log);
    await record(
      log,
      logHit(s.id, {
        ...at('2026-03-02T11:00:00Z'),
        ip: '203.0.113.8',
        utmSource: 'newsletter',
        utmMedium: 'email',
        source: 'newsletter',
        channel: 'Email',
      }),
    );
    expect(await meta(s.id, 'schema')).toBe(11);
    const ask = (dimensions: string[]) =>
      log.query({
        from: '2026-03-02',
        to: '2026-03-02',
        filters: [],
        groups: [{ dimensions, metrics: ['visitors'], order: [], limit: 10, offset: 0 }],
      });
    expect(await ask(['visit:utm_medium', 'visit:channel'])).toMatchObject({
      ok: true,
      value: [
        {
          rows: [
            { dimensions: ['(not set)', '(not set)'], metrics: [1] },
            { dimensions: ['email', 'Email'], metrics: [1] },
          ],
          total: 2,
        },
      ],
    });
  });
});

describe('a log of version 7', () => {
  it("gains its hits' properties: its rows have none, new hits theirs", async () => {
    const s = await site('log-upgrade-7');
    const log = websiteLog(env, s.id);
    const at = { date: '2026-03-03', hour: '10', time: Date.parse('2026-03-03T10:00:00Z') };
    await record(log, logHit(s.id, at));
    await runInDurableObject(log, async (_instance, state) => {
      await state.storage.deleteAlarm();
      state.storage.sql.exec(AS_VERSION_7);
    });
    await evictDurableObject(log);
    await record(
      log,
      logHit(s.id, { ...at, time: at.time + 60_000, ip: '203.0.113.9', props: [['plan', 'pro']] }),
    );
    expect(await meta(s.id, 'schema')).toBe(11);
    expect(
      await log.query({
        from: at.date,
        to: at.date,
        filters: [],
        groups: [
          {
            dimensions: ['event:props:plan'],
            metrics: ['visitors'],
            order: [],
            limit: 10,
            offset: 0,
          },
        ],
      }),
    ).toMatchObject({
      ok: true,
      value: [
        {
          rows: [
            { dimensions: ['(none)'], metrics: [1] },
            { dimensions: ['pro'], metrics: [1] },
          ],
        },
      ],
    });
  });
});

describe('a log of version 9', () => {
  it("gains its page views' engagement and forgets the answers it kept (they lack its sums)", async () => {
    const s = await site('log-upgrade-9');
    const log = websiteLog(env, s.id);
    const at = { date: '2026-03-04', hour: '10', time: Date.parse('2026-03-04T10:00:00Z') };
    await record(log, logHit(s.id, at));
    await runInDurableObject(log, async (_instance, state) => {
      await state.storage.deleteAlarm();
      state.storage.sql.exec(AS_VERSION_9);
      state.storage.sql.exec("INSERT INTO answers (key, value) VALUES ('kept', '[]')");
    });
    await evictDurableObject(log);
    const engaged = await log.engage({
      ...logHit(s.id, { ...at, time: at.time + 5_000 }),
      kind: 'engagement',
      engagement: { ms: 4_000, scroll: 70 },
    });
    expect(engaged).toMatchObject({ ok: true, engaged: true });
    expect(await meta(s.id, 'schema')).toBe(11);
    const rows = await runInDurableObject(log, (_instance, state) => ({
      answers: state.storage.sql.exec('SELECT count(*) AS n FROM answers').one().n,
      log: state.storage.sql.exec('SELECT engaged, scroll FROM log').toArray(),
    }));
    expect(rows).toEqual({ answers: 0, log: [{ engaged: 4_000, scroll: 70 }] });
  });
});
