/**
 * `npm run bench`: how fast and how cheap Sightline is, measured in one run on this machine,
 * published in docs/BENCHMARKS.md and docs/benchmarks.json.
 *
 *   npm run bench                 # the default run: a site with ≥ 1,000,000 page views
 *   npm run bench -- --quick      # a small run for development (< 2 minutes)
 *   npm run bench -- --pageviews 2000000 --pages 20000 --runs 30 --duration 30
 *
 * Options (sizes are parameters): --pageviews N (page views to generate, at least), --pages N
 * (distinct pages), --days N (days of traffic), --seed N, --runs N (runs of each stats
 * query), --duration S (seconds of load per route), --concurrency N, --cost-days N (days of
 * traffic whose writes are counted), --out DIR (where the report goes; default docs),
 * --render-only (rewrite BENCHMARKS.md from the JSON of the last run, measuring nothing).
 *
 * Steps: generated traffic is loaded through the real ingestion code (scripts/bench/load.ts);
 * reads and per-hit writes are measured in workerd against local D1 (scripts/bench/worker.ts);
 * the loaded events are imported into the site's real Durable Object and filtered reads are
 * measured there; ingestion throughput is measured against `wrangler dev` serving the real
 * Worker.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { FLUSH_DELAY_MS } from '../src/event-log/event-log.ts';
import { type Filter, filterParam } from '../src/stats/filters.ts';
import { STAT_NAMES, type StatName } from '../src/stats/names.ts';
import { createBenchSite, d1File, loadInParallel } from './bench/load.ts';
import { type BenchReport, renderMarkdown } from './bench/report.ts';
import { root, wrangler } from './lib/d1.ts';
import { type GeneratedHit, type TrafficOptions, trafficDays } from './lib/traffic.ts';
import { startWorker } from './lib/worker.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    pageviews: { type: 'string' },
    pages: { type: 'string' },
    days: { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    duration: { type: 'string' },
    concurrency: { type: 'string' },
    'cost-days': { type: 'string' },
    out: { type: 'string' },
    'render-only': { type: 'boolean', default: false },
  },
});

const quick = args.quick ?? false;
const num = (value: string | undefined, fallback: number) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`not a positive number: ${value}`);
  return n;
};
const config = {
  mode: quick ? 'quick' : 'default',
  pageviews: num(args.pageviews, quick ? 50_000 : 1_000_000),
  pages: num(args.pages, quick ? 1_000 : 10_000),
  days: num(args.days, 365),
  seed: num(args.seed, 20261122),
  runs: num(args.runs, quick ? 3 : 10),
  durationSeconds: num(args.duration, quick ? 3 : 15),
  concurrency: num(args.concurrency, 16),
  costDays: num(args['cost-days'], quick ? 2 : 7),
};
const outDir = args.out ?? join(root, 'docs');

const DAY = 86_400_000;
/** Traffic ends at the last UTC midnight; the ranges end on the day before. */
const end = Math.floor(Date.now() / DAY) * DAY;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const lastDay = isoDay(end - DAY);
const BENCH_DOMAIN = 'bench.example.com';
const COST_DOMAIN = 'cost.example.com';
/** A desktop Chrome's user agent, for the benchmark's own hits. */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** Page views per generated visitor and day (measured on the generator: ≈ 1.69). */
const PAGEVIEWS_PER_VISITOR_DAY = 1.6;

const started = performance.now();
const log = (message: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${message}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** A generated hit as JSON for the benchmark Worker (Headers become a plain object). */
const wire = ({ body, req }: GeneratedHit) => ({
  body,
  req: {
    ...req,
    headers: Object.fromEntries(req.headers as unknown as Iterable<[string, string]>),
  },
});

/** Sends requests from `concurrency` lanes for `seconds`; throughput and latency. */
async function load(
  seconds: number,
  concurrency: number,
  request: (i: number) => Promise<Response>,
) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = sent++;
        const s = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        latencies.push(performance.now() - s);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    requestsPerSecond: round(latencies.length / elapsed, 1),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    statuses,
  };
}

function sizes(bytes: Uint8Array) {
  return {
    raw: bytes.byteLength,
    gzip: gzipSync(bytes, { level: 9 }).byteLength,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    }).byteLength,
  };
}

type Tally = Record<'pageview' | 'event' | 'dropped', { hits: number; rowsWritten: number }>;

