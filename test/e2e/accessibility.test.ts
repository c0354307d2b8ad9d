/**
 * Accessibility in a real browser: Chromium loads the pages people meet first — the login
 * page, a website's settings, the statistics overview, a statistic's full view, a filtered and
 * compared overview, and a shared link's embed — in light and in dark mode, and axe-core checks
 * each; any serious or critical violation fails. Then the overview by keyboard alone: every
 * control is reached with Tab, a group's tabs switch with the arrow keys (in place, the
 * address following), the chart's points give their values on focus, and the shortcuts work.
 * And at a phone's 390 px, no page is wider than the screen.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
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

const DOMAIN = 'a11y.example.com';
const EMAIL = 'a11y-owner@example.com';
const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

/** axe-core's browser build: evaluated in the page (the page's CSP allows no other script). */
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Violation = { id: string; impact: string | null; help: string; nodes: string[] };

/** The serious and critical violations of the page as loaded, by axe-core's WCAG 2.1 AA rules. */
async function violations(page: Page): Promise<Violation[]> {
  await page.evaluate(await axeSource);
  const found = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe-core's global, defined by the script above
    const axe = (window as any).axe;
    const result = await axe.run(document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
      },
      resultTypes: ['violations'],
    });
    return result.violations.map(
      (v: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      }),
    );
  });
  return (found as Violation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

let state: string;
let worker: Unstable_DevWorker;
let browser: BrowserContext;
let page: Page;
let base: string;
let websiteId: number;
let funnelId: number;
let embedUrl: string;

describe.skipIf(!haveChromium)('accessibility in a real browser', () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-a11y-'));
    const made = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, { email: EMAIL, password: PASSWORD });
      const site = await createWebsite(
        db,
        owner.id,
        { domain: DOMAIN, privacy: 0 },
        suffixesOnDisk,
      );
      return { key: owner.apiKey, id: site.id };
    });
    websiteId = made.id;
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    base = `http://localhost:${worker.port}`;
    const today = new Date();
    const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + DAY;
    const hits = generateTraffic({ seed: 7, domain: DOMAIN, days: 40, end, visitorsPerDay: 8 });
    await replayTraffic(
      base,
      hits.filter((h) => h.req.now <= Date.now()),
      () => undefined,
    );
    const api = (path: string, body: unknown) =>
      worker.fetch(`/api/v1/websites/${websiteId}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${made.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await api('/goals', { event: 'signup', currency: 'EUR' })).status).toBe(201);
    const funnel = await api('/funnels', {
      name: 'Signup',
      steps: [{ page: '/' }, { page: '/pricing' }],
    });
    expect(funnel.status).toBe(201);
    funnelId = ((await funnel.json()) as { data: { id: number } }).data.id;
    const link = await api('/shared-links', { name: 'Board' });
    expect(link.status).toBe(201);
    const { data } = (await link.json()) as { data: { embed_url: string } };
    embedUrl = `${base}/embed?range=30d${new URL(data.embed_url).hash}`;
    browser = await launchBrowser([]);
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('finds no serious or critical violation on any page, light and dark, wide and on a phone', async () => {
    const found: Record<string, Violation[]> = {};
    /**
     * `landing`: where the page sends itself on (a link's page posts the token after `#`);
     * `status`: the page's own, when it is no 200 (a page that is not there).
     */
    const check = async (name: string, url: string, landing?: string, status = 200) => {
      for (const [scheme, width] of [
        ['light', 1280],
        ['dark', 1280],
        ['light', 390],
      ] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height: 800 });
        const res = await page.goto(url);
        const named = `${name} (${scheme}${width < 1280 ? ', phone' : ''})`;
        expect(res?.status(), named).toBe(status);
        if (landing) await page.waitForURL(landing);
        found[named] = await violations(page);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    };
    // (closed on this instance: the page says so)
    await check('registration', `${base}/register`, undefined, 403);
    await check('login page', `${base}/login`);
    // The check itself finds what it should: an image without a text alternative is one.
    await page.evaluate(
      "document.querySelector('main').appendChild(document.createElement('img'))",
    );
    expect((await violations(page)).map((v) => v.id)).toContain('image-alt');
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/websites'), page.click('main button[type=submit]')]);
    await check('websites', `${base}/websites`);
    await check('new website', `${base}/websites/new`);
    for (const { path, name } of SETTINGS_PAGES)
      await check(`settings: ${name}`, `${base}/websites/${websiteId}${path ? `/${path}` : ''}`);
    await check('website deletion', `${base}/websites/${websiteId}/delete`);
    await check('account', `${base}/account`);
    await check('new API key', `${base}/account/api-key`);
    await check('overview', `${base}/stats/${DOMAIN}?range=30d`);
    await check('today', `${base}/stats/${DOMAIN}?range=today`);
    await check('full view', `${base}/stats/${DOMAIN}/page?range=30d`);
    await check(
      'filtered and compared view',
      `${base}/stats/${DOMAIN}?range=30d&filter[browser]=Chrome&compare=previous&devices=os`,
    );
    await check('goal filtered', `${base}/stats/${DOMAIN}?range=30d&filter[goal]=signup`);
    await check('sources tab', `${base}/stats/${DOMAIN}?range=30d&sources=utm_source`);
    await check('funnel', `${base}/stats/${DOMAIN}/funnels/${funnelId}?range=30d`);
    await check('journeys', `${base}/stats/${DOMAIN}/journeys?page=/&range=30d`);
    await check('API reference', `${base}/api/v1/docs`);
    await check('not found', `${base}/stats/nothing-here.example.com`, undefined, 404);
    await check('alert confirmation', `${base}/alerts/confirm`);
    await check('alert unsubscription', `${base}/alerts/unsubscribe`);
    await check('report unsubscription', `${base}/reports/unsubscribe`);
    await check('invitation', `${base}/invitations`);
    await check('embed', embedUrl, '**/embed/*?range=30d');
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  });

  it('is used by keyboard alone: Tab reaches every control, tabs and the chart answer to arrows', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    // Every visible control is reached by Tab, in one pass.
    const CONTROLS = 'a[href], button, input:not([type=hidden]), select, textarea, [tabindex="0"]';
    // (what a closed disclosure holds is not shown, though it keeps its boxes)
    const visible = `Array.from(document.querySelectorAll('${CONTROLS}')).filter((e) => e.getClientRects().length > 0 && !e.closest('details:not([open]) > :not(summary)'))`;
    const controls = (await page.evaluate(`${visible}.length`)) as number;
    expect(controls).toBeGreaterThan(50);
    await page.evaluate(
      "window.reached = new Set(); document.addEventListener('focusin', (e) => window.reached.add(e.target))",
    );
    // (summaries and the chart's points are stops too)
    for (let i = 0; i < controls + 40; i++) await page.keyboard.press('Tab');
    const missed = await page.evaluate(
      `${visible}.filter((e) => !window.reached.has(e)).map((e) => e.outerHTML.slice(0, 120))`,
    );
    expect(missed).toEqual([]);

    // A group's tabs: the arrow keys choose the next one in place (no new page), and the
    // address follows, so a reload or a shared address shows the same tab.
    await page.evaluate(() => {
      (window as unknown as { samePage: boolean }).samePage = true;
    });
    await page.focus('#tab-country');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-city');
    expect(await page.getAttribute('#tab-city', 'aria-selected')).toBe('true');
    expect(await page.isVisible('#panel-city')).toBe(true);
    expect(await page.isVisible('#panel-country')).toBe(false);
    expect(new URL(page.url()).searchParams.get('locations')).toBe('city');
    // The page's other links and forms keep the choice, as the server writes them.
    expect(
      new URL((await page.getAttribute('a[data-key="w"]', 'href')) ?? '', base).searchParams.get(
        'locations',
      ),
    ).toBe('city');
    expect(await page.getAttribute('form.custom-range input[name="locations"]', 'value')).toBe(
      'city',
    );
    await page.keyboard.press('ArrowLeft');
    expect(await page.isVisible('#panel-country')).toBe(true);
    expect(
      new URL((await page.getAttribute('a[data-key="w"]', 'href')) ?? '', base).searchParams.has(
        'locations',
      ),
    ).toBe(false);
    expect(await page.locator('form.custom-range input[name="locations"]').count()).toBe(0);
    await page.focus('#tab-os');
    await page.keyboard.press('Enter');
    expect(await page.isVisible('#panel-os')).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(
      true,
    );
    // A tab the page did not read (a log's listing: UTM source) is read when chosen, and
    // shown in place too.
    await page.click('#tab-utm_source');
    await page.waitForSelector('#panel-utm_source:not([data-load]) table');
    expect(new URL(page.url()).searchParams.get('sources')).toBe('utm_source');
    expect(await page.isVisible('#panel-utm_source')).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(
      true,
    );
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);

    // The chart: one tab stop; the arrow keys move between points, each saying its values.
    await page.focus('.chart .pt');
    await page.keyboard.press('ArrowRight');
    const label = await page.evaluate(() => {
      const focused = document.activeElement;
      const id = focused?.getAttribute('aria-labelledby') ?? '';
      return document.getElementById(id)?.textContent ?? '';
    });
    expect(label).toMatch(/^.+: \d+ visitors, \d+ page views$/);

    // The shortcuts: `x` compares with the period before (dotted lines), `w` shows 7 days.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await Promise.all([page.waitForURL(/compare=previous/), page.keyboard.press('x')]);
    // (the compared points follow the figures: docs/ARCHITECTURE.md, "The statistics page")
    await page.waitForFunction(() => !document.querySelector('#main [data-later]'));
    expect(await page.locator('.chart svg.wide polyline.previous').count()).toBe(2);
    // (the key names the compared dates)
    expect(await page.textContent('.chart figcaption')).toMatch(/\w{3} \d{1,2}.* \(dotted\)/);
    await Promise.all([page.waitForURL(/range=7d/), page.keyboard.press('w')]);
    expect(new URL(page.url()).searchParams.get('compare')).toBe('previous');
  });

  it('skips to the content, and from there reaches the first report in at most 15 stops', async () => {
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    let stops = 1;
    while (stops < 40) {
      await page.keyboard.press('Tab');
      stops += 1;
      if (await page.evaluate(() => document.activeElement?.closest('.panel') !== null)) break;
    }
    expect(stops).toBeLessThanOrEqual(15);
  });

  it('fits a phone: no page is wider than a 390 px screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const wide: Record<string, number> = {};
    for (const path of [
      '/websites',
      '/websites/new',
      ...SETTINGS_PAGES.map(({ path }) => `/websites/${websiteId}${path ? `/${path}` : ''}`),
      '/account',
      '/account/api-key',
      `/stats/${DOMAIN}?range=30d`,
      `/stats/${DOMAIN}/page?range=30d`,
      `/stats/${DOMAIN}/referrer?range=30d`,
      `/stats/${DOMAIN}/journeys?page=/&range=30d`,
      `/stats/${DOMAIN}?range=30d&filter[browser]=Chrome&compare=previous`,
      `/stats/${DOMAIN}?range=today`,
      `/stats/${DOMAIN}?range=30d&filter[goal]=signup&sources=utm_source`,
      `/stats/${DOMAIN}/funnels/${funnelId}?range=30d`,
      `/websites/${websiteId}/delete`,
      '/alerts/confirm',
      '/invitations',
      '/api/v1/docs',
    ]) {
      expect((await page.goto(`${base}${path}`))?.status(), path).toBe(200);
      // The page's width, and the widest of the boxes that never scroll on their own (a card
      // cut off by the screen's edge leaves the page's width as it is).
      const width = await page.evaluate(() =>
        Math.max(
          document.documentElement.scrollWidth,
          ...Array.from(document.querySelectorAll('main > *, .card, .totals > *, .chip')).map((e) =>
            Math.ceil(e.getBoundingClientRect().right),
          ),
        ),
      );
      if (width > 390) wide[path] = width;
    }
    // The chart a phone shows: its own drawing, tall enough, its text legible, and in the
    // first screen (the custom dates folded into the date control).
    await page.goto(`${base}/stats/${DOMAIN}?range=30d`);
    const chart = await page.evaluate(() => {
      const svg = document.querySelector('.chart svg.narrow');
      const tick = svg?.querySelector('text.tick');
      const box = svg?.getBoundingClientRect();
      return {
        shown: svg ? getComputedStyle(svg).display : 'none',
        height: box?.height ?? 0,
        bottom: box?.bottom ?? Number.POSITIVE_INFINITY,
        text: tick?.getBoundingClientRect().height ?? 0,
      };
    });
    // (folded into the date control until it is opened)
    const formShown = () =>
      page.evaluate(() => document.getElementById('custom-range')?.checkVisibility() === true);
    const folded = !(await formShown());
    await page.click('.date-menu summary');
    const opened = await formShown();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(wide).toEqual({});
    expect(chart.shown).toBe('block');
    expect(chart.height).toBeGreaterThan(220);
    expect(chart.bottom).toBeLessThanOrEqual(844);
    expect(chart.text).toBeGreaterThanOrEqual(10);
    expect([folded, opened]).toEqual([true, true]);
  });
});
