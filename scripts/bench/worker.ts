/**
 * The benchmark's Worker: Sightline's own modules, run inside workerd against the same local
 * D1 database as `wrangler dev`, so that timings exclude the trip between Node and workerd.
 *
 * - `POST /bench/query` `{websiteId, name, from, to, runs, limit, byDays?}`: reads a page of
 *   a statistic from the roll-ups (`rollupSource`, the code behind the Stats API; `byDays`:
 *   from the daily rows alone) `runs` times; answers D1's rows read, the rows returned, and
 *   the latency of every run in milliseconds.
 * - `POST /bench/ingest` `[{body, req}]`: runs generated hits through the one ingestion
 *   entry point (`ingestCall`), counting the rows written per page view and event: in the
 *   websites' event logs (`Recorded.cost`) and, every `FLUSH_DELAY_MS` of the hits' own time,
 *   in D1 by the logs' flushes (as their alarms would flush); the hit path itself writes
 *   nothing to D1.
 * - `POST /bench/flush` `{websiteIds}`: flushes those logs; answers D1's rows written.
 * - `POST /bench/compact` `{now}`: compacts every complete month of every website into
 *   month and year roll-ups (`compactMonths`, as the hourly maintenance does); answers the
 *   months compacted and D1's rows written and read.
 * - `POST /bench/import` `{websiteId, columns, rows}`: appends events, in date order, to a
 *   website's log whose tables exist (made by a hit first), as already rolled up — the
 *   bench loader's events, so that the site's real object holds its year.
 * - `POST /bench/filtered` `{websiteId, name, from, to, filters, runs, limit}`: runs a
 *   filtered statistic (`WebsiteLog.statistic`, the read behind a filtered Stats API
 *   request, called as the Worker calls it) `runs` times; answers the object's rows read,
 *   the rows returned, and every run's latency in milliseconds.
 */
import { createDb } from '../../src/db/client.ts';
import type { Env as WorkerEnv } from '../../src/env.ts';
import { websiteLog } from '../../src/event-log/client.ts';
import { FLUSH_DELAY_MS } from '../../src/event-log/event-log.ts';
import type { LogHit } from '../../src/event-log/events.ts';
import { WebsiteLog as SightlineWebsiteLog } from '../../src/event-log/website-log.ts';
import { fromEventBody } from '../../src/ingest/formats.ts';
import { ingestCall } from '../../src/ingest/ingest.ts';
import { compactMonths } from '../../src/stats/compaction.ts';
import type { Filter } from '../../src/stats/filters.ts';
import type { StatName } from '../../src/stats/names.ts';
import { queryStats, type StatsPage } from '../../src/stats/queries.ts';
import { rollupSource } from '../../src/stats/source.ts';

type Env = WorkerEnv;

