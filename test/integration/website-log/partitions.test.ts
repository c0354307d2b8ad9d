/**
 * A website's log over several partitions (docs/ARCHITECTURE.md, "When a website outgrows one
 * object"): with `LOG_PARTITION_EVENTS` at 5, the same hits sent to a website P and to a
 * website C (one partition) over five days leave P's log in four partitions, each of whole
 * local dates; every answer — API v1's statistics filtered or not, the summary, a funnel, a
 * journey, the custom properties, the Stats API v2 — is C's, and the storage lists P's
 * partitions.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import { createDb } from '../../../src/db/client.ts';
import type { Env } from '../../../src/env.ts';
import { answer, isUnavailable, readerOf } from '../../../src/query/run/reader.ts';
import { WebsiteLogCore } from '../../../src/website-log/object/core.ts';
import {
  forgetPartitions,
  partitionNumbers,
  websiteLog,
} from '../../../src/website-log/worker/partitions.ts';
import { call, oneOf } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const app = createApp();
const partitioned = { ...env, LOG_PARTITION_EVENTS: '5' } as Env;

type Site = Awaited<ReturnType<typeof site>>;
let p: Site;
let c: Site;

/** The hits of a day: visitors 1…n, each a page view of /a then /b, some an event. */
function dayOf(day: number, visitors: number) {
  const hits: { path: string; ip: string; event?: string; props?: Record<string, string> }[] = [];
  for (let v = 1; v <= visitors; v++) {
    const ip = `198.51.100.${v}`;
    hits.push({ path: '/a', ip, props: { plan: v % 2 ? 'pro' : 'free' } });
    hits.push({ path: v % 3 ? '/b' : '/c', ip });
    if (v % 2) hits.push({ path: '/b', ip, event: 'signup' });
  }
  return { date: `2026-07-0${day}`, hits };
}

const DAYS = [dayOf(1, 3), dayOf(2, 2), dayOf(3, 1), dayOf(4, 4), dayOf(5, 2)];

async function send(s: Site, hit: { path: string; ip: string; event?: string }, env?: Env) {
  const body = JSON.stringify({
    page: `https://${s.domain}${hit.path}`,
    ...(hit.event ? { event: { name: hit.event } } : {}),
    ...('props' in hit ? { props: hit.props } : {}),
  });
  const request = new Request('https://sightline.test/api/event', {
    method: 'POST',
    headers: {
      'content-type': 'text/plain',
      'user-agent': CHROME_WINDOWS,
      'cf-connecting-ip': hit.ip,
    },
    body,
    cf: AUSTIN,
  } as RequestInit);
  const res = await app.fetch(request, env ?? (envOf() as Env));
  expect(res.status).toBe(202);
  expect(res.headers.get('x-drop-reason')).toBeNull();
}

const envOf = () => env as unknown as Env;

beforeAll(async () => {
  p = await site('partitioned');
  c = await site('one-partition');
  for (const day of DAYS) {
    let minute = 0;
    for (const hit of day.hits) {
      freezeAt(`${day.date}T10:${String(minute++).padStart(2, '0')}:00Z`);
      await send(p, hit, partitioned);
      await send(c, hit);
    }
  }
});

afterAll(() => freezeAt(Date.now()));

const RANGE = 'from=2026-07-01&to=2026-07-05';

/** An answer with the website's id out of its links (P's and C's differ only there). */
const comparable = (s: Site, json: unknown) =>
  JSON.parse(JSON.stringify(json).replaceAll(`/stats/${s.id}`, '/stats/ID'));

async function both(path: (s: Site) => string) {
  const answers = await Promise.all([p, c].map((s) => call(path(s), { key: s.key })));
  const [a, b] = answers as [(typeof answers)[number], (typeof answers)[number]];
  return {
    p: { status: a.status, json: comparable(p, a.json) },
    c: { status: b.status, json: comparable(c, b.json) },
  };
}

