/**
 * The Worker's bundle as `wrangler deploy` would upload it (`--dry-run`): its size raw and
 * gzipped, what each dependency weighs in it (esbuild's metafile: the bytes each input left in
 * the output), and its start-up time — the time V8 takes to load the script and run its global
 * scope, which is what Cloudflare's start-up limit measures — taken in Node's V8 with the
 * `cloudflare:` modules replaced by stand-ins, the median of fresh processes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { wrangler } from '../lib/d1.ts';

export type BundleReport = {
  raw: number;
  gzip: number;
  /** The largest parts, by package (`Sightline` for src/), in bytes of the output. */
  parts: { name: string; bytes: number }[];
  /** Median milliseconds to load the bundle and run its global scope. */
  startupMs: number;
};

/** The `cloudflare:` modules the Worker imports, as far as its global scope needs them. */
const STANDINS = `
export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint {}
export class EmailMessage { constructor(from, to, raw) { Object.assign(this, { from, to, raw }); } }
export const env = {};
`;

/** The package an input path belongs to. */
function partOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return path.startsWith('src/') ? 'Sightline (src/)' : path;
  const [first = '', second = ''] = path.slice(at + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

export async function measureBundle(runs = 7): Promise<BundleReport> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-bundle-'));
  try {
    const out = join(dir, 'out');
    const meta = join(dir, 'meta.json');
    wrangler(['deploy', '--dry-run', '--outdir', out, '--metafile', meta]);
    const script = readFileSync(join(out, 'index.js'));
    const metafile = JSON.parse(readFileSync(meta, 'utf8')) as {
      outputs: Record<string, { inputs?: Record<string, { bytesInOutput: number }> }>;
    };
    const bytes = new Map<string, number>();
    for (const output of Object.values(metafile.outputs))
      for (const [path, input] of Object.entries(output.inputs ?? {}))
        bytes.set(partOf(path), (bytes.get(partOf(path)) ?? 0) + input.bytesInOutput);
    const parts = [...bytes]
      .map(([name, n]) => ({ name, bytes: n }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 10);

    // The same script with the runtime's modules stood in for, loaded by fresh Node processes.
    const standins = join(dir, 'standins.mjs');
    writeFileSync(standins, STANDINS);
    const runnable = join(dir, 'runnable.mjs');
    await build({
      entryPoints: [join(out, 'index.js')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      minify: false,
      outfile: runnable,
      logLevel: 'error',
      plugins: [
        {
          name: 'cloudflare-standins',
          setup(b) {
            b.onResolve({ filter: /^cloudflare:/ }, () => ({ path: standins }));
            b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, external: true }));
          },
        },
      ],
    });
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const ms = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t = performance.now(); await import(${JSON.stringify(runnable)}); process.stdout.write(String(performance.now() - t));`,
        ],
        { encoding: 'utf8' },
      );
      times.push(Number(ms));
    }
    times.sort((a, b) => a - b);
    return {
      raw: statSync(join(out, 'index.js')).size,
      gzip: gzipSync(script, { level: 9 }).length,
      parts,
      startupMs: Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