/** The real object, and one more method for the benchmark: `importEvents`. */
export class WebsiteLog extends SightlineWebsiteLog {
  /**
   * Appends events (columns as in the `events` table, without `id`) as already rolled up:
   * the `days` index notes where each new date starts, and the flush position moves past
   * them, so no alarm rolls them up again.
   */
  importEvents(columns: string[], rows: (string | number | null)[][]): number {
    if (!columns.every((c) => /^[a-z_]+$/.test(c))) throw new Error('bad column');
    const { sql } = this.ctx.storage;
    const insert = `INSERT INTO events (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    this.ctx.storage.transactionSync(() => {
      const last = sql.exec('SELECT coalesce(max(id), 0) AS id FROM events').one().id as number;
      for (const row of rows) sql.exec(insert, ...row);
      sql.exec(
        `INSERT INTO days (first, date)
           SELECT id, date FROM (
             SELECT id, date, lag(date) OVER (ORDER BY id) AS before FROM events WHERE id >= ?)
           WHERE id > ? AND (before IS NULL OR before != date)`,
        last,
        last,
      );
      sql.exec("INSERT OR REPLACE INTO meta (key, value) SELECT 'flushed', max(id) FROM events");
    });
    return rows.length;
  }
}

/** When each website's log last flushed, in its hits' time (the alarm's cadence). */
const lastFlush = new Map<number, number>();

/** Flushes a website's log; the D1 rows its flush wrote. */
async function flushed(env: Env, websiteId: number): Promise<number> {
  const outcome = await websiteLog(env, websiteId).flush();
  if (!outcome.ok) throw new Error(`the log of ${websiteId} did not flush`);
  return outcome.cost.rowsWritten;
}

type Tally = { hits: number; rowsWritten: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/bench/query') {
      const q = (await request.json()) as {
        websiteId: number;
        name: StatName;
        from: string;
        to: string;
        runs: number;
        limit: number;
        /** From daily rows alone, as before month and year roll-ups. */
        byDays?: boolean;
      };
      const db = createDb(env.DB);
      const samples: number[] = [];
      let last: StatsPage | undefined;
      for (let i = 0; i < q.runs; i++) {
        const started = performance.now();
        const page = {
          name: q.name,
          from: q.from,
          to: q.to,
          sortBy: 'count',
          sort: 'desc',
          limit: q.limit,
          offset: 0,
        } as const;
        // A fresh source each time: its read of the last compacted month is measured too.
        last = q.byDays
          ? await queryStats(db, { websiteId: q.websiteId, through: null, ...page })
          : await rollupSource(db, q.websiteId).page(page);
        samples.push(performance.now() - started);
      }
      return Response.json({
        rowsRead: last?.rowsRead ?? 0,
        rowsReturned: last?.rows.length ?? 0,
        distinctValues: last?.total ?? 0,
        samples,
      });
    }
    if (pathname === '/bench/ingest') {
      const hits = (await request.json()) as {
        body: Record<string, unknown>;
        req: {
          ip: string;
          userAgent: string;
          headers: Record<string, string>;
          cf: Record<string, unknown>;
          now: number;
        };
      }[];
      const written = { rows: 0 };
      // The logs' own rows, from what `record` answers (exact, SQLite's counts).
      const namespace = env.WEBSITE_LOG;
      const countingLogs = {
        idFromName: (name: string) => namespace.idFromName(name),
        get: (id: DurableObjectId) => {
          const stub = namespace.get(id);
          return new Proxy(stub, {
            get(target, prop) {
              if (prop !== 'record') return Reflect.get(target, prop, target);
              return async (hit: LogHit) => {
                const outcome = await target.record(hit);
                if (outcome.ok) written.rows += outcome.cost.rowsWritten;
                const since = lastFlush.get(hit.websiteId) ?? hit.time;
                if (!lastFlush.has(hit.websiteId)) lastFlush.set(hit.websiteId, hit.time);
                if (hit.time - since >= FLUSH_DELAY_MS) {
                  written.rows += await flushed(env, hit.websiteId);
                  lastFlush.set(hit.websiteId, hit.time);
                }
                return outcome;
              };
            },
          });
        },
      };
      // The hit path writes nothing to D1 itself: the logs' flushes do, and are counted.
      const counted = { ...env, WEBSITE_LOG: countingLogs as unknown as Env['WEBSITE_LOG'] };
      const out: Record<'pageview' | 'event' | 'dropped', Tally> = {
        pageview: { hits: 0, rowsWritten: 0 },
        event: { hits: 0, rowsWritten: 0 },
        dropped: { hits: 0, rowsWritten: 0 },
      };
      for (const { body, req } of hits) {
        const before = written.rows;
        const dropped = await ingestCall(counted, fromEventBody(body), {
          ...req,
          headers: new Headers(req.headers),
        });
        const kind = dropped ? 'dropped' : body.event ? 'event' : 'pageview';
        out[kind].hits++;
        out[kind].rowsWritten += written.rows - before;
      }
      return Response.json(out);
    }
    if (pathname === '/bench/import') {
      const q = (await request.json()) as {
        websiteId: number;
        columns: string[];
        rows: (string | number | null)[][];
      };
      const log = websiteLog(env, q.websiteId) as unknown as DurableObjectStub<WebsiteLog>;
      const imported = await log.importEvents(q.columns, q.rows);
      return Response.json({ imported });
    }
    if (pathname === '/bench/filtered') {
      const q = (await request.json()) as {
        websiteId: number;
        name: StatName;
        from: string;
        to: string;
        filters: Filter[];
        runs: number;
        limit: number;
      };
      const log = websiteLog(env, q.websiteId);
      const samples: number[] = [];
      let last: Awaited<ReturnType<typeof log.statistic>> | undefined;
      for (let i = 0; i < q.runs; i++) {
        const started = performance.now();
        last = await log.statistic({
          name: q.name,
          from: q.from,
          to: q.to,
          filters: q.filters,
          sortBy: 'count',
          sort: 'desc',
          limit: q.limit,
          offset: 0,
        });
        samples.push(performance.now() - started);
      }
      if (!last?.ok) throw new Error('the log did not answer');
      return Response.json({
        rowsRead: last.rowsRead,
        rowsReturned: last.value.rows.length,
        distinctValues: last.value.total,
        samples,
      });
    }
    if (pathname === '/bench/flush') {
      const { websiteIds } = (await request.json()) as { websiteIds: number[] };
      let rowsWritten = 0;
      for (const id of websiteIds) rowsWritten += await flushed(env, id);
      return Response.json({ rowsWritten });
    }
    if (pathname === '/bench/compact') {
      // The hourly maintenance's compaction, run until no website has a month left.
      const { now } = (await request.json()) as { now: number };
      const db = createDb(env.DB);
      const total = { months: 0, rowsWritten: 0, rowsRead: 0 };
      for (;;) {
        const run = await compactMonths(db, now);
        if (run.websites === 0) break;
        total.months += run.months;
        total.rowsWritten += run.rowsWritten;
        total.rowsRead += run.rowsRead;
      }
      return Response.json(total);
    }
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<Env>;
