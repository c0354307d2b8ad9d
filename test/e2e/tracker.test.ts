/**
 * The tracker end to end, as a site owner and a visitor meet it: a page on a real host
 * name (`shop.example.com`, not localhost) includes the snippet, is browsed in Chromium as
 * a single-page app, fires `pa.track`, and the hits end up counted by the Worker
 * (served by wrangler against a local D1). The visitor's Chromium is presented as a person's
 * browser (`launchBrowser`'s `asPerson`): from one that says it is automated, the tracker
 * sends nothing (the last test).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';
import { DESKTOP_CHROME, haveChromium, launchBrowser } from './browser.ts';

const SITE = 'shop.example.com';
/** A website that only automated browsers, then one person, visit. */
const LAB = 'lab.example.com';

let state: string;
let worker: Unstable_DevWorker;
let pages: Server;
let siteId: number;
let labId: number;
let apiKey: string;
let pagesPort: number;

/** The shop: every path serves the same SPA shell with the Sightline snippet. */
function shopHtml(trackerOrigin: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script async src="${trackerOrigin}/js/script.js" data-props='{"author":"ana"}'></script></head>
<body><h1>Shop</h1><a id="products" href="/products">Products</a></body></html>`;
}

/** A page that tracks without code: outbound links, downloads, tagged elements, 404s. */
function toolsHtml(trackerOrigin: string, missing: boolean) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tools</title>
${missing ? '<meta name="sightline" content="404">' : ''}
<script async src="${trackerOrigin}/js/script.full.js" data-outbound-links data-file-downloads
  data-tagged-events data-form-submissions data-404 data-hash></script></head>
<body><a id="out" href="https://partner.example.org/offer">Partner</a>
<a id="file" href="/files/price-list.pdf" download>Prices</a>
<button id="cta" data-sightline-event="CTA Click" data-sightline-prop-plan="pro">Buy</button>
<form id="news" data-sightline-event="Newsletter" onsubmit="return false"><button id="join">Join</button></form>
<form id="contact" onsubmit="return false"><button id="send">Send</button></form>
<a id="tab" href="#/pricing">Pricing tab</a>
</body></html>`;
}

async function rollups(domain = SITE, id = siteId) {
  // Opening the (public) statistics page rolls the website's event log up into D1 first.
  const opened = await worker.fetch(`/stats/${domain}`);
  await opened.arrayBuffer();
  if (opened.status !== 200) throw new Error(`statistics page: ${opened.status}`);
  return withDatabase({ remote: false, persistTo: state }, async (db) => {
    const rows = await db.$client
      .prepare('SELECT name, value, count FROM stats WHERE website_id = ? ORDER BY name, value')
      .bind(id)
      .all<{ name: string; value: string; count: number }>();
    const out: Record<string, Record<string, number>> = {};
    for (const r of rows.results) {
      out[r.name] ??= {};
      (out[r.name] as Record<string, number>)[r.value] = r.count;
    }
    return out;
  });
}

