/**
 * The benchmark's Worker: Sightline's own modules, run inside workerd against the same local
 * D1 database as `wrangler dev`, so that timings exclude the trip between Node and workerd.
 *
 * - `POST /bench/query` `{websiteId, name, from, to, runs, limit, byDays?}`: reads a page of
 *   a statistic from the roll-ups (`rollupSource`, the code behind the Stats API; `byDays`:
 *   from the daily rows alone) `runs` times; answers D1's rows read, the rows returned, and
 *   the latency of every run in milliseconds.
 * - `POST /bench/ingest` `[{body, req}]`: runs generated hits through the one ingestion
 *   entry point (`ingestCall`), counting per kind of hit (page view, event, engagement,
 *   dropped) the requests to the Worker and to the logs and the rows written and read: in the
 *   websites' event logs (`Recorded.cost`, an engagement's `Engaged.cost`) and, when the log's
 *   policy says so in the hits' own time (`flushDueAt`: enough events waiting, or the oldest a
 *   day old), in D1 by the logs' flushes (as their alarms would flush); the hit path itself
 *   writes nothing to D1.
 * - `POST /bench/flush` `{websiteIds}`: flushes those logs; answers D1's rows written and read
 *   (those of the counters of dropped hits apart: `droppedRowsWritten`, `droppedRowsRead`).
 * - `POST /bench/compact` `{now}`: compacts every complete month of every website into
 *   month and year roll-ups (`compactMonths`, as the hourly maintenance does); answers the
 *   months compacted and D1's rows written and read.
 * - `POST /bench/import` `{websiteId, rows}`: appends events, in date order, to a website's
 *   log whose tables exist (made by a hit first), as already rolled up — the bench loader's
 *   events, their texts encoded by the object's own dictionary, so that the site's real
 *   object holds its year. With `partition` (the scale runs: scripts/bench/scale.ts): into that
 *   partition of the website's log, its tables made by the first import, closed after the
 *   batch when `close` says, its row of the directory (`log_positions`) written as its
 *   flushes would.
 * - `POST /bench/scale`: a question asked of a website whose log is spread over partitions:
 *   the whole answer, the critical path, or the same question again (./scale-reads.ts).
 * - `POST /bench/engine` `{websiteId, question, runs}`: asks the query engine a question
 *   (src/query/run/reader.ts `answer`: the roll-ups or the website's real object, as the
 *   Stats APIs ask) `runs` times; answers the first grouping's rows read (D1's or the
 *   object's), rows returned and rows in all, and every run's latency in milliseconds.
 * - `POST /bench/flows` `{websiteId, funnel | journey, runs}`: asks the website's log a
 *   funnel's or a journey's question (src/website-log/object/read/flows.ts) `runs` times; answers the
 *   rows read, the steps or paths returned, the first step's visitors or the paths in all,
 *   and every run's latency.
 */

import type { FunnelQuery, JourneyQuery } from '../../src/counting/flow-queries.ts';
import type { LogQuery } from '../../src/counting/query.ts';
import type { StatName } from '../../src/counting/statistics.ts';
import { createDb } from '../../src/db/client.ts';
import type { Env as WorkerEnv } from '../../src/env.ts';
import { fromEventBody } from '../../src/ingest/formats.ts';
import { ingestCall } from '../../src/ingest/ingest.ts';
import { dateOfDay } from '../../src/lib/time/dates.ts';
import { rollupSource } from '../../src/query/present/numbers.ts';
import { answer, isUnavailable, readerOf } from '../../src/query/run/reader.ts';
import { compactMonths } from '../../src/rollups/compaction.ts';
import { queryStats, type StatsPage } from '../../src/rollups/sums.ts';
import type { LogHit } from '../../src/website-log/events.ts';
import { DROPPED_WITHIN_MS, type DroppedHit } from '../../src/website-log/object/dropped.ts';
import {
  logOver,
  WebsiteLog as SightlineWebsiteLog,
} from '../../src/website-log/object/durable-object.ts';
import { flushDueAt, type Waiting } from '../../src/website-log/object/flush.ts';
import { forgetAnswers } from '../../src/website-log/object/read/answer-cache.ts';
import { noteDayStart } from '../../src/website-log/object/tables/days.ts';
import { Dictionary } from '../../src/website-log/object/tables/dictionary.ts';
import { LogDb } from '../../src/website-log/object/tables/log-db.ts';
import { insertEvent, type VisitorValues } from '../../src/website-log/object/tables/rows.ts';
import { createTables, nextEventId } from '../../src/website-log/object/tables/versions.ts';
import { websiteLog } from '../../src/website-log/worker/partitions.ts';
import { type ScaleAsk, scaleRead } from './scale-reads.ts';

