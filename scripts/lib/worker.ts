/** Sightline's Worker under wrangler's dev server, for the end-to-end tests and the benchmark. */
import { join } from 'node:path';
import { type Unstable_DevWorker, unstable_dev } from 'wrangler';
import { root } from './d1.ts';

/**
 * Starts `entry` (default: the real Worker) with the configuration of wrangler.toml (or of
 * `config`) on the local D1 state in `persistTo`, quietly, on 127.0.0.1 and a free port.
 * `vars` are added to the configuration's (e.g. `{ REPLAY: 'on' }` for the replay route);
 * `inspectorPort` opens the isolate's inspector there (the benchmark reads its heap).
 */
export function startWorker(
  persistTo: string,
  entry = 'src/index.ts',
  vars: Record<string, string> = {},
  config = join(root, 'wrangler.toml'),
  inspectorPort?: number,
): Promise<Unstable_DevWorker> {
  return unstable_dev(join(root, entry), {
    config,
    persistTo,
    vars,
    ...(inspectorPort ? { inspect: true, inspectorPort } : {}),
    ip: '127.0.0.1',
    logLevel: (process.env.DEBUG_WORKER ? 'log' : 'none') as 'log' | 'none',
    experimental: { disableExperimentalWarning: true },
  });
}

/**
 * The Parquet Worker (wrangler.parquet.toml, src/parquet/), which the main Worker's `PARQUET`
 * service binding reaches through wrangler's registry of local Workers: started beside it
 * wherever the event log is exported as Parquet.
 */
export function startParquetWorker(): Promise<Unstable_DevWorker> {
  return unstable_dev(join(root, 'src/parquet/parquet-worker.ts'), {
    config: join(root, 'wrangler.parquet.toml'),
    ip: '127.0.0.1',
    logLevel: (process.env.DEBUG_WORKER ? 'log' : 'none') as 'log' | 'none',
    experimental: { disableExperimentalWarning: true },
  });
}

/**
 * wrangler.toml's text for a copy kept elsewhere (a test's or the benchmark's own limits): its
 * entry point and its assets' directory named by absolute paths.
 */
export function configElsewhere(toml: string): string {
  return toml
    .replace(/^main\s*=.*$/m, `main = "${join(root, 'src/index.ts')}"`)
    .replace(/^directory\s*=.*$/m, `directory = "${join(root, 'static')}"`);
}
