/**
 * Drop-in compatibility with the real npm tracker packages: Plausible's browser tracker
 * (`@plausible-analytics/tracker`, bundled and run in Chromium on a page of the site) and
 * Umami's server-side client (`@umami/node`, run in Node) send to a running Sightline, and
 * the Stats API shows their hits counted with the right values.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Umami } from '@umami/node';
import { build } from 'esbuild';
import type { Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';
import { DESKTOP_CHROME, haveChromium, launchBrowser } from './browser.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PLAUSIBLE_SITE = 'plausible-shop.example.com';
const UMAMI_SITE = 'umami-shop.example.com';
const UMAMI_DOMAIN_SITE = 'umami-by-domain.example.com';

let state: string;
let worker: Unstable_DevWorker;
let apiKey: string;
const ids: Record<string, number> = {};

const today = () => new Date().toISOString().slice(0, 10);

/** One statistic of a site for today, through the Stats API. */
async function stat(site: string, name: string): Promise<Record<string, number>> {
  const res = await worker.fetch(
    `/api/v1/stats/${ids[site]}?name=${name}&from=${today()}&to=${today()}&per_page=100`,
    {
      headers: { authorization: `Bearer ${apiKey}` },
    },
  );
  const body = (await res.json()) as { data: { value: string; count: number }[] };
  return Object.fromEntries(body.data.map((r) => [r.value, r.count]));
}

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sightline-compat-'));
  await withDatabase({ remote: false, persistTo: state }, async (db) => {
    const owner = await createOwner(db, {
      email: 'mover@example.com',
      password: 'moving from elsewhere',
    });
    apiKey = owner.apiKey;
    for (const domain of [PLAUSIBLE_SITE, UMAMI_SITE, UMAMI_DOMAIN_SITE])
      ids[domain] = (await createWebsite(db, owner.id, { domain }, suffixesOnDisk)).id;
  });
  worker = await startWorker(state);
});