type Env = WorkerEnv;

/** A loaded event, its texts as texts: what `/bench/import` takes (scripts/bench.ts reads them). */
export type ImportedEvent = {
  kind: number;
  time: number;
  day: number;
  hour: number;
  visitor: number;
  visit: number;
  firsts: number;
  page: string;
  event: string | null;
  visit_views: number | null;
  previous_page: string | null;
  visit_seconds: number;
  visit_hour: number | null;
  landing: string | null;
  referrer: string;
  campaign: string | null;
  visitor_hour: number;
  hostname: string | null;
  name: string | null;
  landing_host: string | null;
  source: string | null;
  channel: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_content: string | null;
  utm_term: string | null;
  browser_version: string | null;
  os_version: string | null;
  region: string | null;
} & VisitorTexts;

type VisitorTexts = Pick<
  VisitorValues,
  'country' | 'continent' | 'city' | 'language' | 'browser' | 'os' | 'device' | 'resolution'
>;

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The real object, and one more method for the benchmark: `importEvents`. */
export class WebsiteLog extends SightlineWebsiteLog {
  /**
   * Appends events as already rolled up, each with the next id: the `days` index notes where
   * each new date starts, and the flush position moves past them, so no alarm rolls them up
   * again; answers them and the new position. The log is then reopened, as after a restart.
   */
  importEvents(
    rows: ImportedEvent[],
    into?: { websiteId: number; partition: number; close: boolean },
  ): { imported: number; position: number; bytes: number } {
    const db = new LogDb(this.ctx.storage.sql);
    const dict = new Dictionary(db);
    this.ctx.storage.transactionSync(() => {
      // A partition's first import makes its tables, as its first hit would.
      if (into && !db.hasTable('meta')) {
        createTables(db);
        db.setMeta('website', into.websiteId);
      }
      if (into) db.setMeta('partition', into.partition);
      let id = nextEventId(db);
      let newest = db.rows<{ date: string }>('SELECT date FROM days ORDER BY first DESC LIMIT 1')[0]
        ?.date;
      for (const r of rows) {
        const date = dateOfDay(r.day);
        const {
          visitor_hour,
          country,
          continent,
          city,
          language,
          browser,
          os,
          device,
          resolution,
        } = r;
        const visitor = {
          hour: pad2(visitor_hour),
          country,
          continent,
          city,
          language,
          browser,
          os,
          device,
          resolution,
          browserVersion: r.browser_version,
          osVersion: r.os_version,
          region: r.region,
        };
        const acquisition = {
          source: r.source ?? '',
          channel: r.channel ?? '',
          utmSource: r.utm_source,
          utmMedium: r.utm_medium,
          utmContent: r.utm_content,
          utmTerm: r.utm_term,
        };
        const hit = {
          ...visitor,
          websiteId: 0,
          kind: r.kind === 1 ? ('event' as const) : ('pageview' as const),
          time: r.time,
          date,
          hour: pad2(r.hour),
          ip: '',
          userAgent: '',
          page: r.page,
          referrer: r.referrer,
          campaign: r.campaign,
          event: r.event,
          hostname: r.hostname ?? '',
          name: r.name ?? '',
          ...acquisition,
        };
        const visit =
          r.visit_hour === null || r.landing === null
            ? null
            : {
                hour: pad2(r.visit_hour),
                landing: r.landing,
                landingHost: r.landing_host ?? '',
                referrer: r.referrer,
                campaign: r.campaign,
                ...acquisition,
              };
        insertEvent(
          db,
          dict,
          id,
          hit,
          {
            visitor: r.visitor,
            visit: r.visit,
            newVisitor: (r.firsts & 1) === 1,
            newVisit: (r.firsts & 2) === 2,
          },
          {
            visitViews: r.visit_views,
            previousPage: r.previous_page,
            visitSeconds: r.visit_seconds,
          },
          { visitor, visit },
        );
        if (date !== newest) {
          noteDayStart(db, id, date);
          newest = date;
        }
        id++;
      }
      db.setMeta('flushed', id - 1);
      if (into?.close) db.setMeta('closed', 1);
    });
    // The object's memory (its next id above all) is read again from what was written.
    this.log = logOver(this.ctx, this.env);
    return { imported: rows.length, position: db.meta('flushed'), bytes: db.bytes };
  }

