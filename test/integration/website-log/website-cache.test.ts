/**
 * The hit endpoints' cache of websites (src/websites/cache.ts): a busy website's hits read
 * nothing from D1; a change to a website made through Sightline counts from the next hit; and
 * a log that a stale entry (another isolate's, within `WEBSITE_CACHE_MS`) still fed after its
 * website was deleted rolls nothing up and deletes itself.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import { countStatements } from '../../../src/db/count-statements.ts';
import type { Env } from '../../../src/env.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, makeOwner, makeWebsite, ORIGIN, snapshot } from '../../support/api.ts';
import { logHit, logTables, record } from '../../support/event-log.ts';
import { AUSTIN, CHROME_WINDOWS, rollups, sendHit } from '../../support/hits.ts';

const app = createApp();

/** The app with a D1 binding that counts the statements sent to it. */
function counted() {
  let statements = 0;
  const bindings: Env = { ...env, DB: countStatements(env.DB, (n) => (statements += n)) };
  const hit = async (page: string, ip = '198.51.100.80') => {
    const res = await app.fetch(
      new Request(`${ORIGIN}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'user-agent': CHROME_WINDOWS,
          'cf-connecting-ip': ip,
        },
        body: JSON.stringify({ page }),
        cf: AUSTIN,
      } as RequestInit),
      bindings,
    );
    return res.status;
  };
  return { hit, statements: () => statements };
}

describe('the cache of websites', () => {
  it("reads a website once: its next hits send no statement to D1, on any of its hosts' pages", async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    const { hit, statements } = counted();
    expect(await hit(`https://${site.domain}/`)).toBe(202);
    expect(statements()).toBe(1);
    for (let i = 0; i < 20; i++) expect(await hit(`https://${site.domain}/p${i}`)).toBe(202);
    expect(statements()).toBe(1);
    expect((await rollups(site.id)).page).toEqual({ '/': 1, ...pages(20) });
  });

  it('applies a change made through the API from the very next hit', async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    const ip = '198.51.100.81';
    expect((await sendHit({ page: `https://${site.domain}/` }, { ip })).status).toBe(202);
    const excluded = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { form: { exclude_ips: ip } },
    });
    expect(excluded.status).toBe(200);
    const next = await sendHit({ page: `https://${site.domain}/` }, { ip });
    expect([next.status, next.dropReason]).toEqual([202, 'excluded_ip']);
  });

  it('forgets a deleted website at once: its hits are unknown_site', async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    expect((await sendHit({ page: `https://${site.domain}/` })).status).toBe(202);
    const deleted = await call(`/api/v1/websites/${site.id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(deleted.status).toBe(200);
    const after = await sendHit({ page: `https://${site.domain}/` });
    expect([after.status, after.dropReason]).toEqual([202, 'unknown_site']);
  });

  it('a new website with a more specific domain takes its pages from the next hit', async () => {
    const owner = await makeOwner();
    const parent = await makeWebsite(owner.key);
    const page = `https://blog.${parent.domain}/`;
    expect((await sendHit({ page })).status).toBe(202);
    const blog = await makeWebsite(owner.key, { domain: `blog.${parent.domain}` });
    expect((await sendHit({ page })).status).toBe(202);
    expect((await rollups(parent.id)).page).toEqual({ '/': 1 });
    expect((await rollups(blog.id)).page).toEqual({ '/': 1 });
  });
});

describe('a log fed after its website was deleted (a stale entry elsewhere)', () => {
  it('rolls nothing up, and deletes everything it holds', async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    const log = websiteLog(env, site.id);
    await record(log, logHit(site.id));
    expect((await rollups(site.id)).page).toEqual({ '/': 1 });
    const deleted = await call(`/api/v1/websites/${site.id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(deleted.status).toBe(200);
    const before = { stats: await snapshot('stats'), positions: await snapshot('log_positions') };

    // Another isolate still holds the website: its hit reaches the log.
    await record(log, logHit(site.id, { page: '/late' }));
    const flushed = await log.flush();
    expect(flushed.ok).toBe(true);

    expect(await snapshot('stats')).toEqual(before.stats);
    expect(await snapshot('log_positions')).toEqual(before.positions);
    expect(await logTables(site.id)).toEqual([]);
  });
});

function pages(n: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`/p${i}`, 1]));
}
