/**
 * The rate limits of wrangler.toml, as deployed: the Worker runs under `wrangler dev` with
 * the real configuration, and each limiter lets exactly its configured number of requests
 * through per minute before answering 429 with Retry-After.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `limit` of each `[[ratelimits]]` block of wrangler.toml, by binding name. */
async function configuredLimits(): Promise<Record<string, number>> {
  const toml = await readFile(join(root, 'wrangler.toml'), 'utf8');
  const limits: Record<string, number> = {};
  for (const block of toml.split('[[ratelimits]]').slice(1)) {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const limit = /limit\s*=\s*(\d+)/.exec(block)?.[1];
    if (name && limit) limits[name] = Number(limit);
  }
  return limits;
}

let state: string;
let worker: Unstable_DevWorker;
let base: string;
let apiKey: string;
let limits: Record<string, number>;
const SITE = 'limits.example.com';

/**
 * Sends `count` requests, a few at a time, all inside one window of the limiter: windows are
 * aligned to the clock's minutes, so a run that would cross a minute waits for the next one.
 * Returns how many requests got each status.
 */
async function statuses(
  count: number,
  request: () => Promise<Response>,
): Promise<Record<number, number>> {
  const leftInMinute = 60_000 - (Date.now() % 60_000);
  if (leftInMinute < 20_000) await new Promise((r) => setTimeout(r, leftInMinute + 250));
  const out: Record<number, number> = {};
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      const res = await request();
      await res.arrayBuffer();
      out[res.status] = (out[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return out;
}

describe('rate limits under wrangler dev with the real configuration', () => {
  beforeAll(async () => {
    limits = await configuredLimits();
    state = await mkdtemp(join(tmpdir(), 'sightline-limits-'));
    apiKey = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'limits@example.com',
        password: 'a long enough password',
      });
      await createWebsite(db, owner.id, { domain: SITE });
      return owner.apiKey;
    });
    worker = await startWorker(state);
    base = `http://127.0.0.1:${worker.port}`;
  });

  afterAll(async () => {
    await worker?.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('configures all four limiters', () => {
    expect(Object.keys(limits).sort()).toEqual([
      'RATE_LIMIT_ADDRESSES',
      'RATE_LIMIT_API',
      'RATE_LIMIT_EVENTS',
      'RATE_LIMIT_FORMS',
    ]);
  });

  it('form submissions per IP (sign-up here: no per-account throttle gets in the way)', async () => {
    const limit = limits.RATE_LIMIT_FORMS ?? 0;
    const submit = () =>
      fetch(`${base}/register`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=someone%40example.com&password=a+long+enough+password',
      });
    // Registration is closed (an owner exists): each submission is refused with 403.
    expect(await statuses(limit + 1, submit)).toEqual({ 403: limit, 429: 1 });
    const limited = await submit();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(await limited.text()).toContain('This form was sent too often');
  });

  it('hits per IP and website', async () => {
    const limit = limits.RATE_LIMIT_EVENTS ?? 0;
    const got = await statuses(limit + 1, () =>
      fetch(`${base}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ page: `https://${SITE}/` }),
      }),
    );
    expect(got).toEqual({ 202: limit, 429: 1 });
    const last = await fetch(`${base}/api/event`, {
      method: 'POST',
      body: JSON.stringify({ page: `https://${SITE}/` }),
    });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('60');
  });

  it('API requests per key', async () => {
    const limit = limits.RATE_LIMIT_API ?? 0;
    const got = await statuses(limit + 1, () =>
      fetch(`${base}/api/v1/websites`, { headers: { authorization: `Bearer ${apiKey}` } }),
    );
    expect(got).toEqual({ 200: limit, 429: 1 });
  });
});
