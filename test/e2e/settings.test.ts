/**
 * A website's settings in Chromium, as someone setting it up without the docs: the settings'
 * pages reached from one navigation, a goal's form showing its kind's fields only with the
 * website's own events offered, and a funnel built from steps picked, moved and counted as it
 * is built, then saved in the order shown.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { generateTraffic, replayTraffic } from '../../scripts/lib/traffic.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { SETTINGS_PAGES } from '../../src/pages/settings/settings-pages.tsx';
import { createWebsite } from '../../src/websites/service.ts';
import { haveChromium, launchBrowser } from './browser.ts';

const DOMAIN = 'settings.example.com';
const EMAIL = 'settings-owner@example.com';
const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

let state: string;
let worker: Unstable_DevWorker;
let browser: BrowserContext;
let page: Page;
let base: string;
let settings: string;

/** The values a datalist offers. */
const offered = (id: string) =>
  page.$$eval(`datalist#${id} option`, (options) =>
    options.map((o) => (o as HTMLOptionElement).value),
  );

describe.skipIf(!haveChromium)("a website's settings in a real browser", () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-settings-'));
    let id = 0;
    await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, { email: EMAIL, password: PASSWORD });
      id = (await createWebsite(db, owner.id, { domain: DOMAIN, privacy: 0 }, suffixesOnDisk)).id;
    });
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    base = `http://localhost:${worker.port}`;
    settings = `${base}/websites/${id}`;
    const today = new Date();
    const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + DAY;
    const hits = generateTraffic({ seed: 5, domain: DOMAIN, days: 10, end, visitorsPerDay: 20 });
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

  it('reaches every settings page from one navigation, the page shown marked', async () => {
    await page.goto(settings);
    for (const { name } of SETTINGS_PAGES) {
      await Promise.all([
        page.waitForLoadState('load'),
        page.click(`nav.settings-nav a:text-is("${name}")`),
      ]);
      expect(await page.textContent('nav.settings-nav a[aria-current="page"]')).toBe(name);
      expect(await page.title()).toContain(name);
    }
  });

  it("shows a goal's kind's fields only, with the website's own pages offered", async () => {
    await page.goto(`${settings}/goals`);
    const visible = async () => ({
      event: await page.isVisible('#event'),
      currency: await page.isVisible('#currency'),
      page: await page.isVisible('#page'),
      scroll: await page.isVisible('#scroll_threshold'),
    });
    expect(await visible()).toEqual({ event: true, currency: true, page: false, scroll: false });
    await page.selectOption('select[name=kind]', 'page');
    expect(await visible()).toEqual({ event: false, currency: false, page: true, scroll: true });
    expect(await offered('suggested-pages')).toContain('/');
    await page.fill('#page', '/pricing');
    await Promise.all([page.waitForURL(/goal=added/), page.click('text=Add the goal')]);
    expect(await page.textContent('main table')).toContain('Page /pricing');
  });

  it('builds a funnel from steps picked, moved and counted as it is built', async () => {
    await page.goto(`${settings}/funnels`);
    const rows = page.locator('fieldset.funnel-steps li');
    expect(
      await rows.evaluateAll((items) => items.filter((i) => !(i as HTMLElement).hidden).length),
    ).toBe(2);
    const [first = '/', second = '/pricing'] = await offered('suggested-pages');
    await page.fill('#name', 'Browsed');
    await page.fill('input[name=step_value_1]', first);
    await page.fill('input[name=step_value_2]', second);
    // Each step's visitors of the last 30 days, as the funnel stands.
    await page.waitForFunction(() =>
      /visitor/.test(
        document.querySelector('input[name=step_value_2] ~ output')?.textContent ?? '',
      ),
    );
    expect(await page.textContent('[data-preview]')).toContain('last 30 days');
    // A third step, as a goal, then moved up to be the second.
    await page.click('text=Add a step');
    expect(await page.isVisible('input[name=step_value_3]')).toBe(true);
    await page.selectOption('select[name=step_kind_3]', 'goal');
    expect(await page.getAttribute('input[name=step_value_3]', 'list')).toBe('suggested-goals');
    expect(await offered('suggested-goals')).toEqual(['Visit /pricing']);
    await page.fill('input[name=step_value_3]', 'Visit /pricing');
    await page.click('li:has(input[name=step_value_3]) [data-move="-1"]');
    expect(await page.inputValue('input[name=step_value_2]')).toBe('Visit /pricing');
    expect(await page.inputValue('select[name=step_kind_2]')).toBe('goal');
    expect(await page.inputValue('input[name=step_value_3]')).toBe(second);
    await Promise.all([page.waitForURL(/funnel=added/), page.click('text=Add the funnel')]);
    expect(await page.textContent('main table')).toContain(
      `${first} → goal Visit /pricing → ${second}`,
    );
  });
});