  /** Forgets the answers this partition keeps, so that the next read is read again. */
  forgetKept(): void {
    const db = new LogDb(this.ctx.storage.sql);
    if (db.hasTable('answers')) forgetAnswers(db);
  }
}

/** The events waiting for each website's flush, in its hits' time (the alarm's policy). */
const waiting = new Map<number, Waiting>();
/**
 * When, in the hits' own time, the oldest counter of dropped hits each website's log holds was
 * started: they are written once it has waited `DROPPED_WITHIN_MS`, as the log's timer would
 * (src/website-log/object/dropped.ts).
 */
const droppedSince = new Map<number, number>();

/** Writes the counters of dropped hits a website's log holds: D1's rows written and read. */
async function flushedDrops(env: Env, websiteId: number) {
  droppedSince.delete(websiteId);
  return (websiteLog(env, websiteId) as unknown as DurableObjectStub<WebsiteLog>).flushDropped();
}

/** Flushes a website's log; the D1 rows its flush wrote and read. */
async function flushed(
  env: Env,
  websiteId: number,
): Promise<{ rowsWritten: number; rowsRead: number }> {
  const outcome = await websiteLog(env, websiteId).flush();
  if (!outcome.ok) throw new Error(`the log of ${websiteId} did not flush`);
  waiting.delete(websiteId);
  return { rowsWritten: outcome.cost.rowsWritten, rowsRead: outcome.cost.rowsRead };
}

/**
 * What the hits of one kind cost: requests to the Worker and to the logs, rows written and
 * read, in the logs and in D1.
 */
type Tally = {
  hits: number;
  /** Requests to the Worker: every hit, engagements (which count as no hit) included. */
  requests: number;
  /** Calls to a website's log (a Durable Object request each): a hit's, an engagement's. */
  objectRequests: number;
  rowsWritten: number;
  objectRowsWritten: number;
  objectRowsRead: number;
  d1RowsWritten: number;
  d1RowsRead: number;
  flushes: number;
};