describe('a log over four partitions', () => {
  it('keeps whole local dates in each, as its storage shows', async () => {
    const res = await call(`/api/v1/websites/${p.id}/storage`, { key: p.key });
    const { partitions, events } = oneOf(res).data as {
      events: number;
      partitions: { from: string; to: string; events: number; closed: boolean }[];
    };
    // Days of 8, 5, 3, 10 and 5 events: a partition closes at the first date after its fifth.
    expect(partitions.map((x) => [x.from, x.to, x.closed])).toEqual([
      ['2026-07-01', '2026-07-01', true],
      ['2026-07-02', '2026-07-02', true],
      ['2026-07-03', '2026-07-04', true],
      ['2026-07-05', '2026-07-05', false],
    ]);
    const one = oneOf(await call(`/api/v1/websites/${c.id}/storage`, { key: c.key })).data;
    expect(events).toBe(one.events);
  });

  it('answers every statistic, filtered or not, as one partition does', async () => {
    for (const name of STAT_NAMES)
      for (const filter of ['', '&filter[page]=/b', '&filter[browser][not]=Safari']) {
        const r = await both((s) => `/api/v1/stats/${s.id}?name=${name}&${RANGE}${filter}`);
        expect(r.p.status, `${name}${filter}`).toBe(200);
        expect(r.p.json, `${name}${filter}`).toEqual(r.c.json);
      }
    const summary = await both((s) => `/api/v1/stats/${s.id}/summary?${RANGE}&filter[page]=/a`);
    expect(summary.p.json).toEqual(summary.c.json);
  });

  it('answers custom properties, a journey and the Stats API v2 as one partition does', async () => {
    const props = await both((s) => `/api/v1/stats/${s.id}?name=property&property=plan&${RANGE}`);
    expect(props.p.json).toEqual(props.c.json);
    const journey = await both((s) => `/api/v1/stats/${s.id}/journeys?page=/a&${RANGE}`);
    expect(journey.p.status).toBe(200);
    expect(journey.p.json).toEqual(journey.c.json);
    const v2 = await Promise.all(
      [p, c].map((s) =>
        call('/api/v2/query', {
          method: 'POST',
          key: s.key,
          body: {
            json: {
              site_id: s.domain,
              date_range: ['2026-07-01', '2026-07-05'],
              metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'percentage'],
              dimensions: ['event:page'],
              filters: [['is_not', 'visit:browser', ['Safari']]],
            },
          },
        }),
      ),
    );
    const [pv2, cv2] = v2.map((x) => x?.json as { results: unknown[] });
    expect(v2[0]?.status).toBe(200);
    expect(pv2?.results.length).toBeGreaterThan(0);
    expect(pv2?.results).toEqual(cv2?.results);
  });

  it('answers a funnel as one partition does', async () => {
    const made = await Promise.all(
      [p, c].map((s) =>
        call(`/api/v1/websites/${s.id}/funnels`, {
          method: 'POST',
          key: s.key,
          body: { json: { name: 'a to b', steps: [{ page: '/a' }, { page: '/b' }] } },
        }),
      ),
    );
    const ids = made.map((m) => oneOf(m).data.id);
    const answers = await Promise.all(
      [p, c].map((s, i) =>
        call(`/api/v1/stats/${s.id}/funnels/${ids[i]}?${RANGE}`, { key: s.key }),
      ),
    );
    expect(answers[0]?.status).toBe(200);
    // The funnels' ids differ; their steps are the same.
    const [a, b] = answers.map(
      (x) => (x?.json as { data: { steps: unknown[] } } | undefined)?.data.steps,
    );
    expect(JSON.stringify(a)).toContain('"visitors":');
    expect(a).toEqual(b);
  });
});

