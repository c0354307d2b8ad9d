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
 * --render-only (rewrite BENCHMARKS.md from the JSON of the last run, measuring nothing),
 * --parquet-export (measure only the event log's encoding as Parquet, `exports.parquet`, over a
 * generated year, into the JSON of the last run),
 * --import-heap (measure only the heap of an Umami import, `imports.peakHeap`, into the JSON of
 * the last run), --import-sessions N (that import's sessions; default 1,000,000), --keep
 * (keep the run's local state — the D1 database and the benchmark site's object — and print
 * where, to look into it afterwards, e.g. with `wrangler dev --persist-to`), --scale (only a
 * website's log over partitions, at 1×, 4× and 10× the year: `scale` in the JSON of the last
 * run; scripts/bench/scale.ts), --scale-sizes 1,4,10, --partition-events N (the partitions'
 * size; default wrangler.toml's `LOG_PARTITION_EVENTS`), --bundle (only the Worker's bundle,
 * `sizes.bundle`, into the JSON of the last run).
 *
 * Steps: generated traffic is loaded through the real ingestion code (scripts/bench/load.ts);
 * reads and per-hit writes are measured in workerd against local D1 (scripts/bench/worker.ts);
 * the loaded events are imported into the site's real Durable Object and filtered reads are
 * measured there; ingestion throughput is measured against `wrangler dev` serving the real
 * Worker.
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Unstable_DevWorker } from 'wrangler';
import type { FunnelStep, JourneyQuery } from '../src/counting/flow-queries.ts';
import type { FilterNode } from '../src/counting/query.ts';
import { STAT_NAMES, type StatName } from '../src/counting/statistics.ts';
import { createDb } from '../src/db/client.ts';
import { funnelQuestion } from '../src/flows/questions.ts';
import { runImport } from '../src/imports/run.ts';
import type { Filter } from '../src/query/parse/v1.ts';
import { V1_STATISTICS, v1Filters } from '../src/query/parse/v1.ts';
import { filterParam } from '../src/query/parse/v1-filters.ts';
import { FLUSH_EVENTS, FLUSH_WITHIN_MS } from '../src/website-log/object/flush.ts';
import { createWebsite } from '../src/websites/service.ts';
import { measureBundle } from './bench/bundle.ts';
import { dictionarySize, dictionaryTexts, hitsUnderGoals, widenDictionary } from './bench/goals.ts';
import { hitSteps } from './bench/hit-steps.ts';
import { measureImportHeap, writeUmamiExport } from './bench/import-heap.ts';
import { createBenchSite, d1File, loadedEvents, loadInParallel } from './bench/load.ts';
import { generatedYear, measureParquetExport } from './bench/parquet-export.ts';
import { hitsUnderPatterns } from './bench/patterns.ts';
import { freePlanCapacity, type PerPageview, paidCostPerMillion } from './bench/plans.ts';
import { type BenchReport, renderMarkdown } from './bench/report.ts';
import { importScaled, type ScaleReport, type ScaleSizeReport } from './bench/scale.ts';
import { SqliteD1 } from './bench/sqlite-d1.ts';
import { measureSwitches } from './bench/switches.ts';
import {
  benchConfig,
  hitsUnderReads,
  hitsWhileReading,
  type Load,
  load,
  loadsInTurns,
  percentile,
  readYourWrites,
  round,
} from './bench/under-load.ts';
import type { ImportedEvent } from './bench/worker.ts';
import { root, wrangler } from './lib/d1.ts';
import { engagementSends } from './lib/engagement-mix.ts';
import { suffixesOnDisk } from './lib/public-suffixes.ts';
import { type GeneratedHit, rng, type TrafficOptions, trafficDays } from './lib/traffic.ts';
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
    'import-heap': { type: 'boolean', default: false },
    'parquet-export': { type: 'boolean', default: false },
    'import-sessions': { type: 'string' },
    keep: { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    bundle: { type: 'boolean', default: false },
    'scale-sizes': { type: 'string' },
    'partition-events': { type: 'string' },
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
  importSessions: num(args['import-sessions'], quick ? 20_000 : 1_000_000),
};
/**
 * The default run measures a website's log in one object (its year is loaded into the first
 * partition, past `LOG_PARTITION_EVENTS`): partitions are the scale runs' (`--scale`).
 */
const ONE_OBJECT = { LOG_PARTITION_EVENTS: '0' };
const outDir = args.out ?? join(root, 'docs');
/** The partitions' size wrangler.toml sets (`--partition-events` for another). */
const DEFAULT_PARTITION_EVENTS = Number(
  /^LOG_PARTITION_EVENTS\s*=\s*"(\d+)"/m.exec(
    readFileSync(join(root, 'wrangler.toml'), 'utf8'),
  )?.[1] ?? 500_000,
);

const DAY = 86_400_000;
/** Traffic ends at the last UTC midnight; the ranges end on the day before. */
const end = Math.floor(Date.now() / DAY) * DAY;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const lastDay = isoDay(end - DAY);
const BENCH_DOMAIN = 'bench.example.com';
/** The real Worker with the benchmark's floor route (not in the deployed bundle). */
const FLOOR_ENTRY = 'scripts/bench/floor.ts';
/** A desktop Chrome's user agent, for the benchmark's own hits. */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** Page views per generated visitor and day (measured on the generator: ≈ 1.69). */
const PAGEVIEWS_PER_VISITOR_DAY = 1.6;

const started = performance.now();
const log = (message: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${message}\n`);

/** The benchmark site's year of generated traffic, as the configuration sizes it. */
const yearTraffic = (): TrafficOptions => ({
  seed: config.seed,
  domain: BENCH_DOMAIN,
  days: config.days,
  end,
  visitorsPerDay: Math.ceil(config.pageviews / (config.days * PAGEVIEWS_PER_VISITOR_DAY)),
  pages: config.pages,
});

/** POSTs JSON to the benchmark Worker (the one running now: it is restarted along the way). */
const postTo =
  (worker: () => Unstable_DevWorker) =>
  async (path: string, body: unknown): Promise<unknown> => {
    const res = await worker().fetch(`http://bench${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

/** A generated hit as JSON for the benchmark Worker (Headers become a plain object). */
const wire = ({ body, req }: GeneratedHit) => ({
  body,
  req: {
    ...req,
    headers: Object.fromEntries(req.headers as unknown as Iterable<[string, string]>),
  },
});

function sizes(bytes: Uint8Array) {
  return {
    raw: bytes.byteLength,
    gzip: gzipSync(bytes, { level: 9 }).byteLength,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    }).byteLength,
  };
}