/**
 * Rows written per hit while one website receives the cost sample at `perSecond` page views
 * a second (the hits' own clock): its log's rows and its flushes' D1 rows, the last flush
 * included.
 */
async function measureWrites(
  post: (path: string, body: unknown) => Promise<unknown>,
  site: { id: number; domain: string },
  perSecond: number,
) {
  const sample: GeneratedHit[] = [];
  for (const day of trafficDays({
    seed: config.seed + 1,
    domain: site.domain,
    days: config.costDays,
    end,
    visitorsPerDay: 150,
    pages: config.pages,
  })) {
    sample.push(...day);
  }
  const tally: Tally = {
    pageview: { hits: 0, rowsWritten: 0 },
    event: { hits: 0, rowsWritten: 0 },
    dropped: { hits: 0, rowsWritten: 0 },
  };
  const start = sample[0]?.req.now ?? 0;
  const gap = 1000 / perSecond;
  const paced = sample.map((hit, i) => ({ ...hit, req: { ...hit.req, now: start + i * gap } }));
  for (let i = 0; i < paced.length; i += 500) {
    const part = (await post('/bench/ingest', paced.slice(i, i + 500).map(wire))) as Tally;
    for (const k of Object.keys(tally) as (keyof Tally)[]) {
      tally[k].hits += part[k].hits;
      tally[k].rowsWritten += part[k].rowsWritten;
    }
  }
  // What is still in the log reaches D1 at its next flush: its rows count as well.
  const rest = (await post('/bench/flush', { websiteIds: [site.id] })) as { rowsWritten: number };
  tally.pageview.rowsWritten += rest.rowsWritten;
  const per = (t: { hits: number; rowsWritten: number }) =>
    t.hits ? round(t.rowsWritten / t.hits) : 0;
  const all = tally.pageview.rowsWritten + tally.event.rowsWritten + tally.dropped.rowsWritten;
  return {
    hits: sample.length,
    figures: {
      pageviews: tally.pageview.hits,
      events: tally.event.hits,
      dropped: tally.dropped.hits,
      rowsPerPageview: per(tally.pageview),
      rowsPerEvent: per(tally.event),
      rowsPerDropped: per(tally.dropped),
      rowsPerStoredHit: round(all / Math.max(1, tally.pageview.hits + tally.event.hits)),
    },
  };
}

/**
 * The time from a hit's `202` to its page view being in D1's roll-ups when nobody reads (the
 * log's alarm flushes it): one hit at a time on a quiet website, D1's file polled every 20 ms.
 */
async function rollupLatency(base: string, file: string, domain: string, samples: number) {
  const d1 = new DatabaseSync(file, { readOnly: true });
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const path = `/latency-${i}`;
      const res = await fetch(`${base}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'user-agent': CHROME,
          'cf-connecting-ip': `192.0.2.${i + 1}`,
        },
        body: JSON.stringify({ page: `https://${domain}${path}` }),
      });
      if (res.status !== 202 || res.headers.get('x-drop-reason'))
        throw new Error(
          `latency hit not stored: ${res.status} ${res.headers.get('x-drop-reason')}`,
        );
      const accepted = performance.now();
      const query = d1.prepare("SELECT 1 FROM stats WHERE name = 'page' AND value = ? LIMIT 1");
      while (!query.get(path)) {
        if (performance.now() - accepted > 120_000) throw new Error('the hit never reached D1');
        await new Promise((r) => setTimeout(r, 20));
      }
      times.push(performance.now() - accepted);
    }
  } finally {
    d1.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    samples: times.length,
    flushDelayMs: FLUSH_DELAY_MS,
    p50Ms: round(percentile(sorted, 50), 0),
    maxMs: round(sorted.at(-1) ?? 0, 0),
  };
}

/**
 * A read the benchmark Worker ran `runs` times (`/bench/query`, `/bench/filtered`): its rows
 * read, rows returned and distinct values, and the p50 / p95 of its latencies.
 */
async function measuredRead(
  post: (path: string, body: unknown) => Promise<unknown>,
  path: string,
  body: Record<string, unknown>,
) {
  const r = (await post(path, body)) as {
    rowsRead: number;
    rowsReturned: number;
    distinctValues: number;
    samples: number[];
  };
  const sorted = [...r.samples].sort((a, b) => a - b);
  return {
    rowsRead: r.rowsRead,
    rowsReturned: r.rowsReturned,
    distinctValues: r.distinctValues,
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
  };
}

/** The ranges every statistic is read over, in days up to yesterday. */
const READ_RANGES = [7, 30, 365, 730];

