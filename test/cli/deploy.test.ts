/**
 * `npm run deploy` against a stand-in for wrangler (this machine reaches no Cloudflare
 * account): the database is created once and found by name after that, its id reaches every
 * command through a copy of the configuration and never wrangler.toml, migrations come before
 * the Worker, and the first owner is asked for. `--dry-run` is run for real (CI's bundle check).
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sightline-deploy-'));
const fake = join(dir, 'wrangler');
const calls = join(dir, 'calls.jsonl');
const state = join(dir, 'databases.json');

/** A wrangler that keeps the account's databases in a file and records every call. */
const FAKE = `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const i = args.indexOf('--config');
const config = i >= 0 ? fs.readFileSync(args[i + 1], 'utf8') : null;
fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ args, config }) + '\\n');
const dbs = fs.existsSync(${JSON.stringify(state)}) ? JSON.parse(fs.readFileSync(${JSON.stringify(state)}, 'utf8')) : [];
if (args[0] === 'd1' && args[1] === 'list') console.log(JSON.stringify(dbs));
else if (args[0] === 'd1' && args[1] === 'create') {
  dbs.push({ uuid: 'aaaaaaaa-bbbb-cccc-dddd-' + String(dbs.length).padStart(12, '0'), name: args[2] });
  fs.writeFileSync(${JSON.stringify(state)}, JSON.stringify(dbs));
  console.log('Successfully created DB');
} else if (args[0] === 'd1' && args[1] === 'execute') console.log(JSON.stringify([{ results: [{ n: 0 }] }]));
`;

type Call = { args: string[]; config: string | null };
const readCalls = (): Call[] =>
  existsSync(calls)
    ? readFileSync(calls, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Call)
    : [];

async function deploy(args: string[] = [], wrangler: string | null = fake) {
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: 'false' };
  if (wrangler) env.SIGHTLINE_WRANGLER = wrangler;
  const { stdout } = await run(
    join(root, 'node_modules/.bin/tsx'),
    [join(root, 'scripts/deploy.ts'), ...args],
    {
      cwd: root,
      env,
    },
  );
  return stdout;
}

beforeAll(() => {
  writeFileSync(fake, FAKE);
  chmodSync(fake, 0o755);
});

describe('npm run deploy', () => {
  const before = readFileSync(join(root, 'wrangler.toml'), 'utf8');

  it('creates the database once, migrates, deploys, and asks for the first owner', async () => {
    const out = await deploy();
    const first = readCalls();
    expect(first.map((c) => c.args.slice(0, 2).join(' '))).toEqual([
      'd1 list',
      'd1 create',
      'd1 list',
      'd1 migrations',
      'deploy --config',
      'deploy --config',
      'd1 execute',
    ]);
    const id = 'aaaaaaaa-bbbb-cccc-dddd-000000000000';
    // The Parquet Worker first (the main one's service binding names it), from its own file.
    expect(first[4]?.args).toEqual(['deploy', '--config', 'wrangler.parquet.toml']);
    for (const call of first.filter((c) => c.config !== null && c !== first[4]))
      expect(call.config).toContain(`database_id = "${id}"`);
    expect(first[3]?.args).toContain('--remote');
    expect(out).toContain(`D1 database ${id}.`);
    expect(out).toContain('No owner yet');
    // Run again: the same database, never a second one.
    await deploy();
    const second = readCalls().slice(first.length);
    expect(second.map((c) => c.args.slice(0, 2).join(' '))).not.toContain('d1 create');
    expect(second.filter((c) => c.args[0] === 'deploy').at(-1)?.config).toContain(
      `database_id = "${id}"`,
    );
    expect(JSON.parse(readFileSync(state, 'utf8'))).toHaveLength(1);
    // The repository is as it was: no id in wrangler.toml, no copy left behind.
    expect(readFileSync(join(root, 'wrangler.toml'), 'utf8')).toBe(before);
    expect(readdirSync(root).filter((f) => f.startsWith('.wrangler-deploy-'))).toEqual([]);
  });

  it('--dry-run builds the real Worker and checks it, uploading nothing', async () => {
    const out = await deploy(['--dry-run'], null);
    expect(out).toMatch(
      /The Worker builds and passes wrangler's checks \(nothing uploaded\)\. Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/,
    );
    // The bundle's budget: at most 250 KB gzipped (docs/BENCHMARKS.md, section 6).
    const gzipKiB = Number(/gzip: ([\d.]+) KiB/.exec(out)?.[1]);
    expect(gzipKiB * 1024).toBeLessThanOrEqual(250_000);
    // The Parquet Worker, built on its own (docs/ARCHITECTURE.md, "Exports"), is small.
    const parquetKiB = Number(
      /Parquet Worker builds too\. Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(out)?.[1],
    );
    expect(parquetKiB * 1024).toBeLessThanOrEqual(50_000);
  });
});
