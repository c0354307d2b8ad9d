/** Sending hits through the Worker's real `fetch`, and reading back the roll-ups they wrote. */
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { VISITORS_OF } from '../../src/counting/statistics.ts';
import { snapshot } from './api.ts';
import { flushLog } from './ingest-fixtures.ts';

export const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
export const AUSTIN = { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX' };

export type HitOptions = {
  ip?: string;
  ua?: string;
  cf?: Record<string, unknown>;
  headers?: Record<string, string>;
  contentType?: string;
};

export async function sendHit(body: unknown, options: HitOptions = {}) {
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'text/plain',
    'user-agent': options.ua ?? CHROME_WINDOWS,
    'cf-connecting-ip': options.ip ?? '198.51.100.23',
    ...options.headers,
  };
  const res = await exports.default.fetch(
    new Request('https://sightline.test/api/event', {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      cf: options.cf ?? AUSTIN,
    } as RequestInit),
  );
  return {
    status: res.status,
    dropReason: res.headers.get('x-drop-reason'),
    headers: res.headers,
    text: await res.text(),
  };
}

/** Roll-ups of a website as `{name: {value: count}}` (all dates), or of one date. */
export async function rollups(websiteId: number, date?: string) {
  return rollupsOf(websiteId, date, false);
}

/**
 * `rollups`, and the visitors of pages and referrers kept in their rows, under the names
 * `rollupOf` gives them (`page_visitors`, `referrer_visitors`).
 */
export async function rollupsWithVisitors(websiteId: number) {
  return rollupsOf(websiteId, undefined, true);
}

async function rollupsOf(websiteId: number, date: string | undefined, withVisitors: boolean) {
  // Read-your-writes, as every reader does: the log's hits first go into D1's roll-ups.
  await flushLog(websiteId);
  const { results } = await env.DB.prepare(
    `SELECT name, date, value, count, visitors FROM stats WHERE website_id = ?${date ? ' AND date = ?' : ''} ORDER BY name, value`,
  )
    .bind(...(date ? [websiteId, date] : [websiteId]))
    .all<{ name: string; date: string; value: string; count: number; visitors: number }>();
  const out: Record<string, Record<string, number>> = {};
  const add = (name: string, value: string, count: number) => {
    out[name] ??= {};
    const bucket = out[name] as Record<string, number>;
    // A value may be any name, `constructor` included: only the bucket's own counts add up.
    bucket[value] = (Object.hasOwn(bucket, value) ? (bucket[value] as number) : 0) + count;
  };
  const visitorsOf = Object.fromEntries(
    Object.entries(VISITORS_OF).map(([visitors, of]) => [of, visitors]),
  );
  for (const r of results) {
    add(r.name, r.value, r.count);
    const visitors = visitorsOf[r.name];
    if (withVisitors && visitors !== undefined && r.visitors !== 0)
      add(visitors, r.value, r.visitors);
  }
  return out;
}

/** Sends a hit that must be dropped for `reason`, and checks that no stats row changed. */
export async function expectDropped(
  reason: string,
  ...[body, options]: Parameters<typeof sendHit>
) {
  const before = await snapshot('stats');
  const res = await sendHit(body, options);
  expect({ status: res.status, reason: res.dropReason, body: res.text }).toEqual({
    status: 202,
    reason,
    body: '',
  });
  expect(await snapshot('stats')).toEqual(before);
}
