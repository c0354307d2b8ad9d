/**
 * `npm run screenshots`: renders every page with the demo data in Chromium — at 1280 × 800
 * and at a phone's 390 × 844, in light and in dark — and saves them under docs/screenshots/
 * as `{page}-{desktop|phone}-{light|dark}.png` (the README and docs/GUIDE.md show some), and
 * the README's and GUIDE's whole-page shots. Needs Chromium (CHROMIUM_PATH or
 * /usr/bin/chromium). Uses its own temporary database; the local one is left alone.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { SETTINGS_PAGES } from '../src/pages/settings/settings-pages.tsx';
import { root, withDatabase } from './lib/d1.ts';
import { createDemo, DEMO, replayDemoTraffic } from './lib/demo.ts';
import { startWorker } from './lib/worker.ts';

const out = join(root, 'docs', 'screenshots');
const state = await mkdtemp(join(tmpdir(), 'sightline-screens-'));
await withDatabase({ remote: false, persistTo: state }, (db) => createDemo(db));
const worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
// The dashboard's session cookie is Secure: browsers keep it on http://localhost only.
const base = `http://localhost:${worker.port}`;
await replayDemoTraffic(base, console.log);
const profile = await mkdtemp(join(tmpdir(), 'sightline-screens-browser-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  await mkdir(out, { recursive: true });
  const page = await browser.newPage();
  await page.goto(`${base}/login`);
  await page.screenshot({ path: join(out, 'login.png') });
  await page.fill('#email', DEMO.email);
  await page.fill('#password', DEMO.password);
  await page.click('main button[type=submit]');
  await page.waitForURL('**/websites');
  await page.screenshot({ path: join(out, 'websites.png') });
  await page.click('main td a:text-is("Settings")');
  await page.screenshot({ path: join(out, 'website.png'), fullPage: true });
  await page.goto(`${base}/stats/${DEMO.domain}?range=30d`);
  await page.screenshot({ path: join(out, 'stats.png'), fullPage: true });
  await page.goto(
    `${base}/stats/${DEMO.domain}?range=30d&filter[referrer]=www.google.com&compare=previous`,
  );
  await page.screenshot({ path: join(out, 'stats-filtered.png') });
  await page.goto(`${base}/stats/${DEMO.domain}/page?range=30d&search=blog`);
  await page.screenshot({ path: join(out, 'stats-pages.png') });
  /** Each page at both sizes in both themes: `{page}-{desktop|phone}-{light|dark}.png`. */
  const shootEach = async (list: [name: string, path: string][]) => {
    for (const [size, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme });
        for (const [name, path] of list) {
          await page.goto(`${base}${path}`);
          await page.screenshot({ path: join(out, `${name}-${size}-${theme}.png`) });
        }
      }
    }
  };
  const pages: [name: string, path: string][] = [
    ['websites', '/websites'],
    ['website-new', '/websites/new'],
    ...SETTINGS_PAGES.map(({ path }): [string, string] => [
      `settings-${path || 'general'}`,
      `/websites/1${path ? `/${path}` : ''}`,
    ]),
    ['account', '/account'],
    ['api-key', '/account/api-key'],
    ['stats', `/stats/${DEMO.domain}?range=30d`],
    ['stats-today', `/stats/${DEMO.domain}?range=today`],
    ['stats-filtered', `/stats/${DEMO.domain}?range=30d&filter[page]=/pricing&compare=previous`],
    ['stats-goal', `/stats/${DEMO.domain}?range=30d&filter[goal]=Purchases&sources=utm_source`],
    ['stats-months', `/stats/${DEMO.domain}?range=12mo&interval=month`],
    ['stats-events', `/stats/${DEMO.domain}?range=30d&events=event#events`],
    ['stats-full', `/stats/${DEMO.domain}/page?range=30d`],
    ['funnel', `/stats/${DEMO.domain}/funnels/1?range=30d`],
    ['journeys', `/stats/${DEMO.domain}/journeys?page=/&range=30d`],
    ['api-docs', '/api/v1/docs'],
    ['website-delete', '/websites/1/delete'],
    ['alert-confirm', '/alerts/confirm'],
    ['invitation', '/invitations'],
  ];
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/stats/${DEMO.domain}?range=7d`);
  await page.screenshot({ path: join(out, 'stats-phone-dark.png') });
  await shootEach(pages);
  // Signed out: the log-in and registration pages, and the e-mails' links' pages.
  await page.context().clearCookies();
  await shootEach([
    ['login', '/login'],
    ['register', '/register'],
    ['report-unsubscribe', '/reports/unsubscribe'],
    ['alert-unsubscribe', '/alerts/unsubscribe'],
  ]);
  console.log(`Screenshots written to ${out}`);
} finally {
  await browser.close();
  await worker.stop();
  await rm(state, { recursive: true, force: true });
  await rm(profile, { recursive: true, force: true });
}
