/**
 * A daily user's tasks on the statistics page, in Chromium, as someone coming from Plausible
 * does them: today against the same hours of yesterday, a country typed as people write it,
 * two values of one dimension, a UTM tab, a segment saved and applied, an annotation added
 * from the chart, and the websites list on a phone. Each change of the view happens in place
 * (the page is not loaded again: a mark set on the window survives it) with the address
 * following, and what the user reads afterwards is asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { generateTraffic, replayTraffic } from '../../scripts/lib/traffic.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { haveChromium, launchBrowser } from './browser.ts';

const DOMAIN = 'daily.example.com';
const EMAIL = 'daily-owner@example.com';
const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

let state: string;
let worker: Unstable_DevWorker;
let browser: BrowserContext;
let page: Page;
let base: string;

/** Marks the page as loaded: `stillSamePage()` is true until the page is loaded again. */
const markPage = () =>
  page.evaluate(() => {
    (window as unknown as { samePage: boolean }).samePage = true;
  });
const stillSamePage = () =>
  page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage === true);

/** The figure of a card of the totals (`Visitors`), as shown. */
const figure = (name: string) =>
  page.locator('.totals .card', { hasText: name }).first().locator('p.big').textContent();

/** The values of a panel's rows, as shown. */
const panelValues = (name: string) =>
  page.locator(`#panel-${name} table a.filter-link`).allTextContents();

/** The address's parameter `name`, all its values. */
const param = (name: string) => new URL(page.url()).searchParams.getAll(name);

/**
 * Waits for the parts of a view changed in place that follow its figures (`data-later`: the
 * changes, the compared points, the pages' engagement; docs/ARCHITECTURE.md, "The statistics
 * page").
 */
const settled = () => page.waitForFunction(() => !document.querySelector('#main [data-later]'));

/** Adds a filter with the filter menu, as typed, and waits for the view that has it. */
async function addFilter(dimension: string, value: string, expected: RegExp) {
  await page.click('details.filter-menu > summary');
  await page.selectOption('#add-filter', dimension);
  await page.fill('#add-value', value);
  await Promise.all([page.waitForURL(expected), page.click('form[data-suggest] [type=submit]')]);
  await page.waitForSelector('.chips');
  await settled();
}

