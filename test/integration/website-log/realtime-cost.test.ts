/**
 * Realtime visitors ("in the last 5 minutes") come from the website's own event log: no table
 * shared by websites is read, so other websites' traffic changes nothing about the count.
 * And a page view writes no D1 row on its way in: D1 gets its roll-ups at the log's flush.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fromEventBody } from '../../../src/ingest/formats.ts';
import { ingestCall } from '../../../src/ingest/ingest.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { makeOwner, makeWebsite } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS } from '../../support/hits.ts';

const MINUTE = 60_000;

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
  return { binding, meta };
}

/** One page view through the ingestion entry point, with the given D1 binding. */
function view(binding: D1Database, domain: string, ip: string, at: number) {
  return ingestCall({ ...env, DB: binding }, fromEventBody({ page: `https://${domain}/` }), {
    ip,
    userAgent: CHROME_WINDOWS,
    headers: new Headers({ 'accept-language': 'en-US' }),
    cf: AUSTIN,
    now: at,
  });
}

describe('realtime visitors', () => {
  it("counts the website's visitors of the last five minutes, whatever other websites get", async () => {
    const { key } = await makeOwner('realtime');
    const site = await makeWebsite(key, { domain: 'realtime.example.com' });
    const other = await makeWebsite(key, { domain: 'realtime-other.example.com' });
    const now = Date.now();
    await view(env.DB, site.domain, '198.51.100.1', now - 10 * MINUTE);
    await view(env.DB, site.domain, '198.51.100.2', now - 2 * MINUTE);
    await view(env.DB, site.domain, '198.51.100.3', now - MINUTE);
    expect(await websiteLog(env, site.id).realtime(now)).toBe(2);
    for (let i = 0; i < 50; i++) await view(env.DB, other.domain, `198.51.100.${100 + i}`, now);
    expect(await websiteLog(env, site.id).realtime(now)).toBe(2);
    expect(await websiteLog(env, other.id).realtime(now)).toBe(50);
  });
});

describe('what a page view writes in D1 on its way in', () => {
  it('nothing: its roll-ups reach D1 at the flush, summed with the others', async () => {
    const { key } = await makeOwner('writes');
    const site = await makeWebsite(key, { domain: 'writes.example.com' });
    const { binding, meta } = metered(env.DB);
    const now = Date.now();
    for (let i = 0; i < 5; i++) await view(binding, site.domain, `198.51.100.${i + 1}`, now + i);
    expect(meta.rowsWritten).toBe(0);
    const flushed = await websiteLog(env, site.id).flush();
    // One flush: 5 page views of 5 new visitors on one page, summed per statistic and value.
    expect(flushed).toMatchObject({ ok: true, events: 5 });
  });
});
