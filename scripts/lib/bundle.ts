/**
 * Builds the browser's code into the Worker: esbuild bundles and minifies an entry point (the
 * tracker's TypeScript, the dashboard's script or stylesheet), and the result is written as
 * string constants into a generated module the Worker imports, committed beside its sources.
 * Used by `npm run build:tracker` and `npm run build:assets`; the output depends only on the
 * sources and the pinned esbuild version.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `--check`: rebuild in memory and fail if the committed file differs (CI, a test). */
const checking = process.argv.includes('--check');

/** An entry point bundled and minified (TypeScript to an IIFE, or CSS); its code and version. */
export async function minified(entry: string): Promise<{ code: string; version: string }> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [resolve(root, entry)],
    bundle: true,
    write: false,
    minify: true,
    target: 'es2020',
    format: 'iife',
    platform: 'browser',
    charset: 'utf8',
    legalComments: 'none',
    sourcemap: false,
    logLevel: 'warning',
  });
  const output = result.outputFiles[0];
  if (!output || result.outputFiles.length !== 1)
    throw new Error('esbuild produced no single output');
  const code = output.text.trim();
  return { code, version: createHash('sha256').update(code).digest('hex').slice(0, 12) };
}

/** Bytes of `code` gzipped at level 9. */
export function gzipped(code: string): number {
  return gzipSync(code, { level: 9 }).length;
}

/** Exits 1 when `bytes` (gzipped) is over `limit`. */
export function withinBudget(what: string, bytes: number, limit: number): void {
  if (bytes <= limit) return;
  console.error(`${what} is ${bytes} bytes gzipped; the limit is ${limit}.`);
  process.exit(1);
}

/**
 * Writes the generated module `target`, or with `--check` exits 1 when the committed one is
 * not `generated`; `summary` (sizes, versions) ends the line printed either way.
 */
export function writeGenerated(
  target: string,
  generated: string,
  how: { sources: string; command: string; summary: string },
): void {
  const file = resolve(root, target);
  const name = relative(root, file);
  if (!checking) {
    writeFileSync(file, generated);
    console.log(`Wrote ${name}: ${how.summary}.`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // missing: reported as out of date below
  }
  if (committed !== generated) {
    console.error(`${name} is out of date with ${how.sources}: run \`${how.command}\`.`);
    process.exit(1);
  }
  console.log(`${name} is up to date (${how.summary}).`);
}
