/**
 * What was kept out is shown (docs/ARCHITECTURE.md, "Filtered traffic"): every hit a found
 * website's pipeline or log drops is counted — by local date, reason and, for a bot, name and
 * kind — in its log's memory, then in D1's `dropped_hits`, a row per counter and flush (never
 * per hit); `GET /api/v1/websites/{id}/filtered` and the Filtered traffic page show them.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fromEventBody } from '../../../src/ingest/formats.ts';
import { ingestCall } from '../../../src/ingest/ingest.ts';
import { localDateHour } from '../../../src/lib/time/dates.ts';
import { purgeDeletedWebsites } from '../../../src/maintenance/purge.ts';
import { DroppedCounts, MOST_DROPPED_KEYS } from '../../../src/website-log/object/dropped.ts';
import { openPartition, websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, db, errorOf, makeOwner, makeWebsite, NOT_FOUND, oneOf } from '../../support/api.ts';
import { signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { site } from '../../support/ingest-fixtures.ts';
import { until } from '../../support/until.ts';

afterEach(() => {
  vi.useRealTimers();
});

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDEBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const HEADLESS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';

type Filtered = {
  from: string;
  to: string;
  total: number;
  reasons: { reason: string; hits: number }[];
  bots: { name: string | null; kind: string | null; hits: number }[];
  days: {
    date: string;
    total: number;
    reasons: { reason: string; hits: number }[];
    bots: unknown[];
  }[];
};

const today = () => localDateHour(Date.now(), 'UTC').date;

/** The API's answer for a website over today. */
async function filtered(key: string, id: number, range = { from: today(), to: today() }) {
  const res = await call(`/api/v1/websites/${id}/filtered?from=${range.from}&to=${range.to}`, {
    key,
  });
  return { status: res.status, data: res.status === 200 ? (oneOf(res).data as Filtered) : null };
}

/** The API's answer once it counts `total` hits (dropped hits are counted after the answer). */
async function filteredOnce(key: string, id: number, total: number) {
  return until(`${total} dropped hits counted`, async () => {
    const { data } = await filtered(key, id);
    return data && data.total >= total ? data : null;
  });
}

