import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { purgeDeletedWebsites } from '../../../src/maintenance/purge.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import {
  call,
  db,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  snapshot,
} from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { logHit, logTables } from '../../support/event-log.ts';

/** Roll-up rows for a website, as the tracking pipeline would have written them. */
async function seedStats(websiteId: number, rows: number) {
  const statements = Array.from({ length: rows }, (_, i) =>
    env.DB.prepare(
      'INSERT INTO stats (website_id, name, date, value, count) VALUES (?, ?, ?, ?, ?)',
    ).bind(websiteId, 'page', '2026-11-01', `/page-${i}`, i + 1),
  );
  await env.DB.batch(statements);
}

async function statsRows(websiteId: number) {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM stats WHERE website_id = ?')
    .bind(websiteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe('DELETE /api/v1/websites/{id}', () => {
  it('answers the delete body and the website disappears from every read at once', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { domain: 'gone.example.com' });
    const res = await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: site.id, object: 'website', deleted: true, status: 200 });

    expect((await call(`/api/v1/websites/${site.id}`, { key })).json).toEqual(NOT_FOUND);
    expect(listOf(await call('/api/v1/websites', { key })).meta.total).toBe(0);
    const update = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { email: '1' } },
    });
    expect(update.status).toBe(404);
    const again = await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key });
    expect(again.status).toBe(404);
    expect(again.json).toEqual(NOT_FOUND);
  });

  it('frees the domain for a new website with a new id', async () => {
    const { key } = await makeOwner();
    const first = await makeWebsite(key, { domain: 'reuse.example.com' });
    await call(`/api/v1/websites/${first.id}`, { method: 'DELETE', key });
    const second = await makeWebsite(key, { domain: 'reuse.example.com' });
    expect(second.id).toBeGreaterThan(first.id);
  });

  it('purges recorded data in bounded chunks through the hourly cron', async () => {
    // Tombstones left by earlier tests in this file hold no rows; clear them so counts are exact.
    await purgeDeletedWebsites(db());
    const { key } = await makeOwner();
    const kept = await makeWebsite(key);
    const site = await makeWebsite(key);
    await seedStats(site.id, 120);
    await seedStats(kept.id, 3);
    await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key });
    expect(await snapshot('website_purges')).toEqual([
      { website_id: site.id, deleted_at: expect.any(Number) },
    ]);

    // A small budget shows the work is split: 50 rows per run, 20 per statement.
    const first = await purgeDeletedWebsites(db(), { chunk: 20, rows: 50 });
    expect(first).toEqual({ rowsDeleted: 50, websitesFinished: 0 });
    expect(await statsRows(site.id)).toBe(70);

    // The real scheduled handler finishes the job and removes the tombstone.
    await runCron();
    expect(await statsRows(site.id)).toBe(0);
    expect(await statsRows(kept.id)).toBe(3);
    expect(await snapshot('website_purges')).toEqual([]);
  });

  it("deletes the website's event log, its flush position and its roll-ups in the cron", async () => {
    await purgeDeletedWebsites(db());
    const { key } = await makeOwner();
    const site = await makeWebsite(key);
    const log = websiteLog(env, site.id);
    await log.record(logHit(site.id));
    expect(await log.flush()).toMatchObject({ ok: true, events: 1 });
    expect(await statsRows(site.id)).toBeGreaterThan(0);
    await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key });
    await runCron();
    expect(await statsRows(site.id)).toBe(0);
    expect(await snapshot('log_positions')).not.toContainEqual(
      expect.objectContaining({ website_id: site.id }),
    );
    expect(await logTables(site.id)).toEqual([]);
  });

  it("does not delete another owner's website", async () => {
    const a = await makeOwner('a');
    const b = await makeOwner('b');
    const site = await makeWebsite(b.key);
    const res = await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key: a.key });
    expect(res.status).toBe(404);
    expect(res.json).toEqual(NOT_FOUND);
    expect((await call(`/api/v1/websites/${site.id}`, { key: b.key })).status).toBe(200);
    expect(
      ((await snapshot('website_purges')) as { website_id: number }[]).map((r) => r.website_id),
    ).not.toContain(site.id);
  });
});
