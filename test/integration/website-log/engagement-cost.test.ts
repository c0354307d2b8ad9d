/**
 * What an engagement writes in its website's log (docs/ARCHITECTURE.md, "Time on page and
 * scroll depth"; src/website-log/object/write/engagement.ts): only the rows it changes — its
 * page view's row when the time grew or the scroll deepened, the visit's first view of the
 * page too when the page was viewed again and the scroll deepened, and nothing for an
 * engagement that brings nothing new. The figures it leaves are those of every send.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { LogHit } from '../../../src/website-log/events.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

describe('an engagement writes only the rows it changes', () => {
  it('one row when the time grew or the scroll deepened, none for a repeat or nothing new', async () => {
    const s = await site('engagement-rows');
    const log = websiteLog(env, s.id);
    const start = Date.parse('2026-03-10T10:00:00Z');
    const at = (seconds: number, over: Partial<LogHit> = {}) =>
      logHit(s.id, { time: start + seconds * 1000, ...over });
    const engage = async (seconds: number, page: string, ms: number, scroll: number | null) => {
      const answer = await log.engage(
        at(seconds, { kind: 'engagement', page, engagement: { ms, scroll } }),
      );
      if (!answer.ok || !('engaged' in answer) || !answer.engaged)
        throw new Error('the engagement found no page view');
      return answer.cost.rowsWritten;
    };
    await record(log, at(0, { page: '/a' }));
    expect(await engage(20, '/a', 16_000, 40)).toBe(1);
    // The same totals again (a retry), or less than the page view has: nothing written.
    expect(await engage(21, '/a', 16_000, 40)).toBe(0);
    expect(await engage(22, '/a', 10_000, 30)).toBe(0);
    expect(await engage(23, '/a', 16_000, null)).toBe(0);
    // Deeper only, or longer only: its row.
    expect(await engage(40, '/a', 16_000, 70)).toBe(1);
    expect(await engage(60, '/a', 30_000, 70)).toBe(1);

    // The page viewed again in the visit: the time goes onto the last view, the scroll onto
    // the first (which keeps the deepest) — written only when deeper than the first's.
    await record(log, at(100, { page: '/b' }));
    await record(log, at(200, { page: '/a' }));
    expect(await engage(230, '/a', 20_000, 50)).toBe(1);
    expect(await engage(260, '/a', 25_000, 90)).toBe(2);
    expect(await engage(261, '/a', 25_000, 90)).toBe(0);

    const rows = await runInDurableObject(log, (_instance, state) =>
      state.storage.sql.exec('SELECT engaged, scroll FROM log ORDER BY id').toArray(),
    );
    expect(rows).toEqual([
      { engaged: 30_000, scroll: 90 },
      { engaged: null, scroll: null },
      { engaged: 25_000, scroll: null },
    ]);
  });
});