const tally = (): Tally => ({
  hits: 0,
  requests: 0,
  objectRequests: 0,
  rowsWritten: 0,
  objectRowsWritten: 0,
  objectRowsRead: 0,
  d1RowsWritten: 0,
  d1RowsRead: 0,
  flushes: 0,
});

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
      const cost = tally();
      /** The time of the hit being ingested (a dropped hit's counter is written by its time). */
      let hitTime = 0;
      // The logs' own rows, from what `record` answers (exact, SQLite's counts); the flushes'
      // when the log's policy says, in the hits' own time.
      const namespace = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
      const countingLogs = {
        idFromName: (name: string) => namespace.idFromName(name),
        get: (id: DurableObjectId) => {
          const stub = namespace.get(id);
          return new Proxy(stub, {
            get(target, prop) {
              // A dropped hit's one call; its counters written by the log's policy, in the
              // hits' own time: D1's rows, and no row of the log's (a timer writes them).
              if (prop === 'noteDropped')
                return async (hit: DroppedHit) => {
                  cost.objectRequests += 1;
                  const since = droppedSince.get(hit.websiteId);
                  if (since !== undefined && hitTime - since >= DROPPED_WITHIN_MS) {
                    const rows = await flushedDrops(env, hit.websiteId);
                    cost.d1RowsWritten += rows.rowsWritten;
                    cost.d1RowsRead += rows.rowsRead;
                    cost.flushes += 1;
                  }
                  if (!droppedSince.has(hit.websiteId)) droppedSince.set(hit.websiteId, hitTime);
                  return target.noteDropped(hit);
                };
              if (prop === 'engage')
                return async (hit: LogHit) => {
                  cost.objectRequests += 1;
                  const outcome = await target.engage(hit);
                  if (!outcome.ok) return outcome;
                  cost.objectRowsWritten += outcome.cost.rowsWritten;
                  cost.objectRowsRead += outcome.cost.rowsRead;
                  return outcome;
                };
              if (prop !== 'record') return Reflect.get(target, prop, target);
              return async (hit: LogHit) => {
                cost.objectRequests += 1;
                const outcome = await target.record(hit);
                if (!outcome.ok) return outcome;
                cost.objectRowsWritten += outcome.cost.rowsWritten;
                cost.objectRowsRead += outcome.cost.rowsRead;
                if ('dropped' in outcome) return outcome;
                const due = waiting.get(hit.websiteId) ?? { count: 0, oldest: null };
                due.count += 1;
                due.oldest ??= hit.time;
                waiting.set(hit.websiteId, due);
                const at = flushDueAt(due);
                if (at !== null && at <= hit.time) {
                  const rows = await flushed(env, hit.websiteId);
                  cost.d1RowsWritten += rows.rowsWritten;
                  cost.d1RowsRead += rows.rowsRead;
                  cost.flushes += 1;
                }
                return outcome;
              };
            },
          });
        },
      };
      // The hit path writes nothing to D1 itself: the logs' flushes do, and are counted.
      const counted = { ...env, WEBSITE_LOG: countingLogs as unknown as Env['WEBSITE_LOG'] };
      const out: Record<'pageview' | 'event' | 'engagement' | 'dropped', Tally> = {
        pageview: tally(),
        event: tally(),
        engagement: tally(),
        dropped: tally(),
      };
      for (const { body, req } of hits) {
        const before = { ...cost };
        hitTime = req.now;
        const dropped = await ingestCall(counted, fromEventBody(body), {
          ...req,
          headers: new Headers(req.headers),
        });
        // An engagement is a kind of its own: it adds no page view, but its requests and rows.
        const kind = dropped
          ? 'dropped'
          : body.event
            ? 'event'
            : body.engagement
              ? 'engagement'
              : 'pageview';
        const into = out[kind];
        into.hits++;
        into.requests++;
        for (const key of [
          'objectRequests',
          'objectRowsWritten',
          'objectRowsRead',
          'd1RowsWritten',
          'd1RowsRead',
          'flushes',
        ] as const)
          into[key] += cost[key] - before[key];
        into.rowsWritten = into.objectRowsWritten + into.d1RowsWritten;
      }
      return Response.json(out);
    }
    if (pathname === '/bench/import') {
      const q = (await request.json()) as {
        websiteId: number;
        rows: ImportedEvent[];
        /** Into this partition of the website's log (scale runs), closing it after (`close`). */
        partition?: number;
        close?: boolean;
      };
      if (q.partition === undefined) {
        const log = websiteLog(env, q.websiteId) as unknown as DurableObjectStub<WebsiteLog>;
        const { imported, position } = await log.importEvents(q.rows);
        // D1 holds the roll-ups of these events already (the loader wrote them): its position
        // moves with the log's, or the log's next flush would find D1 behind and roll them up
        // again (docs/ARCHITECTURE.md, "The flush").
        await env.DB.prepare(
          'UPDATE log_positions SET position = ? WHERE website_id = ? AND partition = 0',
        )
          .bind(position, q.websiteId)
          .run();
        return Response.json({ imported });
      }
      const { partition, close = false } = q;
      const log = websiteLog(
        env,
        q.websiteId,
        partition,
      ) as unknown as DurableObjectStub<WebsiteLog>;
      const { imported, position, bytes } = await log.importEvents(q.rows, {
        websiteId: q.websiteId,
        partition,
        close,
      });
      // The directory, as the partition's flushes would have written it (no roll-ups: the
      // scale runs read the log alone).
      const dates = q.rows.map((r) => dateOfDay(r.day)).sort();
      await env.DB.prepare(
        `INSERT INTO log_positions (website_id, partition, position, first_date, last_date, events, bytes, closed)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        ON CONFLICT (website_id, partition) DO UPDATE SET position = ?3,
          first_date = coalesce(first_date, ?4), last_date = ?5, events = events + ?6, bytes = ?7,
          closed = ?8`,
      )
        .bind(
          q.websiteId,
          partition,
          position,
          dates[0] ?? null,
          dates.at(-1) ?? null,
          imported,
          bytes,
          close ? 1 : 0,
        )
        .run();
      return Response.json({ imported, bytes });
    }
    if (pathname === '/bench/scale')
      return scaleRead(env, (await request.json()) as ScaleAsk, (websiteId, partition) =>
        (
          websiteLog(env, websiteId, partition) as unknown as DurableObjectStub<WebsiteLog>
        ).forgetKept(),
      );
    if (pathname === '/bench/engine') {
      const q = (await request.json()) as { websiteId: number; question: LogQuery; runs: number };
      const reader = readerOf(createDb(env.DB), q.websiteId, env);
      const samples: number[] = [];
      let last: Awaited<ReturnType<typeof answer>> | undefined;
      for (let i = 0; i < q.runs; i++) {
        const started = performance.now();
        last = await answer(reader, q.question);
        samples.push(performance.now() - started);
      }
      if (!last || isUnavailable(last)) throw new Error('the engine did not answer');
      const [first] = last;
      return Response.json({
        rowsRead: first?.rowsRead ?? 0,
        rowsReturned: first?.rows.length ?? 0,
        distinctValues: first?.total ?? 0,
        samples,
      });
    }
    if (pathname === '/bench/flows') {
      // A funnel's or a journey's question asked of the site's log `runs` times.
      const q = (await request.json()) as {
        websiteId: number;
        funnel?: FunnelQuery;
        journey?: JourneyQuery;
        runs: number;
      };
      const log = websiteLog(env, q.websiteId);
      const samples: number[] = [];
      let last: { rowsRead: number; rowsReturned: number; distinctValues: number } | undefined;
      for (let i = 0; i < q.runs; i++) {
        const started = performance.now();
        const read = q.funnel
          ? await log.funnel(q.funnel)
          : await log.journeys(q.journey as JourneyQuery);
        samples.push(performance.now() - started);
        if (!read.ok) throw new Error('the log did not answer');
        const value = read.value;
        last = Array.isArray(value)
          ? { rowsRead: read.rowsRead, rowsReturned: value.length, distinctValues: value[0] ?? 0 }
          : {
              rowsRead: read.rowsRead,
              rowsReturned: value.rows.length,
              distinctValues: value.total,
            };
      }
      return Response.json({ ...last, samples });
    }
    if (pathname === '/bench/flush') {
      const { websiteIds } = (await request.json()) as { websiteIds: number[] };
      const total = { rowsWritten: 0, rowsRead: 0, droppedRowsWritten: 0, droppedRowsRead: 0 };
      for (const id of websiteIds) {
        // The counters of dropped hits apart: what the run's dropped hits cost.
        const drops = await flushedDrops(env, id);
        total.droppedRowsWritten += drops.rowsWritten;
        total.droppedRowsRead += drops.rowsRead;
        const rows = await flushed(env, id);
        total.rowsWritten += rows.rowsWritten;
        total.rowsRead += rows.rowsRead;
      }
      return Response.json(total);
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