/**
 * The filtered breakdowns measured on the benchmark site: the questions filters are for
 * ("which pages do visitors from Google read?", "where do the people who sign up come
 * from?"), one per level of filter (a visit's, a hit's, a visitor's), a combination, and
 * exit pages (the dearest statistic of the log).
 */
const FILTERED: { name: StatName; filters: Filter[] }[] = [
  { name: 'page', filters: [{ dimension: 'referrer', operator: 'is', value: 'www.google.com' }] },
  { name: 'referrer', filters: [{ dimension: 'event', operator: 'is', value: 'signup' }] },
  { name: 'browser', filters: [{ dimension: 'page', operator: 'is', value: '/pricing' }] },
  { name: 'page', filters: [{ dimension: 'country', operator: 'is', value: 'DE:Germany' }] },
  {
    name: 'country',
    filters: [
      { dimension: 'browser', operator: 'not', value: 'Chrome' },
      { dimension: 'page', operator: 'contains', value: 'docs' },
    ],
  },
  // The dearest kind: exit pages group every kept visit's page views.
  {
    name: 'exit_page',
    filters: [{ dimension: 'referrer', operator: 'is', value: 'www.google.com' }],
  },
];

/**
 * Puts the benchmark site's year of events into its real Durable Object: a hit on the day
 * before the traffic makes the object's tables, then the loaders' events follow in date
 * order (`/bench/import`), in batches. Answers the events imported.
 */
async function importEvents(
  post: (path: string, body: unknown) => Promise<unknown>,
  siteId: number,
  logFiles: string[],
): Promise<number> {
  const starter = {
    body: { page: `https://${BENCH_DOMAIN}/` },
    req: {
      ip: '192.0.2.1',
      userAgent: CHROME,
      headers: {},
      cf: {},
      now: end - (config.days + 1) * DAY + 12 * 3_600_000,
    },
  };
  const stored = (await post('/bench/ingest', [starter])) as { pageview: { hits: number } };
  if (stored.pageview.hits !== 1) throw new Error('the first hit was not stored');
  await post('/bench/flush', { websiteIds: [siteId] });
  const db = new DatabaseSync(':memory:');
  try {
    logFiles.forEach((f, i) => {
      db.exec(`ATTACH DATABASE '${f}' AS p${i}`);
    });
    const columns = (db.prepare('PRAGMA p0.table_info(events)').all() as { name: string }[])
      .map((c) => c.name)
      .filter((c) => c !== 'id');
    const list = columns.join(', ');
    const union = logFiles
      .map((_, i) => `SELECT id AS seq, ${list} FROM p${i}.events`)
      .join(' UNION ALL ');
    // A date's events are all in one part, in arrival order by id.
    const rows = db.prepare(`SELECT ${list} FROM (${union}) ORDER BY date, seq`).iterate();
    let batch: unknown[][] = [];
    let imported = 0;
    const send = async () => {
      await post('/bench/import', { websiteId: siteId, columns, rows: batch });
      imported += batch.length;
      batch = [];
    };
    for (const row of rows as Iterable<Record<string, unknown>>) {
      batch.push(columns.map((c) => row[c] ?? null));
      if (batch.length === 5_000) await send();
    }
    if (batch.length) await send();
    return imported;
  } finally {
    db.close();
  }
}