describe("a log over partitions' export", () => {
  it('numbers the events in order, each id once, as one object does', async () => {
    const lines = async (s: Site) => {
      const res = await call(`/api/v1/websites/${s.id}/export?format=events`, { key: s.key });
      expect(res.status).toBe(200);
      return res.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: number });
    };
    const [pe, ce] = [await lines(p), await lines(c)];
    const ids = pe.map((e) => e.id);
    expect(ids.length).toBe(ce.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The same events, but for their ids and the websites' host names.
    const noId = (events: { id: number }[]) =>
      events.map(
        ({ id: _id, hostname: _host, ...rest }: { id: number; hostname?: string }) => rest,
      );
    expect(noId(pe)).toEqual(noId(ce));
  });

  it('keeps a range of dates across partitions, as one object does', async () => {
    const dates = async (s: Site, range: string) => {
      const res = await call(`/api/v1/websites/${s.id}/export?format=events&${range}`, {
        key: s.key,
      });
      expect(res.status).toBe(200);
      const text = res.text.trim();
      return text ? text.split('\n').map((l) => (JSON.parse(l) as { date: string }).date) : [];
    };
    // 2026-07-02 to 2026-07-04 spans the second and third partitions.
    for (const range of ['from=2026-07-02&to=2026-07-04', 'from=2026-07-05', 'to=2026-06-30']) {
      const [pd, cd] = [await dates(p, range), await dates(c, range)];
      expect(pd).toEqual(cd);
      const [from, to] = [/from=([\d-]+)/.exec(range)?.[1], /to=([\d-]+)/.exec(range)?.[1]];
      expect(pd.every((d) => (!from || d >= from) && (!to || d <= to))).toBe(true);
    }
    expect(await dates(p, 'from=2026-07-02&to=2026-07-04')).toHaveLength(
      (DAYS[1]?.hits.length ?? 0) + (DAYS[2]?.hits.length ?? 0) + (DAYS[3]?.hits.length ?? 0),
    );
  });
});

describe("a closed partition's answers", () => {
  it('are kept: the same question asked again reads one row of each closed partition', async () => {
    const q = {
      from: '2026-07-01',
      to: '2026-07-01',
      filters: [{ op: 'is' as const, dimension: 'sl:page', values: ['/a'], caseSensitive: true }],
      groups: [
        { dimensions: ['sl:browser'], metrics: ['visitors'], order: [], limit: 5, offset: 0 },
      ],
    };
    const first = websiteLog(env, p.id, 0);
    const once = await first.query(q);
    const again = await first.query(q);
    if (!once.ok || !again.ok) throw new Error('the closed partition did not answer');
    expect(once.part?.closed).toBe(true);
    expect(again.value).toEqual(once.value);
    expect(once.rowsRead).toBeGreaterThan(5);
    expect(again.rowsRead).toBe(1);
  });

  it('are kept for a range moved by a day that still covers the partition whole', async () => {
    const q = (from: string, to: string) => ({
      from,
      to,
      filters: [{ op: 'is' as const, dimension: 'sl:page', values: ['/b'], caseSensitive: true }],
      groups: [{ dimensions: ['sl:os'], metrics: ['visitors'], order: [], limit: 5, offset: 0 }],
    });
    // The third partition holds 2026-07-03 and 2026-07-04.
    const third = websiteLog(env, p.id, 2);
    const once = await third.query(q('2026-07-01', '2026-07-05'));
    const moved = await third.query(q('2026-07-02', '2026-07-06'));
    const cut = await third.query(q('2026-07-04', '2026-07-06'));
    if (!once.ok || !moved.ok || !cut.ok) throw new Error('the closed partition did not answer');
    expect(once.rowsRead).toBeGreaterThan(5);
    expect(moved.value).toEqual(once.value);
    expect(moved.rowsRead).toBe(1);
    // Its part of the range changed: read again.
    expect(cut.rowsRead).toBeGreaterThan(1);
    // A grouping by weeks labels its first week with the range's first day: not cut.
    const weeks = (from: string) => ({
      ...q(from, '2026-07-05'),
      groups: [
        { dimensions: ['time:week'], metrics: ['visitors'], order: [], limit: 5, offset: 0 },
      ],
    });
    const monday = await third.query(weeks('2026-06-29'));
    const wednesday = await third.query(weeks('2026-07-01'));
    if (!monday.ok || !wednesday.ok) throw new Error('the closed partition did not answer');
    expect(monday.value[0]?.rows.map((r) => r.dimensions)).toEqual([['2026-06-29']]);
    expect(wednesday.value[0]?.rows.map((r) => r.dimensions)).toEqual([['2026-07-01']]);
  });
});