type Cost = {
  hits: number;
  /** Requests to the Worker: every hit sent, engagements included. */
  requests: number;
  /** Requests to the websites' logs (Durable Objects): a hit's or an engagement's call. */
  objectRequests: number;
  rowsWritten: number;
  objectRowsWritten: number;
  objectRowsRead: number;
  d1RowsWritten: number;
  d1RowsRead: number;
  flushes: number;
};
/** Engagements are a kind of their own: they add no page view, but their requests and rows. */
type Tally = Record<'pageview' | 'event' | 'engagement' | 'dropped', Cost>;

/**
 * The mix the rows written per dropped hit are measured at (`writes.rowsPerDropped`;
 * docs/ARCHITECTURE.md, "Filtered traffic"): a run of crawlers on the benchmark's website —
 * `hits` bot hits at `perSecond` a second, the hits' own clock, each from one of the named
 * crawlers in turn or an automated browser the list does not name — their counters written as
 * the log's timer would (a minute after the oldest), the last ones by a flush.
 */
const DROPPED_MIX = {
  hits: 15_000,
  perSecond: 50,
  userAgents: [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
    'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    'CCBot/2.0 (https://commoncrawl.org/faq/)',
    'Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
  ],
};

/**
 * The rows a run of dropped hits writes (`DROPPED_MIX`): in D1 (the counters' upserts) and in
 * the log (none: a timer writes them); `day`: which day after the data's year.
 */
async function measureDropped(
  post: (path: string, body: unknown) => Promise<unknown>,
  site: { id: number; domain: string },
  day: number,
) {
  const { hits, perSecond, userAgents } = DROPPED_MIX;
  const start = end + day * DAY;
  const sent = Array.from({ length: hits }, (_, i) => ({
    body: { page: `https://${site.domain}/page-${i % 400}` },
    req: {
      ip: `198.51.100.${i % 250}`,
      userAgent: userAgents[i % userAgents.length] as string,
      headers: {},
      cf: {},
      now: start + Math.floor((i * 1000) / perSecond),
    },
  }));
  const dropped = { hits: 0, objectRowsWritten: 0, d1RowsWritten: 0 };
  for (let i = 0; i < sent.length; i += 500) {
    const part = (await post('/bench/ingest', sent.slice(i, i + 500))) as Tally;
    dropped.hits += part.dropped.hits;
    dropped.objectRowsWritten += part.dropped.objectRowsWritten;
    dropped.d1RowsWritten += part.dropped.d1RowsWritten;
  }
  if (dropped.hits !== hits)
    throw new Error(`${hits - dropped.hits} of the crawlers' hits counted`);
  const rest = (await post('/bench/flush', { websiteIds: [site.id] })) as {
    droppedRowsWritten: number;
  };
  dropped.d1RowsWritten += rest.droppedRowsWritten;
  const rows = dropped.objectRowsWritten + dropped.d1RowsWritten;
  return {
    rowsPerDropped: round(rows / hits, 4),
    droppedMix: {
      hits,
      perSecond,
      userAgents: userAgents.length,
      rowsWritten: rows,
      objectRowsWritten: dropped.objectRowsWritten,
    },
  };
}

/** The rates page views are measured at, a second. */
const RATES = ['0.1', '1', '10', '50'] as const;

/**
 * What each hit costs while the benchmark's website — its year in its log, as a website in use
 * has — takes a day of its traffic at `perSecond` page views a second (the hits' own clock):
 * its log's rows and its flushes' D1 rows, written and read, the flushes when the log's
 * policy says (`flushDueAt`), the last one included. `day`: which day after the data's year.
 */
async function measureWrites(
  post: (path: string, body: unknown) => Promise<unknown>,
  site: { id: number; domain: string },
  perSecond: number,
  day: number,
  props?: (i: number) => Record<string, string | boolean>,
  /**
   * Each page view followed by the engagements the default tracker sends for it under the mix
   * of scripts/lib/engagement-mix.ts (none for a view seen less than 15 s), each when it is sent.
   */
  engage = false,
) {
  const sample: GeneratedHit[] = [];
  for (const hits of trafficDays({
    seed: config.seed + 10 + day,
    domain: site.domain,
    days: 1,
    end: end + (day + 1) * DAY,
    visitorsPerDay: Math.ceil(config.pageviews / (config.days * PAGEVIEWS_PER_VISITOR_DAY)),
    pages: config.pages,
  })) {
    sample.push(...hits);
  }
  const zero = (): Cost => ({
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
  const tally: Tally = { pageview: zero(), event: zero(), engagement: zero(), dropped: zero() };
  const start = end + day * DAY;
  const gap = 1000 / perSecond;
  const random = rng(config.seed + 20 + day);
  const paced = sample.flatMap((hit, i) => {
    const now = start + i * gap;
    const sent = {
      body: props ? { ...hit.body, props: props(i) } : hit.body,
      req: { ...hit.req, now },
    };
    if (!engage || hit.body.event) return [sent];
    const { page, domain } = hit.body;
    return [
      sent,
      ...engagementSends(random).map(({ after, ms, scroll }) => ({
        body: { page, domain, engagement: { ms, scroll } },
        req: { ...hit.req, now: now + after },
      })),
    ];
  });
  // The engagements arrive when they are sent, among the next page views' hits.
  if (engage) paced.sort((a, b) => a.req.now - b.req.now);
  for (let i = 0; i < paced.length; i += 500) {
    const part = (await post('/bench/ingest', paced.slice(i, i + 500).map(wire))) as Tally;
    for (const k of Object.keys(tally) as (keyof Tally)[])
      for (const c of Object.keys(tally[k]) as (keyof Cost)[]) tally[k][c] += part[k][c];
  }
  // What is still in the log reaches D1 at its next flush: its rows count as well.
  const rest = (await post('/bench/flush', { websiteIds: [site.id] })) as {
    rowsWritten: number;
    rowsRead: number;
  };
  tally.pageview.d1RowsWritten += rest.rowsWritten;
  tally.pageview.d1RowsRead += rest.rowsRead;
  tally.pageview.flushes += 1;
  tally.pageview.rowsWritten += rest.rowsWritten;
  const stored = tally.pageview.hits + tally.event.hits;
  const { engagement } = tally;
  const all = (c: keyof Cost) =>
    tally.pageview[c] + tally.event[c] + engagement[c] + tally.dropped[c];
  const per = (t: Cost) => (t.hits ? round(t.rowsWritten / t.hits) : 0);
  // What one page view costs of what the plans count: every hit of the day shared out by page
  // view (events, engagements and dropped hits ride along, as on a real website), each request
  // counted — to the Worker, to the logs — whatever it wrote.
  const views = Math.max(1, tally.pageview.hits);
  const perPageview: PerPageview = {
    workersRequests: round(all('requests') / views, 3),
    doRequests: round((all('objectRequests') + all('flushes')) / views, 3),
    doRowsWritten: round(all('objectRowsWritten') / views, 3),
    doRowsRead: round(all('objectRowsRead') / views, 3),
    d1RowsWritten: round(all('d1RowsWritten') / views, 3),
    d1RowsRead: round(all('d1RowsRead') / views, 3),
  };
  return {
    hits: sample.length,
    figures: {
      pageviews: tally.pageview.hits,
      events: tally.event.hits,
      dropped: tally.dropped.hits,
      flushes: all('flushes'),
      // A page view's rows with its engagements' (none without them).
      rowsPerPageview: per({
        ...tally.pageview,
        rowsWritten: tally.pageview.rowsWritten + engagement.rowsWritten,
      }),
      rowsPerEvent: per(tally.event),
      rowsPerDropped: per(tally.dropped),
      rowsPerStoredHit: round(
        (all('objectRowsWritten') + all('d1RowsWritten')) / Math.max(1, stored),
      ),
    },
    perPageview,
    /** The engagement hits sent, per page view stored. */
    engagementsPerPageview: round(paced.filter((h) => 'engagement' in h.body).length / views, 3),
    /**
     * What the engagements themselves add to a page view, counted on their own calls (the
     * same day's page views, so no other day's traffic in the difference): rows written in
     * the log (they write none in D1 but through a flush), Worker and Durable Object requests
     * (those of engagements dropped — a bot's, one without its page view — are the dropped
     * hits', in `perPageview` with the rest).
     */
    engagementCost: {
      rowsWritten: round(engagement.rowsWritten / views, 3),
      workersRequests: round(engagement.requests / views, 3),
      doRequests: round(engagement.objectRequests / views, 3),
    },
  };
}

/**
 * A read the benchmark Worker ran `runs` times (`/bench/query`, `/bench/engine`): its rows
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
 * Questions of the Stats API v2 (src/query/parse/v2/) whose speed issue #31 names, asked of the
 * query engine as `POST /api/v2/query` asks: the top line over a year (the roll-ups), the
 * sources with three metrics over a month, and pages by country under a filter over a year
 * (the log).
 */
const V2_QUESTIONS: {
  key: 'aggregate365' | 'source30' | 'pageByCountry365';
  title: string;
  days: number;
  target: number;
  group: { dimensions: string[]; metrics: string[] };
  filters: FilterNode[];
}[] = [
  {
    key: 'aggregate365',
    title: 'visitors, visits, pageviews, bounce_rate, visit_duration (no dimension)',
    days: 365,
    target: 50,
    group: {
      dimensions: [],
      metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'],
    },
    filters: [],
  },
  {
    key: 'source30',
    title: '`visit:source`: visitors, visits, bounce_rate',
    days: 30,
    target: 100,
    group: { dimensions: ['visit:source'], metrics: ['visitors', 'visits', 'bounce_rate'] },
    filters: [],
  },
  {
    key: 'pageByCountry365',
    title: '`event:page` × `visit:country`: visitors, pageviews; `visit:source` is Google',
    days: 365,
    target: 500,
    group: { dimensions: ['event:page', 'visit:country'], metrics: ['visitors', 'pageviews'] },
    filters: [{ op: 'is', dimension: 'visit:source', values: ['Google'], caseSensitive: true }],
  },
];

/**
 * Funnels and journeys measured on the benchmark site (issue #33's figures): a four-step
 * funnel from the home page to a sign-up, and the two pages visits viewed after the pricing
 * page, over 30 and 365 days.
 */
const FUNNEL_STEPS: FunnelStep[] = [
  { page: '/' },
  { page: '/pricing' },
  { page: '/docs/**' },
  { event: 'signup' },
];
const FLOW_QUESTIONS = [30, 365].flatMap((days) => [
  {
    key: `funnel${days}`,
    title: 'A four-step funnel: `/` → `/pricing` → `/docs/**` → event `signup`',
    days,
    target: days === 30 ? 300 : 2000,
    funnel: funnelQuestion(FUNNEL_STEPS, { from: isoDay(end - days * DAY), to: lastDay }, [], []),
  },
  {
    key: `journey${days}`,
    title: 'A two-step journey: the pages viewed after `/pricing`',
    days,
    target: days === 30 ? 300 : 2000,
    journey: {
      from: isoDay(end - days * DAY),
      to: lastDay,
      filters: [],
      page: '/pricing',
      direction: 'next',
      steps: 2,
      sortBy: 'count',
      sort: 'desc',
      limit: 25,
      offset: 0,
    } satisfies JourneyQuery,
  },
]);

/** A v2 question as the engine takes it (order as Plausible's default, 25 rows). */
const v2Question = (q: (typeof V2_QUESTIONS)[number]) => ({
  from: isoDay(end - q.days * DAY),
  to: lastDay,
  filters: q.filters,
  groups: [
    {
      ...q.group,
      order: [[q.group.metrics[0], 'desc']],
      limit: 25,
      offset: 0,
    },
  ],
});

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
  let batch: ImportedEvent[] = [];
  let imported = 0;
  const send = async () => {
    await post('/bench/import', { websiteId: siteId, rows: batch });
    imported += batch.length;
    batch = [];
  };
  for (const event of loadedEvents(logFiles)) {
    batch.push(event);
    if (batch.length === 5_000) await send();
  }
  if (batch.length) await send();
  return imported;
}

/**
 * The year out through the API — as Plausible's CSV export and as the event log — and the zip
 * back in, into a new website, through the API (section 3d).
 */
async function exportAndImport(base: string, siteId: number, key: string) {
  const headers = { authorization: `Bearer ${key}`, 'cf-connecting-ip': '172.16.9.1' };
  const seconds = (since: number) => round((performance.now() - since) / 1000, 1);
  let at = performance.now();
  const zipRes = await fetch(`${base}/api/v1/websites/${siteId}/export?format=plausible`, {
    headers,
  });
  if (!zipRes.ok) throw new Error(`the export answered ${zipRes.status}`);
  const zip = new Uint8Array(await zipRes.arrayBuffer());
  const plausibleExport = { seconds: seconds(at), bytes: zip.length };
  at = performance.now();
  const eventsRes = await fetch(`${base}/api/v1/websites/${siteId}/export?format=events`, {
    headers,
  });
  if (!eventsRes.ok || !eventsRes.body) throw new Error(`the export answered ${eventsRes.status}`);
  let bytes = 0;
  let events = 0;
  for await (const chunk of eventsRes.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) events++;
  }
  const eventsExport = { seconds: seconds(at), bytes, events };
  // The same NDJSON encoded as Parquet by the Parquet Worker's code (`exports.parquet`).
  const again = await fetch(`${base}/api/v1/websites/${siteId}/export?format=events`, { headers });
  if (!again.ok || !again.body) throw new Error(`the export answered ${again.status}`);
  const parquet = await measureParquetExport(
    again.body,
    "the year's NDJSON export from wrangler dev, encoded in the benchmark's process",
  );
  const made = await fetch(`${base}/api/v1/websites`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ domain: 'bench-import.example.com' }),
  });
  const copy = ((await made.json()) as { data: { id: number } }).data.id;
  at = performance.now();
  const imported = await fetch(`${base}/api/v1/websites/${copy}/imports?source=plausible`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/zip' },
    body: zip,
  });
  const answer = (await imported.json()) as { data?: { rows: number } };
  const apiImport = {
    seconds: seconds(at),
    status: imported.status,
    records: answer.data?.rows ?? 0,
  };
  return { zip, parquet, figures: { plausibleExport, eventsExport, apiImport } };
}

