/**
 * Read-your-writes (docs/ARCHITECTURE.md, The path of a number): before the Stats API, the
 * statistics page, its CSV or a report sums roll-ups, the website's event log rolls up what
 * it holds. A log that cannot flush makes the read a 503, never an answer without its hits.
 */
import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendReports } from '../../../src/reports/send.ts';
import { flushBeforeReading, websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { injectD1Failure } from '../../support/d1-faults.ts';
import { logHit } from '../../support/event-log.ts';

const DAY = '2026-04-07';

const logged = (websiteId: number, page: string) =>
  logHit(websiteId, { page, date: DAY, time: Date.parse(`${DAY}T09:00:00Z`), hour: '09' });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a hit held by the log', () => {
  it('is in the very next Stats API answer, statistics page and CSV', async () => {
    const { key } = await makeOwner('ryw');
    const site = await makeWebsite(key, { domain: 'ryw.example.com', privacy: '0' });
    await websiteLog(env, site.id).record(logged(site.id, '/held'));
    const api = await call(`/api/v1/stats/${site.id}?name=page&from=${DAY}&to=${DAY}`, { key });
    expect(api.json.data).toEqual([{ value: '/held', count: 1 }]);
    await websiteLog(env, site.id).record(logged(site.id, '/held-too'));
    const page = await exports.default.fetch(
      `https://sightline.test/stats/${site.domain}/page?from=${DAY}&to=${DAY}`,
    );
    expect(await page.text()).toContain('>/held-too</a>');
    await websiteLog(env, site.id).record(logged(site.id, '/in-csv'));
    const csv = await exports.default.fetch(
      `https://sightline.test/stats/${site.domain}/page.csv?from=${DAY}&to=${DAY}`,
    );
    expect(await csv.text()).toContain('/in-csv,1');
  });

  it('is in the report, and a log that cannot flush leaves the report for the next run', async () => {
    const { key } = await makeOwner('ryw-report');
    const site = await makeWebsite(key, { domain: 'ryw-report.example.com', email: '1' });
    await websiteLog(env, site.id).record(logged(site.id, '/reported'));
    const sent: string[] = [];
    const mailer = { send: async ({ raw }: { raw: string }) => void sent.push(raw) };
    const config = {
      from: 'r@example.com',
      publicUrl: 'https://s.example',
      interval: 'weekly' as const,
    };
    const monday = Date.parse('2026-04-13T06:00:00Z');
    const beforeReading = (id: number) => flushBeforeReading(env, id);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fault = injectD1Failure({
      matches: (sql) => /INSERT INTO stats[\s\S]*json_each/.test(sql),
      failBatches: true,
    });
    const failed = await sendReports(db(), mailer, config, monday, { beforeReading });
    fault.restore();
    expect(failed).toMatchObject({ sent: 0, failed: 1 });
    const run = await sendReports(db(), mailer, config, monday + 3_600_000, { beforeReading });
    expect(run).toMatchObject({ sent: 1 });
    expect(sent.join('')).toContain('/reported');
  });
});

describe('a log that cannot flush', () => {
  it('makes the Stats API and the statistics page answer 503 with Retry-After', async () => {
    const { key } = await makeOwner('ryw-fail');
    const site = await makeWebsite(key, { domain: 'ryw-fail.example.com', privacy: '0' });
    await websiteLog(env, site.id).record(logged(site.id, '/pending'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fault = injectD1Failure({
      matches: (sql) => /INSERT INTO stats[\s\S]*json_each/.test(sql),
      failBatches: true,
    });
    try {
      const api = await call(`/api/v1/stats/${site.id}?name=page&from=${DAY}&to=${DAY}`, { key });
      expect([api.status, api.headers.get('retry-after')]).toEqual([503, '5']);
      expect(api.json.status).toBe(503);
      const page = await exports.default.fetch(`https://sightline.test/stats/${site.domain}`);
      expect([page.status, page.headers.get('retry-after')]).toEqual([503, '5']);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      fault.restore();
    }
    const api = await call(`/api/v1/stats/${site.id}?name=page&from=${DAY}&to=${DAY}`, { key });
    expect(api.json.data).toEqual([{ value: '/pending', count: 1 }]);
  });
});
