/**
 * `npm run import` as a user runs it, and how it ends: done, failed, interrupted, or killed
 * without a chance to clean up (as out of memory): each time, no process of the tool's group
 * — workerd, started by wrangler's platform proxy — outlives it (scripts/lib/process-group.ts).
 * Processes are looked up with `ps`; waiting is for events (a process seen, an exit), never a
 * time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { d1File } from '../../scripts/bench/load.ts';
import { umamiExportLines } from '../../scripts/bench/umami-export.ts';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOMAIN = 'import-cli.example.com';

let state: string;
let small: string;
let large: string;

/** An Umami export of `sessions` sessions, written to `path`. */
async function umamiFile(path: string, sessions: number) {
  const out = createWriteStream(path);
  const lines = umamiExportLines({ sessions, days: 30, end: Date.parse('2026-01-01'), seed: 5 });
  for (const line of lines) if (!out.write(`${line}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sightline-import-cli-'));
  await withDatabase({ remote: false, persistTo: state }, async (db) => {
    const owner = await createOwner(db, { email: 'cli@example.com', password: 'a password' });
    await createWebsite(db, owner.id, { domain: DOMAIN, timezone: 'UTC' }, suffixesOnDisk);
  });
  small = join(state, 'small.csv');
  await umamiFile(small, 200);
  large = join(state, 'large.csv');
  await umamiFile(large, 200_000);
});

afterAll(async () => {
  for (const { pid } of running(seen)) process.kill(pid, 'SIGKILL');
  await rm(state, { recursive: true, force: true });
});

type Proc = { pid: number; ppid: number; pgid: number; stat: string; comm: string };

/** Every process of the machine that is not a zombie. */
function processes(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length >= 5 && !cells[3]?.startsWith('Z'))
    .map(([pid, ppid, pgid, stat, ...comm]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      pgid: Number(pgid),
      stat: stat as string,
      comm: comm.join(' '),
    }));
}

/** The processes descending from `pid`. */
function descendants(pid: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const children = all.filter((p) => parents.has(p.ppid));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

/** A pause between two looks with `ps` (a wait, never a measure). */
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/** The processes the tests saw running for an import: any left are killed at the end. */
const seen: number[] = [];

/** The id of the last import begun, in the local D1's file (0 before any). */
function lastImport(): number {
  // While an import writes, the file may be locked for a moment (longer on a busy machine):
  // the read waits for it rather than taking the table for missing.
  const db = new DatabaseSync(d1File(state), { readOnly: true, timeout: 10_000 });
  try {
    return Number(db.prepare('SELECT max(id) AS id FROM imports').get()?.id ?? 0);
  } catch {
    return 0; // not written yet
  } finally {
    db.close();
  }
}

/** Those of `pids` still running. */
const running = (pids: number[]) => processes().filter((p) => pids.includes(p.pid));

type Run = { child: ChildProcess; out: () => string; err: () => string; exit: Promise<number> };

/** Starts `npm run import`'s script as npm runs it (tsx), importing `file`. */
function runImport(file: string): Run {
  const child = spawn(
    join(root, 'node_modules/.bin/tsx'),
    [join(root, 'scripts/import.ts'), '--persist-to', state, '--website', DOMAIN].concat([
      '--source',
      'umami',
      '--file',
      file,
    ]),
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exit = once(child, 'exit').then(([code, signal]) => code ?? signal) as Promise<number>;
  return { child, out: () => out, err: () => err, exit };
}

/**
 * Waits until the tool's workerd runs (and, `importing`, its import has begun): the
 * processes then running for the import (the tool, its workerd, whatever else it started),
 * and the tool's parent (the process watching it). Null if the tool ended first.
 */
async function toolStarted(
  run: Run,
  { importing = false } = {},
): Promise<{ tool: number; watcher: number; pids: number[] } | null> {
  let ended = false;
  void run.exit.then(() => {
    ended = true;
  });
  const before = lastImport();
  for (;;) {
    const tree = descendants(run.child.pid as number);
    const workerd = tree.find((p) => p.comm === 'workerd');
    const tool = tree.find((p) => p.pid === workerd?.ppid);
    if (workerd && tool && (!importing || lastImport() > before)) {
      const pids = [tool.pid, ...descendants(tool.pid).map((p) => p.pid)];
      seen.push(...pids);
      return { tool: tool.pid, watcher: tool.ppid, pids };
    }
    if (ended) return null;
    await pause();
  }
}

/**
 * Waits for processes to end (killed, they are gone once their parents reap them), however
 * long that takes on a busy machine; those still running after the guard.
 */
async function ended(pids: number[]) {
  await until(`processes ${pids.join(', ')} to end`, () => running(pids).length === 0, 50).catch(
    () => undefined,
  );
  return running(pids);
}

describe('npm run import', () => {
  it('imports a file and leaves no process behind', async () => {
    const run = runImport(small);
    const started = await toolStarted(run);
    expect(await run.exit, run.err()).toBe(0);
    expect(run.out()).toMatch(/^Imported umami .* into import-cli\.example\.com: \d/);
    expect(await ended(started?.pids ?? [])).toEqual([]);
  });

  it('fails on a malformed file, naming it, and leaves no process behind', async () => {
    const bad = join(state, 'bad.csv');
    await writeFile(bad, 'session_id,created_at,url_path\ns1,yesterday,/\n');
    const run = runImport(bad);
    const started = await toolStarted(run);
    expect(await run.exit).toBe(1);
    expect(run.err()).toContain('bad.csv, line 2, column "created_at": not a time');
    expect(await ended(started?.pids ?? [])).toEqual([]);
  });

  it('killed with no chance to clean up (as when out of memory), takes workerd with it', async () => {
    const run = runImport(large);
    const started = await toolStarted(run, { importing: true });
    expect(started, run.err()).not.toBeNull();
    process.kill(started?.tool as number, 'SIGKILL');
    expect(await ended(started?.pids ?? [])).toEqual([]);
    expect(await run.exit).toBe(137);
    expect(run.err()).toContain('error: stopped by SIGKILL');
  });

  it('interrupted (SIGINT, SIGTERM), stops workerd', async () => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const run = runImport(large);
      const started = await toolStarted(run, { importing: true });
      expect(started, run.err()).not.toBeNull();
      process.kill(started?.watcher as number, signal);
      expect(await run.exit).toBe(code);
      expect(await ended(started?.pids ?? [])).toEqual([]);
    }
  });

  it('whose watcher is killed, stops workerd', async () => {
    const run = runImport(large);
    const started = await toolStarted(run, { importing: true });
    expect(started, run.err()).not.toBeNull();
    process.kill(started?.watcher as number, 'SIGKILL');
    expect(await ended(started?.pids ?? [])).toEqual([]);
  });
});
