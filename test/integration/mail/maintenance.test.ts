import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../../src/http/sessions.ts';
import { beginImport, writeImported } from '../../../src/imports/store.ts';
import { sweepImports } from '../../../src/imports/sweep.ts';
import { runScheduled, type ScheduledOptions } from '../../../src/maintenance/scheduled.ts';
import { call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { until } from '../../support/until.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

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

describe('hourly maintenance: imports of a deleted website leave nothing', () => {
  const importedRows = (websiteId: number) =>
    count('SELECT count(*) AS n FROM imported_stats WHERE website_id = ?', websiteId);
  /** `n` lines of Plausible's pages table, a page each from `first`. */
  const pageLines = (first: number, n: number) =>
    Array.from({ length: n }, (_, i) => `2024-01-01,/p${first + i},1\n`).join('');

  it('a website deleted while its import runs: the import stops writing, and nothing of it is left', async () => {
    const { key } = await makeOwner('import-deleted');
    const site = await makeWebsite(key, { domain: 'import-deleted.example.com' });
    const encoder = new TextEncoder();
    const first = encoder.encode(`date,page,pageviews\n${pageLines(0, 25_000)}`);
    const second = encoder.encode(pageLines(25_000, 25_000));
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        feed = c;
      },
    });
    // Its length said, the body streams to the import as it is sent.
    const running = call(
      `/api/v1/websites/${site.id}/imports?source=plausible&file_name=imported_pages_20240101_20240131.csv`,
      {
        method: 'POST',
        key,
        headers: { 'content-length': String(first.length + second.length) },
        body: { raw: body, type: 'text/csv' },
      },
    );
    // Enough rows for a write (20,000 at a time), then wait for it.
    feed.enqueue(first);
    await until(
      'the import to write its first rows',
      async () => (await importedRows(site.id)) > 0,
    );
    expect((await call(`/api/v1/websites/${site.id}`, { method: 'DELETE', key })).status).toBe(200);
    const now = Date.UTC(2026, 6, 11, 12);
    await runCron(now);
    // The import goes on with its file after the deleted website's rows were purged.
    feed.enqueue(second);
    feed.close();
    expect((await running).status).toBe(409);
    await runCron(now + HOUR);
    expect(await importedRows(site.id)).toBe(0);
  });

  it('removes imported rows whose website or import is gone, in bounded chunks', async () => {
    const { key } = await makeOwner('import-orphans');
    const kept = await makeWebsite(key, { domain: 'import-orphans-kept.example.com' });
    const emptied = await makeWebsite(key, { domain: 'import-orphans-emptied.example.com' });
    const gone = 987_654;
    const importId = await beginImport(db(), kept.id, 'plausible');
    const rows = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => ['page', '2024-01-01', `/p${i}`, 1] as [string, string, string, number],
      );
    await writeImported(db(), kept.id, importId, rows(10));
    // Rows no import of theirs still has: of a website gone without a tombstone, and of a
    // website whose imports are gone.
    const orphans = (websiteId: number, n: number) =>
      env.DB.prepare(
        `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?2)
        INSERT INTO imported_stats (website_id, name, date, value, import_id, count)
        SELECT ?1, 'page', '2024-01-01', '/o' || i, 424242, 1 FROM k`,
      )
        .bind(websiteId, n)
        .run();
    await orphans(gone, 12_000);
    await orphans(emptied.id, 3_000);
    // At most the rows a run is given, 5,000 a statement; the next run goes on.
    expect(await sweepImports(db(), 10_000)).toBe(10_000);
    expect((await importedRows(gone)) + (await importedRows(emptied.id))).toBe(5_000);
    expect(await sweepImports(db(), 10_000)).toBe(5_000);
    expect(await sweepImports(db(), 10_000)).toBe(0);
    await orphans(gone, 7);
    await runCron(Date.UTC(2026, 6, 12, 12));
    expect(await importedRows(gone)).toBe(0);
    expect(await importedRows(emptied.id)).toBe(0);
    expect(await importedRows(kept.id)).toBe(10);
  });
});
