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
/** wrangler, or a stand-in named by `SIGHTLINE_WRANGLER` (the deploy script's tests). */
const wranglerBin = process.env.SIGHTLINE_WRANGLER ?? `${root}node_modules/.bin/wrangler`;

/**
 * Runs wrangler quietly: its output is shown (on stderr, so that a tool's stdout stays
 * machine-readable) only when it fails.
 */
export function wrangler(args: string[], { show = false } = {}): string {
  const result = spawnSync(wranglerBin, args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', show ? process.stderr : 'pipe', show ? process.stderr : 'pipe'],
    env: { WRANGLER_SEND_METRICS: 'false', ...process.env, CI: process.env.CI ?? 'true' },
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`wrangler ${args.join(' ')} failed (exit ${result.status})`);
  }
  return result.stdout ?? '';
}

/** wrangler.toml as the repository has it. */
const projectConfig = () => readFileSync(`${root}wrangler.toml`, 'utf8');

/** A configuration's text with its D1 binding naming database `id`. */
const withDatabaseId = (config: string, id: string) =>
  config.replace(/^database_id\s*=\s*"[^"]*"/m, `database_id = "${id}"`);

/** The name of the D1 database in wrangler.toml (`sightline`). */
const databaseName = () =>
  projectConfig().match(/^database_name\s*=\s*"([^"]+)"/m)?.[1] ?? 'sightline';

/**
 * The id of the account's D1 database of that name: looked up with `wrangler d1 list`, and
 * with `create` made first when the account has none (never a second one). The id stays out
 * of the repository: wrangler.toml keeps a placeholder, and the commands that need the real
 * one get a copy of the configuration with it (`configWithDatabase`).
 */
export function remoteDatabaseId({ create }: { create: boolean }): string {
  const name = databaseName();
  const find = () => {
    const out = wrangler(['d1', 'list', '--json']);
    const list = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1) || '[]') as {
      uuid: string;
      name: string;
    }[];
    return list.find((db) => db.name === name)?.uuid;
  };
  const found = find();
  if (found) return found;
  if (!create) fail(`no D1 database named ${name} in your Cloudflare account: run npm run deploy`);
  wrangler(['d1', 'create', name], { show: true });
  const made = find();
  if (!made) fail(`wrangler d1 create ${name} made no database that wrangler d1 list shows`);
  return made;
}

/** A copy of wrangler.toml whose D1 binding names database `id`, for one command; its path. */
export function configWithDatabase(id: string): string {
  const path = `${root}.wrangler-deploy-${process.pid}.toml`;
  writeFileSync(path, withDatabaseId(projectConfig(), id));
  return path;
}

/**
 * The configuration the tools open D1 with: wrangler.toml's compatibility settings and its D1
 * binding, nothing else. (The whole file would make the proxy start the Worker's Durable
 * Object bindings too, which it cannot serve, and say so in warnings that are no concern of a
 * tool.)
 */
