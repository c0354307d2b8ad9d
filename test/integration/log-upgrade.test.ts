/**
 * A log an older Sightline wrote (docs/ARCHITECTURE.md, "Older logs"): its events, every
 * value as text, are converted into `log` newest first — 20,000 when the object first starts
 * after the upgrade, 2,000 at each hourly maintenance — each row given its visit's and its
 * visitor's values from their first page views. Meanwhile hits go on, the flush rolls up the
 * rows of both tables exactly once, and a filtered read answers for the dates converted whole
 * and names the first of them for a range before.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Filter } from '../../src/counting/v1.ts';
import { AT_UPGRADE, PER_RUN } from '../../src/event-log/convert.ts';
import { LogDb, type MetaKey } from '../../src/event-log/log-db.ts';
import { websiteLog } from '../../src/event-log/stub.ts';
import {
  AS_VERSION_5,
  AS_VERSION_6,
  AS_VERSION_7,
  AS_VERSION_9,
  logHit,
  record,
} from '../support/event-log.ts';
import { flushLog, site } from '../support/ingest-fixtures.ts';
import { v1Reads } from '../support/log-reads.ts';

/** The dates of the old events (2026-03-02 to 2026-03-07), each with this many visitors. */
const DATES = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07'];
const VISITORS = 2_500;
/** Old events: each visitor of a date views two pages. */
const OLD_EVENTS = DATES.length * VISITORS * 2;

/**
 * Takes a log back to version 5 and gives it `OLD_EVENTS` events after its one event (a page
 * view on 2026-03-01): on each date, visitor k lands on `/p<k mod 5>` from Google (k mod 4 =
 * 0), Hacker News (1) or nowhere, in Firefox (k even) or Chrome, then views `/pricing` — that
 * row, as an older version wrote it, has no referrer of its own. None is rolled up yet.
 */
