/**
 * D1 access for the command-line tools. They run in Node, outside the Worker, and reach the
 * same database the Worker uses through wrangler's platform proxy: the local D1 under
 * `.wrangler/state` (the one `wrangler dev` serves), or with `--remote` the deployed one.
 * Queries go through the same drizzle functions as the Worker, with bound parameters.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, type Database } from '../../src/db/client.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const wranglerBin = `${root}node_modules/.bin/wrangler`;

/** Runs wrangler with its output on stderr, so that a tool's stdout stays machine-readable. */
export function wrangler(args: string[]): void {
  const result = spawnSync(wranglerBin, args, {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { WRANGLER_SEND_METRICS: 'false', ...process.env, CI: process.env.CI ?? 'true' },
  });
  if (result.status !== 0)
    throw new Error(`wrangler ${args.join(' ')} failed (exit ${result.status})`);
}

export type Target = { remote: boolean; persistTo?: string | undefined };

/** The migrations in `drizzle/` (wrangler.toml's `migrations_dir`), by file name. */
const MIGRATIONS = readdirSync(`${root}drizzle`).filter((name) => name.endsWith('.sql'));

/** Whether the database lacks a migration of `drizzle/` (wrangler records those applied). */
async function hasPendingMigrations(d1: D1Database): Promise<boolean> {
  try {
    const { results } = await d1.prepare('SELECT name FROM d1_migrations').all<{ name: string }>();
    const applied = new Set(results.map((row) => row.name));
    return MIGRATIONS.some((name) => !applied.has(name));
  } catch {
    return true; // no migrations table: nothing applied yet
  }
}

/**
 * Runs `fn` with a drizzle database and disposes the proxy, after applying pending migrations
 * with `wrangler d1 migrations apply` (only when there are any: it takes seconds).
 * `persistTo` names another local state directory (as wrangler's `--persist-to` does).
 */
export async function withDatabase<T>(
  { remote, persistTo }: Target,
  fn: (db: Database) => Promise<T>,
): Promise<T> {
  const where = remote
    ? ['--remote']
    : ['--local', ...(persistTo ? ['--persist-to', persistTo] : [])];
  let configPath = `${root}wrangler.toml`;
  if (remote) {
    // A remote binding is declared in the config; mark the DB binding remote in a copy.
    const config = readFileSync(configPath, 'utf8').replace(
      /^(binding\s*=\s*"DB"\s*)$/m,
      '$1\nremote = true',
    );
    configPath = `${root}.wrangler-remote.toml`;
    writeFileSync(configPath, config);
  }
  // Loaded here, not at the top: wrangler takes seconds to load, and a tool refusing its
  // arguments should answer at once.
  const { getPlatformProxy } = await import('wrangler');
  const open = () =>
    getPlatformProxy<{ DB: D1Database }>({
      configPath,
      remoteBindings: remote,
      // wrangler keeps local state in `<persist-to>/v3`; the proxy takes that inner path.
      persist: persistTo ? { path: resolve(persistTo, 'v3') } : true,
    });
  try {
    let proxy = await open();
    if (await hasPendingMigrations(proxy.env.DB)) {
      await proxy.dispose();
      wrangler(['d1', 'migrations', 'apply', 'DB', ...where]);
      proxy = await open();
    }
    try {
      return await fn(createDb(proxy.env.DB));
    } finally {
      await proxy.dispose();
    }
  } finally {
    if (remote) rmSync(configPath, { force: true });
  }
}

/** Prints an error for the user and exits with status 1. */
export function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/** Options every tool accepts for choosing the database. */
export const targetOptions = {
  remote: { type: 'boolean', default: false },
  'persist-to': { type: 'string' },
} as const;

/** Runs an argument parser, turning its errors (unknown option, missing value) into a clean exit. */
export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}
