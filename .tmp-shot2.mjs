import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const p = await (await b.newContext({ viewport: { width: 390, height: 844 } })).newPage();
await p.goto('http://localhost:8792/stats/demo.example.com');
await p.screenshot({ path: '/tmp/phone.png' });
console.log(await p.evaluate(() => { const s = document.querySelector('.chart svg, svg'); const r = s?.getBoundingClientRect(); const t = s?.querySelector('text'); return JSON.stringify({ top: r?.top, h: r?.height, w: r?.width, font: t ? getComputedStyle(t).fontSize : null, tr: t?.getBoundingClientRect().height }); }));
await b.close();