async function asOldLog(websiteId: number): Promise<void> {
  const log = websiteLog(env, websiteId);
  await runInDurableObject(log, async (_instance, state) => {
    // No alarm of the newer log's runs on these tables before the restart.
    await state.storage.deleteAlarm();
    const db = new LogDb(state.storage.sql);
    db.script(AS_VERSION_5);
    DATES.forEach((date, d) => {
      const first = 2 + d * VISITORS * 2;
      db.rows(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
        INSERT INTO events (id, kind, time, date, hour, visitor, visit, new_visitor, new_visit,
            page, referrer, country, continent, city, language, browser, os, device,
            resolution, visit_views, previous_page, visit_seconds)
          SELECT ?2 + n.i, 'pageview', ?3 + n.i * 1000, ?4, '10', n.i / 2 + 1, 1,
            1 - n.i % 2, 1 - n.i % 2,
            CASE n.i % 2 WHEN 0 THEN '/p' || (n.i / 2 % 5) ELSE '/pricing' END,
            CASE WHEN n.i % 2 = 1 THEN '' WHEN n.i / 2 % 4 = 0 THEN 'www.google.com'
              WHEN n.i / 2 % 4 = 1 THEN 'news.ycombinator.com' ELSE '' END,
            'US:United States', 'NA:North America', 'US:Austin, TX', 'en',
            CASE n.i / 2 % 2 WHEN 0 THEN 'Firefox' ELSE 'Chrome' END, 'Linux', 'desktop',
            '1920x1080', n.i % 2 + 1,
            CASE n.i % 2 WHEN 1 THEN '/p' || (n.i / 2 % 5) END, n.i % 2
          FROM n`,
        VISITORS * 2,
        first,
        Date.parse(`${date}T10:00:00Z`),
        date,
      );
      db.rows('INSERT INTO days (first, date) VALUES (?, ?)', first, date);
    });
  });
  await evictDurableObject(log);
}

const read = (websiteId: number, from: string, to: string, filters: Filter[], name = 'page') =>
  v1Reads(websiteLog(env, websiteId)).statistic({
    name: name as 'page',
    from,
    to,
    filters,
    sortBy: 'value',
    sort: 'asc',
    limit: 50,
    offset: 0,
  });

const GOOGLE: Filter[] = [{ dimension: 'referrer', operator: 'is', value: 'www.google.com' }];

/** The pages of Google's visits over `dates` dates: each landing page 125 a date, `/pricing` 625. */
const googlePages = (dates: number) => [
  ...[0, 1, 2, 3, 4].map((p) => ({ value: `/p${p}`, count: 125 * dates })),
  { value: '/pricing', count: 625 * dates },
];

/** The page views of each date in D1's roll-ups. */
async function pageviewsByDate(websiteId: number): Promise<Record<string, number>> {
  await flushLog(websiteId);
  const { results } = await env.DB.prepare(
    "SELECT date, count FROM stats WHERE website_id = ? AND name = 'pageviews' ORDER BY date",
  )
    .bind(websiteId)
    .all<{ date: string; count: number }>();
  return Object.fromEntries(results.map((r) => [r.date, r.count]));
}

const meta = (websiteId: number, key: MetaKey) =>
  runInDurableObject(websiteLog(env, websiteId), (_instance, state) =>
    new LogDb(state.storage.sql).meta(key),
  );

describe('a log an older version wrote', () => {
  it('converts the newest events at once and the rest hourly; reads and flushes meanwhile', async () => {
    const s = await site('log-upgrade');
    const log = websiteLog(env, s.id);
    await record(
      log,
      logHit(s.id, { date: '2026-03-01', time: Date.parse('2026-03-01T10:00:00Z') }),
    );
    await flushLog(s.id);
    await asOldLog(s.id);

    // At first start: the newest 20,000 (the last four dates, whole).
    expect(AT_UPGRADE).toBe(4 * VISITORS * 2);
    expect(await read(s.id, '2026-03-04', '2026-03-07', GOOGLE)).toMatchObject({
      ok: true,
      value: { rows: googlePages(4), total: 6 },
    });
    expect(await read(s.id, '2026-03-02', '2026-03-07', GOOGLE)).toEqual({
      ok: false,
      firstDate: '2026-03-04',
    });
    expect(await meta(s.id, 'legacy')).toBe(1 + OLD_EVENTS - AT_UPGRADE);

    // The flush rolls up both tables' events, each once.
    const rolled = Object.fromEntries(DATES.map((date) => [date, VISITORS * 2]));
    expect(await pageviewsByDate(s.id)).toEqual({ '2026-03-01': 1, ...rolled });

    // New hits go to the new log, after the old positions.
    const hit = await record(
      log,
      logHit(s.id, {
        ip: '203.0.113.9',
        date: '2026-03-07',
        hour: '23',
        time: Date.parse('2026-03-07T23:00:00Z'),
        referrer: 'www.google.com',
        page: '/p1',
      }),
    );
    expect(hit.id).toBe(2 + OLD_EVENTS);

    // Each hourly maintenance converts 2,000 more (a restart makes the next one hourly).
    // The old log's rows: the first page view (2026-03-01), then the old events.
    const runs = Math.ceil((1 + OLD_EVENTS - AT_UPGRADE) / PER_RUN);
    for (let run = 1; run <= runs; run++) {
      expect(await runDurableObjectAlarm(log)).toBe(true);
      expect(await meta(s.id, 'legacy')).toBe(
        Math.max(0, 1 + OLD_EVENTS - AT_UPGRADE - run * PER_RUN),
      );
      await evictDurableObject(log);
    }
    // Converted whole: every date answers, the old table is gone.
    expect(await meta(s.id, 'legacy')).toBe(0);
    const tables = await runInDurableObject(log, (_instance, state) =>
      new LogDb(state.storage.sql).rows<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE name = 'events'",
      ),
    );
    expect(tables).toEqual([]);
    const all = googlePages(6).map((row) =>
      row.value === '/p1' ? { ...row, count: row.count + 1 } : row,
    );
    expect(await read(s.id, '2026-03-01', '2026-03-07', GOOGLE)).toMatchObject({
      ok: true,
      value: { rows: all, total: 6 },
    });
    // The visitor's values reach their second page view: Firefox visitors' `/pricing` views.
    const firefoxPricing = await read(
      s.id,
      '2026-03-02',
      '2026-03-07',
      [
        { dimension: 'browser', operator: 'is', value: 'Firefox' },
        { dimension: 'page', operator: 'is', value: '/pricing' },
      ],
      'visitors',
    );
    expect(firefoxPricing.ok && firefoxPricing.value.rows).toEqual(
      DATES.map((date) => ({ value: date, count: VISITORS / 2 })),
    );
    expect(await pageviewsByDate(s.id)).toEqual({
      '2026-03-01': 1,
      ...rolled,
      '2026-03-07': VISITORS * 2 + 1,
    });
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