afterAll(async () => {
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

describe('@umami/node against Sightline', () => {
  it('counts its page views and events, the website given by Sightline id', async () => {
    const umami = new Umami({
      hostUrl: `http://127.0.0.1:${worker.port}`,
      websiteId: String(ids[UMAMI_SITE]),
      // A server-side sender passes on its visitor's browser, as Umami's docs advise.
      userAgent: DESKTOP_CHROME,
    });
    const view = await umami.track({
      hostname: UMAMI_SITE,
      url: '/pricing?plan=pro',
      referrer: 'https://duckduckgo.com/',
      screen: '1920x1080',
      language: 'en-GB',
      title: 'Pricing',
    });
    expect(view.status).toBe(200);
    expect(await view.json()).toEqual({});
    const event = await umami.track('checkout', { revenue: 49, currency: 'USD' });
    expect(event.status).toBe(200);
    expect(event.headers.get('x-drop-reason')).toBeNull();

    expect(await stat(UMAMI_SITE, 'page')).toEqual({ '/pricing?plan=pro': 1 });
    expect(await stat(UMAMI_SITE, 'referrer')).toEqual({ 'duckduckgo.com': 1 });
    expect(await stat(UMAMI_SITE, 'resolution')).toEqual({ '1920x1080': 1 });
    expect(await stat(UMAMI_SITE, 'language')).toEqual({ en: 1 });
    expect(await stat(UMAMI_SITE, 'browser')).toEqual({ Chrome: 1 });
    expect(await stat(UMAMI_SITE, 'event')).toEqual({ 'checkout:49:USD': 1 });
  });

  it('counts a server-side event of a website given by its domain', async () => {
    const umami = new Umami({
      hostUrl: `http://127.0.0.1:${worker.port}`,
      websiteId: UMAMI_DOMAIN_SITE,
      userAgent: DESKTOP_CHROME,
    });
    // No url, no hostname: the event belongs to the website's root, as when named by id.
    const event = await umami.track('Signup', { plan: 'pro' });
    expect(event.status).toBe(200);
    expect(event.headers.get('x-drop-reason')).toBeNull();
    expect(await stat(UMAMI_DOMAIN_SITE, 'event')).toEqual({ Signup: 1 });
  });
});

describe.skipIf(!haveChromium)('@plausible-analytics/tracker in Chromium against Sightline', () => {
  let pages: Server;
  let pagesPort: number;

  beforeAll(async () => {
    // The package is an ES module for bundlers: bundle it as a site would.
    const bundle = await build({
      stdin: {
        contents:
          "import { init, track } from '@plausible-analytics/tracker'; window.PlausibleTracker = { init, track };",
        resolveDir: root,
      },
      bundle: true,
      format: 'iife',
      write: false,
    });
    const script = bundle.outputFiles[0]?.text ?? '';
    const endpoint = `http://127.0.0.1:${worker.port}/api/event`;
    pages = createServer((req, res) => {
      if (req.url === '/plausible.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(script);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Shop</title><script src="/plausible.js"></script>
<script>PlausibleTracker.init({ domain: '${PLAUSIBLE_SITE}', endpoint: '${endpoint}' });</script></head>
<body><h1>Shop</h1></body></html>`);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesPort = (pages.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => pages?.close(resolve));
  });

  it('counts its page views, SPA navigation and a revenue event', async () => {
    const browser = await launchBrowser([PLAUSIBLE_SITE], DESKTOP_CHROME, true);
    // The tracker's requests answered, each with its name (`n`) and status (0: failed with
    // no answer; a keepalive request may also be reported failed after its answer).
    const answers = new Map<
      BrowserRequest,
      { name: unknown; status: number; drop?: string | undefined }
    >();
    let sent = 0;
    try {
      const page = await browser.newPage();
      const answer = (request: BrowserRequest, status: number, drop?: string) => {
        if (!request.url().endsWith('/api/event') || answers.has(request)) return;
        const name = (JSON.parse(request.postData() ?? '{}') as { n?: unknown }).n;
        answers.set(request, { name, status, drop });
      };
      page.on('request', (r) => {
        if (r.url().endsWith('/api/event')) sent++;
      });
      page.on('response', (r) => answer(r.request(), r.status(), r.headers()['x-drop-reason']));
      page.on('requestfailed', (r) => answer(r, 0));
      // Until `n` page views and events are answered, and every request sent so far (an
      // engagement ping, which the tracker sends when it likes, too).
      const waitFor = (n: number) =>
        until(
          `${n} page views and events answered`,
          () =>
            [...answers.values()].filter((a) => a.name !== 'engagement').length >= n &&
            answers.size === sent,
        );
      await page.goto(`http://${PLAUSIBLE_SITE}:${pagesPort}/`, {
        referer: 'https://www.bing.com/',
      });
      await waitFor(1);
      await page.evaluate(() => history.pushState({}, '', '/checkout'));
      await waitFor(2);
      await page.evaluate(() => {
        const tracker = (
          window as unknown as { PlausibleTracker: { track(n: string, o: object): void } }
        ).PlausibleTracker;
        tracker.track('Purchase', { revenue: { amount: 19.99, currency: 'EUR' } });
        tracker.track('Outbound Link: Click', { props: { url: 'https://example.org/' } });
      });
      await waitFor(4);
    } finally {
      await browser.close();
    }
    // Page views and events answer 202; engagement pings (if any were sent) too, each finding
    // the page view it is about (no drop reason): they update it, adding no hit.
    expect(answers.size).toBeGreaterThanOrEqual(4);
    expect(new Set([...answers.values()].map((a) => a.status))).toEqual(new Set([202]));
    const engagements = [...answers.values()].filter((a) => a.name === 'engagement');
    expect(engagements.filter((a) => a.status === 202 && a.drop !== undefined)).toEqual([]);

    expect(await stat(PLAUSIBLE_SITE, 'page')).toEqual({ '/': 1, '/checkout': 1 });
    expect(await stat(PLAUSIBLE_SITE, 'landing_page')).toEqual({ '/': 1 });
    expect(await stat(PLAUSIBLE_SITE, 'referrer')).toEqual({ 'www.bing.com': 1 });
    expect(await stat(PLAUSIBLE_SITE, 'visitors')).toEqual({ [today()]: 1 });
    expect(await stat(PLAUSIBLE_SITE, 'event')).toEqual({
      'Purchase:19.99:EUR': 1,
      'Outbound Link\uA789 Click': 1,
    });
  });
});
