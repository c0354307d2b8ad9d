/**
 * The dashboard end to end, as an owner meets it in Chromium: sign up, add a website, put
 * its snippet on a page that a visitor browses, read the statistics page (range, search,
 * CSV), then protect it with a password and make it private; then, with a second visitor,
 * filter every number by a clicked value, exclude one from a full view, and remove the filters.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { GUARD_MS } from '../support/until.ts';
import { DESKTOP_CHROME, haveChromium, launchBrowser } from './browser.ts';

/**
 * A visit's duration as shown: the time between its page views, which only a slower machine
 * makes longer (`42s`, or `1m 05s` on a busy one).
 */
const DURATION = expect.stringMatching(/^(\d{1,2}m )?\d{1,2}s$/);

/**
 * The top row after the visitor's three page views: visitors, visits, page views, views per
 * visit, bounce rate, and the visit's duration.
 */
const ONE_VISIT = ['1', '1', '3', '3.00', '0%', DURATION];

const SHOP = 'shop.example.com';

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/** The values of a panel of the overview, as shown. */
const panelValues = (name: string) =>
  dash.locator(`#panel-${name} table a.filter-link`).allTextContents();

/**
 * Clicks a link or button that opens another view and waits until it is shown, so that what
 * is read next is the new view, not the one being left: the address has changed, and the page
 * is loaded (other pages) or the page's library is done putting the new view in (the
 * statistics pages change in place: no request, swap or settling under way, and nothing
 * still marked to follow).
 */
async function follow(selector: string) {
  const before = dash.url();
  await dash.click(selector);
  await dash.waitForURL((url) => url.href !== before);
  await dash.waitForLoadState('load');
  await dash.waitForFunction(
    () => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, [data-later]'),
  );
}

let state: string;
let worker: Unstable_DevWorker;
let shop: Server;
let shopPort: number;
let snippet = '';
let owner: BrowserContext;
let dash: Page;
let base: string;

