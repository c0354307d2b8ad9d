/**
 * What a hit that could not be stored leaves behind: nothing. A write that fails inside the
 * website's event log takes the rest of the hit back with it (one storage transaction); a log
 * that cannot be reached stores nothing; a call naming several websites counts in all their
 * logs or in none (docs/ARCHITECTURE.md, The event log). The client gets 503 and may retry,
 * and the retry counts once.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebsiteLog } from '../../../src/website-log/object/durable-object.ts';
import { STAGE_TTL_MS } from '../../../src/website-log/object/write/staged-calls.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { injectD1Failure } from '../../support/d1-faults.ts';
import { AUSTIN, CHROME_WINDOWS, rollups, sendHit } from '../../support/hits.ts';
import {
  advance,
  freezeAt,
  MINUTE,
  site,
  statRows,
  visitorRow,
} from '../../support/ingest-fixtures.ts';
import { injectLogFailure } from '../../support/log-faults.ts';

let errors: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  // The Worker logs each failed hit; keep the output quiet and check what it logs.
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const IP = '198.51.100.150';
const DAY = '2031-07-09';

/**
 * Makes the next statements matching `pattern` inside a website's log fail, as a storage
 * error would (the object runs in this isolate: a spy on its SQL handle). Undone after each
 * test.
 */
async function failInLog(websiteId: number, pattern: RegExp) {
  await runInDurableObject(websiteLog(env, websiteId), (_: WebsiteLog, state) => {
    const sql = state.storage.sql;
    const real = sql.exec.bind(sql);
    vi.spyOn(sql, 'exec').mockImplementation(((query: string, ...params: SqlStorageValue[]) => {
      if (pattern.test(query)) throw new Error('SQLITE_FULL: database or disk is full');
      return real(query, ...params);
    }) as typeof sql.exec);
  });
}

/** The visitors a website's log knows (0 when it has no tables yet). */
async function knownVisitors(websiteId: number): Promise<number> {
  return runInDurableObject(websiteLog(env, websiteId), (_: WebsiteLog, state) => {
    const has = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'visitors'");
    if (has.toArray().length === 0) return 0;
    return Number(state.storage.sql.exec('SELECT count(*) AS n FROM visitors').one().n);
  });
}