/** The same import's rows written, counted over the local D1 file (SQLite's changes). */
async function importRowsWritten(file: string, siteId: number, zip: Uint8Array) {
  const d1 = new SqliteD1(file);
  try {
    const db = createDb(d1.asBinding());
    const owner = d1.db.prepare('SELECT owner_id FROM websites WHERE id = ?').get(siteId) as {
      owner_id: number;
    };
    const site = await createWebsite(
      db,
      owner.owner_id,
      { domain: 'bench-rows.example.com' },
      suffixesOnDisk,
    );
    const at = performance.now();
    const body = new Blob([zip as Uint8Array<ArrayBuffer>]).stream();
    const done = await runImport(db, site, body, {
      source: 'plausible',
      packing: 'zip',
      overlap: false,
    });
    return {
      records: done.records,
      values: done.values,
      rowsWritten: done.rowsWritten,
      perValue: round(done.rowsWritten / Math.max(1, done.values), 3),
      seconds: round((performance.now() - at) / 1000, 1),
    };
  } finally {
    d1.close();
  }
}

/**
 * Section 3d's `imports.peakHeap`: a generated Umami export imported through the API with the
 * isolate's heap read (scripts/bench/import-heap.ts), and the same file's rows written,
 * counted over the local D1 file.
 */
async function importHeap(state: string, file: string, apiKey: string) {
  const path = join(state, 'website_event.csv.gz');
  log(`  generating an Umami export of ${config.importSessions.toLocaleString('en')} sessions`);
  const generated = await writeUmamiExport(path, config.importSessions, config.seed, end);
  const heap = await measureImportHeap({
    state,
    config: benchConfig(root, state),
    apiKey,
    path,
    file: generated,
    log,
  });
  log(`  ${round(heap.aboveIdleBytes / 2 ** 20, 1)} MB above the idle heap; counting its rows`);
  const d1 = new SqliteD1(file);
  try {
    const db = createDb(d1.asBinding());
    const owner = d1.db.prepare('SELECT id FROM owners LIMIT 1').get() as { id: number };
    const site = await createWebsite(
      db,
      owner.id,
      { domain: 'bench-umami.example.com' },
      suffixesOnDisk,
    );
    const done = await runImport(
      db,
      site,
      Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>,
      {
        source: 'umami',
        packing: 'gzip',
        fileName: 'website_event.csv.gz',
        overlap: false,
      },
    );
    return {
      ...heap,
      rowsWritten: { records: done.records, rowsWritten: done.rowsWritten, staged: done.staged },
    };
  } finally {
    d1.close();
    rmSync(path, { force: true });
  }
}

