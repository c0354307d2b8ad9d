import { chromium } from 'playwright-core';
const base = 'http://localhost:8792';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const ctx = await b.newContext({ viewport: { width: 390, height: 844 } });
const p = await ctx.newPage();
await p.goto(`${base}/login`);
await p.fill('input[name=email]', 'demo@sightline.local');
await p.fill('input[name=password]', 'sightline-demo');
await p.click('button[type=submit]');
await p.waitForLoadState('networkidle');
const pages = process.argv.slice(2);
for (const path of pages) {
  await p.goto(base + path);
  await p.waitForLoadState('networkidle');
  const r = await p.evaluate(() => {
    const w = innerWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > w + 1 && getComputedStyle(e).position !== 'fixed')
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : ''}:${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 6);
    return { sw: document.documentElement.scrollWidth, w, wide };
  });
  console.log(r.sw <= r.w ? 'OK  ' : 'WIDE', r.sw, path, r.sw > r.w ? r.wide.join(' ') : '');
}
await b.close();