describe("the closed partitions' groups, kept by the open partition", () => {
  it('answer a question asked again with no closed partition read, as one partition does', async () => {
    const q = {
      from: '2026-07-01',
      to: '2026-07-05',
      filters: [
        { op: 'is_not' as const, dimension: 'sl:browser', values: ['Safari'], caseSensitive: true },
      ],
      groups: [
        {
          dimensions: ['sl:page'],
          metrics: ['visitors', 'pageviews'],
          order: [['visitors', 'desc'] as ['visitors', 'desc']],
          limit: 2,
          offset: 0,
        },
      ],
    };
    const ask = async (s: Site) => {
      const answered = await answer(readerOf(createDb(env.DB), s.id, env), q);
      if (isUnavailable(answered) || !answered[0]) throw new Error('no answer');
      return answered[0];
    };
    const once = await ask(p);
    // Asked a second time, the open partition keeps the closed ones' groups; then uses them.
    await ask(p);
    const again = await ask(p);
    const one = await ask(c);
    expect(once.rows.length).toBe(2);
    expect({ rows: again.rows, total: again.total }).toEqual({
      rows: once.rows,
      total: once.total,
    });
    expect({ rows: once.rows, total: once.total }).toEqual({ rows: one.rows, total: one.total });
    // The open partition answered from what it kept and its own events; each closed partition
    // said its epoch (a few rows of its meta), none read its events.
    const open = websiteLog(env, p.id, 3);
    const own = await open.groupReads(q);
    if (!own.ok) throw new Error('the open partition did not answer');
    expect(again.rowsRead).toBeLessThanOrEqual(own.rowsRead + 3 * 3);
    expect(again.rowsRead).toBeLessThan(once.rowsRead);
    const epochs = await Promise.all([0, 1, 2].map((n) => websiteLog(env, p.id, n).epoch()));
    const key = JSON.stringify(epochs.map((e, n) => [n, e.ok ? e.value : null]));
    const kept = await open.overClosed(q, key);
    expect(kept.ok && 'answer' in kept.value).toBe(true);
    // Under other epochs, it keeps nothing: its own groups, for the Worker to add up.
    const other = await open.overClosed(q, JSON.stringify([[0, 99]]));
    expect(other.ok && 'own' in other.value).toBe(true);
  });
});

describe("the closed partitions' paths, kept by the open partition", () => {
  it('answer a journey asked again as one partition does', async () => {
    const path = (s: Site) =>
      `/api/v1/stats/${s.id}/journeys?page=/a&direction=next&steps=2&${RANGE}`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await both(path));
    for (const r of answers) {
      expect(r.p.status).toBe(200);
      expect(r.p.json).toEqual(r.c.json);
    }
    const epochs = await Promise.all([0, 1, 2].map((n) => websiteLog(env, p.id, n).epoch()));
    const key = JSON.stringify(epochs.map((e, n) => [n, e.ok ? e.value : null]));
    // As the route asks it (the key is the question as written).
    const q = {
      from: '2026-07-01',
      to: '2026-07-05',
      page: '/a',
      direction: 'next' as const,
      steps: 2,
      sortBy: 'count' as const,
      sort: 'desc' as const,
      limit: 2,
      offset: 0,
      filters: [],
    };
    const kept = await websiteLog(env, p.id, 3).journeysOverClosed(q, key);
    expect(kept.ok && 'answer' in kept.value).toBe(true);
  });
});

describe('an isolate that knows nothing of the partitions yet', () => {
  it('learns them from the directory and answers as one partition does', async () => {
    forgetPartitions(p.id);
    const r = await both(
      (s) => `/api/v1/stats/${s.id}?name=page&${RANGE}&filter[browser][not]=Safari`,
    );
    expect(r.p.status).toBe(200);
    expect(r.p.json).toEqual(r.c.json);
    expect(partitionNumbers(p.id)).toEqual([0, 1, 2, 3]);
  });
});