describe("a failing write in the website's event log", () => {
  it('answers 503, counts nothing of a new visitor, and the retry counts once', async () => {
    const s = await site('fault-city');
    freezeAt(`${DAY}T10:00:00Z`);
    const hit = {
      page: `https://${s.domain}/`,
      referrer: 'https://www.google.com/',
      screen_resolution: '1920x1080',
    };
    await failInLog(s.id, /^\s*INSERT INTO log/);
    const failed = await sendHit(hit, { ip: IP, ua: CHROME_WINDOWS, cf: AUSTIN });
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.text)).toEqual({ message: expect.any(String), status: 503 });
    expect(failed.headers.get('retry-after')).toBeTruthy();
    // The visitor written before the event failed was taken back with it.
    expect(await knownVisitors(s.id)).toBe(0);
    expect(await statRows(s.id)).toBe(0);
    // The failure is logged without the visitor's IP address or User-Agent.
    expect(errors).toHaveBeenCalled();
    const logged = JSON.stringify(errors.mock.calls);
    expect(logged).not.toContain(IP);
    expect(logged).not.toContain('Chrome/131');

    vi.restoreAllMocks();
    errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const retried = await sendHit(hit, { ip: IP, ua: CHROME_WINDOWS, cf: AUSTIN });
    expect(retried.status).toBe(202);
    expect(await rollups(s.id)).toEqual({
      pageviews: { [DAY]: 1 },
      pageviews_hours: { '10': 1 },
      page: { '/': 1 },
      visitors: { [DAY]: 1 },
      visitors_hours: { '10': 1 },
      browser: { Chrome: 1 },
      os: { Windows: 1 },
      device: { desktop: 1 },
      country: { 'US:United States': 1 },
      continent: { 'NA:North America': 1 },
      city: { 'US:Austin, TX': 1 },
      resolution: { '1920x1080': 1 },
      landing_page: { '/': 1 },
      referrer: { 'www.google.com': 1 },
      visits: { [DAY]: 1 },
      visits_hours: { '10': 1 },
      bounces: { [DAY]: 1 },
      exit_page: { '/': 1 },
    });
    expect(await visitorRow(s.id, DAY, IP, CHROME_WINDOWS)).toMatchObject({
      last_seen_at: Date.parse(`${DAY}T10:00:00Z`),
    });
  });

  it('a failure on a returning visitor leaves the earlier counts and the visit state as they were', async () => {
    const s = await site('fault-return');
    freezeAt(`${DAY}T12:00:00Z`);
    expect((await sendHit({ page: `https://${s.domain}/a` }, { ip: IP })).status).toBe(202);
    const before = await rollups(s.id);
    const seen = await visitorRow(s.id, DAY, IP, CHROME_WINDOWS);
    expect(seen).not.toBeNull();

    // 31 minutes later: a new visit, whose event fails to be written.
    advance(31 * MINUTE);
    await failInLog(s.id, /^\s*INSERT INTO log/);
    const failed = await sendHit({ page: `https://${s.domain}/b` }, { ip: IP });
    expect(failed.status).toBe(503);
    vi.restoreAllMocks();
    errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await rollups(s.id)).toEqual(before);
    expect(await visitorRow(s.id, DAY, IP, CHROME_WINDOWS)).toEqual(seen);

    // The retry is still the start of a new visit, counted once.
    expect((await sendHit({ page: `https://${s.domain}/b` }, { ip: IP })).status).toBe(202);
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ [DAY]: 2 });
    expect(r.page).toEqual({ '/a': 1, '/b': 1 });
    expect(r.landing_page).toEqual({ '/a': 1, '/b': 1 });
    expect(r.visitors).toEqual({ [DAY]: 1 });
  });

  it('a failing event write answers 503 and stores nothing', async () => {
    const s = await site('fault-event');
    freezeAt(`${DAY}T13:00:00Z`);
    await failInLog(s.id, /^\s*INSERT INTO log/);
    const failed = await sendHit({ page: `https://${s.domain}/`, event: 'signup' }, { ip: IP });
    expect(failed.status).toBe(503);
    vi.restoreAllMocks();
    errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await statRows(s.id)).toBe(0);
    expect(
      (await sendHit({ page: `https://${s.domain}/`, event: 'signup' }, { ip: IP })).status,
    ).toBe(202);
    expect(await rollups(s.id)).toEqual({ event: { signup: 1 } });
  });

  it('a log that cannot be reached answers 503 and stores nothing', async () => {
    const s = await site('fault-unreachable');
    freezeAt(`${DAY}T14:00:00Z`);
    const fault = injectLogFailure({ methods: ['record'], websites: [s.id] });
    const failed = await sendHit({ page: `https://${s.domain}/` }, { ip: IP });
    fault.restore();
    expect([failed.status, failed.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await statRows(s.id)).toBe(0);
    expect((await sendHit({ page: `https://${s.domain}/` }, { ip: IP })).status).toBe(202);
    expect((await rollups(s.id)).pageviews).toEqual({ [DAY]: 1 });
  });
});

