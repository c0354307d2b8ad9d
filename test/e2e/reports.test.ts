/**
 * E-mail reports end to end: a Sightline served by wrangler with a website that has
 * reports on and traffic last week; the cron is fired the way wrangler fires it locally,
 * and the message the local `send_email` binding writes to disk is the report.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { until } from '../support/until.ts';
import { mailFiles, mailsTo } from './mail.ts';

const OWNER = 'reports-owner@example.com';
const SITE = 'reports-e2e.example.com';
/** A second website of the owner's, whose report is turned on before the cron fires again. */
const MARKER = 'reports-marker.example.com';

const decodedSubject = (raw: string) => headerOf(raw, 'Subject');

/** The owner's e-mails since `before` whose subject is about `domain`. */
const reportsOf = async (domain: string, before: Set<string>) =>
  (await mailsTo(OWNER, before)).filter((raw) =>
    (decodedSubject(raw) ?? '').startsWith(`${domain}:`),
  );

/** Until an e-mail about `domain` has been written since `before`; every such one. */
const reportsAbout = (domain: string, before: Set<string>) =>
  until(`the report of ${domain}`, async () => {
    const reports = await reportsOf(domain, before);
    return reports.length > 0 && reports;
  });

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
    const { key, markerId } = await withDatabase(
      { remote: false, persistTo: state },
      async (db) => {
        const owner = await createOwner(db, { email: OWNER, password: 'a long password' });
        await createWebsite(db, owner.id, { domain: SITE, email: '1' }, suffixesOnDisk);
        const marker = await createWebsite(db, owner.id, { domain: MARKER }, suffixesOnDisk);
        return { key: owner.apiKey, markerId: marker.id };
      },
    );
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    // Last week's traffic, through the Worker's hit pipeline.
    await replayTraffic(
      `http://127.0.0.1:${worker.port}`,
      ['/', '/pricing', '/'].map((path, i) => ({
        body: { page: `https://${SITE}${path}` },
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
    const before = await mailFiles();
    const fired = await worker.fetch('/cdn-cgi/local/scheduled?cron=0+*+*+*+*');
    expect(fired.status).toBe(200);
    // The cron's work goes on after its answer: wait for the e-mail itself.
    const reports = await reportsAbout(SITE, before);
    expect(reports).toHaveLength(1);
    const raw = reports[0] as string;
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

    // Fired again (a retried cron): nothing is sent twice. A run goes through the websites
    // whose report is due in the order of their ids, so once the second website's report
    // (turned on now) is written, this run has passed the first one.
    const marker = await worker.fetch(`/api/v1/websites/${markerId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 1 }),
    });
    expect(marker.status).toBe(200);
    await worker.fetch('/cdn-cgi/local/scheduled?cron=0+*+*+*+*');
    expect(await reportsAbout(MARKER, before)).toHaveLength(1);
    expect(await reportsOf(SITE, before)).toHaveLength(1);
  });
});
