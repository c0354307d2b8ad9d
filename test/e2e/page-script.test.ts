/**
 * The dashboard's script (src/pages/assets/page-script.ts, as built into static/assets/app.js) in
 * Chromium, on small pages served here with the markup the dashboard renders: the parts the
 * dashboard's own browser tests do not reach — copy buttons, an import's upload, the realtime
 * figure, a tab's parameter carried by the page's links and forms, a secret after `#`, and
 * the API reference's search box.
 * (The shortcuts, the chart's arrows and the tabs' keys: dashboard.test.ts and
 * accessibility.test.ts; an invitation's fragment: members.test.ts.)
 */

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { haveChromium, launchBrowser } from './browser.ts';

const APP_JS = readFileSync(new URL('../../static/assets/app.js', import.meta.url), 'utf8');

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><title>t</title><script src="/app.js" defer></script></head><body>${body}</body></html>`;

const PAGES: Record<string, string> = {
  '/copy': page(
    '<pre id="api-key">sl_0123</pre><button type="button" data-copy="api-key">Copy</button>',
  ),
  '/stats/x': page(`
    <p class="live" data-live="/stats/x/live.json"><strong>1</strong> <span data-unit>visitor</span></p>
    <a id="range" href="/stats/x?range=7d">7 days</a> <a id="other" href="/websites">other</a>
    <form method="get" action="/stats/x" id="custom"><input name="from"></form>
    <section id="sources"><div role="tablist">
      <a role="tab" id="tab-a" href="/stats/x" aria-controls="p-a" aria-selected="true">A</a>
      <a role="tab" id="tab-b" href="/stats/x?sources=b" aria-controls="p-b" aria-selected="false">B</a>
    </div><div id="p-a" role="tabpanel">A</div><div id="p-b" role="tabpanel" hidden>B</div></section>`),
  '/import': page(`
    <form method="post" action="/upload" enctype="multipart/form-data" data-upload>
      <input type="file" name="file"><progress hidden max="100" value="0"></progress>
      <button type="submit">Import</button></form>`),
  '/share': page(
    '<form method="post" action="/share" data-auto="1"><label>Code <input name="code" data-fragment="1"></label><button>Go</button></form>',
  ),
  '/unsubscribe': page(
    '<form method="post" action="/unsubscribe"><label>Code <input name="code" data-fragment="1"></label><button>Unsubscribe</button></form>',
  ),
  '/settings': page('<p>settings</p>'),
  '/new-website': page(`
    <form method="post" action="/websites"><select name="privacy"><option value="1" selected>Private</option><option value="2">Password</option></select>
      <label id="password" data-shown-if="privacy=2">Password <input name="password"></label></form>
    <p id="waiting" data-received="/received.json">Waiting <a href="/stats/x" hidden>See</a></p>`),
  '/reference': page(`
    <nav class="contents"><label hidden data-search-sections="main > section">Search <input type="search"></label>
      <ul><li><a href="#get-sites">GET /sites</a></li><li><a href="#post-sites">POST /sites</a></li></ul>
      <p class="none" hidden>None</p></nav>
    <main><section id="get-sites"><h2>GET /sites</h2><p>Lists the websites of the key.</p></section>
      <section id="post-sites"><h2>POST /sites</h2><p>Adds a website; its domain is required.</p></section></main>`),
};

let server: Server;
let base: string;
let browser: BrowserContext;
let tab: Page;
/** Requests the server saw: method, path and query, and a form's body. */
let seen: string[] = [];
let uploadAnswer: 303 | 422 = 303;
/** How many asks of `/received.json` answer "not yet" before they answer "received". */
let notYet = 0;

describe.skipIf(!haveChromium)("the dashboard's script in a real browser", () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (url.pathname !== '/favicon.ico') seen.push(`${req.method} ${req.url} ${body}`.trim());
        const send = (status: number, type: string, text: string, location?: string) => {
          res.writeHead(status, {
            'content-type': `${type}; charset=utf-8`,
            ...(location ? { location } : {}),
          });
          res.end(text);
        };
        if (url.pathname === '/app.js') return send(200, 'text/javascript', APP_JS);
        if (url.pathname === '/received.json')
          return send(200, 'application/json', JSON.stringify({ received: notYet-- <= 0 }));
        // A new website's form, its time zone list holding the zone asked for.
        if (url.pathname === '/zone')
          return send(
            200,
            'text/html',
            page(
              `<input id="zone" list="zones" value="Pacific/Nauru" data-browser-zone="1"><datalist id="zones"><option value="Pacific/Nauru"><option value="${url.searchParams.get('z')}"></datalist>`,
            ),
          );
        if (url.pathname === '/stats/x/live.json')
          return send(200, 'application/json', '{"visitors":1234,"formatted":"1,234"}');
        if (req.method === 'POST' && url.pathname === '/upload')
          // Answered after a while, as an import is counted: the page says so meanwhile.
          return setTimeout(() => {
            if (uploadAnswer === 303) send(303, 'text/plain', '', '/settings');
            else send(422, 'text/html', page('<p id="error">a.csv: line 2 has no date</p>'));
          }, 1000);
        if (req.method === 'POST') return send(200, 'text/html', page('<p>posted</p>'));
        send(200, 'text/html', PAGES[url.pathname] ?? page('<p>not found</p>'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The clipboard needs a secure context: localhost is one.
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser([]);
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  });

  beforeEach(async () => {
    seen = [];
    await tab?.close();
    tab = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('copies an element’s text with its copy button', async () => {
    await tab.goto(`${base}/copy`);
    await tab.click('[data-copy]');
    await expect.poll(() => tab.textContent('[data-copy]'), { timeout: 10_000 }).toBe('Copied');
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe('sl_0123');
  });

  it('asks for the realtime figure every 30 seconds and shows it', async () => {
    await tab.clock.install();
    await tab.goto(`${base}/stats/x`);
    await tab.clock.fastForward(29_000);
    expect(seen.filter((r) => r.includes('live.json'))).toEqual([]);
    await tab.clock.fastForward(1_000);
    await expect.poll(() => tab.textContent('.live'), { timeout: 10_000 }).toBe('1,234 visitors');
    expect(seen.filter((r) => r.includes('live.json'))).toEqual(['GET /stats/x/live.json']);
  });

  it("switches a tab in place; the page's links and GET forms then carry it", async () => {
    await tab.goto(`${base}/stats/x`);
    await tab.click('#tab-b');
    expect(tab.url()).toBe(`${base}/stats/x?sources=b`);
    expect(await tab.getAttribute('#tab-b', 'aria-selected')).toBe('true');
    expect(await tab.isHidden('#p-a')).toBe(true);
    expect(await tab.isVisible('#p-b')).toBe(true);
    expect(await tab.getAttribute('#range', 'href')).toBe(`${base}/stats/x?range=7d&sources=b`);
    expect(await tab.getAttribute('#other', 'href')).toBe('/websites');
    expect(await tab.inputValue('#custom input[type=hidden][name=sources]')).toBe('b');
    // Back to the group's default tab: the parameter is gone again. No request was made.
    await tab.click('#tab-a');
    expect(await tab.getAttribute('#range', 'href')).toBe(`${base}/stats/x?range=7d`);
    expect(await tab.locator('#custom input[name=sources]').count()).toBe(0);
    expect(seen).toEqual(['GET /stats/x', 'GET /app.js']);
  });

  it('keeps the sections holding every word typed in the search box, and their contents', async () => {
    await tab.goto(`${base}/reference`);
    // Shown by the script (hidden without one: the contents are then a plain list).
    await tab.waitForSelector('[data-search-sections] input', { state: 'visible' });
    await tab.fill('[data-search-sections] input', 'DOMAIN adds');
    expect(await tab.isHidden('#get-sites')).toBe(true);
    expect(await tab.isVisible('#post-sites')).toBe(true);
    expect(await tab.isHidden('li:has(a[href="#get-sites"])')).toBe(true);
    expect(await tab.isHidden('.none')).toBe(true);
    await tab.fill('[data-search-sections] input', 'nothing of the sort');
    expect(await tab.isHidden('#post-sites')).toBe(true);
    expect(await tab.isVisible('.none')).toBe(true);
    await tab.fill('[data-search-sections] input', '');
    expect(await tab.isVisible('#get-sites')).toBe(true);
    expect(await tab.isVisible('li:has(a[href="#post-sites"])')).toBe(true);
  });

  it("shows a password's field only for a password-protected page", async () => {
    await tab.goto(`${base}/new-website`);
    await expect.poll(() => tab.isHidden('#password'), { timeout: 10_000 }).toBe(true);
    await tab.selectOption('select[name=privacy]', '2');
    expect(await tab.isVisible('#password')).toBe(true);
    await tab.selectOption('select[name=privacy]', '1');
    expect(await tab.isHidden('#password')).toBe(true);
  });

  it("fills a new website's time zone with the browser's, when the list has it", async () => {
    const zone = (await tab.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone')) as string;
    await tab.goto(`${base}/zone?z=${encodeURIComponent(zone)}`);
    await expect.poll(() => tab.inputValue('#zone'), { timeout: 10_000 }).toBe(zone);
    // A zone the list does not offer is left alone.
    await tab.goto(`${base}/zone?z=Nowhere%2FAt_All`);
    await tab.waitForFunction('document.readyState === "complete"');
    expect(await tab.inputValue('#zone')).toBe('Pacific/Nauru');
  });

  it('asks every 5 seconds whether the first page view came, and says so when it has', async () => {
    notYet = 1;
    await tab.clock.install();
    await tab.goto(`${base}/new-website`);
    await tab.clock.fastForward(5_000);
    await expect.poll(() => seen.filter((r) => r.includes('received.json')).length).toBe(1);
    expect(await tab.textContent('#waiting')).toContain('Waiting');
    await tab.clock.fastForward(5_000);
    await expect
      .poll(() => tab.textContent('#waiting'), { timeout: 10_000 })
      .toBe('Received: the first page view is in. See');
    expect(await tab.isVisible('#waiting a')).toBe(true);
    // Asked no more.
    await tab.clock.fastForward(20_000);
    expect(seen.filter((r) => r.includes('received.json')).length).toBe(2);
  });

  it('uploads an import showing its progress, then follows the redirect to the imports', async () => {
    uploadAnswer = 303;
    await tab.goto(`${base}/import`);
    await tab.setInputFiles('input[type=file]', {
      name: 'a.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('date,visitors\n2025-01-01,1\n'),
    });
    const arrived = tab.waitForURL(`${base}/settings#imports`);
    await tab.click('button');
    await expect
      .poll(() => tab.textContent('button'), { timeout: 10_000 })
      .toBe('Counting the imported rows…');
    expect(await tab.isDisabled('button')).toBe(true);
    expect(await tab.isVisible('progress')).toBe(true);
    expect(await tab.textContent('progress')).toBe('100%');
    await arrived;
    expect(seen.filter((r) => r.startsWith('POST'))).toEqual([
      expect.stringMatching(/^POST \/upload .*filename="a\.csv"/s),
    ]);
  });

  it('shows the answer to an import that fails in place of the page', async () => {
    uploadAnswer = 422;
    await tab.goto(`${base}/import`);
    await tab.setInputFiles('input[type=file]', {
      name: 'a.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('nonsense'),
    });
    await tab.click('button');
    await expect
      .poll(() => tab.locator('#error').textContent(), { timeout: 10_000 })
      .toContain('no date');
    expect(tab.url()).toBe(`${base}/import`);
  });

  it('puts the secret after # into its form, out of the address, and posts it if asked', async () => {
    await Promise.all([tab.waitForURL(`${base}/share`), tab.goto(`${base}/share?range=7d#s3cret`)]);
    await expect
      .poll(() => seen.filter((r) => r.startsWith('POST')), { timeout: 10_000 })
      .toEqual(['POST /share code=s3cret']);

    await tab.goto(`${base}/unsubscribe?x=1#t0ken`);
    expect(tab.url()).toBe(`${base}/unsubscribe?x=1`);
    expect(await tab.inputValue('[data-fragment]')).toBe('t0ken');
    expect(await tab.isHidden('label')).toBe(true);
    expect(seen.filter((r) => r.startsWith('POST'))).toHaveLength(1);
  });
});
