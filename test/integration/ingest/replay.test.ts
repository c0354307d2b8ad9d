/**
 * The replay route (src/ingest/replay.ts): hits through the one ingestion entry point, for
 * `npm run dev`'s demo data. It exists only with REPLAY=on and only on localhost.
 */
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import type { Env } from '../../../src/env.ts';
import { makeOwner, makeWebsite, snapshot } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS, rollups } from '../../support/hits.ts';

const app = createApp();

function replay(origin: string, hits: unknown[], bindings: Env) {
  return app.fetch(
    new Request(`${origin}/__replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(hits),
    }),
    bindings,
  );
}

it('is the 404 of any unknown address unless REPLAY is on, and then on localhost only', async () => {
  const before = await snapshot('stats');
  const hit = {
    body: { page: 'https://anything.example/' },
    ip: '1.2.3.4',
    userAgent: CHROME_WINDOWS,
    now: 1,
  };
  for (const [origin, bindings] of [
    ['http://localhost:8787', env],
    ['https://sightline.example', { ...env, REPLAY: 'on' }],
    ['http://localhost.evil.example', { ...env, REPLAY: 'on' }],
  ] as const) {
    const res = await replay(origin, [hit], bindings);
    expect(res.status, origin).toBe(404);
  }
  expect(await snapshot('stats')).toEqual(before);
});

it('sends each hit through the ingestion entry point, with its own time, address and place', async () => {
  const { key } = await makeOwner('replay');
  const site = await makeWebsite(key, { domain: 'replayed.example.com' });
  const at = Date.parse('2026-02-03T04:05:06Z');
  const res = await replay(
    'http://localhost:8787',
    [
      {
        body: { page: `https://${site.domain}/` },
        ip: '198.51.100.1',
        userAgent: CHROME_WINDOWS,
        cf: AUSTIN,
        now: at,
      },
      {
        body: { page: `https://${site.domain}/a` },
        ip: '198.51.100.1',
        userAgent: CHROME_WINDOWS,
        cf: AUSTIN,
        now: at + 60_000,
      },
      {
        body: { page: `https://${site.domain}/` },
        ip: '198.51.100.2',
        userAgent: 'Googlebot/2.1',
        now: at,
      },
    ],
    { ...env, REPLAY: 'on' },
  );
  expect(await res.json()).toEqual({ stored: 2, dropped: { bot: 1 } });
  const r = await rollups(site.id);
  expect(r.pageviews).toEqual({ '2026-02-03': 2 });
  expect(r.visitors).toEqual({ '2026-02-03': 1 });
  expect(r.city).toEqual({ 'US:Austin, TX': 1 });
  expect(r.pageviews_hours).toEqual({ '04': 2 });
});

it('has no benchmark floor: /__floor is the 404 of any unknown address (scripts/bench/floor.ts adds it)', async () => {
  const { key } = await makeOwner('floor');
  const site = await makeWebsite(key, { domain: 'floor.example.com' });
  const res = await app.fetch(
    new Request('http://localhost:8787/__floor', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': '198.51.100.9' },
      body: JSON.stringify({ domain: site.domain }),
    }),
    { ...env, BENCH: 'on', REPLAY: 'on' } as unknown as Env,
  );
  expect(res.status).toBe(404);
});
