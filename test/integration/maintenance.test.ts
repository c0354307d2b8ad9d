import {
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index.ts';
import { saltFor } from '../../src/ingest/visitor.ts';
import { db } from '../support/api.ts';

const HOUR = 60 * 60 * 1000;

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: '0 * * * *', scheduledTime: at }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

describe('hourly maintenance: forgetting visitors', () => {
  it('deletes visitor hashes older than 48 hours and salts older than 72 hours', async () => {
    const now = Date.UTC(2026, 5, 10, 12);
    await env.DB.batch([
      env.DB.prepare('INSERT INTO visitors (hash, last_seen_at) VALUES (?, ?)').bind(
        'fresh',
        now - 47 * HOUR,
      ),
      env.DB.prepare('INSERT INTO visitors (hash, last_seen_at) VALUES (?, ?)').bind(
        'stale',
        now - 49 * HOUR,
      ),
      env.DB.prepare('INSERT INTO salts (date, salt, created_at) VALUES (?, ?, ?)').bind(
        '2026-06-08',
        'a',
        now - 71 * HOUR,
      ),
      env.DB.prepare('INSERT INTO salts (date, salt, created_at) VALUES (?, ?, ?)').bind(
        '2026-06-06',
        'b',
        now - 73 * HOUR,
      ),
    ]);
    await runCron(now);
    const hashes = await env.DB.prepare('SELECT hash FROM visitors ORDER BY hash').all();
    expect(hashes.results).toEqual([{ hash: 'fresh' }]);
    const dates = await env.DB.prepare('SELECT date FROM salts ORDER BY date').all();
    expect(dates.results).toEqual([{ date: '2026-06-08' }]);
  });

  it('gives each local date its own random salt, the same one for every caller', async () => {
    const now = Date.now();
    const a = await saltFor(db(), '2031-01-01', now);
    const b = await saltFor(db(), '2031-01-02', now);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).not.toBe(a);
    expect(await saltFor(db(), '2031-01-01', now)).toBe(a);
    const row = await env.DB.prepare('SELECT salt FROM salts WHERE date = ?')
      .bind('2031-01-01')
      .first();
    expect(row).toEqual({ salt: a });
  });
});
