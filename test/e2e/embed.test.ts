/**
 * A shared link's embed in Chromium, framed by a page of another site (docs/GUIDE.md,
 * "Sharing"): the settings page gives a new link's embed code in the theme chosen, which its
 * copy button copies; pasted into a page served here, the frame takes the height of the embed's
 * content — on load, and again when a narrower frame makes it taller — and not a message of
 * another origin; the theme asked for colours it whatever the reader's mode, and without one it
 * follows the reader's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { haveChromium, launchBrowser } from './browser.ts';

const EMAIL = 'embed@example.com';
const PASSWORD = 'a long enough password';
/** The palettes' page backgrounds (src/pages/assets/colours.css). */
const LIGHT = 'rgb(255, 255, 255)';
const DARK = 'rgb(16, 19, 23)';

type Theme = 'light' | 'dark' | undefined;

let state: string;
let worker: Unstable_DevWorker;
let websiteId: number;
let base: string;
let host: Server;
let hostBase: string;
let browser: BrowserContext;
let page: Page;
/** The embed code the settings page gave, in each theme (`''`: the reader's). */
const codes = new Map<string, string>();

/** The embed's frame, once it shows the link's statistics (past the page that opens it). */
async function embedFrame(): Promise<Frame> {
  let frame: Frame | undefined;
  await expect
    .poll(() => {
      frame = page.frames().find((f) => /\/embed\/\d+/.test(f.url()));
      return frame !== undefined;
    })
    .toBe(true);
  await (frame as Frame).waitForLoadState('load');
  return frame as Frame;
}

/** The frame's height on the host page, and the height of the embed's content. */
async function heights(frame: Frame) {
  return {
    frame: await page.$eval('iframe', (f) => f.getBoundingClientRect().height),
    content: await frame.evaluate(() =>
      Math.ceil(document.documentElement.getBoundingClientRect().height),
    ),
  };
}

/** Opens the host page embedding the link in `theme` and waits for the frame to fit. */
async function embedded(theme?: Theme) {
  await page.goto(`${hostBase}/${theme ? `?theme=${theme}` : ''}`);
  const frame = await embedFrame();
  await expect.poll(async () => (await heights(frame)).frame).not.toBe(1600);
  await expect.poll(async () => heights(frame).then((h) => h.frame - h.content)).toBe(0);
  return frame;
}

const background = (frame: Frame) =>
  frame.evaluate(() => getComputedStyle(document.body).backgroundColor);

describe.skipIf(!haveChromium)('an embed in a page of another site', () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-embed-'));
    websiteId = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, { email: EMAIL, password: PASSWORD });
      const site = await createWebsite(
        db,
        owner.id,
        { domain: 'embedded.example.com', privacy: 1 },
        suffixesOnDisk,
      );
      return site.id;
    });
    // Links start at the address the browser asks (no PUBLIC_URL): the Worker's port here.
    worker = await startWorker(state, 'src/index.ts', { PUBLIC_URL: '' });
    // Browsers keep Secure cookies over plain HTTP only for localhost (a "secure context").
    base = `http://localhost:${worker.port}`;
    // The host page is on another site (127.0.0.1, not localhost), with the code pasted.
    host = createServer((req, res) => {
      const theme = new URL(req.url ?? '/', 'http://host').searchParams.get('theme') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>Host</title></head><body><h1>Our numbers</h1>${codes.get(theme) ?? ''}<p id="after">After the statistics</p></body></html>`,
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostBase = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    browser = await launchBrowser([]);
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await new Promise((resolve) => host?.close(resolve));
    if (state) await rm(state, { recursive: true, force: true });
  });

  it("gives a new link's embed code in the theme chosen, and copies it", async () => {
    await page.goto(`${base}/login`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/websites'), page.click('main button[type=submit]')]);
    // The settings' form that makes a link (posted here from any page: its CSRF token is the
    // session's), answered with the page that shows the new link once.
    await Promise.all([
      page.waitForURL(`**/websites/${websiteId}/shared-links`),
      // (a script's text: the Worker's types, not the DOM's, check this file)
      page.evaluate(`{
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/websites/${websiteId}/shared-links';
        form.innerHTML = '<input name="name" value="Ours">';
        form.append(document.querySelector('input[name=_csrf]').cloneNode());
        document.body.append(form);
        form.submit();
      }`),
    ]);
    const code = () => page.textContent('#shared-link-embed');
    expect(await page.isVisible('[data-embed-theme] select')).toBe(true);
    codes.set('', (await code()) ?? '');
    expect(codes.get('')).toMatch(new RegExp(`^<iframe src="${base}/embed#[A-Za-z0-9_-]{43}"`));
    expect(codes.get('')).toContain(`event.origin !== "${base}"`);
    for (const theme of ['light', 'dark']) {
      await page.selectOption('[data-embed-theme] select', { label: theme });
      codes.set(theme, (await code()) ?? '');
      expect(codes.get(theme)).toContain(`src="${base}/embed?theme=${theme}#`);
    }
    await page.click('button[data-copy=shared-link-embed]');
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(codes.get('dark'));
  });

  it("takes the height of the embed's content, and follows it as it changes", async () => {
    const frame = await embedded();
    const wide = await heights(frame);
    expect(wide.frame).toBe(wide.content);
    // The host page's content goes on below the frame, at its height.
    const after = await page.$eval('#after', (p) => p.getBoundingClientRect().top);
    expect(after).toBeGreaterThanOrEqual(wide.frame);
    // A phone's width: the panels stack, the embed grows, and the frame with it.
    await page.setViewportSize({ width: 390, height: 800 });
    await expect.poll(async () => (await heights(frame)).frame).toBeGreaterThan(wide.frame);
    await expect.poll(async () => heights(frame).then((h) => h.frame - h.content)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(async () => (await heights(frame)).frame).toBe(wide.frame);
  });

  it("takes the height only from Sightline's origin", async () => {
    const frame = await embedded();
    const { frame: fitted } = await heights(frame);
    // The host page itself (another origin) posts a height: nothing changes. (Messages arrive
    // in order: once the one after it has, the script has seen it.)
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          addEventListener('message', (event) => {
            if (event.data === 'seen') resolve();
          });
          window.postMessage({ sightline: 'height', height: 5 }, '*');
          window.postMessage('seen', '*');
        }),
    );
    expect((await heights(frame)).frame).toBe(fitted);
  });

  it("is in the theme asked for, else in the reader's mode", async () => {
    for (const [scheme, theme, expected] of [
      ['light', 'dark', DARK],
      ['dark', 'light', LIGHT],
      ['dark', undefined, DARK],
      ['light', undefined, LIGHT],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const frame = await embedded(theme);
      const named = `${theme ?? 'no theme'} for a reader in ${scheme} mode`;
      expect(await background(frame), named).toBe(expected);
      expect(await frame.evaluate(() => document.documentElement.dataset.theme), named).toBe(theme);
      // Its address keeps it, and so its links do (test/integration/sharing/embed-theme.test.ts).
      if (theme) expect(new URL(frame.url()).searchParams.get('theme'), named).toBe(theme);
    }
  });
});