describe('retention over partitions', () => {
  it('drops the partitions past it whole, trims none it keeps, and answers as one partition does', async () => {
    freezeAt('2026-07-05T12:00:00Z');
    // Two days kept: the dates before 2026-07-03 go (the first two partitions, whole).
    const alarm = (id: number, partition: number) =>
      runInDurableObject(websiteLog(env, id, partition), async (_instance, state) => {
        const log = new WebsiteLogCore(state.storage, { DB: env.DB, EVENT_RETENTION_DAYS: '2' });
        await log.alarm();
        return state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM log').one().n;
      });
    const held = [];
    for (const n of [0, 1, 2, 3]) held.push(await alarm(p.id, n));
    await alarm(c.id, 0);
    // Days of 8, 5, 3 + 10 and 5 events.
    expect(held).toEqual([0, 0, 13, 5]);
    const kept = await both(
      (s) =>
        `/api/v1/stats/${s.id}?name=page&from=2026-07-03&to=2026-07-05&filter[browser][not]=Safari`,
    );
    expect(kept.p.status).toBe(200);
    expect(kept.p.json).toEqual(kept.c.json);
    // A range that reaches into what was forgotten says where the log starts, as one object does.
    for (const from of ['2026-07-01', '2026-07-02']) {
      const gone = await both(
        (s) => `/api/v1/stats/${s.id}?name=page&from=${from}&to=2026-07-05&filter[page]=/a`,
      );
      expect(gone.p.status).toBe(422);
      expect(gone.p.json).toEqual(gone.c.json);
    }
    const storage = oneOf(await call(`/api/v1/websites/${p.id}/storage`, { key: p.key })).data as {
      partitions: { events: number }[];
    };
    // A partition dropped whole holds no date: the storage lists the others.
    expect(storage.partitions.map((x) => x.events)).toEqual([13, 5]);
  });
});

describe("a website's time zone moved back across a partition's start", () => {
  it('sends the hits of an older date back to the partition that holds it: answers as one partition does', async () => {
    // 2026-07-06 in UTC: the fourth partition, full, closes; a fifth holds 2026-07-06.
    const newDay = [
      { path: '/a', ip: '198.51.100.1' },
      { path: '/b', ip: '198.51.100.9' },
    ];
    freezeAt('2026-07-06T02:00:00Z');
    for (const hit of newDay) {
      await send(p, hit, partitioned);
      await send(c, hit);
    }
    const range = 'from=2026-07-03&to=2026-07-06';
    const paths = [
      (s: Site) => `/api/v1/stats/${s.id}?name=visitors&${range}`,
      (s: Site) => `/api/v1/stats/${s.id}?name=page&${range}&filter[browser][not]=Safari`,
      (s: Site) =>
        `/api/v1/stats/${s.id}?name=visitors&from=2026-07-05&to=2026-07-05&filter[page]=/c`,
      (s: Site) => `/api/v1/stats/${s.id}/journeys?page=/a&direction=next&steps=2&${range}`,
    ];
    // Asked twice before (the second time, the open partition keeps the closed ones' groups):
    // what the partitions keep of them no longer holds after.
    for (const path of [...paths, ...paths])
      expect((await call(path(p), { key: p.key })).status).toBe(200);
    // New York is four hours behind: it is 2026-07-05 there, a date of the fourth partition,
    // and visitor 1 was there that day.
    for (const s of [p, c]) {
      const res = await call(`/api/v1/websites/${s.id}`, {
        method: 'PATCH',
        key: s.key,
        body: { form: { timezone: 'America/New_York' } },
      });
      expect(res.status).toBe(200);
    }
    freezeAt('2026-07-06T03:00:00Z');
    for (const hit of [
      { path: '/c', ip: '198.51.100.1' },
      { path: '/a', ip: '198.51.100.7' },
    ]) {
      await send(p, hit, partitioned);
      await send(c, hit);
    }
    const storage = oneOf(await call(`/api/v1/websites/${p.id}/storage`, { key: p.key })).data as {
      partitions: { from: string; to: string; events: number; closed: boolean }[];
    };
    expect(storage.partitions.slice(-2)).toMatchObject([
      { from: '2026-07-05', to: '2026-07-05', events: 7, closed: true },
      { from: '2026-07-06', to: '2026-07-06', events: 2, closed: false },
    ]);
    for (const path of paths) {
      const r = await both(path);
      expect(r.p.status).toBe(200);
      expect(r.p.json).toEqual(r.c.json);
    }
  });
});