async function main() {
  const state = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  try {
    // 1. Data: a local D1 database with the real migrations, loaded through the real code.
    log(`migrating a fresh local D1 in ${state}`);
    wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
    const file = d1File(state);
    const benchSite = await createBenchSite(file, BENCH_DOMAIN);
    const benchSiteId = benchSite.id;
    const traffic = yearTraffic();
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
    let bench = await startWorker(state, 'scripts/bench/worker.ts', ONE_OBJECT);
    const reads: BenchReport['reads'] = [];
    const filteredReads: BenchReport['filteredReads'] = [];
    const v2Reads: BenchReport['v2Reads'] = [];
    const flowReads: BenchReport['flowReads'] = [];
    let eventsImported = 0;
    let compaction: BenchReport['compaction'] = {
      months: 0,
      rowsWritten: 0,
      rowsRead: 0,
      seconds: 0,
    };
    let distinctPages = 0;
    let costPerHit: BenchReport['writes'] | undefined;
    try {
      const post = postTo(() => bench);
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
      // The object as a website's in use has it: its storage settled after the bulk import
      // (a restart writes the import's journal into the database), its memory read afresh.
      await bench.stop();
      bench = await startWorker(state, 'scripts/bench/worker.ts', ONE_OBJECT);
      log(
        `  ${eventsImported.toLocaleString('en')} events imported in ${((performance.now() - importStarted) / 1000).toFixed(0)} s`,
      );
      for (const days of [30, 365].filter((d) => d <= config.days)) {
        for (const { name, filters } of FILTERED) {
          const { dimension, metric } = V1_STATISTICS[name];
          // Asked as the Stats API v1 asks: the first page of 25 values by count.
          const r = await measuredRead(post, '/bench/engine', {
            websiteId: benchSiteId,
            question: {
              from: isoDay(end - days * DAY),
              to: lastDay,
              filters: v1Filters(filters),
              groups: [
                {
                  dimensions: [dimension],
                  metrics: [metric],
                  order: [[metric, 'desc']],
                  limit: 25,
                  offset: 0,
                },
              ],
            },
            runs: config.runs,
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
      for (const q of V2_QUESTIONS) {
        const r = await measuredRead(post, '/bench/engine', {
          websiteId: benchSiteId,
          question: v2Question(q),
          runs: config.runs,
        });
        v2Reads.push({ key: q.key, title: q.title, days: q.days, target: q.target, ...r });
      }
      log('  Stats API v2 questions measured');
      for (const { key, title, days, target, ...question } of FLOW_QUESTIONS) {
        const r = await measuredRead(post, '/bench/flows', {
          websiteId: benchSiteId,
          ...question,
          runs: config.runs,
        });
        flowReads.push({ key, title, days, target, ...r });
      }
      log('  funnels and journeys measured');

      // Per-hit writes: the website with its year in its log takes the next days' traffic, a
      // day at each rate, the log flushing when its policy says.
      const at: Partial<Record<(typeof RATES)[number], Awaited<ReturnType<typeof measureWrites>>>> =
        {};
      for (const [day, rate] of RATES.entries()) {
        const tally = await measureWrites(
          post,
          { id: benchSiteId, domain: BENCH_DOMAIN },
          Number(rate),
          day,
        );
        log(`  writes per hit at ${rate}/s measured on ${tally.hits} hits`);
        at[rate] = tally;
      }
      // A day more at 1 a second, every hit with five custom properties (issue #32): their
      // texts repeat as a website's do (plans, authors, sections, a test's variants).
      const withProps = await measureWrites(
        post,
        { id: benchSiteId, domain: BENCH_DOMAIN },
        1,
        RATES.length,
        (i) => ({
          plan: ['free', 'pro', 'team'][i % 3] as string,
          author: `author-${i % 40}`,
          section: `section-${i % 12}`,
          variant: i % 2 ? 'A' : 'B',
          logged_in: i % 5 === 0,
        }),
      );
      log(`  writes per hit with five properties measured on ${withProps.hits} hits`);
      // A day more at 1 a second, every page view followed by the engagements the default
      // tracker sends for it, under the mix of scripts/lib/engagement-mix.ts (issue #49).
      const withEngagement = await measureWrites(
        post,
        { id: benchSiteId, domain: BENCH_DOMAIN },
        1,
        RATES.length + 1,
        undefined,
        true,
      );
      log(`  writes per page view with engagement measured on ${withEngagement.hits} hits`);
      // A run of crawlers the website drops, counted (docs/ARCHITECTURE.md, "Filtered traffic").
      const droppedRun = await measureDropped(
        post,
        { id: benchSiteId, domain: BENCH_DOMAIN },
        RATES.length + 2,
      );
      log(
        `  writes per dropped hit: ${droppedRun.rowsPerDropped} on ${droppedRun.droppedMix.hits} crawlers' hits`,
      );
      const each = <T>(f: (t: Awaited<ReturnType<typeof measureWrites>>) => T) =>
        Object.fromEntries(
          RATES.map((rate) => [rate, f(at[rate] as NonNullable<(typeof at)[typeof rate]>)]),
        ) as Record<(typeof RATES)[number], T>;
      const at50 = at['50'] as NonNullable<(typeof at)['50']>;
      costPerHit = {
        siteId: benchSiteId,
        days: 1,
        ...at50.figures,
        rowsPerPageviewAt: each((t) => t.figures.rowsPerPageview),
        perPageviewAt: each((t) => t.perPageview),
        freePlanAt: each((t) => freePlanCapacity(t.perPageview)),
        paidPerMillionAt: each((t) => paidCostPerMillion(t.perPageview)),
        flushPolicy: { events: FLUSH_EVENTS, withinMs: FLUSH_WITHIN_MS },
        // The day's few dropped hits aside: what a run of them costs each (`DROPPED_MIX`).
        ...droppedRun,
        withFiveProps: {
          rowsPerPageview: withProps.figures.rowsPerPageview,
          perPageview: withProps.perPageview,
        },
        withEngagement: {
          rowsPerPageview: withEngagement.figures.rowsPerPageview,
          perPageview: withEngagement.perPageview,
          engagementsPerPageview: withEngagement.engagementsPerPageview,
          engagementPerPageview: withEngagement.engagementCost,
          freePlanPageviewsPerDay: freePlanCapacity(withEngagement.perPageview).pageviewsPerDay,
        },
      };
    } finally {
      await bench.stop();
    }

    // 3. Throughput and sizes, against `wrangler dev` serving the real Worker (with the
    // floor added: scripts/bench/floor.ts).
    log('starting the Worker under wrangler dev');
    const dev = await startWorker(state, FLOOR_ENTRY, ONE_OBJECT, benchConfig(root, state));
    let throughput: BenchReport['throughput'];
    let readLatency: BenchReport['readYourWrites'];
    let size: BenchReport['sizes'];
    let transfer: Awaited<ReturnType<typeof exportAndImport>> | undefined;
    let imports: BenchReport['imports'];
    let underGoals: Awaited<ReturnType<typeof hitsUnderGoals>> | undefined;
    let underPatterns: Awaited<ReturnType<typeof hitsUnderPatterns>> | undefined;
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
      // Each request from its own client address, as real traffic is.
      const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const event = (i: number) => {
        const { body, req } = hitPool[i % hitPool.length] as GeneratedHit;
        return fetch(`${base}/api/event`, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'user-agent': req.userAgent,
            'cf-connecting-ip': address(i),
          },
          body: JSON.stringify(body),
        });
      };
      const floor = (i: number) =>
        fetch(`${base}/__floor`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'cf-connecting-ip': address(i) },
          body: JSON.stringify({ domain: BENCH_DOMAIN }),
        });
      const trivial = () => fetch(`${base}/health`);
      await load(2, config.concurrency, trivial); // warm-up
      await load(2, config.concurrency, floor);
      await load(2, config.concurrency, event);
      log(`  load: ${config.durationSeconds} s per route, ${config.concurrency} concurrent`);
      const health = await load(config.durationSeconds, config.concurrency, trivial);
      // The floor and the hits in turns, so that the ratio of the two is of the same moments.
      const [floors, events] = (await loadsInTurns(config.durationSeconds, config.concurrency, [
        floor,
        event,
      ])) as [Load, Load];
      log('  a hit while four readers ask the heaviest filtered questions');
      const api = (path: string, reader: number) =>
        fetch(`${base}/api/v1${path}`, {
          headers: {
            authorization: `Bearer ${benchSite.apiKey}`,
            'cf-connecting-ip': `172.16.0.${reader + 1}`,
          },
        });
      const yearFrom = isoDay(end - 365 * DAY);
      const heaviest = FILTERED.filter((f) => ['exit_page', 'country', 'page'].includes(f.name));
      const questions = heaviest.map(({ name, filters }, q) => () => {
        const params = new URLSearchParams({ name, from: yearFrom, to: lastDay });
        for (const f of filters) params.set(filterParam(f), f.value);
        return api(`/stats/${benchSiteId}?${params}`, q);
      });
      // …and the Stats API v2's pages by country under a filter, over the year.
      questions.push(() =>
        fetch(`${base}/api/v2/query`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${benchSite.apiKey}`,
            'content-type': 'application/json',
            'cf-connecting-ip': '172.16.0.9',
          },
          body: JSON.stringify({
            site_id: BENCH_DOMAIN,
            metrics: ['visitors', 'pageviews'],
            dimensions: ['event:page', 'visit:country'],
            date_range: [yearFrom, lastDay],
            filters: [['is', 'visit:source', ['Google']]],
          }),
        }),
      );
      // …and the funnel and journey of section 3c over the year, through API v1.
      const saved = await fetch(`${base}/api/v1/websites/${benchSiteId}/funnels`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${benchSite.apiKey}`,
          'content-type': 'application/json',
          'cf-connecting-ip': '172.16.0.10',
        },
        body: JSON.stringify({ name: 'Sign-up', steps: FUNNEL_STEPS }),
      });
      if (saved.status !== 201) throw new Error(`saving the funnel: ${saved.status}`);
      const funnelId = ((await saved.json()) as { data: { id: number } }).data.id;
      const year = `from=${yearFrom}&to=${lastDay}`;
      questions.push(
        () => api(`/stats/${benchSiteId}/funnels/${funnelId}?${year}`, 10),
        () =>
          api(`/stats/${benchSiteId}/journeys?page=/pricing&direction=next&steps=2&${year}`, 11),
      );
      const underReads = await hitsUnderReads({
        seconds: config.durationSeconds,
        readers: 4,
        hit: (i) => event(1_000_000 + i),
        questions,
        trivial,
      });
      log('  read-your-writes: a read right after a hit');
      readLatency = await readYourWrites({
        samples: quick ? 3 : 10,
        hit: (path) =>
          fetch(`${base}/api/event`, {
            method: 'POST',
            headers: {
              'content-type': 'text/plain',
              'user-agent': CHROME,
              'cf-connecting-ip': '192.0.2.77',
            },
            body: JSON.stringify({ page: `https://${BENCH_DOMAIN}${path}` }),
          }),
        read: (path) => {
          const today = isoDay(Date.now());
          return api(
            `/stats/${benchSiteId}?name=page&from=${today}&to=${today}&search=${encodeURIComponent(path)}`,
            9,
          );
        },
      });
      throughput = {
        concurrency: config.concurrency,
        seconds: config.durationSeconds,
        event: events,
        floor: floors,
        trivial: health,
        ratio: round(events.requestsPerSecond / Math.max(1, health.requestsPerSecond), 3),
        vsFloor: round(events.requestsPerSecond / Math.max(1, floors.requestsPerSecond), 3),
        steps: await hitSteps({ visitors: quick ? 1_000 : 5_000, passes: 5 }),
        hitLatencyUnderReads: underReads,
      };

      const bytes = async (path: string) =>
        new Uint8Array(await (await fetch(`${base}${path}`)).arrayBuffer());
      const tracker = sizes(await bytes('/js/script.js'));
      const trackerFull = sizes(await bytes('/js/script.full.js'));
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
      const switches = await measureSwitches(
        `${base}/stats/${BENCH_DOMAIN}?range=30d`,
        quick ? 3 : 10,
      );
      log(
        switches
          ? `  the page's switches measured in Chromium (p95 ${switches.p95Ms} ms)`
          : '  no Chromium: the page switches not measured',
      );
      size = {
        tracker,
        trackerFull,
        statsPage: {
          html: page,
          assets: assetPaths.length,
          total: { raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') },
          ...(switches
            ? { switchP95Ms: switches.p95Ms, switchP50MsByKind: switches.p50MsByKind }
            : {}),
        },
        statsPageP50Ms: round(percentile(pageTimes, 50)),
        bundle: await measureBundle(quick ? 3 : 9),
      };
      log('  sizes measured');
      transfer = await exportAndImport(base, benchSiteId, benchSite.apiKey);
      log('  exports and the API import measured');
      const widened = await widenDictionary(state, dictionarySize(quick), (i, path) => {
        const { body, req } = hitPool[i % hitPool.length] as GeneratedHit;
        return fetch(`${base}/api/event`, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'user-agent': req.userAgent,
            'cf-connecting-ip': address(3_000_000 + i),
          },
          body: JSON.stringify({ ...body, page: `https://${BENCH_DOMAIN}${path}` }),
        });
      });
      log(`  ${widened} page views of new pages, for the goals' dictionary`);
      log('  a hit while four readers load the statistics page under goal filters');
      underGoals = await hitsUnderGoals({
        base,
        siteId: benchSiteId,
        domain: BENCH_DOMAIN,
        apiKey: benchSite.apiKey,
        seconds: config.durationSeconds,
        hit: (i) => event(2_000_000 + i),
      });
      log('  a hit while four clients ask the costliest patterns');
      underPatterns = await hitsUnderPatterns({
        base,
        domain: BENCH_DOMAIN,
        apiKey: benchSite.apiKey,
        seconds: config.durationSeconds,
        hit: (i) => event(2_500_000 + i),
      });
    } finally {
      await dev.stop();
    }
    if (underGoals && throughput)
      throughput.hitLatencyUnderGoals = { ...underGoals, dictionaryTexts: dictionaryTexts(state) };
    if (underPatterns && throughput)
      throughput.hitLatencyUnderPatterns = {
        ...underPatterns,
        dictionaryTexts: dictionaryTexts(state),
      };
    if (transfer) {
      imports = {
        ...transfer.figures,
        rowsWritten: await importRowsWritten(file, benchSiteId, transfer.zip),
      };
      log(`  the import's rows written: ${imports.rowsWritten.perValue} a value`);
      log('the heap of an import of single hits');
      imports.peakHeap = await importHeap(state, file, benchSite.apiKey);
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
      writes: (() => {
        if (!costPerHit) throw new Error('the writes were not measured');
        return costPerHit;
      })(),
      reads,
      filteredReads,
      v2Reads,
      flowReads,
      imports,
      ...(transfer ? { exports: { parquet: transfer.parquet } } : {}),
      compaction,
      eventsImported,
      throughput,
      readYourWrites: readLatency,
      sizes: size,
      runSeconds: round((performance.now() - started) / 1000, 0),
    };
    // The scale runs' figures (`--scale`) are kept: this run does not measure them.
    const previous = join(outDir, 'benchmarks.json');
    if (existsSync(previous)) {
      const { scale } = JSON.parse(readFileSync(previous, 'utf8')) as Partial<BenchReport>;
      if (scale) report.scale = scale;
    }
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'benchmarks.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
    log(`wrote ${join(outDir, 'BENCHMARKS.md')} and benchmarks.json`);
  } finally {
    if (args.keep) log(`kept ${state} (its local D1 and the website's object)`);
    else rmSync(state, { recursive: true, force: true });
  }
}

