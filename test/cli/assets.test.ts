/**
 * The dashboard's stylesheet and script as the Worker serves them (src/pages/assets/serve.ts, from
 * static/assets/): the committed minified build is current with its sources in
 * src/pages/assets/, within its size budget, and versioned by the hash of what is served.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { APP_CSS_VERSION, APP_JS_VERSION } from '../../src/pages/assets/app.generated.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const APP_CSS = readFileSync(join(root, 'static/assets/app.css'), 'utf8');
const APP_JS = readFileSync(join(root, 'static/assets/app.js'), 'utf8');
const run = promisify(execFile);

const HTMX_JS = readFileSync(join(root, 'static/assets/htmx.js'), 'utf8');
const cssGzip = gzipSync(APP_CSS, { level: 9 }).length;
const jsGzip = gzipSync(APP_JS, { level: 9 }).length;
const scriptsGzip = jsGzip + gzipSync(HTMX_JS, { level: 9 }).length;

describe("the dashboard's built assets", () => {
  it('are up to date with src/pages/assets/ (build:assets --check)', async () => {
    const result = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'scripts/build-assets.ts'), '--check'],
      { cwd: root },
    ).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect('code' in result ? result.stderr : '').toBe('');
    expect(result.stdout).toContain('is up to date');
  });

  // The budgets of scripts/build-assets.ts, which refuses to build past them.
  it(`keep the stylesheet at most 6144 bytes gzipped (gzip -9 ${cssGzip} B)`, () => {
    console.log(`stylesheet: ${Buffer.byteLength(APP_CSS)} bytes raw, ${cssGzip} gzipped`);
    expect(cssGzip).toBeLessThanOrEqual(6144);
  });

  // The page's own script is glue beside its library (docs/ARCHITECTURE.md, "The statistics
  // page"); the two together at most 60 KB gzipped.
  it(`keep the page's own script at most 8192 bytes gzipped (gzip -9 ${jsGzip} B)`, () => {
    console.log(`script: ${Buffer.byteLength(APP_JS)} bytes raw, ${jsGzip} gzipped`);
    expect(jsGzip).toBeLessThanOrEqual(8192);
  });

  it(`keep the page's scripts with htmx at most 60 KB gzipped (gzip -9 ${scriptsGzip} B)`, () => {
    expect(scriptsGzip).toBeLessThanOrEqual(61_440);
  });

  it('are minified: no comment, no line break, no indentation', () => {
    for (const code of [APP_CSS, APP_JS]) {
      expect(code).not.toMatch(/\/\*|\n|^ {2}/m);
      expect(code.length).toBeGreaterThan(1000);
    }
  });

  it('are versioned by the hash of their code', () => {
    const hash = (code: string) => createHash('sha256').update(code).digest('hex').slice(0, 12);
    expect(APP_CSS_VERSION).toBe(hash(APP_CSS));
    expect(APP_JS_VERSION).toBe(hash(APP_JS));
  });
});