describe('a hit that names several websites', () => {
  const plausible = (domains: string[], page: string) => ({
    n: 'pageview',
    u: page,
    d: domains.join(','),
  });

  it('counts in every log or in none: a failure on the second website stores nothing on the first', async () => {
    const a = await site('multi-a');
    const b = await site('multi-b', { domain: `b.${a.domain}` });
    freezeAt(`${DAY}T11:00:00Z`);
    const body = plausible([a.domain, b.domain], `https://${b.domain}/pricing`);
    const fault = injectLogFailure({ methods: ['stage'], websites: [b.id] });
    const failed = await sendHit(body, { ip: IP });
    fault.restore();
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(await statRows(a.id)).toBe(0);
    expect(await statRows(b.id)).toBe(0);
    // The tracker's retry counts each website exactly once.
    expect((await sendHit(body, { ip: IP })).status).toBe(202);
    expect((await rollups(a.id)).pageviews).toEqual({ [DAY]: 1 });
    expect((await rollups(b.id)).pageviews).toEqual({ [DAY]: 1 });
  });

  /** Runs a log's alarm as if its staged hits had been staged a minute and more ago. */
  async function settleStaged(websiteId: number) {
    const log = websiteLog(env, websiteId);
    await runInDurableObject(log, (_: WebsiteLog, state) => {
      state.storage.sql.exec('UPDATE staged SET staged_at = staged_at - ?', STAGE_TTL_MS + 1);
    });
    await runDurableObjectAlarm(log);
  }

  it('a commit failing in one log after the leader committed: 202, and counted there once, later', async () => {
    const a = await site('multi-leader');
    const b = await site('multi-follower', { domain: `b.${a.domain}` });
    freezeAt(`${DAY}T11:00:00Z`);
    const fault = injectLogFailure({ methods: ['commit'], websites: [b.id] });
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      const res = await sendHit(plausible([a.domain, b.domain], `https://${b.domain}/`), { ip });
      expect(res.status, res.text).toBe(202);
    }
    fault.restore();
    expect((await rollups(a.id)).pageviews).toEqual({ [DAY]: 3 });
    // The follower's hits wait, staged, for their minute; then it asks the leader.
    expect(await statRows(b.id)).toBe(0);
    await settleStaged(b.id);
    expect((await rollups(b.id)).pageviews).toEqual({ [DAY]: 3 });
    expect((await rollups(b.id)).visitors).toEqual({ [DAY]: 3 });
    await settleStaged(b.id);
    expect((await rollups(a.id)).pageviews).toEqual({ [DAY]: 3 });
    expect((await rollups(b.id)).pageviews).toEqual({ [DAY]: 3 });
  });

  it("a leader's commit failing: 503, counted nowhere, and the retry counts once", async () => {
    const a = await site('multi-leader-fails');
    const b = await site('multi-follower-ok', { domain: `b.${a.domain}` });
    freezeAt(`${DAY}T11:00:00Z`);
    const body = plausible([a.domain, b.domain], `https://${b.domain}/`);
    const fault = injectLogFailure({ methods: ['commit'], websites: [a.id] });
    const failed = await sendHit(body, { ip: IP });
    fault.restore();
    expect(failed.status).toBe(503);
    // The leader never committed: each log drops its staged hit at its minute.
    await settleStaged(b.id);
    await settleStaged(a.id);
    expect(await statRows(a.id)).toBe(0);
    expect(await statRows(b.id)).toBe(0);
    expect((await sendHit(body, { ip: IP })).status).toBe(202);
    expect((await rollups(a.id)).pageviews).toEqual({ [DAY]: 1 });
    expect((await rollups(b.id)).pageviews).toEqual({ [DAY]: 1 });
  });

  it.each([
    ['a lookup of a Plausible hit naming several websites', 'multi'],
    ["a lookup of Umami's website id", 'umami-id'],
    ["a lookup of Umami's website domain", 'umami-domain'],
  ])('answers 503 with Retry-After when %s fails', async (_, kind) => {
    const a = await site(`lookup-${kind}`);
    const fault = injectD1Failure({ matches: (sql) => /from "websites"/i.test(sql) });
    try {
      const res =
        kind === 'multi'
          ? await sendHit(plausible([a.domain, `x.${a.domain}`], `https://${a.domain}/`), {
              ip: IP,
            })
          : await exports.default.fetch(
              new Request('https://sightline.test/api/send', {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'user-agent': CHROME_WINDOWS },
                body: JSON.stringify({
                  type: 'event',
                  payload: {
                    website: kind === 'umami-id' ? String(a.id) : a.domain,
                    name: 'signup',
                  },
                }),
              }),
            );
      expect(fault.failed.length).toBeGreaterThan(0);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      fault.restore();
    }
    expect(await statRows(a.id)).toBe(0);
  });
});