/**
 * `--parquet-export`: only `exports.parquet`, over a generated year of as many events as the
 * last run's export (scripts/bench/parquet-export.ts), into its JSON.
 */
async function parquetExportOnly() {
  const path = join(outDir, 'benchmarks.json');
  const report = JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
  const events = report.imports?.eventsExport.events ?? 1_200_000;
  log(`encoding a generated year of ${events.toLocaleString('en')} events as Parquet`);
  const parquet = await measureParquetExport(
    generatedYear(events),
    `a generated year of the last run's ${events.toLocaleString('en')} events, encoded in the benchmark's process`,
  );
  report.exports = { ...report.exports, parquet };
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
  log(`wrote exports.parquet into ${path} and BENCHMARKS.md`);
}

/** `--import-heap`: only `imports.peakHeap`, on a fresh local D1, into the last run's JSON. */
async function importHeapOnly() {
  const state = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  try {
    log(`migrating a fresh local D1 in ${state}`);
    wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
    const file = d1File(state);
    const site = await createBenchSite(file, BENCH_DOMAIN);
    const peakHeap = await importHeap(state, file, site.apiKey);
    const path = join(outDir, 'benchmarks.json');
    const report = JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
    if (!report.imports) throw new Error(`${path} has no imports section to add the heap to`);
    report.imports.peakHeap = peakHeap;
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
    log(`wrote imports.peakHeap into ${path} and BENCHMARKS.md`);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** `--bundle`: the Worker's bundle alone (`sizes.bundle`), as the default run measures it. */
async function bundleOnly() {
  const path = join(outDir, 'benchmarks.json');
  const report = JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
  if (!report.sizes) throw new Error(`${path} has no sizes section to put the bundle in`);
  report.sizes.bundle = await measureBundle(quick ? 3 : 9);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
  log(`wrote sizes.bundle into ${path} and BENCHMARKS.md`);
}

/** `--scale`: a website's log over partitions at 1×, 4× and 10× the year (scripts/bench/scale.ts). */
async function scaleMain() {
  const state = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  const runStarted = performance.now();
  const factors = (args['scale-sizes'] ?? '1,4,10').split(',').map((f) => num(f, 1));
  const limit = num(args['partition-events'], DEFAULT_PARTITION_EVENTS);
  try {
    log(`migrating a fresh local D1 in ${state}`);
    wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
    const file = d1File(state);
    await createBenchSite(file, BENCH_DOMAIN);
    const sites = [];
    for (const factor of factors) {
      const domain = `scale-${factor}x.example.com`;
      sites.push({
        factor,
        domain,
        ...(await createBenchSite(file, domain, `${factor}x@example.com`)),
      });
    }
    const traffic = yearTraffic();
    log(`loading ${config.days} days of traffic (${traffic.visitorsPerDay} visitors a day)`);
    const loadStarted = performance.now();
    const loaded = await loadInParallel(file, traffic);
    const yearSeconds = (performance.now() - loadStarted) / 1000;
    log(`  ${loaded.stored.toLocaleString('en')} hits stored in ${yearSeconds.toFixed(0)} s`);
    const vars = { LOG_PARTITION_EVENTS: String(limit) };
    let bench = await startWorker(state, 'scripts/bench/worker.ts', vars);
    const post = postTo(() => bench);
    const sizes: ScaleSizeReport[] = [];
    let yearEvents = 0;
    for (const site of sites) {
      log(
        `importing ${site.factor}× the year into partitions of ${limit.toLocaleString('en')} events`,
      );
      const started = performance.now();
      let shown = 0;
      const imported = await importScaled(
        post,
        site.id,
        loadedEvents(loaded.logFiles),
        site.factor,
        limit,
        (events) => {
          if (events - shown >= 1_000_000) {
            shown = events;
            log(`  ${events.toLocaleString('en')} events`);
          }
        },
      );
      const loadSeconds = round((performance.now() - started) / 1000);
      if (site.factor === 1) yearEvents = imported.events;
      log(
        `  ${imported.events.toLocaleString('en')} events in ${imported.partitions} partitions, ${loadSeconds} s`,
      );
      sizes.push({
        factor: site.factor,
        ...imported,
        bytesPerEvent: round(imported.bytes / imported.events, 1),
        loadSeconds,
        questions: [],
        hits: undefined as unknown as ScaleSizeReport['hits'],
      });
    }
    for (const f of loaded.logFiles) rmSync(f, { force: true });
    // The objects as websites in use have them: storage settled, memory read afresh.
    await bench.stop();
    bench = await startWorker(state, 'scripts/bench/worker.ts', vars);
    const yearFrom = isoDay(end - 365 * DAY);
    const questions = [
      ...FILTERED.map(({ name, filters }) => {
        const { dimension, metric } = V1_STATISTICS[name];
        const params = filters.map((f) => `${filterParam(f)}=${f.value}`).join('&');
        return {
          key: `${name}?${params}`,
          title: `\`${name}\` \`${params}\``,
          ask: {
            engine: {
              from: yearFrom,
              to: lastDay,
              filters: v1Filters(filters),
              groups: [
                {
                  dimensions: [dimension],
                  metrics: [metric],
                  order: [[metric, 'desc']],
                  limit: 25,
                  offset: 0,
                },
              ],
            },
          },
        };
      }),
      ...V2_QUESTIONS.filter((q) => q.key === 'pageByCountry365').map((q) => ({
        key: `v2.${q.key}`,
        title: `v2 ${q.title}`,
        ask: { engine: v2Question(q) },
      })),
      {
        key: 'funnel365',
        title: 'A four-step funnel',
        ask: { funnel: { steps: FUNNEL_STEPS, from: yearFrom, to: lastDay } },
      },
      {
        key: 'journey365',
        title: 'A two-step journey after `/pricing`',
        ask: {
          journey: (FLOW_QUESTIONS.find((q) => q.key === 'journey365') as { journey: JourneyQuery })
            .journey,
        },
      },
    ];
    for (const [i, site] of sites.entries()) {
      const size = sizes[i] as ScaleSizeReport;
      for (const q of questions) {
        const ask = (mode: string) =>
          post('/bench/scale', {
            websiteId: site.id,
            mode,
            runs: config.runs,
            ...q.ask,
          }) as Promise<{
            rowsRead: number;
            samples: number[];
            slowest: number[];
            merges: number[];
            mergeBytes: number;
          }>;
        const p = (xs: number[], at: number) =>
          round(
            percentile(
              [...xs].sort((a, b) => a - b),
              at,
            ),
          );
        const cold = await ask('cold');
        const parts = await ask('parts');
        const again = await ask('again');
        size.questions.push({
          key: q.key,
          title: q.title,
          rowsRead: cold.rowsRead,
          p50Ms: p(cold.samples, 50),
          p95Ms: p(cold.samples, 95),
          criticalP50Ms: p(parts.samples, 50),
          criticalP95Ms: p(parts.samples, 95),
          slowestPartitionP50Ms: p(parts.slowest, 50),
          mergeP50Ms: p(parts.merges, 50),
          mergeBytes: parts.mergeBytes,
          againP50Ms: p(again.samples, 50),
          againP95Ms: p(again.samples, 95),
          againRowsRead: again.rowsRead,
        });
        log(
          `  ${site.factor}×: ${q.key}: whole ${p(cold.samples, 50)} ms, critical path ${p(parts.samples, 50)} ms, again ${p(again.samples, 50)} ms`,
        );
      }
    }
    await bench.stop();
    // Hits under readers, against the real Worker.
    const dev = await startWorker(state, FLOOR_ENTRY, vars, benchConfig(root, state));
    try {
      const base = `http://${dev.address}:${dev.port}`;
      for (const [i, site] of sites.entries()) {
        const size = sizes[i] as ScaleSizeReport;
        const pool: GeneratedHit[] = [];
        for (const day of trafficDays({
          seed: config.seed + 2,
          domain: site.domain,
          days: 1,
          end: end + DAY,
          visitorsPerDay: 2000,
          pages: config.pages,
        }))
          pool.push(...day.filter((h) => !('event' in h.body)));
        const hit = (n: number) => {
          const { body, req } = pool[n % pool.length] as GeneratedHit;
          return fetch(`${base}/api/event`, {
            method: 'POST',
            headers: {
              'content-type': 'text/plain',
              'user-agent': req.userAgent,
              'cf-connecting-ip': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
            },
            body: JSON.stringify(body),
          });
        };
        // Each read a question not asked before (one more filter that keeps everything), so that
        // every read reads the events.
        let asked = 0;
        const auth = { authorization: `Bearer ${site.apiKey}` };
        const heaviest = FILTERED.filter((f) => ['exit_page', 'country', 'page'].includes(f.name));
        // Over the year, or only over the open partition's dates (`from`): what the open
        // partition's own machine takes of each read when deployed.
        const readersFrom = (from: string) => [
          ...heaviest.map(({ name, filters }) => () => {
            const params = new URLSearchParams({ name, from, to: lastDay });
            for (const f of filters) params.set(filterParam(f), f.value);
            params.set('filter[os][not]', `Bench ${asked++}`);
            return fetch(`${base}/api/v1/stats/${site.id}?${params}`, { headers: auth });
          }),
          () =>
            fetch(`${base}/api/v2/query`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({
                site_id: site.domain,
                metrics: ['visitors', 'pageviews'],
                dimensions: ['event:page', 'visit:country'],
                date_range: [from, lastDay],
                filters: [
                  ['is', 'visit:source', ['Google']],
                  ['is_not', 'visit:os', [`Bench ${asked++}`]],
                ],
              }),
            }),
        ];
        log(`  ${site.factor}×: hits alone, then under four readers`);
        const alone = await hitsWhileReading({
          seconds: config.durationSeconds,
          readers: 0,
          hit,
          questions: [],
        });
        const under = await hitsWhileReading({
          seconds: config.durationSeconds,
          readers: 4,
          hit: (n) => hit(100_000 + n),
          questions: readersFrom(yearFrom),
        });
        const own = await hitsWhileReading({
          seconds: config.durationSeconds,
          readers: 4,
          hit: (n) => hit(200_000 + n),
          questions: readersFrom(size.openFrom),
        });
        size.hits = {
          alone: alone.hits,
          underReads: under.hits,
          reads: under.reads,
          underOwnReads: own.hits,
          ownReads: own.reads,
        };
        log(
          `    hits p99 ${alone.hits.p99Ms} ms alone, ${under.hits.p99Ms} ms under reads, ${own.hits.p99Ms} ms under the open partition's reads`,
        );
      }
    } finally {
      await dev.stop();
    }
    const scale: ScaleReport = {
      generatedAt: new Date().toISOString(),
      partitionEvents: limit,
      cores: cpus().length,
      year: { events: yearEvents, loadSeconds: round(yearSeconds) },
      runs: config.runs,
      sizes,
    };
    const path = join(outDir, 'benchmarks.json');
    const report = JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
    report.scale = scale;
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
    log(
      `wrote scale into ${path} and BENCHMARKS.md in ${Math.round((performance.now() - runStarted) / 1000)} s`,
    );
  } finally {
    if (args.keep) log(`kept ${state}`);
    else rmSync(state, { recursive: true, force: true });
  }
}

if (args.scale) {
  await scaleMain();
} else if (args.bundle) {
  await bundleOnly();
} else if (args['parquet-export']) {
  await parquetExportOnly();
} else if (args['import-heap']) {
  await importHeapOnly();
} else if (args['render-only']) {
  // Re-renders BENCHMARKS.md from benchmarks.json (after editing the report's text).
  const report = JSON.parse(readFileSync(join(outDir, 'benchmarks.json'), 'utf8')) as BenchReport;
  writeFileSync(join(outDir, 'BENCHMARKS.md'), renderMarkdown(report));
} else {
  await main();
}
