/**
 * Nothing lost, nothing doubled (docs/ARCHITECTURE.md, The flush): a burst of 10,000 hits
 * through `POST /api/event`, 50 in flight, across four websites, while one D1 batch in ten —
 * every flush of a log is one — fails, and readers ask for statistics in the middle of it.
 * Every hit answered 202 is counted exactly once; a hit refused is counted not at all.
 */
import { env, exports } from 'cloudflare:workers';
import { afterEach, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { CHROME_WINDOWS, rollups } from '../../support/hits.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

it('10,000 hits, 50 in flight, 4 websites, one D1 flush in ten failing: each 202 counted once', async () => {
  const { key } = await makeOwner('burst');
  const sites: Awaited<ReturnType<typeof makeWebsite>>[] = [];
  for (let i = 0; i < 4; i++)
    sites.push(await makeWebsite(key, { domain: `burst-${i}.example.com` }));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const realBatch = env.DB.batch.bind(env.DB);
  let batches = 0;
  vi.spyOn(env.DB, 'batch').mockImplementation(async (statements) => {
    batches += 1;
    if (batches % 10 === 0) throw new Error('D1_ERROR: injected flush failure');
    return realBatch(statements);
  });

  const total = 10_000;
  const accepted = new Map<number, number>(sites.map((s) => [s.id, 0]));
  const statuses = new Map<number, number>();
  let readsRefused = 0;
  let next = 0;
  const today = new Date().toISOString().slice(0, 10);
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const site = sites[i % sites.length] as (typeof sites)[number];
      const res = await exports.default.fetch(
        new Request('https://sightline.test/api/event', {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'user-agent': CHROME_WINDOWS,
            'cf-connecting-ip': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
          },
          body: JSON.stringify({ page: `https://${site.domain}/p${i % 23}` }),
        }),
      );
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 202) accepted.set(site.id, (accepted.get(site.id) ?? 0) + 1);
      // Readers, now and then, flush the log before they read; some find D1 failing.
      if (i % 400 === 0) {
        const read = await call(
          `/api/v1/stats/${site.id}?name=pageviews&from=${today}&to=${today}`,
          { key },
        );
        if (read.status === 503) readsRefused++;
        else expect(read.status).toBe(200);
      }
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
  vi.mocked(env.DB.batch).mockRestore();

  // Every answer was a 202 or a clean refusal; the failures were real.
  expect([...statuses.keys()].every((s) => s === 202 || s === 503)).toBe(true);
  expect(batches).toBeGreaterThan(10);
  let counted = 0;
  for (const site of sites) {
    const views = Object.values((await rollups(site.id)).pageviews ?? {}).reduce(
      (a, b) => a + b,
      0,
    );
    expect(views, site.domain).toBe(accepted.get(site.id));
    counted += views;
  }
  expect(counted).toBe(statuses.get(202));
  expect(counted).toBeGreaterThan(0);
  // Readers met the failing flushes (and were refused rather than shown too little).
  expect(readsRefused).toBeGreaterThan(0);
});
