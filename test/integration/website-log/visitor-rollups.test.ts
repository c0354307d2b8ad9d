/**
 * The visitors of pages and referrers in D1's roll-ups (docs/ARCHITECTURE.md, "The counting
 * model": `page_visitors`, `referrer_visitors`): for any hits over two dates, flushed between
 * them by readers at any points, an unfiltered question answered from the roll-ups equals the
 * log's answer (a filter that keeps every hit sends it there). A log whose earlier flushes did
 * not count them is answered by the log until its next flush counts them, its dates' earlier
 * events with it.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogQuery } from '../../../src/counting/query.ts';
import { createDb } from '../../../src/db/client.ts';
import { answer, isUnavailable, readerOf } from '../../../src/query/run/reader.ts';
import type { WebsiteLog } from '../../../src/website-log/object/durable-object.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const DAYS = ['2026-09-14', '2026-09-15'] as const;
const PAGES = ['/a', '/b', '/c'];
const REFERRERS = [null, 'https://news.example/', 'https://search.example/q'];

/** Pages and referrers by visitors, over `from`…`to`; `everything`: a filter keeping every hit. */
function question(from: string, to: string, everything: boolean): LogQuery {
  const group = (dimension: string) => ({
    dimensions: [dimension],
    metrics: ['visitors'],
    order: [['visitors', 'desc'] as ['visitors', 'desc']],
    limit: 100,
    offset: 0,
  });
  return {
    from,
    to,
    filters: everything
      ? [{ op: 'is_not', dimension: 'sl:browser', values: ['Nothing'], caseSensitive: true }]
      : [],
    groups: [group('sl:page'), group('sl:referrer')],
  };
}

async function ask(websiteId: number, q: LogQuery) {
  const answered = await answer(readerOf(createDb(env.DB), websiteId, env), q);
  if (isUnavailable(answered)) throw new Error('unavailable');
  return answered.map((a) => ({ rows: a.rows, total: a.total }));
}

/** The same answers from the roll-ups and from the log, over each date and both. */
async function expectSameAnswers(websiteId: number) {
  for (const [from, to] of [
    [DAYS[0], DAYS[0]],
    [DAYS[1], DAYS[1]],
    [DAYS[0], DAYS[1]],
  ] as [string, string][])
    expect(await ask(websiteId, question(from, to, false)), `${from}…${to}`).toEqual(
      await ask(websiteId, question(from, to, true)),
    );
}

/** The roll-ups' visitors of pages and referrers, as `statistic date value → visitors`. */
async function visitorRows(websiteId: number) {
  const { results } = await env.DB.prepare(
    'SELECT name, date, value, visitors FROM stats WHERE website_id = ? AND visitors <> 0',
  )
    .bind(websiteId)
    .all<{ name: string; date: string; value: string; visitors: number }>();
  return Object.fromEntries(results.map((r) => [`${r.name} ${r.date} ${r.value}`, r.visitors]));
}

const hitArb = fc.record({
  visitor: fc.integer({ min: 1, max: 4 }),
  page: fc.constantFrom(...PAGES),
  referrer: fc.constantFrom(...REFERRERS),
  event: fc.boolean(),
  /** Minutes after the hit before: a new visit after 30. */
  gap: fc.constantFrom(1, 5, 45),
  read: fc.boolean(),
});

afterAll(() => freezeAt(Date.now()));

describe('the visitors of pages and referrers, from the roll-ups', () => {
  it("equal the log's for any hits over two dates, flushed at any points", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hitArb, { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 0, max: 14 }),
        async (hits, midnight) => {
          const s = await site('visitor-rollups');
          let at = Date.parse(`${DAYS[0]}T20:00:00Z`);
          for (const [i, hit] of hits.entries()) {
            if (i === midnight) at = Date.parse(`${DAYS[1]}T06:00:00Z`);
            at += hit.gap * 60_000;
            freezeAt(at);
            const page = `https://${s.domain}${hit.page}`;
            const body = hit.event
              ? { page, event: { name: 'Signup' } }
              : { page, ...(hit.referrer ? { referrer: hit.referrer } : {}) };
            const res = await sendHit(body, { ip: `198.51.100.${hit.visitor}` });
            expect(res.status).toBe(202);
            if (hit.read) await ask(s.id, question(DAYS[0], DAYS[1], false));
          }
          await expectSameAnswers(s.id);
        },
      ),
      { numRuns: 12, seed: 7 },
    );
  });

  it('count, in a log older than them, its dates’ earlier events at its next flush', async () => {
    const s = await site('visitor-rollups-older');
    const hit = async (instant: string, path: string, ip: string, referrer?: string) => {
      freezeAt(instant);
      const page = `https://${s.domain}${path}`;
      expect((await sendHit({ page, ...(referrer ? { referrer } : {}) }, { ip })).status).toBe(202);
    };
    await hit(`${DAYS[0]}T09:00:00Z`, '/a', '198.51.100.1', 'https://news.example/');
    await hit(`${DAYS[1]}T09:00:00Z`, '/a', '198.51.100.1', 'https://news.example/');
    await hit(`${DAYS[1]}T09:05:00Z`, '/b', '198.51.100.1');
    await hit(`${DAYS[1]}T09:10:00Z`, '/a', '198.51.100.2');
    await ask(s.id, question(DAYS[0], DAYS[1], false));
    // As a log flushed before the visitors were rolled up left D1 and itself.
    await env.DB.prepare('UPDATE stats SET visitors = 0 WHERE website_id = ?').bind(s.id).run();
    await env.DB.prepare('UPDATE log_positions SET visitors_from = NULL WHERE website_id = ?')
      .bind(s.id)
      .run();
    const log = websiteLog(env, s.id);
    await runInDurableObject(log, (_: WebsiteLog, state) => {
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'visitors_counted'");
    });
    await evictDurableObject(log);
    // Until a flush counts them, the log answers.
    await expectSameAnswers(s.id);
    expect(await visitorRows(s.id)).toEqual({});

    await hit(`${DAYS[1]}T09:15:00Z`, '/c', '198.51.100.1');
    await expectSameAnswers(s.id);
    // The flush counted the date's earlier page views too; the date before stays the log's.
    expect(await visitorRows(s.id)).toEqual({
      [`page ${DAYS[1]} /a`]: 2,
      [`page ${DAYS[1]} /b`]: 1,
      [`page ${DAYS[1]} /c`]: 1,
      [`referrer ${DAYS[1]} news.example`]: 1,
    });
    const from = await env.DB.prepare(
      'SELECT visitors_from FROM log_positions WHERE website_id = ?',
    )
      .bind(s.id)
      .first<{ visitors_from: string }>();
    expect(from?.visitors_from).toBe(DAYS[1]);
  });
});
