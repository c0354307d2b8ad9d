/**
 * Traffic kept out (docs/ARCHITECTURE.md, "The path of a hit", "Too fast"): a visitor who sends
 * more than 30 page views within 60 seconds has that page view and every later hit of the day
 * dropped (`too_fast`), the 30 before it kept; decided by the website's log at no row of its
 * own, judged by the hits' own times, and kept across a restart of the object.
 */
import { evictDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { logHit, record } from '../../support/event-log.ts';
import { rollups, sendHit } from '../../support/hits.ts';
import { advance, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

type Site = Awaited<ReturnType<typeof site>>;

const A = '198.51.100.41';
const B = '198.51.100.42';

/** A tracker call from `ip`: its status and drop reason. */
async function send(s: Site, ip: string, body: Record<string, unknown> = {}) {
  const { status, dropReason } = await sendHit({ page: `https://${s.domain}/p`, ...body }, { ip });
  return { status, drop: dropReason };
}

const COUNTED = { status: 202, drop: null };
const TOO_FAST = { status: 202, drop: 'too_fast' };

/** The page views and custom events a website's roll-ups counted, all dates. */
async function counted(websiteId: number, date?: string) {
  const sums = await rollups(websiteId, date);
  const total = (o: Record<string, number> | undefined) =>
    Object.values(o ?? {}).reduce((a, b) => a + b, 0);
  return { pageviews: total(sums.pageviews), events: total(sums.event) };
}

describe('a visitor faster than a person', () => {
  it('keeps the first 30 page views of a minute, then drops every hit of that visitor that day', async () => {
    const s = await site('too-fast');
    freezeAt('2026-08-04T10:00:00Z');
    // 30 page views in 58 seconds: all counted.
    for (let n = 0; n < 30; n++) {
      if (n > 0) advance(2_000);
      expect(await send(s, A, { page: `https://${s.domain}/p${n}` })).toEqual(COUNTED);
    }
    // The 31st within 60 seconds of the first goes over.
    advance(1_000);
    expect(await send(s, A)).toEqual(TOO_FAST);
    // Another visitor, meanwhile, is counted.
    expect(await send(s, B)).toEqual(COUNTED);
    // Later hits of that visitor that day — slow ones too — are dropped: a page view, a
    // custom event, an engagement of a page view that was counted.
    advance(10 * MINUTE);
    expect(await send(s, A)).toEqual(TOO_FAST);
    expect(await send(s, A, { event: { name: 'signup' } })).toEqual(TOO_FAST);
    expect(
      await send(s, A, { page: `https://${s.domain}/p29`, engagement: { ms: 5_000 } }),
    ).toEqual(TOO_FAST);
    advance(5 * 60 * MINUTE);
    expect(await send(s, A, { page: `https://${s.domain}/later` })).toEqual(TOO_FAST);
    expect(await counted(s.id)).toEqual({ pageviews: 31, events: 0 });
    // The next day the visitor has another hash, and is counted again.
    freezeAt('2026-08-05T10:00:00Z');
    expect(await send(s, A)).toEqual(COUNTED);
    expect(await send(s, A, { event: { name: 'signup' } })).toEqual(COUNTED);
    expect(await counted(s.id, '2026-08-05')).toEqual({ pageviews: 1, events: 1 });
  });

  it('counts a steady 30 page views a minute, and judges by a sliding minute', async () => {
    const s = await site('too-fast-pace');
    freezeAt('2026-08-04T12:00:00Z');
    // One every two seconds for three minutes: never more than 30 within 60 seconds.
    for (let n = 0; n < 90; n++) {
      if (n > 0) advance(2_000);
      expect(await send(s, A)).toEqual(COUNTED);
    }
    // A burst after a pause: 30 counted, the next one within the minute dropped — though
    // the burst spans two clock minutes.
    advance(5 * MINUTE + 45_000);
    for (let n = 0; n < 30; n++) {
      advance(1_000);
      expect(await send(s, B)).toEqual(COUNTED);
    }
    expect(await send(s, B)).toEqual(TOO_FAST);
    expect(await counted(s.id)).toEqual({ pageviews: 120, events: 0 });
  });
});

describe('the rule in the log', () => {
  it('writes no row of its own for a page view, one mark when a visitor goes over, none after', async () => {
    const s = await site('too-fast-rows');
    const log = websiteLog(env, s.id);
    const start = Date.parse('2026-03-10T10:00:00Z');
    const at = (seconds: number, over = {}) =>
      logHit(s.id, { time: start + seconds * 1000, ...over });
    const first = await record(log, at(0));
    expect(first.newVisit).toBe(true);
    // A page view of the visit under way, of a page already seen: its event, nothing more.
    for (let n = 1; n < 30; n++)
      expect((await record(log, at(n))).cost.rowsWritten, `page view ${n + 1}`).toBe(1);
    const over = await log.record(at(30));
    expect(over).toMatchObject({ ok: true, dropped: 'too_fast', cost: { rowsWritten: 1 } });
    const after = await log.record(at(40, { kind: 'event', event: 'e', name: 'e' }));
    expect(after).toMatchObject({ ok: true, dropped: 'too_fast', cost: { rowsWritten: 0 } });
  });

  it('judges the hits by their own times (a replay), and keeps the pace and the mark across a restart', async () => {
    const s = await site('too-fast-evicted');
    const log = websiteLog(env, s.id);
    // Hits of a past day, as the replay route sends them: their own times, not the clock's.
    const start = Date.parse('2026-03-10T10:00:00Z');
    const at = (seconds: number, over = {}) =>
      logHit(s.id, { time: start + seconds * 1000, ...over });
    // A visitor's page views spread over an hour are counted, however fast they are loaded.
    for (let n = 0; n < 40; n++) await record(log, at(n * 90));
    const who = { ip: '203.0.113.77' };
    for (let n = 0; n < 20; n++) await record(log, at(4_000 + n, who));
    // The pace is read back from the events after a restart: ten more are counted, not 30.
    await evictDurableObject(log);
    for (let n = 20; n < 30; n++) await record(log, at(4_000 + n, who));
    expect(await log.record(at(4_030, who))).toMatchObject({ dropped: 'too_fast' });
    // The mark is in the visitor's row: it holds after another restart, for the rest of the day
    // (its counter written first: a timer pending keeps the object, src/website-log/object/dropped.ts).
    await log.flushDropped();
    await evictDurableObject(log);
    expect(await log.record(at(20_000, { ...who, page: '/x' }))).toMatchObject({
      dropped: 'too_fast',
    });
    const engaged = await log.engage(
      at(20_010, { ...who, kind: 'engagement', engagement: { ms: 1_000, scroll: null } }),
    );
    expect(engaged).toMatchObject({ ok: true, engaged: false, tooFast: true });
    // The other visitor goes on.
    expect((await record(log, at(20_020))).newVisit).toBe(true);
  });
});
