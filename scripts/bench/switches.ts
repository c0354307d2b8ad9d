/**
 * How long a change of the statistics page takes to show, in Chromium: from the click to the
 * first frame in which the new view's figures are there (a tab's rows read, the chart's metric
 * marked, a filter's chip, a period's name) — the page changing in place (docs/ARCHITECTURE.md,
 * "The statistics page"). Timed inside the page (`performance.now()` at the click, then at each
 * animation frame until the change shows), so the driver's own round trips are not counted.
 * Each switch starts from the page loaded afresh, and ends once the new view is complete.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { percentile } from './under-load.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A change: what is clicked, and what shows once the new view is there. */
type Switch = { kind: string; click: string; shown: string; text?: string };

const SWITCHES: Switch[] = [
  // A tab whose rows the first paint did not read (UTM sources): read and shown in place.
  { kind: 'tab', click: '#tab-utm_source', shown: '#panel-utm_source:not([data-load]) tbody tr' },
  {
    kind: 'metric',
    click: '.totals a[title="Chart page views"]',
    shown: '.card.charted a[title="Chart page views"]',
  },
  { kind: 'filter', click: '#panel-page table a.filter-link', shown: '.chips .chip' },
  {
    kind: 'period',
    click: 'a[data-key="w"]',
    shown: '.date-menu summary strong',
    text: 'Last 7 days',
  },
];

export type SwitchTimes = {
  /** The 95th percentile of every switch's time, in milliseconds. */
  p95Ms: number;
  /** Each kind's median, in milliseconds. */
  p50MsByKind: Record<string, number>;
  samples: number;
};

/**
 * The script that clicks and resolves with the milliseconds until the change shows: checked at
 * each animation frame, so the figure is to the frame that first shows it.
 */
const timedClick = ({ click, shown, text }: Switch) => `new Promise((resolve, reject) => {
  const there = () => {
    const found = document.querySelector(${JSON.stringify(shown)});
    return found !== null && ${text === undefined ? 'true' : `(found.textContent || '').includes(${JSON.stringify(text)})`};
  };
  if (there()) return reject(new Error('${shown} is there before the click'));
  const target = document.querySelector(${JSON.stringify(click)});
  if (!target) return reject(new Error('nothing to click at ${click}'));
  const start = performance.now();
  target.click();
  const check = () => {
    if (there()) resolve(performance.now() - start);
    else if (performance.now() - start > 30000) reject(new Error('${shown} never showed'));
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})`;

/**
 * Each switch `rounds` times, each from the page at `address` freshly loaded (the load not
 * timed); null when there is no Chromium to measure with.
 */
export async function measureSwitches(
  address: string,
  rounds: number,
): Promise<SwitchTimes | null> {
  if (!existsSync(CHROMIUM)) return null;
  const profile = await mkdtemp(join(tmpdir(), 'sightline-switches-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    const times: Record<string, number[]> = {};
    // One round to warm the Worker and the browser's cache, not counted.
    for (let round = -1; round < rounds; round++) {
      for (const change of SWITCHES) {
        await page.goto(address, { waitUntil: 'load' });
        // The page's script and its library have run (they are deferred).
        await page.waitForFunction(() => 'htmx' in window);
        // (a string: the functions tsx compiles carry helpers the page does not have)
        const ms = (await page.evaluate(timedClick(change))) as number;
        // In place: the address follows the click.
        if (page.url() === address)
          throw new Error(`the ${change.kind} switch left the address as it was`);
        // The view is let complete (its parts that follow: ../../src/pages/assets/later-script.ts)
        // before the next load, as a reader looks at it: what follows one switch is not
        // counted in the next.
        await page.waitForFunction(() => !document.querySelector('#main [data-later]'));
        if (round >= 0) times[change.kind] = [...(times[change.kind] ?? []), ms];
      }
    }
    const all = Object.values(times)
      .flat()
      .sort((a, b) => a - b);
    const round2 = (n: number) => Math.round(n * 100) / 100;
    return {
      p95Ms: round2(percentile(all, 95)),
      p50MsByKind: Object.fromEntries(
        Object.entries(times).map(([kind, t]) => [
          kind,
          round2(
            percentile(
              t.sort((a, b) => a - b),
              50,
            ),
          ),
        ]),
      ),
      samples: all.length,
    };
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}