describe.skipIf(!haveChromium)('the dashboard in a real browser', () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-dashboard-'));
    await withDatabase({ remote: false, persistTo: state }, async () => undefined);
    worker = await startWorker(state);
    // Browsers keep Secure cookies over plain HTTP only for localhost (a "secure context").
    base = `http://localhost:${worker.port}`;
    shop = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>Shop</title>${snippet}</head><body><h1>Shop</h1></body></html>`,
      );
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopPort = (shop.address() as AddressInfo).port;
    owner = await launchBrowser([SHOP]);
    dash = await owner.newPage();
  });

  afterAll(async () => {
    await owner?.close();
    await worker?.stop();
    await new Promise((resolve) => shop?.close(resolve));
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('signs up the first owner and shows the API key once', async () => {
    await dash.goto(`${base}/`);
    expect(dash.url()).toBe(`${base}/login`);
    await dash.click('text=Create one');
    await dash.fill('#email', 'owner@example.com');
    await dash.fill('#password', 'a good long password');
    await dash.click('main button[type=submit]');
    await expect.poll(() => dash.textContent('h1')).toBe('Welcome to Sightline');
    expect(await dash.textContent('#api-key')).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
  });

  it('adds a website, shows field errors, and gives the snippet', async () => {
    await dash.click('text=Add your first website');
    await dash.fill('#domain', 'exa mple.com');
    await dash.click('main button[type=submit]');
    expect(await dash.textContent('#domain-error')).toBe('The domain is not a valid host name.');
    await dash.fill('#domain', `https://www.${SHOP}/`);
    await dash.selectOption('#privacy', '0');
    await dash.click('main button[type=submit]');
    await expect.poll(() => dash.textContent('h1')).toBe(SHOP);
    snippet = (await dash.textContent('#snippet')) ?? '';
    expect(snippet).toMatch(
      /^<script async src="http:\/\/localhost:\d+\/js\/script\.js\?v=[0-9a-f]{12}"><\/script>$/,
    );
  });

  it('counts a visitor browsing the site and shows it on the statistics page', async () => {
    const visitor = await launchBrowser([SHOP], DESKTOP_CHROME, true);
    try {
      const tab = await visitor.newPage();
      let hits = 0;
      tab.on('response', (r) => {
        if (r.url().endsWith('/api/event') && r.status() === 202) hits++;
      });
      for (const path of ['/', '/pricing', '/pricing/enterprise']) {
        await tab.goto(
          `http://${SHOP}:${shopPort}${path}`,
          path === '/' ? { referer: 'https://www.google.com/' } : {},
        );
        const want = hits + 1;
        await expect.poll(() => hits).toBe(want);
      }
    } finally {
      await visitor.close();
    }

    await dash.goto(`${base}/websites`);
    await dash.click('main td a:text-is("Statistics")');
    await expect.poll(() => dash.textContent('h1')).toBe(SHOP);
    const totals = await dash.locator('.totals .big').allTextContents();
    expect(totals).toEqual(ONE_VISIT);
    expect(await dash.locator('#panel-referrer table').textContent()).toContain('www.google.com');
    expect(await dash.textContent('.live strong')).toBe('1');

    // Keyboard shortcuts: `?` lists them, a range's key opens it.
    await dash.keyboard.press('?');
    await expect.poll(() => dash.locator('#shortcuts').isVisible()).toBe(true);
    expect(await dash.locator('#shortcuts').textContent()).toContain('Last 30 days');
    await dash.keyboard.press('Escape');
    await expect.poll(() => dash.locator('#shortcuts').isVisible()).toBe(false);
    await Promise.all([dash.waitForURL(/range=30d/), dash.keyboard.press('t')]);
    expect(new URL(dash.url()).searchParams.get('range')).toBe('30d');

    // The date control opens on its presets.
    await dash.click('.date-menu summary');
    await follow('nav.ranges >> text=Last 7 days');
    expect(new URL(dash.url()).searchParams.get('range')).toBe('7d');
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(ONE_VISIT);

    await follow('#panel-page >> text=Details');
    await dash.fill('#search', 'enterprise');
    await follow('main button:has-text("Search")');
    const url = new URL(dash.url());
    expect(url.pathname).toBe(`/stats/${SHOP}/page`);
    expect(url.searchParams.get('range')).toBe('7d');
    expect(await dash.locator('tbody a.filter-link').allTextContents()).toEqual([
      '/pricing/enterprise',
    ]);
    // Its visitors and page views, the first of its metrics' columns.
    expect((await dash.locator('tbody td.num:not(.share)').allTextContents()).slice(0, 2)).toEqual([
      '1',
      '1',
    ]);
    // Its share of the range's visitors: the one visitor read it.
    expect(await dash.locator('tbody td.share').allTextContents()).toEqual(['100%']);

    // (The request API keeps its own 30-second timeout: the guard is given here.)
    const csv = await dash.request.get(`${base}/stats/${SHOP}/page.csv?range=7d`, {
      timeout: GUARD_MS,
    });
    expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
    // Named columns, the page's visitors and page views first (time on page and scroll depth
    // follow, as this browser's engagement said).
    const [header, ...lines] = (await csv.text()).trimEnd().split('\r\n');
    expect(header).toBe('page,visitors,page_views,bounce_rate,time_on_page,scroll_depth');
    expect(lines.map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      '/,1,1',
      '/pricing,1,1',
      '/pricing/enterprise,1,1',
    ]);
  });

  it('protects the page with a password, then makes it private', async () => {
    await dash.goto(`${base}/websites`);
    await follow('main td a:text-is("Settings")');
    await dash.selectOption('#privacy', '2');
    await dash.fill('#password', 'open sesame');
    await dash.click('main button:has-text("Save")');
    await expect.poll(() => dash.textContent('.notice')).toBe('Saved.');

    const stranger = await launchBrowser([]);
    try {
      const tab = await stranger.newPage();
      await tab.goto(`${base}/stats/${SHOP}`);
      expect(await tab.locator('.totals').count()).toBe(0);
      await tab.fill('#password', 'wrong');
      await tab.click('main button[type=submit]');
      expect(await tab.textContent('#password-error')).toBe('The password is incorrect.');
      await tab.fill('#password', 'open sesame');
      await tab.click('main button[type=submit]');
      await expect.poll(() => tab.locator('.totals .big').allTextContents()).toEqual(ONE_VISIT);

      await dash.selectOption('#privacy', '1');
      await dash.click('main button:has-text("Save")');
      await expect.poll(() => dash.textContent('.notice')).toBe('Saved.');
      const hidden = await tab.goto(`${base}/stats/${SHOP}`);
      expect(hidden?.status()).toBe(404);
      expect(await tab.content()).not.toContain('enterprise');
      // The owner still sees it.
      const own = await dash.goto(`${base}/stats/${SHOP}`);
      expect(own?.status()).toBe(200);
    } finally {
      await stranger.close();
    }
  });

  it('filters every number by a clicked value, and removes the filter with its chip', async () => {
    // A second visitor: Safari on an iPhone, straight to /blog (a bounce).
    const visitor = await launchBrowser([SHOP], IPHONE_SAFARI, true);
    try {
      const tab = await visitor.newPage();
      const counted = tab.waitForResponse((r) => r.url().endsWith('/api/event'));
      await tab.goto(`http://${SHOP}:${shopPort}/blog`);
      expect((await counted).status()).toBe(202);
    } finally {
      await visitor.close();
    }
    const BOTH = ['2', '2', '4', '2.00', '50%', DURATION];
    await dash.goto(`${base}/stats/${SHOP}?range=7d`);
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(BOTH);
    expect(await panelValues('browser')).toEqual(['Chrome', 'Safari']);

    // The filter menu suggests the range's values as one types, and adds the filter chosen.
    await dash.click('.filter-menu summary');
    await dash.selectOption('#add-filter', 'referrer');
    await dash.fill('#add-value', 'goo');
    await expect
      .poll(() =>
        dash
          .locator('#add-value-list option')
          .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
      )
      .toEqual(['www.google.com']);
    await dash.fill('#add-value', 'www.google.com');
    await follow('.filter-menu button[type="submit"]');
    expect(new URL(dash.url()).searchParams.get('filter[referrer]')).toBe('www.google.com');
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(ONE_VISIT);
    await dash.goto(`${base}/stats/${SHOP}?range=7d`);

    // A click on a referrer narrows the whole page to the visit it brought.
    // (a tab the first paint did not read: read in place)
    await dash.click('#tab-referrer');
    await dash.waitForSelector('#panel-referrer:not([data-load]) table');
    await follow('#panel-referrer table a.filter-link:text-is("www.google.com")');
    const filtered = new URL(dash.url());
    expect(filtered.searchParams.get('filter[referrer]')).toBe('www.google.com');
    expect(filtered.searchParams.get('range')).toBe('7d');
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(ONE_VISIT);
    expect(await panelValues('page')).toEqual(['/', '/pricing', '/pricing/enterprise']);
    expect(await panelValues('browser')).toEqual(['Chrome']);
    // (under filters, a tab not shown is read when it is chosen: here by its address)
    const devices = new URL(dash.url());
    devices.searchParams.set('devices', 'device');
    await dash.goto(devices.href);
    expect(await panelValues('device')).toEqual(['desktop']);
    await dash.goBack();
    expect(await dash.locator('.chip').allTextContents()).toEqual([
      expect.stringContaining('Referrer is www.google.com'),
    ]);
    const chartPageviews = await dash.locator('figure.chart tbody td.num').allTextContents();
    expect(chartPageviews.map(Number).reduce((a, b) => a + b, 0)).toBe(1 + 3); // visitors + page views

    // The chip's link removes the filter: every number is back.
    await follow('.chip a');
    expect(new URL(dash.url()).searchParams.has('filter[referrer]')).toBe(false);
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(BOTH);

    // "Exclude" in a panel's full view: everything but Chrome is the iPhone's one bounce.
    await follow('#panel-browser >> text=Details');
    await follow('tbody tr:has(a.filter-link:text-is("Chrome")) >> text=Exclude');
    expect(new URL(dash.url()).searchParams.get('filter[browser][not]')).toBe('Chrome');
    expect(await dash.locator('.totals .big').allTextContents()).toEqual([
      '1',
      '1',
      '1',
      '1.00',
      '100%',
      '0s',
    ]);
    expect(await panelValues('page')).toEqual(['/blog']);

    // "Contains" from a full view, combined with the exclusion: nothing is left.
    await follow('#panel-page >> text=Details');
    await dash.fill('#contains', 'PRICING');
    await follow('main button:has-text("Filter")');
    const both = new URL(dash.url());
    expect(both.searchParams.get('filter[page][contains]')).toBe('PRICING');
    expect(both.searchParams.get('filter[browser][not]')).toBe('Chrome');
    expect(await dash.locator('.chip').count()).toBe(2);
    expect(await dash.locator('.totals .big').first().textContent()).toBe('0');
    await follow('text=Remove all filters');
    expect(await dash.locator('.totals .big').allTextContents()).toEqual(BOTH);
  });
});