describe("an isolate's first hit of a website in many partitions", () => {
  it('finds the open partition through the directory, not by walking from the first', async () => {
    freezeAt('2026-07-06T15:00:00Z');
    forgetPartitions(p.id);
    const logs = env.WEBSITE_LOG;
    const asked: string[] = [];
    const counting = {
      ...partitioned,
      WEBSITE_LOG: {
        idFromName: (name: string) => {
          if (name.startsWith(`website:${p.id}`)) asked.push(name);
          return logs.idFromName(name);
        },
        get: (id: DurableObjectId) => logs.get(id),
      },
    } as unknown as Env;
    await send(p, { path: '/a', ip: '198.51.100.3' }, counting);
    await send(c, { path: '/a', ip: '198.51.100.3' });
    expect(asked).toEqual([`website:${p.id}`, `website:${p.id}:4`]);
  });
});

describe('a log kept in one object before partitions', () => {
  it('becomes the first partition when they are switched on: no event lost or counted twice', async () => {
    const before = await site('one-object-before');
    const control = await site('one-object-always');
    // Three days in one object (no LOG_PARTITION_EVENTS), then partitions of 5 from the fourth.
    for (const [i, day] of DAYS.slice(0, 4).entries()) {
      let minute = 0;
      for (const hit of day.hits) {
        freezeAt(`${day.date}T11:${String(minute++).padStart(2, '0')}:00Z`);
        await send(before, hit, i < 3 ? envOf() : partitioned);
        await send(control, hit);
      }
    }
    const storage = oneOf(await call(`/api/v1/websites/${before.id}/storage`, { key: before.key }))
      .data as { events: number; partitions: { from: string; to: string; closed: boolean }[] };
    expect(storage.partitions.map((x) => [x.from, x.to, x.closed])).toEqual([
      ['2026-07-01', '2026-07-03', true],
      ['2026-07-04', '2026-07-04', false],
    ]);
    expect(storage.events).toBe(8 + 5 + 3 + 10);
    const pair = async (path: (s: Site) => string) => {
      const [a, b] = await Promise.all(
        [before, control].map(async (s) => {
          const r = await call(path(s), { key: s.key });
          return { status: r.status, json: comparable(s, r.json) };
        }),
      );
      expect(a?.status).toBe(200);
      expect(a?.json).toEqual(b?.json);
    };
    for (const name of ['pageviews', 'visitors', 'page', 'event'])
      await pair((s) => `/api/v1/stats/${s.id}?name=${name}&from=2026-07-01&to=2026-07-04`);
    await pair(
      (s) => `/api/v1/stats/${s.id}?name=browser&from=2026-07-01&to=2026-07-04&filter[page]=/b`,
    );
  });
});

describe("the open partition's answers", () => {
  it('are kept for its dates before the newest: asked again, it reads only the newest date', async () => {
    const open = await site('open-partition');
    const wide = { ...env, LOG_PARTITION_EVENTS: '1000' } as Env;
    for (const day of DAYS.slice(0, 3)) {
      let minute = 0;
      for (const hit of day.hits) {
        freezeAt(`${day.date}T12:${String(minute++).padStart(2, '0')}:00Z`);
        await send(open, hit, wide);
      }
    }
    const q = {
      from: '2026-07-01',
      to: '2026-07-03',
      filters: [
        { op: 'is_not' as const, dimension: 'sl:browser', values: ['Safari'], caseSensitive: true },
      ],
      groups: [{ dimensions: ['sl:page'], metrics: ['visitors'], order: [], limit: 50, offset: 0 }],
    };
    const log = websiteLog(env, open.id, 0);
    const pages = (read: Awaited<ReturnType<typeof log.groupReads>>) => {
      if (!read.ok) throw new Error('the open partition did not answer');
      return Object.fromEntries(
        read.value[0]?.groups.map((g) => [g.dimensions[0], g.sums.vis]) ?? [],
      );
    };
    const once = await log.groupReads(q);
    const again = await log.groupReads(q);
    if (!once.ok || !again.ok) throw new Error('the open partition did not answer');
    expect(once.part?.closed).toBe(false);
    expect(pages(again)).toEqual(pages(once));
    // The newest date's 3 events read again, one row for what was kept of the two before.
    expect(again.rowsRead).toBeLessThan(once.rowsRead);
    // A hit of an older date (a time zone moved back) forgets what was kept.
    freezeAt('2026-07-02T18:00:00Z');
    await send(open, { path: '/late', ip: '198.51.100.1' }, wide);
    const after = await log.groupReads(q);
    expect(pages(after)).toEqual({ ...pages(once), '/late': 1 });
  });
});
