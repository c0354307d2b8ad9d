/**
 * The rate limits of wrangler.toml, through the real bindings: the Worker runs under
 * `wrangler dev` with wrangler.toml as it is but for small limits (so that a test sends a
 * few requests, not hundreds), and each limiter lets exactly its configured number of
 * requests through per minute before answering 429 with Retry-After.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { configElsewhere, startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { RETRY_AFTER_SECONDS } from '../../src/lib/rate-limit.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { OWNER_PASSWORD } from '../support/owner-password.ts';
import { until } from '../support/until.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `limit` of each `[[ratelimits]]` block of a configuration, by binding name. */
function configuredLimits(toml: string): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const block of toml.split('[[ratelimits]]').slice(1)) {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const limit = /limit\s*=\s*(\d+)/.exec(block)?.[1];
    if (name && limit) limits[name] = Number(limit);
  }
  return limits;
}

/** The limits the Worker runs with here, each its own, so that a mix-up of bindings shows. */
const SMALL_LIMITS: Record<string, number> = {
  RATE_LIMIT_FORMS: 3,
  RATE_LIMIT_EVENTS: 4,
  RATE_LIMIT_API: 5,
  RATE_LIMIT_PUBLIC_READS: 2,
  RATE_LIMIT_WEBSITE_READS: 6,
  RATE_LIMIT_READS: 7,
};

/** wrangler.toml with `SMALL_LIMITS`, for a copy elsewhere. */
function withSmallLimits(toml: string): string {
  const blocks = toml.split('[[ratelimits]]');
  const changed = blocks.map((block, i) => {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const small = name ? SMALL_LIMITS[name] : undefined;
    return i === 0 || small === undefined
      ? block
      : block.replace(/limit\s*=\s*\d+/, `limit = ${small}`);
  });
  return configElsewhere(changed.join('[[ratelimits]]'));
}

let state: string;
let worker: Unstable_DevWorker;
let base: string;
let apiKey: string;
/** The limits of wrangler.toml, and those the Worker runs with here. */
let deployed: Record<string, number>;
let limits: Record<string, number>;
const SITE = 'limits.example.com';

/** The minute of the clock: the limiter's window (one count a key and minute). */
const minute = () => Math.floor(Date.now() / 60_000);

/**
 * Runs `batch`, a test's requests, inside one window of the limiter, however long it takes.
 * Windows are the clock's minutes: a batch that began and ended in the same minute was
 * counted in one window. One that straddled a minute's turn was counted in two; it runs
 * again once the minute it ended in is over, on a fresh count.
 */
async function inOneWindow<T>(batch: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const began = minute();
    const result = await batch();
    const ended = minute();
    if (began === ended) return result;
    if (attempt === 5) throw new Error('five batches in a row straddled the turn of a minute');
    await until('the next minute', () => minute() > ended, 250);
  }
}

/** Sends `count` requests, a few at a time; returns how many got each status. */
async function statuses(
  count: number,
  request: () => Promise<Response>,
): Promise<Record<number, number>> {
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

describe('rate limits under wrangler dev: the real bindings, small limits', () => {
  beforeAll(async () => {
    const toml = await readFile(join(root, 'wrangler.toml'), 'utf8');
    deployed = configuredLimits(toml);
    state = await mkdtemp(join(tmpdir(), 'sightline-limits-'));
    const config = join(state, 'wrangler.toml');
    await writeFile(config, withSmallLimits(toml));
    limits = configuredLimits(await readFile(config, 'utf8'));
    apiKey = await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'limits@example.com',
        password: OWNER_PASSWORD,
      });
      await createWebsite(db, owner.id, { domain: SITE, privacy: 0 }, suffixesOnDisk);
      return owner.apiKey;
    });
    worker = await startWorker(state, 'src/index.ts', {}, config);
    base = `http://127.0.0.1:${worker.port}`;
  });

  afterAll(async () => {
    await worker?.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('configures all seven limiters, and runs here with the small limits', () => {
    expect(Object.keys(deployed).sort()).toEqual([
      'RATE_LIMIT_ADDRESSES',
      'RATE_LIMIT_API',
      'RATE_LIMIT_EVENTS',
      'RATE_LIMIT_FORMS',
      'RATE_LIMIT_PUBLIC_READS',
      'RATE_LIMIT_READS',
      'RATE_LIMIT_WEBSITE_READS',
    ]);
    expect(limits).toEqual({ ...deployed, ...SMALL_LIMITS });
  });

  it("an anonymous reader's statistics pages per IP and website", async () => {
    const limit = limits.RATE_LIMIT_PUBLIC_READS ?? 0;
    const got = await inOneWindow(() =>
      statuses(limit + 1, () =>
        fetch(`${base}/stats/${SITE}`, { headers: { 'cf-connecting-ip': '198.51.100.77' } }),
      ),
    );
    expect(got).toEqual({ 200: limit, 429: 1 });
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
    const [got, limited] = await inOneWindow(
      async () => [await statuses(limit + 1, submit), await submit()] as const,
    );
    expect(got).toEqual({ 403: limit, 429: 1 });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    expect(await limited.text()).toContain('This form was sent too often');
  });

  it('hits per IP and website', async () => {
    const limit = limits.RATE_LIMIT_EVENTS ?? 0;
    // A browser's hits: Node's own User-Agent is a bot's, dropped before the limit.
    const browser = {
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    };
    const [got, last] = await inOneWindow(
      async () =>
        [
          await statuses(limit + 1, () =>
            fetch(`${base}/api/event`, {
              method: 'POST',
              headers: { 'content-type': 'text/plain', ...browser },
              body: JSON.stringify({ page: `https://${SITE}/` }),
            }),
          ),
          await fetch(`${base}/api/event`, {
            method: 'POST',
            headers: browser,
            body: JSON.stringify({ page: `https://${SITE}/` }),
          }),
        ] as const,
    );
    expect(got).toEqual({ 202: limit, 429: 1 });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  });

  it('API requests per key', async () => {
    const limit = limits.RATE_LIMIT_API ?? 0;
    const got = await inOneWindow(() =>
      statuses(limit + 1, () =>
        fetch(`${base}/api/v1/websites`, { headers: { authorization: `Bearer ${apiKey}` } }),
      ),
    );
    expect(got).toEqual({ 200: limit, 429: 1 });
  });
});