async function main() {
  const state = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  try {
    // 1. Data: a local D1 database with the real migrations, loaded through the real code.
    log(`migrating a fresh local D1 in ${state}`);
    wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
    const file = d1File(state);
    const benchSiteId = await createBenchSite(file, BENCH_DOMAIN);
    const costSiteId = await createBenchSite(file, COST_DOMAIN, 'cost@example.com');
    const costSites = new Map([[50, { id: costSiteId, domain: COST_DOMAIN }]]);
    for (const perSecond of [1, 10]) {
      const domain = `cost-${perSecond}.example.com`;
      costSites.set(perSecond, {
        id: await createBenchSite(file, domain, `cost-${perSecond}@example.com`),
        domain,
      });
    }
    const traffic: TrafficOptions = {
      seed: config.seed,
      domain: BENCH_DOMAIN,
      days: config.days,
      end,
      visitorsPerDay: Math.ceil(config.pageviews / (config.days * PAGEVIEWS_PER_VISITOR_DAY)),
      pages: config.pages,
    };
    log(`loading ${config.days} days of traffic (${traffic.visitorsPerDay} visitors a day)`);
    let shown = 0;
    const loadStarted = performance.now();
    const loaded = await loadInParallel(file, traffic, (hits) => {
      if (hits - shown >= 100_000) {
        shown = hits;
        log(`  ${hits.toLocaleString('en')} hits loaded`);
      }
    });
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    log(
      `loaded ${loaded.pageviews.toLocaleString('en')} page views and ${loaded.events.toLocaleString('en')} events in ${loadSeconds.toFixed(0)} s`,
    );
    if (loaded.pageviews < config.pageviews) {
      throw new Error(`generated ${loaded.pageviews} page views, fewer than ${config.pageviews}`);
    }

    // 2. Reads and per-hit writes, inside workerd.
    log('starting the benchmark Worker (workerd, local D1)');
    const bench = await startWorker(state, 'scripts/bench/worker.ts');
    const reads: BenchReport['reads'] = [];
    const filteredReads: BenchReport['filteredReads'] = [];
    let eventsImported = 0;
    let compaction: BenchReport['compaction'] = {
      months: 0,
      rowsWritten: 0,
      rowsRead: 0,
      seconds: 0,
    };
    let distinctPages = 0;
    let costPerHit: BenchReport['writes'];
    try {
      const post = async (path: string, body: unknown) => {
        const res = await bench.fetch(`http://bench${path}`, {
          method: 'POST',
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res.json();
      };
      // The months that are over, compacted as the hourly maintenance does.
      const compactStarted = performance.now();
      const compacted = (await post('/bench/compact', { now: end })) as Omit<
        BenchReport['compaction'],
        'seconds'
      >;
      compaction = { ...compacted, seconds: round((performance.now() - compactStarted) / 1000) };
      log(`  ${compacted.months} months compacted in ${compaction.seconds} s`);
      for (const days of READ_RANGES) {
        for (const name of STAT_NAMES) {
          const from = isoDay(end - days * DAY);
          const query = { websiteId: benchSiteId, name, from, to: lastDay, limit: 25 };
          const r = await measuredRead(post, '/bench/query', { ...query, runs: config.runs });
          // The same range summed from its days alone, as every range was before months.
          const byDays =
            days >= 365
              ? (await measuredRead(post, '/bench/query', { ...query, runs: 1, byDays: true }))
                  .rowsRead
              : undefined;
          reads.push({
            statistic: name,
            days,
            ...r,
            ...(byDays ? { rowsReadByDays: byDays } : {}),
          });
          if (name === 'page' && days === 365) distinctPages = r.distinctValues;
        }
        log(`  reads over ${days} days measured`);
      }

      // Filtered reads: the site's events in its real object, read as the Stats API does.
      log("importing the site's events into its Durable Object");
      const importStarted = performance.now();
      eventsImported = await importEvents(post, benchSiteId, loaded.logFiles);
      log(
        `  ${eventsImported.toLocaleString('en')} events imported in ${((performance.now() - importStarted) / 1000).toFixed(0)} s`,
      );
      for (const days of [30, 365].filter((d) => d <= config.days)) {
        for (const { name, filters } of FILTERED) {
          const r = await measuredRead(post, '/bench/filtered', {
            websiteId: benchSiteId,
            name,
            from: isoDay(end - days * DAY),
            to: lastDay,
            filters,
            runs: config.runs,
            limit: 25,
          });
          filteredReads.push({
            statistic: name,
            filters: filters.map((f) => `${filterParam(f)}=${f.value}`).join('&'),
            days,
            ...r,
          });
        }
        log(`  filtered reads over ${days} days measured`);
      }

      // Per-hit writes: a fresh site per rate, so first-of-day and first-of-visit rows are as
      // in life; the same visitors and pages arriving at 50 page views a second (the rate the
      // cost target names), and at 10 and 1.
      const atRate = async (perSecond: number) => {
        const site = costSites.get(perSecond) as { id: number; domain: string };
        const tally = await measureWrites(post, site, perSecond);
        log(`  writes per hit at ${perSecond}/s measured on ${tally.hits} hits`);
        return tally;
      };
      const at50 = await atRate(50);
      const at10 = await atRate(10);
      const at1 = await atRate(1);
      costPerHit = {
        siteId: costSiteId,
        days: config.costDays,
        ...at50.figures,
        rowsPerPageviewAt: {
          '1': at1.figures.rowsPerPageview,
          '10': at10.figures.rowsPerPageview,
          '50': at50.figures.rowsPerPageview,
        },
      };
    } finally {
      await bench.stop();
    }

    // 3. Throughput and sizes, against `wrangler dev` serving the real Worker.
    log('starting the Worker under wrangler dev');
    const dev = await startWorker(state);
    let throughput: BenchReport['throughput'];
    let latency: BenchReport['rollupLatency'];
    let size: BenchReport['sizes'];
    try {
      const base = `http://127.0.0.1:${dev.port}`;
      const hitPool: GeneratedHit[] = [];
      for (const day of trafficDays({
        seed: config.seed + 2,
        domain: BENCH_DOMAIN,
        days: 1,
        end: end + DAY,
        visitorsPerDay: 2000,
        pages: config.pages,
      })) {
        hitPool.push(...day.filter((h) => !('event' in h.body)));
      }
      const event = (i: number) => {
        const { body, req } = hitPool[i % hitPool.length] as GeneratedHit;
        // Each request from its own client address, as real traffic is.
        return fetch(`${base}/api/event`, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'user-agent': req.userAgent,
            'cf-connecting-ip': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
          },
          body: JSON.stringify(body),
        });
      };
      const trivial = () => fetch(`${base}/health`);
      await load(2, config.concurrency, trivial); // warm-up
      await load(2, config.concurrency, event);
      log(`  load: ${config.durationSeconds} s per route, ${config.concurrency} concurrent`);
      const health = await load(config.durationSeconds, config.concurrency, trivial);
      const events = await load(config.durationSeconds, config.concurrency, event);
      log('  202 → roll-up latency (nobody reading)');
      latency = await rollupLatency(base, file, COST_DOMAIN, quick ? 1 : 5);
      throughput = {
        concurrency: config.concurrency,
        seconds: config.durationSeconds,
        event: events,
        trivial: health,
        ratio: round(events.requestsPerSecond / Math.max(1, health.requestsPerSecond), 3),
      };

      const bytes = async (path: string) =>
        new Uint8Array(await (await fetch(`${base}${path}`)).arrayBuffer());
      const tracker = sizes(await bytes('/js/script.js'));
      const html = await bytes(`/stats/${BENCH_DOMAIN}`);
      const text = new TextDecoder().decode(html);
      const assetPaths = [...text.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map(
        (m) => m[1] as string,
      );
      const assets = await Promise.all(assetPaths.map(async (p) => sizes(await bytes(p))));
      const page = sizes(html);
      const sum = (k: 'raw' | 'gzip' | 'brotli') =>
        page[k] + assets.reduce((total, a) => total + a[k], 0);
      const pageTimes: number[] = [];
      for (let i = 0; i < (quick ? 3 : 10); i++) {
        const s = performance.now();
        await bytes(`/stats/${BENCH_DOMAIN}`);
        pageTimes.push(performance.now() - s);
      }
      pageTimes.sort((a, b) => a - b);
      size = {
        tracker,
        statsPage: {
          html: page,
          assets: assetPaths.length,
          total: { raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') },
        },
        statsPageP50Ms: round(percentile(pageTimes, 50)),
      };
      log('  sizes measured');
    } finally {
      await dev.stop();
    }

    const report: BenchReport = {
      generatedAt: new Date().toISOString(),
      config,
      machine: {
        cpu: cpus()[0]?.model ?? 'unknown',
        cores: cpus().length,
        memoryGb: round(totalmem() / 2 ** 30, 1),
        node: process.version,
        wrangler: JSON.parse(readFileSync(join(root, 'node_modules/wrangler/package.json'), 'utf8'))
          .version,
      },
      data: {
        days: config.days,
        pageviews: loaded.pageviews,
        events: loaded.events,
        dropped: loaded.dropped,
        distinctPages,
        loadSeconds: round(loadSeconds, 0),
      },
      writes: costPerHit,
      reads,
      filteredReads,
      compaction,
      eventsImported,
      throughput,
      rollupLatency: latency,
      sizes: size,
      runSeconds: round((performance.now() - started) / 1000, 0),
    };
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'benchmarks.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
    log(`wrote ${join(outDir, 'BENCHMARKS.md')} and benchmarks.json`);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

if (args['render-only']) {
  // Re-renders BENCHMARKS.md from benchmarks.json (after editing the report's text).
  const report = JSON.parse(readFileSync(join(outDir, 'benchmarks.json'), 'utf8')) as BenchReport;
  writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
} else {
  await main();
}