describe.skipIf(!haveChromium)("a daily user's tasks in a real browser", () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-daily-'));
    await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, { email: EMAIL, password: PASSWORD });
      await createWebsite(db, owner.id, { domain: DOMAIN, privacy: 0 }, suffixesOnDisk);
    });
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    base = `http://localhost:${worker.port}`;
    const today = new Date();
    const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + DAY;
    const hits = generateTraffic({ seed: 11, domain: DOMAIN, days: 40, end, visitorsPerDay: 30 });
    await replayTraffic(
      base,
      hits.filter((h) => h.req.now <= Date.now()),
      () => undefined,
    );
    browser = await launchBrowser([]);
    page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/websites'), page.click('main button[type=submit]')]);
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('compares today so far with the same hours of yesterday, saying so', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=today`);
    await markPage();
    await page.click('details.date-menu > summary');
    await Promise.all([
      page.waitForURL(/compare=previous/),
      page.click('.compare-choices a[data-key="x"]'),
    ]);
    await page.waitForFunction(() =>
      document.querySelector('details.date-menu > summary')?.textContent?.includes(' vs '),
    );
    await settled();
    expect(await stillSamePage()).toBe(true);
    // The control names both ranges: today, and yesterday until the same time of day.
    const summary = (await page.textContent('details.date-menu > summary')) ?? '';
    const yesterday = /vs (\w{3} \d{1,2}(, \d{4})?, 00:00–\d\d:\d\d)$/.exec(summary);
    expect(summary, summary).toMatch(/^Today /);
    expect(yesterday, summary).not.toBeNull();
    const compared = yesterday?.[1] as string;
    // Each figure gives the compared value and those hours beside its change (or says there
    // was nothing then).
    const visitors = (await page.locator('.totals .card').first().textContent()) ?? '';
    expect(visitors).toMatch(new RegExp(`(vs [\\d,.]+ on|none on) ${compared}`));
    // The chart's legend names them too.
    expect(await page.textContent('.chart figcaption')).toContain(compared);
    // Back and Forward go between the two views, each a bookmark.
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has('compare'));
    // (the figures still say their change against the day before; the chart draws it no more)
    await page.waitForFunction(
      () => !document.querySelector('details.date-menu > summary')?.textContent?.includes(' vs '),
    );
    expect(await page.locator('.chart svg.wide polyline.previous').count()).toBe(0);
  });

  it('finds a country typed as people write it, then two countries at once', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    const all = Number((await figure('Visitors'))?.replace(/\D/g, ''));
    await markPage();
    await addFilter('country', 'germany', /filter%5Bcountry%5D|filter\[country\]/);
    expect(await stillSamePage()).toBe(true);
    // The chip reads as the country's name, and nothing says it matches nothing.
    const chip = (await page.textContent('.chips .chip')) ?? '';
    expect(chip).toContain('Germany');
    expect(await page.locator('.chip.unmatched').count()).toBe(0);
    const germany = Number((await figure('Visitors'))?.replace(/\D/g, ''));
    expect(germany).toBeGreaterThan(0);
    expect(germany).toBeLessThan(all);
    expect(await panelValues('country')).toEqual(['Germany']);

    // A second value of the same dimension: "is any of", both shown.
    await addFilter('country', 'FR:France', /France/);
    expect(param('filter[country]')).toHaveLength(2);
    expect((await page.textContent('.chips .chip')) ?? '').toMatch(/Germany or France/);
    expect((await panelValues('country')).sort()).toEqual(['France', 'Germany']);
    const both = Number((await figure('Visitors'))?.replace(/\D/g, ''));
    expect(both).toBeGreaterThan(germany);

    // A value that matches nothing says so on its chip, never a silent zero.
    await addFilter('browser', 'Netscape', /Netscape/);
    expect(await page.textContent('.chip.unmatched')).toMatch(/“Netscape” matches nothing/);
    expect(await stillSamePage()).toBe(true);
  });

  it('opens a UTM tab in place, its panel alone asked for, the address following', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    await markPage();
    const y = await page.evaluate(() => {
      document.getElementById('sources')?.scrollIntoView();
      return window.scrollY;
    });
    // Another group's tab chosen first (shown in place, nothing asked) stays chosen.
    const asked: { url: string; part: string | undefined }[] = [];
    const seen = (r: Request) => {
      if (r.resourceType() === 'fetch' && !r.url().includes('/live.json'))
        asked.push({ url: r.url(), part: r.headers()['sightline-part'] });
    };
    page.on('request', seen);
    await page.click('#tab-os');
    await page.click('#tab-campaign');
    await page.waitForURL(/sources=campaign/);
    await page.waitForSelector('#panel-campaign:not([data-load]) table');
    page.off('request', seen);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.part).toBe('panel-campaign');
    expect(new URL(page.url()).searchParams.get('devices')).toBe('os');
    expect(await page.isVisible('#panel-os')).toBe(true);
    expect(await stillSamePage()).toBe(true);
    expect(await page.isVisible('#panel-campaign')).toBe(true);
    expect((await panelValues('campaign')).length).toBeGreaterThan(0);
    // No jump: the page stays where it was read.
    expect(Math.abs((await page.evaluate(() => window.scrollY)) - y)).toBeLessThan(50);
  });

  it('saves filters as a segment and applies it later', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=30d&filter[browser]=Chrome`);
    const chrome = await figure('Visitors');
    await page.click('details.segments > summary');
    await page.fill('details.segments input[name="name"]', 'Chrome readers');
    await Promise.all([
      page.waitForURL(/filter%5Bsegment%5D|filter\[segment\]/),
      page.click('details.segments button[type=submit]:has-text("Save")'),
    ]);
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    await markPage();
    await page.click('details.segments > summary');
    await Promise.all([
      page.waitForURL(/segment/),
      page.click('details.segments a:has-text("Chrome readers")'),
    ]);
    await page.waitForSelector('.chips');
    expect(await stillSamePage()).toBe(true);
    expect(await page.textContent('.chips .chip')).toContain('Chrome readers');
    expect(await figure('Visitors')).toBe(chrome);
  });

  it('annotates a date from the chart', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    const point = page.locator('.chart svg.wide .pt').nth(3);
    const date = await point.getAttribute('data-date');
    // (the point's column, where a pointer finds it)
    await point.locator('rect.hit').click();
    expect(await page.getAttribute('details#annotate', 'open')).not.toBeNull();
    expect(await page.inputValue('form.annotate input[name="date"]')).toBe(date);
    await page.fill('form.annotate input[name="text"]', 'Launched the newsletter');
    await Promise.all([
      page.waitForResponse((res) => res.url().includes('/annotations') && res.status() < 400),
      page.click('form.annotate button[type=submit]'),
    ]);
    await page.waitForSelector('section.annotations li');
    expect(await page.textContent('section.annotations li')).toContain(
      `${date}: Launched the newsletter`,
    );
  });

  it("shows a phone's websites list as cards, the domain on one line", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/websites`);
    const shown = await page.evaluate(() => {
      const row = document.querySelector('.websites tbody tr') as HTMLElement;
      const link = row.querySelector('td a') as HTMLElement;
      const line = Number.parseFloat(getComputedStyle(link).lineHeight) || 24;
      return {
        width: row.getBoundingClientRect().width,
        lines: Math.round(link.getBoundingClientRect().height / line),
        page: document.documentElement.scrollWidth,
      };
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(shown.width).toBeGreaterThan(300);
    expect(shown.lines).toBe(1);
    expect(shown.page).toBeLessThanOrEqual(390);
  });
});
