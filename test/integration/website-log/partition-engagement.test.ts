/**
 * An engagement sent back to a closed partition (docs/ARCHITECTURE.md, "When a website
 * outgrows one object") is rolled up at once, as a hit sent back is: the roll-ups and the log
 * agree on the next read, not after the partition's alarm.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import type { Env } from '../../../src/env.ts';
import { call, oneOf } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const app = createApp();
const partitioned = { ...env, LOG_PARTITION_EVENTS: '2' } as unknown as Env;
let s: Awaited<ReturnType<typeof site>>;

async function send(body: Record<string, unknown>, ip: string) {
  const request = new Request('https://sightline.test/api/event', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS, 'cf-connecting-ip': ip },
    body: JSON.stringify(body),
    cf: AUSTIN,
  } as RequestInit);
  const res = await app.fetch(request, partitioned);
  return { status: res.status, drop: res.headers.get('x-drop-reason') };
}

const V = '198.51.100.30';

beforeAll(async () => {
  s = await site('partition-engagement');
  // 2026-07-01 (UTC): three page views, past the partition's two events.
  freezeAt('2026-07-01T23:40:00Z');
  expect(await send({ page: `https://${s.domain}/a` }, '198.51.100.31')).toEqual({
    status: 202,
    drop: null,
  });
  expect(await send({ page: `https://${s.domain}/a` }, '198.51.100.32')).toEqual({
    status: 202,
    drop: null,
  });
  freezeAt('2026-07-01T23:50:00Z');
  expect(await send({ page: `https://${s.domain}/a` }, V)).toEqual({ status: 202, drop: null });
  // 2026-07-02: the first partition closes, a second takes the day.
  freezeAt('2026-07-02T00:05:00Z');
  expect(await send({ page: `https://${s.domain}/b` }, '198.51.100.33')).toEqual({
    status: 202,
    drop: null,
  });
  // Read once: the closed partition has flushed since it closed, and is not asked again.
  expect(await summary()).toBe(0);
});

const range = 'from=2026-07-01&to=2026-07-01';
/** The day's visit duration: from the roll-ups, or (a filter that keeps everything) the log. */
const summary = async (filter = '') => {
  const res = await call(`/api/v1/stats/${s.id}/summary?${range}${filter}`, { key: s.key });
  expect(res.status, res.text).toBe(200);
  return (res.json as { data: { visit_duration: number } }).data.visit_duration;
};

describe('an engagement of a closed partition’s page view', () => {
  it('is in the roll-ups at the next read, as in the log', async () => {
    // New York is four hours behind: 2026-07-01 there, the closed partition's date.
    const moved = await call(`/api/v1/websites/${s.id}`, {
      method: 'PATCH',
      key: s.key,
      body: { form: { timezone: 'America/New_York' } },
    });
    expect(moved.status).toBe(200);
    freezeAt('2026-07-02T00:10:00Z');
    const engagement = { page: `https://${s.domain}/a`, engagement: { ms: 600_000 } };
    expect(await send(engagement, V)).toEqual({ status: 202, drop: null });
    const storage = oneOf(await call(`/api/v1/websites/${s.id}/storage`, { key: s.key })).data as {
      partitions: { closed: boolean }[];
    };
    expect(storage.partitions.map((p) => p.closed)).toEqual([true, false]);
    const fromLog = await summary('&filter[browser][not]=Nothing');
    // Three visits of the day, one of them 600 s: 200 s on average.
    expect(fromLog).toBe(200);
    expect(await summary()).toBe(fromLog);
  });
});