describe.skipIf(!haveChromium)('the tracker in a real browser', () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-e2e-'));
    siteId = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'shop@example.com',
        password: 'shop owner password',
      });
      apiKey = owner.apiKey;
      labId = (await createWebsite(db, owner.id, { domain: LAB, privacy: '0' }, suffixesOnDisk)).id;
      return (await createWebsite(db, owner.id, { domain: SITE, privacy: '0' }, suffixesOnDisk)).id;
    });
    worker = await startWorker(state);
    const trackerOrigin = `http://127.0.0.1:${worker.port}`;
    pages = createServer((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 200, {
        'content-type': 'text/html; charset=utf-8',
      });
      res.end(
        req.url?.startsWith('/tools') || req.url === '/missing'
          ? toolsHtml(trackerOrigin, req.url === '/missing')
          : shopHtml(trackerOrigin),
      );
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesPort = (pages.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await worker?.stop();
    await new Promise((resolve) => pages?.close(resolve));
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('counts the landing page, SPA navigations and a custom event', async () => {
    const browser = await launchBrowser([SITE], DESKTOP_CHROME, true);
    // The page views and the event, with their answers; the roll-ups below show which pages
    // were sent. The engagement hits the page may send as it is left (once seen 15 s; then
    // after 3 s more or a scroll: timing decides) are left out (test/e2e/engagement.test.ts).
    const hits: { request: BrowserRequest; status: number; drop: string | undefined }[] = [];
    try {
      const page = await browser.newPage();
      // The driver sees a beacon's body only when it intercepts the request.
      await page.route('**/api/event', (route) => route.continue());
      page.on('request', (request) => {
        if (
          request.url().endsWith('/api/event') &&
          !('engagement' in JSON.parse(request.postData() ?? '{}'))
        )
          hits.push({ request, status: 0, drop: undefined });
      });
      page.on('response', (response) => {
        const hit = hits.find((h) => h.request === response.request());
        if (hit) {
          hit.status = response.status();
          hit.drop = response.headers()['x-drop-reason'];
        }
      });
      const waitForHits = (n: number) =>
        until(`${n} hits answered`, () => hits.filter((h) => h.status !== 0).length >= n);

      await page.goto(`http://${SITE}:${pagesPort}/?utm_campaign=launch`, {
        referer: 'https://www.google.com/',
      });
      await waitForHits(1);
      // An SPA navigation, a replaceState to the same URL and a hash change: one new page.
      await page.evaluate(() => {
        history.pushState({}, '', '/products');
        history.replaceState({ step: 2 }, '', '/products');
        location.hash = '#reviews';
      });
      await waitForHits(2);
      // Back to the landing page (popstate), then a custom event.
      await page.goBack();
      await page.goBack();
      await waitForHits(3);
      await page.evaluate(() => {
        (window as unknown as { pa: { track(e: object): void } }).pa.track({
          name: 'signup',
          value: 10,
          unit: 'usd',
          props: { plan: 'pro', trial: true },
        });
      });
      await waitForHits(4);
      // No fifth hit: a request the page sends after all of the above (to the shop, not a
      // hit) is answered, so any hit sent before it has been seen (a page's requests reach
      // the driver in the order it sends them).
      const marker = await page.evaluate(async () => (await fetch('/after-the-hits')).status);
      expect(marker).toBe(200);

      expect(hits.map((h) => [h.status, h.drop])).toEqual([
        [202, undefined],
        [202, undefined],
        [202, undefined],
        [202, undefined],
      ]);
    } finally {
      await browser.close();
    }

    const stats = await rollups();
    const today = Object.keys(stats.pageviews ?? {});
    expect(today).toHaveLength(1);
    expect(stats).toMatchObject({
      pageviews: { [today[0] as string]: 3 },
      visitors: { [today[0] as string]: 1 },
      // The campaign tag is the visit's campaign (below), not part of the page.
      page: { '/': 2, '/products': 1 },
      landing_page: { '/': 1 },
      referrer: { 'www.google.com': 1 },
      campaign: { launch: 1 },
      browser: { Chrome: 1 },
      os: { Linux: 1 },
      device: { desktop: 1 },
      language: { en: 1 },
      event: { 'signup:10:usd': 1 },
    });
    expect(Object.keys(stats.resolution ?? {})).toEqual([expect.stringMatching(/^\d+x\d+$/)]);

    // The page views carried the tag's properties, the event its own (Stats API v2).
    const v2 = async (dimension: string) => {
      const res = await worker.fetch('/api/v2/query', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          site_id: SITE,
          metrics: ['pageviews', 'events'],
          date_range: 'day',
          dimensions: [dimension],
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: unknown[] }).results;
    };
    expect(await v2('event:props:author')).toEqual([
      { dimensions: ['ana'], metrics: [3, 3] },
      { dimensions: ['(none)'], metrics: [0, 1] },
    ]);
    expect(await v2('event:props:trial')).toEqual([
      { dimensions: ['(none)'], metrics: [3, 3] },
      { dimensions: ['true'], metrics: [0, 1] },
    ]);
  });

  it('tracks outbound links, downloads, tagged elements and a 404 without code', async () => {
    const v2 = async (
      dimensions: string[],
      filters: unknown[] = [['is_not', 'event:name', ['pageview', 'signup']]],
    ) => {
      const res = await worker.fetch('/api/v2/query', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          site_id: SITE,
          metrics: ['events'],
          date_range: 'day',
          dimensions,
          filters,
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: { dimensions: string[] }[] }).results.map((r) =>
        r.dimensions.join(' | '),
      );
    };
    const pageviews = () => v2(['event:page'], [['is', 'event:name', ['pageview']]]);
    const browser = await launchBrowser([SITE], DESKTOP_CHROME, true);
    let names: string[];
    try {
      const page = await browser.newPage();
      await page.goto(`http://${SITE}:${pagesPort}/missing`);
      await page.goto(`http://${SITE}:${pagesPort}/tools`);
      await page.waitForFunction(() => (window as unknown as { pa?: { s?: unknown } }).pa?.s);
      await page.click('#cta');
      await page.click('#join');
      await page.click('#send');
      // data-hash: a #fragment is a page of its own.
      await page.click('#tab');
      await page.click('#file');
      // The link leaves the page: its click is sent all the same, and never holds it up.
      await page.click('#out', { noWaitAfter: true });
      // The browser stays open until the Worker has counted what the clicks sent.
      names = await until('six events counted', async () => {
        const counted = await v2(['event:name']);
        return counted.length >= 6 && counted;
      });
      await until('the hash page counted', async () =>
        (await pageviews()).includes('/tools#/pricing'),
      );
    } finally {
      await browser.close();
    }
    expect(names.sort()).toEqual(
      [
        '404',
        'CTA Click',
        'File Download',
        'Form: Submission',
        'Newsletter',
        'Outbound Link: Click',
      ]
        .map((n) => n.replace(/:/g, '\uA789'))
        .sort(),
    );
    expect((await v2(['event:name', 'event:props:url'])).sort()).toEqual(
      [
        '404 | (none)',
        'CTA Click | (none)',
        `File Download | http://${SITE}:${pagesPort}/files/price-list.pdf`,
        'Form\uA789 Submission | (none)',
        'Newsletter | (none)',
        'Outbound Link\uA789 Click | https://partner.example.org/offer',
      ].sort(),
    );
    expect(await pageviews()).toEqual(expect.arrayContaining(['/tools', '/tools#/pricing']));
    expect(await v2(['event:props:plan'])).toContain('pro');
    expect(await v2(['event:props:path'])).toContain('/missing');
  });

  it('drops headless Chromium as a bot, as it announces itself', async () => {
    // Not flagged as automated (the tracker would send nothing), only headless.
    const browser = await launchBrowser([SITE], undefined, true);
    try {
      const page = await browser.newPage();
      const response = page.waitForResponse((r) => r.url().endsWith('/api/event'));
      await page.goto(`http://${SITE}:${pagesPort}/headless`);
      const hit = await response;
      expect(hit.status()).toBe(202);
      expect(hit.headers()['x-drop-reason']).toBe('bot');
    } finally {
      await browser.close();
    }
  });

  it("sends nothing from an automated browser, and a person's page view as before", async () => {
    const requests: string[] = [];
    /** Opens `path` of the lab and goes through all that sends a hit; returns the page. */
    const visit = async (browser: BrowserContext, path: string, automation?: string) => {
      const page = await browser.newPage();
      page.on('request', (request) => requests.push(request.url()));
      // A tool's global, there before the page's scripts run, as the tool puts it.
      if (automation)
        await page.addInitScript((name) => {
          (window as unknown as Record<string, unknown>)[name] = {};
        }, automation);
      await page.goto(`http://${LAB}:${pagesPort}${path}`);
      await page.evaluate(async () => {
        const pa = (window as unknown as { pa: { track(e: object): void } }).pa;
        pa.track({ name: 'signup' });
        history.pushState({}, '', '/next');
        scrollTo(0, 1000);
        // Hidden, the page sends its view's engagement once it was seen 15 s: its clock moved on.
        const clock = performance.now.bind(performance);
        performance.now = () => clock() + 15_000;
        Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
        // The tag of /tools tracks clicks without code (/js/script.full.js).
        document.getElementById('cta')?.click();
        document.getElementById('send')?.click();
        // A request after all of the above: a hit sent before it reaches the driver first.
        await fetch('/after-the-hits');
      });
      return page;
    };
    const hits = () => requests.filter((url) => url.endsWith('/api/event'));

    // Automated as playwright leaves it: navigator.webdriver is true.
    const automated = await launchBrowser([LAB], DESKTOP_CHROME);
    try {
      const page = await visit(automated, '/');
      expect(await page.evaluate(() => navigator.webdriver)).toBe(true);
      await visit(automated, '/tools');
    } finally {
      await automated.close();
    }
    // A person's browser, but with the global an automation tool leaves in the page.
    const person = await launchBrowser([LAB], DESKTOP_CHROME, true);
    try {
      for (const automation of ['_phantom', '__nightmare', 'Cypress'])
        await visit(person, '/tools', automation);
      expect(requests.filter((url) => url.endsWith('/after-the-hits'))).toHaveLength(5);
      expect(hits()).toEqual([]);
      expect(await rollups(LAB, labId)).toEqual({});

      // The same browser without such a global: its page view is sent, and counted.
      const page = await person.newPage();
      expect(await page.evaluate(() => navigator.webdriver)).toBe(false);
      const response = page.waitForResponse((r) => r.url().endsWith('/api/event'));
      await page.goto(`http://${LAB}:${pagesPort}/welcome`);
      const hit = await response;
      expect(hit.status()).toBe(202);
      expect(hit.headers()['x-drop-reason']).toBeUndefined();
    } finally {
      await person.close();
    }
    const stats = await rollups(LAB, labId);
    const today = Object.keys(stats.pageviews ?? {});
    expect(stats).toMatchObject({
      pageviews: { [today[0] as string]: 1 },
      visitors: { [today[0] as string]: 1 },
      page: { '/welcome': 1 },
    });
    expect(stats.event).toBeUndefined();
  });
});
