/**
 * E-mail reports end to end: a Sightline served by wrangler with a website that has
 * reports on and traffic last week; the cron is fired the way wrangler fires it locally,
 * and the message the local `send_email` binding writes to disk is the report.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { replayTraffic } from '../../scripts/lib/traffic.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { lastCompletePeriod } from '../../src/reports/period.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { decodeQuotedPrintable, headerOf } from '../support/mime.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const mailDir = join(root, '.wrangler', 'tmp', 'email');

async function emlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.eml'))
    .map((e) => join(e.parentPath, e.name));
}

const decodedSubject = (raw: string) => headerOf(raw, 'Subject');

let state: string;
let worker: Unstable_DevWorker;

afterAll(async () => {
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

describe('periodic reports through wrangler', () => {
  it('fires the cron locally and writes the report through the send_email binding', async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-reports-'));
    const week = lastCompletePeriod(Date.now(), 'UTC', 'weekly');
    await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'reports-owner@example.com',
        password: 'a long password',
      });
      await createWebsite(
        db,
        owner.id,
        { domain: 'reports-e2e.example.com', email: '1' },
        suffixesOnDisk,
      );
    });
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    // Last week's traffic, through the Worker's hit pipeline.
    await replayTraffic(
      `http://127.0.0.1:${worker.port}`,
      ['/', '/pricing', '/'].map((path, i) => ({
        body: { page: `https://reports-e2e.example.com${path}` },
        req: {
          ip: `203.0.113.${i + 1}`,
          userAgent:
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
          headers: new Headers(),
          cf: { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' },
          now: Date.parse(`${week.from}T12:00:00Z`) + i * 86_400_000,
        },
      })),
    );
    const before = new Set(await emlFiles(mailDir));
    const fired = await worker.fetch('/cdn-cgi/local/scheduled?cron=0+*+*+*+*');
    expect(fired.status).toBe(200);
    let fresh: string[] = [];
    for (let i = 0; i < 50 && fresh.length === 0; i++) {
      fresh = (await emlFiles(mailDir)).filter((f) => !before.has(f));
      if (fresh.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(fresh).toHaveLength(1);
    const raw = await readFile(fresh[0] as string, 'utf8');
    expect(raw).toMatch(/^To: <reports-owner@example\.com>$/m);
    expect(raw).toMatch(/^From: .*<reports@example\.com>$/m);
    expect(decodedSubject(raw)).toBe(
      `reports-e2e.example.com: 3 visitors, 3 page views (week of ${week.from})`,
    );
    expect(raw).toMatch(
      /^List-Unsubscribe: <http:\/\/localhost:8787\/reports\/unsubscribe\/1\/[0-9a-f]{32}>$/m,
    );
    // The bodies are quoted-printable.
    const text = decodeQuotedPrintable(raw);
    expect(text).toContain('Top countries:');
    expect(text).toContain('Germany');
    expect(text).toContain(
      `http://localhost:8787/stats/reports-e2e.example.com?range=custom&from=${week.from}&to=${week.to}`,
    );

    // Fired again (a retried cron): nothing is sent twice.
    await worker.fetch('/cdn-cgi/local/scheduled?cron=0+*+*+*+*');
    await new Promise((r) => setTimeout(r, 500));
    expect((await emlFiles(mailDir)).filter((f) => !before.has(f))).toHaveLength(1);
  });
});
