import {
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.ts';
import worker from '../../src/index.ts';
import { runScheduled, type ScheduledOptions } from '../../src/maintenance/scheduled.ts';
import { call, db, makeOwner, makeWebsite } from '../support/api.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: '0 * * * *', scheduledTime: at }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** The cron handler's work, run directly with test settings (small chunks, budgets). */
const runWith = (at: number, options: ScheduledOptions) =>
  runScheduled(createScheduledController({ cron: '0 * * * *', scheduledTime: at }), env, options);

const count = async (sql: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...params)
      .first<{ n: number }>()
  )?.n ?? 0;

/** Inserts `n` throttle rows with keys `${tag}-1…n`, their windows ending at `resetAt`. */
async function seedThrottles(tag: string, n: number, resetAt: number) {
  await env.DB.prepare(
    `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
     INSERT INTO throttles (key, failures, reset_at) SELECT ? || '-' || i, 3, ? FROM k`,
  )
    .bind(n, tag, resetAt)
    .run();
}

describe('hourly maintenance: nothing grows without bound', () => {
  it('purges throttle counters whose window is over and keeps the running ones', async () => {
    const now = Date.UTC(2026, 6, 1, 12);
    await seedThrottles('over', 30, now - HOUR);
    await seedThrottles('just-over', 2, now);
    await seedThrottles('running', 3, now + 10 * 60_000);
    await runCron(now);
    const { results } = await env.DB.prepare(
      "SELECT key FROM throttles WHERE key LIKE 'over-%' OR key LIKE 'just-over-%' OR key LIKE 'running-%' ORDER BY key",
    ).all<{ key: string }>();
    expect(results.map((r) => r.key)).toEqual(['running-1', 'running-2', 'running-3']);
  });

  it('purges expired sessions and keeps live ones', async () => {
    const owner = await makeOwner('sessions');
    const now = Date.UTC(2026, 6, 2, 12);
    const createdLongAgo = now - 60 * DAY;
    for (let i = 0; i < 4; i++) await createSession(db(), owner.id, createdLongAgo);
    await createSession(db(), owner.id, now - HOUR);
    const ownerSessions = () =>
      count('SELECT count(*) AS n FROM sessions WHERE owner_id = ?', owner.id);
    expect(await ownerSessions()).toBe(5);
    await runCron(now);
    expect(await ownerSessions()).toBe(1);
    expect(
      await count(
        'SELECT count(*) AS n FROM sessions WHERE owner_id = ? AND expires_at > ?',
        owner.id,
        now,
      ),
    ).toBe(1);
  });

  it('purges the report claims of deleted websites, and claims too old to matter', async () => {
    const { key } = await makeOwner('claims');
    const kept = await makeWebsite(key, { domain: 'claims-kept.example.com' });
    const deleted = await makeWebsite(key, { domain: 'claims-deleted.example.com' });
    const now = Date.UTC(2026, 6, 6, 12);
    const claim = (websiteId: number, period: string, at: number) =>
      env.DB.prepare(
        'INSERT INTO report_sends (website_id, period, claimed_at, sent_at) VALUES (?, ?, ?, ?)',
      ).bind(websiteId, period, at, at);
    await env.DB.batch([
      claim(kept.id, 'weekly:2026-06-22', now - 7 * DAY),
      claim(kept.id, 'weekly:2026-04-20', now - 70 * DAY),
      claim(deleted.id, 'weekly:2026-06-22', now - 7 * DAY),
      claim(deleted.id, 'weekly:2026-06-15', now - 14 * DAY),
      // A website deleted long ago, whose tombstone is gone.
      claim(999_999, 'weekly:2026-04-13', now - 77 * DAY),
    ]);
    expect((await call(`/api/v1/websites/${deleted.id}`, { method: 'DELETE', key })).status).toBe(
      200,
    );
    await runCron(now);
    const { results } = await env.DB.prepare(
      'SELECT website_id, period FROM report_sends WHERE website_id IN (?, ?, ?) ORDER BY website_id, period',
    )
      .bind(kept.id, deleted.id, 999_999)
      .all();
    expect(results).toEqual([{ website_id: kept.id, period: 'weekly:2026-06-22' }]);
  });

  it('deletes in bounded chunks: a run stops at its limit and the next one continues', async () => {
    const now = Date.UTC(2026, 6, 10, 12);
    await seedThrottles('bulk', 45, now - HOUR);
    const bulk = () => count("SELECT count(*) AS n FROM throttles WHERE key LIKE 'bulk-%'");
    const settings: ScheduledOptions = { purge: { chunk: 10, chunks: 2 } };
    await runWith(now, settings);
    expect(await bulk()).toBe(25);
    await runWith(now + HOUR, settings);
    expect(await bulk()).toBe(5);
    await runWith(now + 2 * HOUR, settings);
    expect(await bulk()).toBe(0);
  });
});
