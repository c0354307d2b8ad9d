/**
 * Members end to end: a Sightline served by wrangler; the owner invites a colleague through
 * the API, the invitation is the e-mail the local `send_email` binding writes to disk, and the
 * colleague accepts it in Chromium — a new login, with its password chosen there — then
 * reads the private website's statistics, is refused its settings, and cannot use the link
 * again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';
import { haveChromium, launchBrowser } from './browser.ts';
import { mailFiles, mailsTo } from './mail.ts';

const COLLEAGUE = `colleague-${Date.now()}@example.com`;

let state: string;
let worker: Unstable_DevWorker | undefined;
let browser: BrowserContext | undefined;

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('an invitation through wrangler and a real browser', () => {
  it('is e-mailed, accepted once in Chromium, and gives the role it names', async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-members-'));
    const { key, site } = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'members-e2e-owner@example.com',
        password: 'a long password',
      });
      const site = await createWebsite(
        db,
        owner.id,
        { domain: 'members-e2e.example.com' },
        suffixesOnDisk,
      );
      return { key: owner.apiKey, site };
    });
    worker = await startWorker(state);
    const base = `http://127.0.0.1:${worker.port}`;

    const before = await mailFiles();
    const invited = await worker.fetch(`/api/v1/websites/${site.id}/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: COLLEAGUE, role: 'viewer' }),
    });
    expect(invited.status).toBe(201);
    // The e-mail is written after the answer: wait for it (its `To:` is the colleague).
    const [raw = ''] = await until('the invitation e-mail', async () => {
      const mails = await mailsTo(COLLEAGUE, before);
      return mails.length > 0 && mails;
    });
    // The token follows `#`: the page there posts it on (its script), so no request names it.
    const path = raw.replace(/=\r?\n/g, '').match(/\/invitations#[A-Za-z0-9_-]{43}/)?.[0];
    expect(path).toBeDefined();

    browser = await launchBrowser([]);
    const page = await browser.newPage();
    await page.goto(`${base}${path}`);
    await page.waitForSelector('#password');
    expect(await page.textContent('h1')).toBe(`Join ${site.domain}`);
    expect(page.url()).toBe(`${base}/invitations`);
    await page.fill('#password', 'a colleague password');
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/websites?joined=${site.id}`);
    expect(await page.textContent('main')).toContain(`You joined ${site.domain} as viewer.`);

    // The private website's statistics open; its settings do not.
    const stats = await page.goto(`${base}/stats/${site.domain}`);
    expect(stats?.status()).toBe(200);
    const settings = await page.goto(`${base}/websites/${site.id}`);
    expect(settings?.status()).toBe(403);

    // The link works once.
    const again = await browser.newPage();
    const [reused] = await Promise.all([
      again.waitForResponse((r) => r.request().method() === 'POST'),
      again.goto(`${base}${path}`),
    ]);
    expect(reused.status()).toBe(404);
  });
});
