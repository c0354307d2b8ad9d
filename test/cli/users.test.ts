/**
 * The owner CLI as a user runs it: the real scripts in Node against a local D1 state
 * directory, then the keys they printed checked against the real Worker served by wrangler.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../scripts/lib/worker.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let state: string;

async function cli(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'scripts', script), ...args, '--persist-to', state],
      {
        cwd: root,
        env: {
          ...process.env,
          WRANGLER_SEND_METRICS: 'false',
          CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sightline-cli-'));
});
afterAll(async () => {
  await rm(state, { recursive: true, force: true });
});

describe('user:create and user:rotate-key', () => {
  let created: { id: number; email: string; api_key: string };
  let rotated: { id: number; email: string; api_key: string };

  it('creates an owner and prints exactly one JSON line with --json', async () => {
    const res = await cli('user-create.ts', [
      '--email',
      'CLI.Owner@Example.com',
      '--password',
      'a good password',
      '--json',
    ]);
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    // The new database's migrations in one line, and no warning (docs: the first run).
    const migrations = readdirSync(join(root, 'drizzle')).filter((f) => f.endsWith('.sql'));
    expect(res.stderr).toBe(`Applied ${migrations.length} migrations to the local database.\n`);
    created = JSON.parse(lines[0] ?? '');
    expect(Object.keys(created)).toEqual(['id', 'email', 'api_key']);
    expect(created).toEqual({
      id: 1,
      email: 'cli.owner@example.com',
      api_key: expect.stringMatching(/^sl_[A-Za-z0-9_-]{43}$/),
    });
  });

  it('prints the key once in plain text without --json', async () => {
    const res = await cli('user-create.ts', [
      '--email',
      'second@example.com',
      '--password',
      'another password',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^Created owner 2 <second@example\.com>\.\nAPI key .*\nsl_[A-Za-z0-9_-]{43}\n$/,
    );
  });

  it.each([
    [
      ['--email', 'cli.owner@example.com', '--password', 'a good password'],
      'An owner with this email already exists.',
    ],
    [
      ['--email', 'not-an-email', '--password', 'a good password'],
      'The email field must be a valid email address.',
    ],
    [
      ['--email', 'x@example.com', '--password', 'short'],
      'The password field must be at least 8 characters.',
    ],
    [['--email', 'x@example.com'], 'usage: npm run user:create'],
    [
      ['--email', 'x@example.com', '--password', 'a good password', '--bogus'],
      "Unknown option '--bogus'",
    ],
  ])('refuses %j with exit 1 and a message on stderr', async (args, message) => {
    const res = await cli('user-create.ts', args);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(message);
  });

  it('rotates a key and prints one JSON line', async () => {
    const res = await cli('user-rotate-key.ts', ['--email', 'cli.owner@example.com', '--json']);
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    rotated = JSON.parse(lines[0] ?? '');
    expect(rotated).toEqual({
      id: 1,
      email: 'cli.owner@example.com',
      api_key: expect.stringMatching(/^sl_/),
    });
    expect(rotated.api_key).not.toBe(created.api_key);
  });

  it('refuses to rotate the key of an unknown owner', async () => {
    const res = await cli('user-rotate-key.ts', ['--email', 'nobody@example.com', '--json']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('no owner with email nobody@example.com');
  });

  it('the Worker accepts the new key and refuses the rotated one', async () => {
    const worker = await startWorker(state);
    try {
      const auth = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
      const fresh = await worker.fetch('/api/v1/websites', auth(rotated.api_key));
      expect(fresh.status).toBe(200);
      expect(await fresh.json()).toMatchObject({ data: [], meta: { total: 0 } });
      const old = await worker.fetch('/api/v1/websites', auth(created.api_key));
      expect(old.status).toBe(401);
    } finally {
      await worker.stop();
    }
  });
});
