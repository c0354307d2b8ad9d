/**
 * Real-browser support for end-to-end tests: Debian's Chromium driven by playwright-core.
 * Where no Chromium exists, `npm test` skips these tests with a visible notice; under CI
 * (`CI=true`) a missing browser is an error, because `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { GUARD_MS } from '../support/until.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

if (!haveChromium) {
  if (process.env.CI === 'true')
    throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run should have installed it`);
  console.warn(
    `\n  NOTICE: no Chromium at ${CHROMIUM}: the real-browser tests are SKIPPED.\n  Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.\n`,
  );
}

/** A regular desktop Chrome: headless Chromium calls itself HeadlessChrome, which Sightline drops as a bot. */
export const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * Launches Chromium with a fresh profile; `hosts` are resolved to 127.0.0.1. `asPerson`
 * hides the automation flag (`navigator.webdriver`), from which Sightline's tracker, as
 * Plausible's, sends nothing: a visitor whose hits a test expects is launched so. Its waits
 * (a launch, a page's load, an element, a response) end when what they wait for happens;
 * their timeouts are guards against a hang (`GUARD_MS`), not playwright's 30 seconds, which
 * a busy machine can exceed.
 */
export async function launchBrowser(
  hosts: string[],
  userAgent?: string,
  asPerson = false,
): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'sightline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: GUARD_MS,
    ...(userAgent ? { userAgent } : {}),
    ...(asPerson ? { ignoreDefaultArgs: ['--enable-automation'] } : {}),
    args: [
      ...(asPerson ? ['--disable-blink-features=AutomationControlled'] : []),
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`,
    ],
  });
  context.setDefaultTimeout(GUARD_MS);
  context.setDefaultNavigationTimeout(GUARD_MS);
  return context;
}