function toolsConfig(remote: boolean): string {
  const config = remote
    ? withDatabaseId(projectConfig(), remoteDatabaseId({ create: false }))
    : projectConfig();
  const line = (key: string) => config.match(new RegExp(`^${key}\\s*=.*$`, 'm'))?.[0] ?? '';
  const d1 = config.match(/^\[\[d1_databases\]\][\s\S]*?(?=^\s*$|^\[)/m)?.[0] ?? '';
  // One file a process: two tools may run at once.
  const path = `${root}.wrangler-tools-${process.pid}.toml`;
  writeFileSync(
    path,
    [
      'name = "sightline-tools"',
      line('compatibility_date'),
      line('compatibility_flags'),
      d1.trimEnd(),
      // A remote binding is declared in the config.
      remote ? 'remote = true' : '',
      '',
    ].join('\n'),
  );
  return path;
}

export type Target = { remote: boolean; persistTo?: string | undefined };

/** The migrations in `drizzle/` (wrangler.toml's `migrations_dir`), by file name. */
const MIGRATIONS = readdirSync(`${root}drizzle`).filter((name) => name.endsWith('.sql'));

/**
 * The migrations of `drizzle/` the database lacks, in order (wrangler records those applied).
 * Only a database with no `d1_migrations` table has none applied. One busy for a moment (a
 * killed process's write being recovered: SQLITE_BUSY) is asked again every `wait` ms, up to
 * 100 times; any other failure is thrown — applying every migration again over tables that
 * exist would fail half-way.
 */
export async function pendingMigrations(d1: D1Database, { wait = 100 } = {}): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { results } = await d1
        .prepare('SELECT name FROM d1_migrations')
        .all<{ name: string }>();
      const applied = new Set(results.map((row) => row.name));
      return MIGRATIONS.filter((name) => !applied.has(name));
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      if (/no such table: d1_migrations/.test(message)) return MIGRATIONS;
      if (!/SQLITE_BUSY|database is locked/.test(message) || attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Applies migrations to the local database through the proxy, as `wrangler d1 migrations
 * apply --local` would — each one a transaction with its row in wrangler's `d1_migrations`
 * table, so wrangler sees them applied — in about a second instead of one local database
 * started per file. drizzle-kit separates statements with `--> statement-breakpoint`; a file
 * with a piece of several statements is left to wrangler (false).
 */
async function applyLocally(d1: D1Database, names: string[]): Promise<boolean> {
  const files = names.map((name) => ({
    name,
    statements: readFileSync(`${root}drizzle/${name}`, 'utf8')
      .split('--> statement-breakpoint')
      .map((piece) => piece.trim())
      .filter(Boolean),
  }));
  const single = (sql: string) => !sql.replace(/;\s*$/, '').includes(';');
  if (!files.every((file) => file.statements.every(single))) return false;
  await d1
    .prepare(
      'CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
    )
    .run();
  for (const file of files) {
    await d1.batch([
      ...file.statements.map((sql) => d1.prepare(sql)),
      d1.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(file.name),
    ]);
  }
  return true;
}

/**
 * Runs `fn` with a drizzle database and disposes the proxy, after applying pending migrations
 * (locally through the proxy, remotely with `wrangler d1 migrations apply`).
 * `persistTo` names another local state directory (as wrangler's `--persist-to` does).
 */
export async function withDatabase<T>(
  { remote, persistTo }: Target,
  fn: (db: Database) => Promise<T>,
): Promise<T> {
  const where = remote
    ? ['--remote']
    : ['--local', ...(persistTo ? ['--persist-to', persistTo] : [])];
  const configPath = toolsConfig(remote);
  // Loaded here, not at the top: wrangler takes seconds to load, and a tool refusing its
  // arguments should answer at once.
  const { getPlatformProxy } = await import('wrangler');
  const open = () =>
    getPlatformProxy<{ DB: D1Database }>({
      configPath,
      remoteBindings: remote,
      // wrangler keeps local state in `<persist-to>/v3` (`.wrangler/state/v3` by default); the
      // proxy takes that inner path.
      persist: { path: resolve(root, persistTo ?? '.wrangler/state', 'v3') },
    });
  try {
    let proxy = await open();
    const pending = await pendingMigrations(proxy.env.DB);
    if (pending.length > 0) {
      if (remote || !(await applyLocally(proxy.env.DB, pending))) {
        await proxy.dispose();
        wrangler(['d1', 'migrations', 'apply', 'DB', ...where, '--config', configPath]);
        proxy = await open();
      }
      const n = pending.length;
      process.stderr.write(
        `Applied ${n} migration${n === 1 ? '' : 's'} to the ${remote ? 'remote' : 'local'} database.\n`,
      );
    }
    try {
      return await fn(createDb(proxy.env.DB));
    } finally {
      await proxy.dispose();
    }
  } finally {
    rmSync(configPath, { force: true });
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