describe('the counters of dropped hits', () => {
  it('count each reason, and each bot by its name and kind, per day; the API answers them', async () => {
    const s = await site('filtered', { exclude_ips: '192.0.2.7' });
    const page = `https://${s.domain}/`;
    for (const ua of [GPTBOT, GPTBOT, GPTBOT, CLAUDEBOT, GOOGLEBOT, HEADLESS])
      expect((await sendHit({ page }, { ua })).dropReason).toBe('bot');
    expect((await sendHit({ page }, { ip: '192.0.2.7' })).dropReason).toBe('excluded_ip');
    const dnt = await sendHit({ page, dnt: true }, { headers: { dnt: '1' } });
    expect(dnt.dropReason).toBe('dnt');
    const elsewhere = await sendHit({ page: 'https://elsewhere.example.net/', domain: s.domain });
    expect(elsewhere.dropReason).toBe('host_mismatch');
    // A hit counted, and one of a website that does not exist: neither is a counter.
    expect((await sendHit({ page })).dropReason).toBe(null);
    expect((await sendHit({ page: 'https://nowhere.example.net/' })).dropReason).toBe(
      'unknown_site',
    );
    const data = await filteredOnce(s.key, s.id, 9);
    expect(data.total).toBe(9);
    expect(data.reasons).toEqual([
      { reason: 'bot', hits: 6 },
      { reason: 'host_mismatch', hits: 1 },
      { reason: 'excluded_ip', hits: 1 },
      { reason: 'dnt', hits: 1 },
    ]);
    expect(data.bots).toEqual([
      { name: 'GPTBot', kind: 'ai_training', hits: 3 },
      { name: 'ClaudeBot', kind: 'ai_training', hits: 1 },
      { name: 'Googlebot', kind: 'search_engine', hits: 1 },
      { name: null, kind: null, hits: 1 },
    ]);
    expect(data.days).toHaveLength(1);
    expect(data.days[0]?.total).toBe(9);
    // Never the hits themselves: one row per counter.
    const rows = await env.DB.prepare('SELECT count(*) AS n FROM dropped_hits WHERE website_id = ?')
      .bind(s.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(7);
  });

  it("counts a visitor too fast, decided in the website's log, as the pipeline's drops", async () => {
    const s = await site('filtered-fast');
    const at = Date.now();
    const hit = (n: number) =>
      ingestCall(env, fromEventBody({ page: `https://${s.domain}/p${n}` }), {
        ip: '198.51.100.61',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
        headers: new Headers(),
        cf: undefined,
        now: at + n * 1_000,
      });
    for (let n = 0; n < 30; n++) expect(await hit(n)).toBe(null);
    expect(await hit(30)).toBe('too_fast');
    expect(await hit(31)).toBe('too_fast');
    const { data } = await filtered(s.key, s.id);
    expect(data?.reasons).toEqual([{ reason: 'too_fast', hits: 2 }]);
  });

  it('write a row per counter and flush, never a row per hit: at most 0.01 rows per dropped hit', async () => {
    const s = await site('filtered-flood');
    const crawlers = [GPTBOT, CLAUDEBOT, GOOGLEBOT];
    const hits = 600;
    for (let i = 0; i < hits; i++) {
      const reason = await ingestCall(
        env,
        fromEventBody({ page: `https://${s.domain}/p${i % 40}` }),
        {
          ip: `198.51.100.${i % 200}`,
          userAgent: crawlers[i % crawlers.length] as string,
          headers: new Headers(),
          cf: undefined,
          now: Date.now(),
        },
      );
      expect(reason).toBe('bot');
    }
    const log = websiteLog(env, s.id, openPartition(s.id));
    const cost = await log.flushDropped();
    // One row per crawler, and none in the object's storage (a timer writes them, no alarm).
    expect(cost.rowsWritten).toBe(crawlers.length);
    const perDropped = cost.rowsWritten / hits;
    console.info(`rows written per dropped hit (${hits} bot hits): ${perDropped}`);
    expect(perDropped).toBeLessThanOrEqual(0.01);
    const { data } = await filtered(s.key, s.id);
    expect(data?.total).toBe(hits);
    // Nothing held is written twice.
    expect((await log.flushDropped()).rowsWritten).toBe(0);
  });

  it('keep at most 1,000 counters in memory, written at once when full; a failed write keeps them', async () => {
    const counts = new DroppedCounts();
    const drop = (date: string) => ({
      websiteId: 1,
      date,
      reason: 'bot',
      name: 'GPTBot',
      kind: 'ai_training',
    });
    expect(counts.note(drop('2026-01-01'), 1_000)).toBe(61_000);
    expect(counts.note(drop('2026-01-01'), 2_000)).toBe(61_000);
    for (let i = 1; i < MOST_DROPPED_KEYS; i++) counts.note(drop(`2026-01-01 ${i}`), 3_000);
    expect(counts.dueAt()).toBe(0);
    const failing = {
      prepare: () => ({ bind: () => ({}) }),
      batch: () => Promise.reject(new Error('D1 is down')),
    } as unknown as D1Database;
    await expect(counts.write(failing, 5_000)).rejects.toThrow('D1 is down');
    // Kept, and tried again no sooner than 30 seconds later.
    expect(counts.dueAt()).toBe(35_000);
    const batches: string[] = [];
    const working = {
      prepare: () => ({
        bind: (_id: number, json: string) => {
          batches.push(json);
          return {};
        },
      }),
      batch: (s: unknown[]) => Promise.resolve(s.map(() => ({ meta: { rows_written: 1 } }))),
    } as unknown as D1Database;
    await counts.write(working, 40_000);
    const written = batches.flatMap(
      (b) => JSON.parse(b) as [string, string, string, string, number][],
    );
    expect(written).toHaveLength(MOST_DROPPED_KEYS);
    expect(written[0]).toEqual(['2026-01-01', 'bot', 'GPTBot', 'ai_training', 2]);
    expect(counts.dueAt()).toBe(null);
  });

  it('are written by their timer, no reader needed: at once when 1,000 are held', async () => {
    const s = await site('filtered-timer');
    const log = websiteLog(env, s.id, openPartition(s.id));
    for (let i = 0; i < MOST_DROPPED_KEYS; i++) {
      const date = `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
      const drop = { websiteId: s.id, date, reason: 'bot', name: `Crawler ${i}`, kind: 'other' };
      expect(await log.noteDropped(drop)).toEqual({ ok: true });
    }
    const written = await until('the counters written by their timer', async () => {
      const row = await env.DB.prepare(
        'SELECT count(*) AS n, sum(hits) AS hits FROM dropped_hits WHERE website_id = ?',
      )
        .bind(s.id)
        .first<{ n: number; hits: number }>();
      return row && row.n === MOST_DROPPED_KEYS ? row : null;
    });
    expect(written.hits).toBe(MOST_DROPPED_KEYS);
  });

  it("follow the website: another's is a 404, a deleted one's are purged", async () => {
    const s = await site('filtered-gone');
    const stranger = await makeOwner('filtered-stranger');
    const page = `https://${s.domain}/`;
    expect((await sendHit({ page }, { ua: GPTBOT })).dropReason).toBe('bot');
    await filteredOnce(s.key, s.id, 1);
    const res = await call(`/api/v1/websites/${s.id}/filtered?from=${today()}&to=${today()}`, {
      key: stranger.key,
    });
    expect([res.status, errorOf(res)]).toEqual([404, NOT_FOUND]);
    expect((await call(`/api/v1/websites/${s.id}`, { method: 'DELETE', key: s.key })).status).toBe(
      200,
    );
    await purgeDeletedWebsites(db());
    const left = await env.DB.prepare('SELECT count(*) AS n FROM dropped_hits WHERE website_id = ?')
      .bind(s.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it('answer a 422 for a range backwards or too long', async () => {
    const owner = await makeOwner('filtered-range');
    const w = await makeWebsite(owner.key);
    const ask = (q: string) => call(`/api/v1/websites/${w.id}/filtered?${q}`, { key: owner.key });
    expect((await ask('from=2026-02-01&to=2026-01-01')).status).toBe(422);
    expect((await ask('from=2000-01-01&to=2026-01-01')).status).toBe(422);
    expect((await ask('from=2026-01-01')).status).toBe(422);
    const empty = await filtered(owner.key, w.id, { from: '2026-01-30', to: '2026-02-02' });
    expect(empty.data).toEqual({
      from: '2026-01-30',
      to: '2026-02-02',
      total: 0,
      reasons: [],
      bots: [],
      days: ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02'].map((date) => ({
        date,
        total: 0,
        reasons: [],
        bots: [],
      })),
    });
  });
});

describe('the Filtered traffic page', () => {
  it('shows the last 30 days in a chart, by reason and by bot', async () => {
    const owner = await makeOwner('filtered-page');
    const w = await makeWebsite(owner.key, { exclude_ips: '192.0.2.9' });
    const page = `https://${w.domain}/`;
    expect((await sendHit({ page }, { ua: GPTBOT })).dropReason).toBe('bot');
    expect((await sendHit({ page }, { ip: '192.0.2.9' })).dropReason).toBe('excluded_ip');
    await filteredOnce(owner.key, w.id, 2);
    const b = await signedIn(owner);
    const res = await b.get(`/websites/${w.id}/filtered`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h2 id="filtered">Filtered traffic</h2>');
    expect(res.text).toContain('aria-current="page">Filtered traffic</a>');
    expect(res.text).toContain('<figure class="chart">');
    expect(res.text).toContain('<title id="filtered-title">Dropped hits per day</title>');
    expect(res.text).toContain('A bot, crawler or automated browser');
    expect(res.text).toContain('From an excluded IP address');
    expect(res.text).toContain('GPTBot');
    expect(res.text).toContain('AI training');
  });

  it('says so when nothing was kept out', async () => {
    const owner = await makeOwner('filtered-empty');
    const w = await makeWebsite(owner.key);
    const b = await signedIn(owner);
    const res = await b.get(`/websites/${w.id}/filtered`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('No hit was kept out over');
    expect(res.text).not.toContain('<figure class="chart">');
  });
});
