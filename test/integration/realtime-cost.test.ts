/**
 * The realtime count ("visitors in the last 5 minutes") reads, in D1's exact
 * `meta.rows_read`, only the recent visitor rows of its own website: never the other
 * websites' visitors, never the website's own older ones. And what the index behind it costs
 * a page view, in D1's `meta.rows_written`.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.ts';
import { fromEventBody } from '../../src/ingest/formats.ts';
import { ingestCall } from '../../src/ingest/ingest.ts';
import { realtimeVisitors } from '../../src/stats/overview.ts';
import { makeOwner, makeWebsite } from '../support/api.ts';
import { AUSTIN, CHROME_WINDOWS } from '../support/hits.ts';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 6, 1, 12);

/** A D1 binding that adds up `meta.rows_read` and `meta.rows_written` of all it runs. */
function metered(d1: D1Database) {
  const meta = { rowsRead: 0, rowsWritten: 0 };
  const add = <T extends D1Result>(r: T) => {
    meta.rowsRead += r.meta.rows_read ?? 0;
    meta.rowsWritten += r.meta.rows_written ?? 0;
    return r;
  };
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === 'bind') return (...args: unknown[]) => wrap(target.bind(...args));
        if (prop === 'run' || prop === 'all') return async () => add(await target[prop]());
        // drizzle's `get()` reads arrays through `raw()`, which reports no meta: read the
        // same rows through `all()` (the columns of these queries have distinct names).
        if (prop === 'raw')
          return async () => add(await target.all()).results.map((r) => Object.values(r as object));
        if (prop === 'first') throw new Error('metered: first() reports no meta');
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const binding = new Proxy(d1, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrap(target.prepare(query));
      if (prop === 'batch')
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements);
          for (const r of results) add(r);
          return results;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: createDb(binding), binding, meta };
}

/** Inserts `count` visitor rows of a website, last seen `agoMs` before NOW (one statement). */
async function seedVisitors(websiteId: number, count: number, agoMs: number, tag: string) {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO visitors (hash, last_seen_at, visit_referrer, website_id)
     SELECT ? || '-' || i, ?, '', ? FROM n`,
  )
    .bind(count, `${tag}-${websiteId}`, NOW - agoMs, websiteId)
    .run();
}

async function realtimeCost(websiteId: number) {
  const { db, meta } = metered(env.DB);
  const count = await realtimeVisitors(db, websiteId, NOW);
  return { count, rowsRead: meta.rowsRead };
}

describe('realtime visitors: cost in D1 rows read', () => {
  let site: number;
  let others: number[];

  beforeAll(async () => {
    const { key } = await makeOwner('realtime');
    site = (await makeWebsite(key, { domain: 'realtime.example.com' })).id;
    others = [];
    for (const domain of ['realtime-b.example.com', 'realtime-c.example.com'])
      others.push((await makeWebsite(key, { domain })).id);
    await seedVisitors(site, 3, 2 * MINUTE, 'now');
    await seedVisitors(site, 2, 30 * MINUTE, 'earlier');
  });

  it('counts the visitors of the last 5 minutes of its own website', async () => {
    expect((await realtimeCost(site)).count).toBe(3);
  });

  it("reads only the website's recent rows, however many visitors others have", async () => {
    const before = await realtimeCost(site);
    // Its three recent visitors, plus at most the index entry that ends the range.
    expect(before.rowsRead).toBeLessThanOrEqual(3 + 1);
    for (const other of others) await seedVisitors(other, 400, MINUTE, 'busy');
    await seedVisitors(site, 300, 6 * 60 * MINUTE, 'older');
    const after = await realtimeCost(site);
    expect(after.count).toBe(3);
    expect(after.rowsRead).toBeLessThanOrEqual(3 + 1);
    // Twice as many visitors elsewhere again: not one row more.
    for (const other of others) await seedVisitors(other, 800, 2 * MINUTE, 'busier');
    expect(await realtimeCost(site)).toEqual(after);
    // The others are counted just as cheaply.
    const other = await realtimeCost(others[0] as number);
    expect(other.count).toBe(1200);
    expect(other.rowsRead).toBeLessThanOrEqual(1200 + 1);
  });
});

describe('what a page view writes (D1 rows written)', () => {
  it('a first page view of the day writes 16 rows, a later one of the same visit 5', async () => {
    const { key } = await makeOwner('writes');
    const domain = 'writes.example.com';
    await makeWebsite(key, { domain });
    const { binding, meta } = metered(env.DB);
    const view = async (path: string, at: number, ip = '198.51.100.77') => {
      const body = { page: `https://${domain}${path}`, screen_resolution: '1920x1080' };
      const before = meta.rowsWritten;
      await ingestCall({ ...env, DB: binding }, fromEventBody(body), {
        ip,
        userAgent: CHROME_WINDOWS,
        headers: new Headers({ 'accept-language': 'en-US' }),
        cf: AUSTIN,
        now: at,
      });
      return meta.rowsWritten - before;
    };
    // The first hit of the day also writes the day's salt; the second visitor of the day does not.
    await view('/warm-up', NOW, '198.51.100.78');
    // A visitor's first page view of the day: 3 roll-ups counted on every page view, 10 on the
    // first of the day, landing page (1 roll-up), the visitor row and its realtime index entry.
    expect(await view('/', NOW + MINUTE)).toBe(16);
    // A later page view of the same visit: 3 roll-ups, the visitor row and the index entry its
    // new last-seen time moves (one row more than without the realtime index).
    expect(await view('/pricing', NOW + 2 * MINUTE)).toBe(5);
  });
});
