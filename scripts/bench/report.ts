/** docs/BENCHMARKS.md from one run's figures (docs/benchmarks.json holds the same figures). */

import { readFileSync } from 'node:fs';
import { STAT_NAMES } from '../../src/counting/statistics.ts';
import { ENGAGEMENT_MIX } from '../lib/engagement-mix.ts';
import type { BundleReport } from './bundle.ts';
import { type HitStep, hitStepsSection } from './hit-steps.ts';
import type { PeakHeapReport } from './import-heap.ts';
import type { ParquetExportReport } from './parquet-export.ts';
import { FREE_PLAN_DAILY, type PerPageview, PLAN_SOURCES } from './plans.ts';
import { type ScaleReport, scaleSection } from './scale.ts';

type Sizes = { raw: number; gzip: number; brotli: number };
type Rate = '0.1' | '1' | '10' | '50';
type Spread = { samples: number; p50Ms: number; p99Ms: number; maxMs: number };
type Load = {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
};

/** One statistic read over the last `days` days: its cost and latency. */
type Read = {
  statistic: string;
  days: number;
  rowsRead: number;
  rowsReturned: number;
  distinctValues: number;
  p50Ms: number;
  p95Ms: number;
  /** The rows the same read takes from days alone (no month or year roll-ups); long ranges. */
  rowsReadByDays?: number;
};

export type BenchReport = {
  generatedAt: string;
  config: {
    mode: string;
    pageviews: number;
    pages: number;
    days: number;
    seed: number;
    runs: number;
    durationSeconds: number;
    concurrency: number;
    costDays: number;
  };
  machine: { cpu: string; cores: number; memoryGb: number; node: string; wrangler: string };
  data: {
    days: number;
    pageviews: number;
    events: number;
    dropped: number;
    distinctPages: number;
    loadSeconds: number;
  };
  writes: {
    siteId: number;
    days: number;
    pageviews: number;
    events: number;
    dropped: number;
    rowsPerPageview: number;
    rowsPerEvent: number;
    /** Rows written per dropped hit, in a run of crawlers (`droppedMix`: scripts/bench.ts). */
    rowsPerDropped: number;
    droppedMix?: {
      hits: number;
      perSecond: number;
      userAgents: number;
      rowsWritten: number;
      objectRowsWritten: number;
    };
    rowsPerStoredHit: number;
    flushes: number;
    /** Rows written per page view at 0.1, 1, 10 and 50 page views a second. */
    rowsPerPageviewAt: Record<Rate, number>;
    /** What a page view costs of each thing Cloudflare's plans count, at each rate. */
    perPageviewAt: Record<Rate, PerPageview>;
    /** The page views a day the Workers Free plan allows, and the limit that binds first. */
    freePlanAt: Record<Rate, { pageviewsPerDay: number; binding: keyof PerPageview }>;
    /** What a million page views cost at the Workers Paid plan's prices. */
    paidPerMillionAt: Record<Rate, { usd: number; parts: Record<keyof PerPageview, number> }>;
    /** When a log flushes: once this many events wait, or the oldest has waited this long. */
    flushPolicy: { events: number; withinMs: number };
    /** A day at 1 page view a second, every hit with five custom properties. */
    withFiveProps?: { rowsPerPageview: number; perPageview: PerPageview };
    /**
     * A day at 1 page view a second with the engagements the default tracker sends under the
     * mix of scripts/lib/engagement-mix.ts: the engagement hits per page view, and the page
     * views a day the Workers Free plan allows then (every engagement's requests counted).
     */
    withEngagement?: {
      rowsPerPageview: number;
      perPageview: PerPageview;
      engagementsPerPageview?: number;
      /** What the engagements themselves add per page view (their own calls, the same day). */
      engagementPerPageview?: { rowsWritten: number; workersRequests: number; doRequests: number };
      freePlanPageviewsPerDay?: number;
    };
  };
  reads: Read[];
  /** Filtered statistics read from the site's event log in its Durable Object (rows read: SQLite's count). */
  filteredReads: (Read & { /** The filters as query parameters. */ filters: string })[];
  /** Questions of the Stats API v2 asked of the query engine (issue #31's figures). */
  v2Reads?: (Omit<Read, 'statistic'> & { key: string; title: string; target: number })[];
  /**
   * Funnels and journeys asked of the site's log (issue #33's figures): rows returned are the
   * steps or paths, "in all" the first step's visitors or the paths.
   */
  flowReads?: (Omit<Read, 'statistic'> & { key: string; title: string; target: number })[];
  /**
   * A website's data out and in (issue #34): its year as Plausible's CSV export and as its
   * event log, downloaded through the API under `wrangler dev`; the zip imported into a new
   * website through the API; and the same import's rows written, counted over the local D1
   * file (SQLite's changes: a row inserted or updated is one written).
   */
  imports?: {
    plausibleExport: { seconds: number; bytes: number };
    eventsExport: { seconds: number; bytes: number; events: number };
    apiImport: { seconds: number; status: number; records: number };
    rowsWritten: {
      records: number;
      values: number;
      rowsWritten: number;
      perValue: number;
      seconds: number;
    };
    /**
     * A generated Umami export of single hits imported through the API with the isolate's
     * heap read (issue #46), and the same file's rows written over the local D1 file.
     */
    peakHeap?: PeakHeapReport & {
      rowsWritten: { records: number; rowsWritten: number; staged: number };
    };
  };
  /**
   * The event log as Parquet (./parquet-export.ts): a year of the website encoded by the
   * Parquet Worker's code, its throughput and peak heap.
   */
  exports?: { parquet?: ParquetExportReport };
  /** The complete months compacted into month and year roll-ups before the reads. */
  compaction: { months: number; rowsWritten: number; rowsRead: number; seconds: number };
  /** Events in the site's log when the filtered reads were measured. */
  eventsImported: number;
  throughput: {
    concurrency: number;
    seconds: number;
    event: Load;
    /** The floor: the same rate limits and one call to the website's object, nothing else. */
    floor: Load;
    trivial: Load;
    ratio: number;
    vsFloor: number;
    /** What each step of a hit costs, in microseconds of CPU (./hit-steps.ts). */
    steps?: HitStep[];
    /** A hit's latency, alone and while readers ask the heaviest filtered questions. */
    hitLatencyUnderReads: {
      readers: number;
      seconds: number;
      alone: Spread;
      underReads: Spread;
      reads: Spread;
      /** Hits while as many clients ask `GET /health`: what any load costs a hit locally. */
      underTrivial?: Spread;
      trivialReads?: Spread;
    };
    /**
     * A hit's latency while four clients load the statistics page under goal filters, the
     * website having `goals` page goals and `dictionaryTexts` texts (issue #46: p99 ≤ 250 ms,
     * each page ≤ 2 s).
     */
    hitLatencyUnderGoals?: {
      goals: number;
      dictionaryTexts: number;
      readers: number;
      seconds: number;
      hits: Spread;
      reads: Spread;
    };
    /**
     * A hit's latency while four clients ask the Stats API v2 the costliest `patterns` over
     * the website's `dictionaryTexts` texts (issue #60: p99 ≤ 250 ms; each question answered
     * or refused, naming its pattern, within 2 s).
     */
    hitLatencyUnderPatterns?: {
      patterns: string[];
      dictionaryTexts: number;
      readers: number;
      seconds: number;
      hits: Spread;
      questions: Spread & { answered: number; refused: number };
    };
  };
  /** A read of the website's statistics right after a hit: its latency (it counts the hit). */
  readYourWrites: Spread;
  sizes: {
    tracker: Sizes;
    /** `/js/script.full.js`: with tracking without code (issue #32: at most 1,536 B gzipped). */
    trackerFull?: Sizes;
    statsPage: {
      html: Sizes;
      assets: number;
      total: Sizes;
      /**
       * A tab, chart metric, filter or period switch in Chromium, click to new figures, p95 over
       * all (scripts/bench/switches.ts; issue #62: at most 300 ms at 1 M page views a year).
       */
      switchP95Ms?: number;
      switchP50MsByKind?: Record<string, number>;
    };
    statsPageP50Ms: number;
    /** The Worker as `wrangler deploy` uploads it (scripts/bench/bundle.ts). */
    bundle?: BundleReport;
  };
  runSeconds: number;
  /** `npm run bench -- --scale` (scripts/bench/scale.ts). */
  scale?: ScaleReport;
};

/** Section 4's hits while the costliest patterns are asked. */
function patternsSection(r: BenchReport): string {
  const p = r.throughput.hitLatencyUnderPatterns;
  if (!p) return '';
  return `
### A hit while readers ask the costliest patterns

${p.readers} clients keep asking the Stats API v2 for the last 30 days' visitors under a \`matches\`
filter of the page, one pattern after another — ${p.patterns.map((x) => `\`${x}\``).join(', ')}: programs
near the largest a pattern may compile to (1,000 states), which visit hundreds of states a
character, and one too large to compile — over the website's ${n(p.dictionaryTexts)} texts, while one
client sends hits for ${p.seconds} s. A pattern's work is counted in the states its automaton visits,
each turn of the read lane bounded by it, and a question past its share (20 turns) is refused
with a \`400\` naming the pattern (src/website-log/object/read/filters/dictionary-search.ts).

| | Samples | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
| Hits (\`throughput.hitLatencyUnderPatterns\`, target p99 ≤ 250) | ${n(p.hits.samples)} | ${p.hits.p50Ms} | **${p.hits.p99Ms}** | ${p.hits.maxMs} |
| Questions meanwhile (target ≤ 2,000 each; ${n(p.questions.answered)} answered, ${n(p.questions.refused)} refused) | ${n(p.questions.samples)} | ${p.questions.p50Ms} | ${p.questions.p99Ms} | **${p.questions.maxMs}** |
`;
}

/** Section 4's hits while the statistics page is read under goal filters. */
function goalsSection(r: BenchReport): string {
  const g = r.throughput.hitLatencyUnderGoals;
  if (!g) return '';
  return `
### A hit while readers load the statistics page under goal filters

The website then gets ${n(g.goals)} page goals — exact pages, \`*\` within a segment, \`**\` across
segments and goals that start with \`/**\` — its dictionary holding ${n(g.dictionaryTexts)} texts. One
client sends hits for ${g.seconds} s while ${g.readers} clients keep loading the statistics page (the last
30 days, and today) under goal filters naming 200 goals, one, 20 and all of them: each page
matches the goals' patterns against the dictionary and counts every goal's conversions (one
grouping by goals, one read of the log).

| | Samples | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
| Hits (\`throughput.hitLatencyUnderGoals\`, target p99 ≤ 250) | ${n(g.hits.samples)} | ${g.hits.p50Ms} | **${g.hits.p99Ms}** | ${g.hits.maxMs} |
| Pages meanwhile (target ≤ 2,000 each) | ${n(g.reads.samples)} | ${g.reads.p50Ms} | ${g.reads.p99Ms} | **${g.reads.maxMs}** |

The patterns are matched in one pass over the dictionary, in turns of the read lane of bounded
work, and what each found is remembered as texts are added (src/website-log/object/read/filters/dictionary-search.ts),
so the first page pays for the pass and the others compare only the texts added since.${
    g.reads.maxMs > 2000
      ? `

The pages miss their target at the slowest (${n(Math.round(g.reads.maxMs))} ms): each page asks every panel's
grouping of 30 days, and the four readers' chunks take turns in the one object's read lane,
behind the hits.`
      : ''
  }
`;
}

/** Section 3d: the year out as files, and back in as imported history. */
function importsSection(r: BenchReport): string {
  const i = r.imports;
  if (!i) return 'Not measured in this run.';
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  return `The benchmark's website, its ${r.data.days} days, through the API of \`wrangler dev\`
(docs/ARCHITECTURE.md, "Imported history" and "Exports"):

| What | Time | Size | |
|---|---|---|---|
| \`GET …/export?format=plausible\`: the numbers as Plausible's CSV export (\`imports.plausibleExport\`) | ${i.plausibleExport.seconds} s | ${mb(i.plausibleExport.bytes)} MB zip | |
| \`GET …/export?format=events\`: the event log as NDJSON, streamed (\`imports.eventsExport\`) | ${i.eventsExport.seconds} s | ${mb(i.eventsExport.bytes)} MB | ${n(i.eventsExport.events)} events |
| \`POST …/imports?source=plausible\`: that zip into a new website (\`imports.apiImport\`) | ${i.apiImport.seconds} s | | ${n(i.apiImport.records)} records, answered ${i.apiImport.status} |

The same import counted over the local D1 file (\`imports.rowsWritten\`): ${n(i.rowsWritten.records)} records
holding ${n(i.rowsWritten.values)} values (a count of a statistic each) wrote **${n(i.rowsWritten.rowsWritten)}** rows:
**${i.rowsWritten.perValue}** a value (target ≤ 1), in ${i.rowsWritten.seconds} s.${i.peakHeap ? `\n\n${peakHeapText(i.peakHeap)}` : ''}${r.exports?.parquet ? `\n\n${parquetText(r.exports.parquet)}` : ''}`;
}

/** The event log as Parquet (\`exports.parquet\`). */
function parquetText(p: ParquetExportReport): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  return `The event log as Parquet (\`exports.parquet\`, ${p.via}): ${n(p.events)} events, ${mb(p.ndjsonBytes)} MB of
NDJSON, became a ${mb(p.bytes)} MB file of ${n(p.rowGroups)} row groups of ${n(p.rowGroup)} events in ${p.cpuSeconds} s of CPU
(**${n(p.eventsPerSecond)} events/s**); the heap, garbage not yet collected included, peaked ${mb(p.peakHeapAboveIdleBytes)} MB above
where it started.${
    p.capped
      ? ` With V8's heap capped at ${p.capped.maxOldSpaceMb} MB, so that garbage is collected as it goes
(\`node --max-old-space-size=${p.capped.maxOldSpaceMb}\` running \`npm run bench -- --parquet-export\` over a generated
year as large), the encoding held at most **${mb(p.capped.peakHeapAboveIdleBytes)} MB** above its start: a row group at a
time, whatever the year's size.`
      : ''
  }`;
}

/** The heap of an import of single hits (\`imports.peakHeap\`). */
function peakHeapText(h: NonNullable<NonNullable<BenchReport['imports']>['peakHeap']>): string {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const f = h.file;
  return `**Memory of an import of single hits** (\`imports.peakHeap\`; \`npm run bench -- --import-heap\`
measures it alone): a generated Umami export — ${n(f.sessions)} sessions over a year, ${n(f.rows)} rows,
${mib(f.bytes)} MiB of CSV, ${mib(f.gzipBytes)} MiB gzipped — posted to \`POST …/imports?source=umami\` under
\`wrangler dev\`, the isolate's JavaScript heap read through its inspector (${n(h.samples)} readings, each
between two of the import's turns). With V8's old generation capped at ${mib(h.oldSpaceCapBytes)} MiB, as a
Worker near its limit collects its garbage, it answered ${h.status} (${n(h.records)} records, ${h.seconds} s)
and its heap peaked at ${mib(h.peakBytes)} MiB: **${mib(h.aboveIdleBytes)} MiB above the idle ${mib(h.idleBytes)} MiB** (target ≤ 64 MiB;
an isolate has 128 MB deployed). Without the cap V8 let garbage pile up to ${mib(h.uncapped.peakBytes)} MiB
(${h.uncapped.status}, ${h.uncapped.seconds} s). The visitor-days and visits beyond the counter's bound were staged
in D1 and read back (docs/ARCHITECTURE.md, "Imported history"): the same file imported over the
local D1 file wrote ${n(h.rowsWritten.rowsWritten)} rows, ${n(h.rowsWritten.staged)} of them staging.`;
}

/**
 * D1 rows read by each statistic over 365 days before month and year roll-ups (summed from
 * its days, grouped by SQLite's sorter): docs/benchmarks.json as published before them, on
 * the default run's generated data. The reference the long ranges are measured against (a
 * `--quick` or resized run has other data: its table leaves it out).
 */
const BEFORE_LONG_RANGES: Record<string, number> = {
  pageviews: 1827,
  pageviews_hours: 17592,
  visitors: 1827,
  visitors_hours: 17592,
  page: 827713,
  landing_page: 475409,
  referrer: 6599,
  campaign: 2201,
  continent: 4400,
  country: 8065,
  city: 9531,
  language: 4400,
  browser: 3667,
  os: 3667,
  device: 2201,
  resolution: 12463,
  event: 2934,
  visits: 1827,
  visits_hours: 17591,
  bounces: 1827,
  visit_duration: 1827,
  exit_page: 532236,
};

/**
 * The twelve filtered breakdowns as published before the reads were cut into chunks over the
 * log's compact rows (docs/benchmarks.json of 2026-11-23, default run): rows read, p50 and p95
 * milliseconds, by statistic, filters and days. What section 3 is measured against.
 */
const BEFORE_FILTERED: Record<string, [rowsRead: number, p50: number, p95: number]> = {
  'page filter[referrer]=www.google.com 30': [267946, 80, 98],
  'referrer filter[event]=signup 30': [241229, 48, 51],
  'browser filter[page]=/pricing 30': [242873, 51, 60],
  'page filter[country]=DE:Germany 30': [248252, 62, 63],
  'country filter[browser][not]=Chrome&filter[page][contains]=docs 30': [259415, 69, 70],
  'exit_page filter[referrer]=www.google.com 30': [364526, 108, 110],
  'page filter[referrer]=www.google.com 365': [2668328, 847, 874],
  'referrer filter[event]=signup 365': [2437019, 570, 648],
  'browser filter[page]=/pricing 365': [2453656, 532, 628],
  'page filter[country]=DE:Germany 365': [2491796, 690, 738],
  'country filter[browser][not]=Chrome&filter[page][contains]=docs 365': [2621447, 727, 826],
  'exit_page filter[referrer]=www.google.com 365': [3660430, 1212, 1433],
};

/** Rows written per page view before this flush policy (10 s after the first event), by rate. */
const BEFORE_WRITES: Partial<Record<Rate, number>> = { '1': 6.75, '10': 3.63, '50': 2.76 };

const LIMIT_NAMES: Record<keyof PerPageview, string> = {
  workersRequests: 'Workers requests',
  doRequests: 'Durable Object requests',
  doRowsWritten: 'Durable Object rows written',
  doRowsRead: 'Durable Object rows read',
  d1RowsWritten: 'D1 rows written',
  d1RowsRead: 'D1 rows read',
};

const RATES: Rate[] = ['0.1', '1', '10', '50'];

const n = (x: number) => x.toLocaleString('en');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const statuses = (s: Record<string, number>) =>
  Object.entries(s)
    .map(([code, count]) => `${n(count)}× ${code}`)
    .join(', ');

export function renderMarkdown(r: BenchReport): string {
  const w = r.writes;
  const hours = (ms: number) => `${ms / 3_600_000} hours`;
  const per = (rate: Rate) => w.perPageviewAt[rate];
  const filteredRows = r.filteredReads.map((f) => {
    const before =
      r.config.mode === 'default'
        ? BEFORE_FILTERED[`${f.statistic} ${f.filters} ${f.days}`]
        : undefined;
    const was = before ? `${n(before[0])} | ${before[1]} / ${before[2]}` : ' | ';
    return `| \`${f.statistic}\` | \`${f.filters}\` | ${f.days} | ${n(f.rowsRead)} | ${n(f.rowsReturned)} / ${n(f.distinctValues)} | **${f.p50Ms}** / ${f.p95Ms} | ${was} |`;
  });
  const hl = r.throughput.hitLatencyUnderReads;
  const ranges = [...new Set(r.reads.map((x) => x.days))];
  const byStat = [...new Set(r.reads.map((x) => x.statistic))];
  const cell = (stat: string, days: number) =>
    r.reads.find((x) => x.statistic === stat && x.days === days);
  const readRows = byStat.map((stat) => {
    const cells = ranges.map((d) => {
      const c = cell(stat, d);
      return c
        ? `${n(c.rowsRead)} | ${n(c.rowsReturned)} / ${n(c.distinctValues)} | ${c.p50Ms} / ${c.p95Ms}`
        : ' | | ';
    });
    return `| \`${stat}\` | ${cells.join(' | ')} |`;
  });
  const widest = r.reads.reduce((a, b) => (b.rowsRead > a.rowsRead ? b : a));
  const longRows = byStat.map((stat) => {
    const c = cell(stat, 365);
    const before = r.config.mode === 'default' ? BEFORE_LONG_RANGES[stat] : undefined;
    if (!c) return `| \`${stat}\` | | | | |`;
    const share = before ? `${n(before)} | **${Math.round((100 * c.rowsRead) / before)}%**` : ' | ';
    return `| \`${stat}\` | ${n(c.rowsRead)} | ${c.rowsReadByDays ? n(c.rowsReadByDays) : ''} | ${share} |`;
  });
  const comparison = readFileSync(new URL('./comparison.md', import.meta.url), 'utf8').trim();

  return `# Benchmarks

Measured by \`npm run bench\` (${r.config.mode} run) on ${r.generatedAt.slice(0, 10)}; every figure
below comes from that one run and is also in [benchmarks.json](benchmarks.json). Run it again
to check them on your machine: \`npm run bench\` (about ${Math.ceil(r.runSeconds / 60)} minutes here),
or \`npm run bench -- --quick\` for a smaller data set (under 2 minutes here). Sizes are parameters (\`--pageviews\`,
\`--pages\`, \`--days\`, \`--runs\`, \`--duration\`, \`--concurrency\`; see scripts/bench.ts).

**Machine:** ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGb} GB; Node ${r.machine.node};
wrangler ${r.machine.wrangler} (workerd and local D1 from it). The machine is shared, so
latencies vary from run to run; rows read and written are exact and do not.

## The data

Generated by scripts/lib/traffic.ts with seed ${r.config.seed}: ${n(r.data.days)} days of traffic on one
site with Zipf-distributed pages (weight 1/rank), a weekly rhythm and a daily curve, growth over
the year, multi-page and returning visits, search, social and link referrers, campaigns, 10 device
types, 13 places, custom events and a share of bots.

| | |
|---|---|
| Page views stored | ${n(r.data.pageviews)} |
| Events stored | ${n(r.data.events)} |
| Hits dropped (bots) | ${n(r.data.dropped)} |
| Distinct pages (365 days) | ${n(r.data.distinctPages)}: ${n(r.config.pages)} generated paths, plus campaign links that keep their \`utm_\` query (the website keeps query strings unless told to exclude them) |
| Loading time | ${n(r.data.loadSeconds)} s |

Every hit went through the one ingestion entry point — \`ingestCall\` — into the real event
log (\`WebsiteLogCore\`, the same code as the websites' Durable Objects), whose flush wrote the
roll-ups; the logs were flushed at the end of every day of traffic. For speed the load runs
outside workerd, over Node's SQLite (the logs and the local D1 database file), one process per
core (days are independent: visitor hashes are salted per day). Nothing is written by hand;
test/cli/bench-loader.test.ts proves the result equals the Worker's.

## 1. Cost per hit (rows written: the event log and D1)

Measured inside workerd: the rows the website's event log (its Durable Object) writes and reads
for each hit — SQLite's own counts — plus the D1 rows of its flushes (\`meta.rows_written\`,
\`meta.rows_read\`). The benchmark's website, its year already in its log (a website in use:
its pages and places mostly seen before), takes one more day of its traffic
(${n(w.pageviews)} page views, ${n(w.events)} events, ${n(w.dropped)} dropped hits) at each rate, the hits' own clock
paced so; the log flushes when its policy says (\`flushDueAt\`, src/website-log/object/flush.ts): once
${n(w.flushPolicy.events)} events wait, or once the oldest has waited ${hours(w.flushPolicy.withinMs)}. Readers flush first anyway
(read-your-writes), so the policy decides only how many page views share a flush's D1 rows.

| Hit (at 50 a second) | Rows written (average) | Floor |
|---|---|---|
| Page view | **${w.rowsPerPageview}** | 1 |
| Event | **${w.rowsPerEvent}** | 1 |
| Dropped hit (bot, …)${w.droppedMix ? ': a run of crawlers, below' : ''} | ${w.rowsPerDropped} | 0 |
| Any stored hit | ${w.rowsPerStoredHit} | 1 |
${
  w.droppedMix
    ? `
A dropped hit is counted, never stored (docs/ARCHITECTURE.md, "Filtered traffic"): its log adds
it to a counter per date, reason and bot in memory, written to D1 a minute after the oldest.
Measured on a run of crawlers (\`writes.droppedMix\`): ${n(w.droppedMix.hits)} bot hits at
${w.droppedMix.perSecond} a second from ${w.droppedMix.userAgents} User-Agents (ten named crawlers, an
automated browser) wrote ${n(w.droppedMix.rowsWritten)} rows (${w.droppedMix.objectRowsWritten} in the log):
**${w.rowsPerDropped}** a dropped hit. A minute costs a row per (date, reason, bot) seen in it,
so a rare drop costs about one.
`
    : ''
}
Page views at each rate, rows written per page view (events and dropped hits of the day
shared out over them in the last columns):

| Page views a second | ${RATES.join(' | ')} |
|---|${RATES.map(() => '---|').join('')}
| Rows written per page view | ${RATES.map((rate) => `**${w.rowsPerPageviewAt[rate]}**`).join(' | ')} |
| before this policy (flush 10 s after the first event) | ${RATES.map((rate) => BEFORE_WRITES[rate] ?? '').join(' | ')} |
| in the log (Durable Object) | ${RATES.map((rate) => per(rate).doRowsWritten).join(' | ')} |
| in D1 | ${RATES.map((rate) => per(rate).d1RowsWritten).join(' | ')} |
| rows read in the log / in D1 | ${RATES.map((rate) => `${per(rate).doRowsRead} / ${per(rate).d1RowsRead}`).join(' | ')} |

${
  w.withFiveProps
    ? `With five custom properties on every hit (a day at 1 a second; \`writes.withFiveProps\`), a page view writes **${w.withFiveProps.rowsPerPageview}** rows (${w.withFiveProps.perPageview.doRowsWritten} in the log, ${w.withFiveProps.perPageview.d1RowsWritten} in D1): properties are one column of the hit's row, their texts the dictionary's rows on first sight, and no roll-up row.

`
    : ''
}${
  w.withEngagement?.engagementPerPageview !== undefined
    ? `With the default tracker's engagements (time seen and deepest scroll; a day at 1 a second, \`writes.withEngagement\`), under an assumed mix — ${ENGAGEMENT_MIX} — a page view is followed by **${w.withEngagement.engagementsPerPageview}** engagement hits on average. Each is a request to the Worker and a call to its website's log, and updates its page view's row — one row, two for a page viewed again in its visit (its time on the last view, its scroll on the first), none when it brings nothing new — adding no event and no roll-up row: counted on their own calls, the engagements add **${w.withEngagement.engagementPerPageview.rowsWritten}** rows written, **${w.withEngagement.engagementPerPageview.workersRequests}** Worker and ${w.withEngagement.engagementPerPageview.doRequests} Durable Object requests to a page view. In all, that day's page view writes ${w.withEngagement.rowsPerPageview} rows (${w.withEngagement.perPageview.doRowsWritten} in the log, ${w.withEngagement.perPageview.d1RowsWritten} in D1; ${w.rowsPerPageviewAt['1']} at 1 a second without engagement, on another day's traffic) and costs ${w.withEngagement.perPageview.workersRequests} Worker and ${w.withEngagement.perPageview.doRequests} Durable Object requests (${per('1').workersRequests} and ${per('1').doRequests}).

`
    : ''
}A page view writes its event in its log, the visitor's row when it starts a visit (the
short-lived row that decides "new visitor" and "new visit" without storing an address), and a
text's first sight in the log's dictionary (one row; its next sights nothing); and its share of
the flushes, one D1 row per distinct (statistic, date, value) of the events a flush sums —
pages, landing pages and exit pages the most. Flushing a day's or ${n(w.flushPolicy.events)} events at once, a
quiet website's page view shares its rows with as many others as a busy one's.

### What a website can take on Cloudflare's free plan

From the counts above, the page views a day one website can take before the first daily limit
of the Workers Free plan is reached (${Object.entries(FREE_PLAN_DAILY)
    .map(([k, v]) => `${LIMIT_NAMES[k as keyof PerPageview]} ${n(v)}`)
    .join(', ')} a day;
Cloudflare's figures as of ${PLAN_SOURCES.checked}: ${PLAN_SOURCES.pages.join(', ')}), with the log's 24 hourly
alarms and its flushes counted as Durable Object requests:

| Page views a second | ${RATES.join(' | ')} |
|---|${RATES.map(() => '---|').join('')}
| Page views a day the free plan allows | ${RATES.map((rate) => `**${n(w.freePlanAt[rate].pageviewsPerDay)}**`).join(' | ')} |
| The limit reached first | ${RATES.map((rate) => LIMIT_NAMES[w.freePlanAt[rate].binding]).join(' | ')} |
| Workers / Durable Object requests per page view | ${RATES.map((rate) => `${per(rate).workersRequests} / ${per(rate).doRequests}`).join(' | ')} |
${
  w.withEngagement?.freePlanPageviewsPerDay !== undefined
    ? `
With the default tracker, its engagements sent as the mix above assumes, the free plan allows
**${n(w.withEngagement.freePlanPageviewsPerDay)}** page views a day (\`writes.withEngagement.freePlanPageviewsPerDay\`).
`
    : ''
}
A Durable Object is also billed for the time it is active (13,000 GB-s a day on the free
plan): one website's log, active all day long, uses at most 24 h × 128 MB = 10,800 GB-s, so
this limit never binds for one website (it does for many busy ones together).

One million page views on the Workers Paid plan, at its prices beyond the usage its $5 a
month includes: **$${w.paidPerMillionAt['50'].usd}** at 50 a second (${Object.entries(
    w.paidPerMillionAt['50'].parts,
  )
    .filter(([, usd]) => usd >= 0.005)
    .map(([k, usd]) => `${LIMIT_NAMES[k as keyof PerPageview]} $${usd.toFixed(2)}`)
    .join(
      ', ',
    )}; ${RATES.map((rate) => `$${w.paidPerMillionAt[rate].usd} at ${rate}`).join(', ')} a second).

## 2. Cost and speed of reads

Each of the ${STAT_NAMES.length} statistics over the last ${ranges.join(', ')} days up to yesterday, as the Stats API asks
for it (first page of 25, sorted by count): D1's exact \`meta.rows_read\`, rows returned / distinct
values, and the latency of the roll-up read (\`rollupSource\`: the website's last compacted
month, then the statistic) measured inside workerd against local D1 (p50 / p95 over
${r.config.runs} runs, milliseconds). The data holds ${n(r.data.days)} days, so 730 days read it all through
the pieces a two-year range is cut into.

| Statistic | ${ranges.map((d) => `${d} d: rows read | returned / distinct | p50 / p95 ms`).join(' | ')} |
|---|${ranges.map(() => '---|---|---|').join('')}
${readRows.join('\n')}

Reads grow with the roll-up rows of the range, not with the traffic as such: the small
statistics (hours, browsers, countries, devices, events) read a few thousand rows even for two
years. A range is cut into the fewest pieces the roll-ups hold (src/lib/time/dates.ts
\`piecesOf\`): whole years and months from the month and year roll-ups, days only at its
ends, so the long tail (\`page\`, \`landing_page\`, \`exit_page\`: ${n(r.data.distinctPages)} distinct pages,
most (page, day) pairs counted a few times) is read once per month rather than once per day.
The cost model (src/rollups/sums.ts, tested in test/integration/query/stats-cost.test.ts) is at
most R + 3G + K + 2 rows for R roll-up rows in K keys (days, months, years) and G distinct
values: each key is read in value order and the keys are merged so, with no grouping sorter
(whose rows D1 would count a second time); statistics of dates or hours read their R rows
only and are paged in the Worker. The widest read: \`${widest.statistic}\` over ${widest.days} days,
${n(widest.rowsRead)} rows.

Against the reads before month and year roll-ups (the same data and code path, grouped by
SQLite's sorter, as published before this change: \`BEFORE_LONG_RANGES\` in
scripts/bench/report.ts), and the same reads from days alone in this run (\`byDays\`: no
month or year rows, the rest as now):

| Statistic | 365 d: rows read | by days | before | share of before |
|---|---|---|---|---|
${longRows.join('\n')}

The ${n(r.compaction.months)} complete months of the data were compacted before the reads, as the hourly
maintenance does once a month is over in the website's time zone (src/rollups/compaction.ts):
${n(r.compaction.rowsWritten)} D1 rows written and ${n(r.compaction.rowsRead)} read in all (${r.compaction.seconds} s), that is
${(r.compaction.rowsWritten / Math.max(1, r.data.pageviews)).toFixed(2)} rows written per page view of the year, once — nothing on the hit's path: a hit
still writes only its day's rows, and a late one (a month already compacted) adds to its
month's and year's rows in the same flush.

## 3. Filtered reads (the event log)

A filtered question is answered by the website's event log in its Durable Object, which holds
every hit with its visit's and visitor's values (docs/ARCHITECTURE.md, Filters). Here the
site's ${n(r.eventsImported)} events (the year above) were put into its real object under workerd,
and each breakdown below asked of it ${r.config.runs} times as the Stats API asks (\`WebsiteLog.statistic\`,
first page of 25 sorted by count, the object reached from a Worker): the object's rows read
(SQLite's own count, exact), rows returned / distinct values, and p50 / p95 milliseconds —
beside the same question as published before (one SQL statement over text rows, joining each
visit and visitor of the range: \`BEFORE_FILTERED\` in scripts/bench/report.ts).

| Statistic | Filters | Days | Rows read | Returned / distinct | p50 / p95 ms | before: rows read | before: p50 / p95 ms |
|---|---|---|---|---|---|---|---|
${filteredRows.join('\n')}

Targets: p50 ≤ 100 ms over 30 days and ≤ 500 ms over 365 days. The log keeps each event as a
row of integers (its texts in a dictionary), with its visit's and its visitor's values on it,
so a filter is a condition on the row and every statistic is counted in one pass over the
range's rows — exit pages, bounces and durations too, as the roll-ups add them up page view by
page view. A read is cut into chunks of whole dates of a bounded amount of work, some 50 ms of
the heaviest questions here (docs/ARCHITECTURE.md,
"Reads that never stall hits"); the chunks' counts add up exactly, since a visit and a visitor
never cross a local date.

## 3b. Questions of the Stats API v2

The query engine (docs/ARCHITECTURE.md, "The query engine") asked as \`POST /api/v2/query\`
asks, inside workerd (\`answer\`, src/query/run/reader.ts), ${r.config.runs} times each: the top
line from the roll-ups (no filter, no dimension), the others from the website's log in chunks.
Rows read are D1's for the roll-ups, the object's for the log.

| Question | Days | Rows read | Returned / in all | p50 / p95 ms | Target p50 |
|---|---|---|---|---|---|
${(r.v2Reads ?? []).map((q) => `| ${q.title} (\`v2Reads.${q.key}\`) | ${q.days} | ${n(q.rowsRead)} | ${n(q.rowsReturned)} / ${n(q.distinctValues)} | **${q.p50Ms}** / ${q.p95Ms} | ≤ ${q.target} |`).join('\n')}

## 3c. Funnels and journeys

Asked of the website's log inside workerd (src/website-log/object/read/flows.ts), ${r.config.runs} times each,
in the chunks of whole dates every read of the log takes (hits come between them). For a funnel,
"returned / in all" is its steps / the first step's visitors; for a journey, the paths on the
first page / the paths in all.

| Question | Days | Rows read | Returned / in all | p50 / p95 ms | Target p50 |
|---|---|---|---|---|---|
${(r.flowReads ?? []).map((q) => `| ${q.title} (\`flowReads.${q.key}\`) | ${q.days} | ${n(q.rowsRead)} | ${n(q.rowsReturned)} / ${n(q.distinctValues)} | **${q.p50Ms}** / ${q.p95Ms} | ≤ ${q.target} |`).join('\n')}

## 3d. Exports and imports

${importsSection(r)}

## 4. Ingestion throughput

\`POST /api/event\` against \`wrangler dev\` serving the real Worker (local D1, the rate limiters of
wrangler.toml in place; each request from its own client address), ${r.throughput.concurrency} requests in flight for
${r.throughput.seconds} s, compared with \`GET /health\` of the same Worker in the same run (no database: the
floor of the platform on this machine) and with \`POST /__floor\` (the same two rate limits and
one call to the website's object that does nothing, then 202: the floor of a hit, without
Sightline's own work; scripts/bench/floor.ts, not in the deployed Worker). The floor and the
hits are loaded in turns (five of each, ${r.throughput.seconds} s in all per route: \`loadsInTurns\`), so that the
shared machine's slower and faster moments weigh on both alike. The load generator runs on the same 2 cores.

| Route | Requests/s | p50 ms | p99 ms | Answers |
|---|---|---|---|---|
| \`POST /api/event\` | ${r.throughput.event.requestsPerSecond} | ${r.throughput.event.p50Ms} | ${r.throughput.event.p99Ms} | ${statuses(r.throughput.event.statuses)} |
| \`POST /__floor\` | ${r.throughput.floor.requestsPerSecond} | ${r.throughput.floor.p50Ms} | ${r.throughput.floor.p99Ms} | ${statuses(r.throughput.floor.statuses)} |
| \`GET /health\` | ${r.throughput.trivial.requestsPerSecond} | ${r.throughput.trivial.p50Ms} | ${r.throughput.trivial.p99Ms} | ${statuses(r.throughput.trivial.statuses)} |

Hits run at **${r.throughput.vsFloor}×** the floor's rate (\`throughput.vsFloor\`, target ≥ 0.8): what is left is
Sightline's own work (parsing, enrichment, the event log's decisions and its write). Against
\`GET /health\` the ratio is ${r.throughput.ratio}× (\`throughput.ratio\`): under \`wrangler dev\` a call to an
object alone costs most of that, so that figure measures the local simulator more than the code.

${hitStepsSection(r.throughput.steps, r.throughput.event.requestsPerSecond / r.machine.cores)}
### A hit while readers ask the heaviest questions

One client sends hits to the benchmark's website one after another for ${hl.seconds} s, alone, then while
${hl.readers} clients keep asking the heaviest filtered questions of the same website over 365 days through
the Stats APIs (\`exit_page\`, \`page\` and \`country\` of section 3, v2's pages by country of
section 3b, and the funnel and the journey of section 3c through API v1, one after another):

| | Hits | p50 ms | p99 ms | max ms |
|---|---|---|---|---|
| Hits alone | ${n(hl.alone.samples)} | ${hl.alone.p50Ms} | ${hl.alone.p99Ms} | ${hl.alone.maxMs} |
| Hits under ${hl.readers} readers (\`throughput.hitLatencyUnderReads\`, target p99 ≤ 250) | ${n(hl.underReads.samples)} | ${hl.underReads.p50Ms} | **${hl.underReads.p99Ms}** | ${hl.underReads.maxMs} |
| The readers' reads meanwhile | ${n(hl.reads.samples)} | ${hl.reads.p50Ms} | ${hl.reads.p99Ms} | ${hl.reads.maxMs} |
${
  hl.underTrivial && hl.trivialReads
    ? `| Hits under ${hl.readers} clients of \`GET /health\` (no website, no object) | ${n(hl.underTrivial.samples)} | ${hl.underTrivial.p50Ms} | ${hl.underTrivial.p99Ms} | ${hl.underTrivial.maxMs} |
| Their requests meanwhile | ${n(hl.trivialReads.samples)} | ${hl.trivialReads.p50Ms} | ${hl.trivialReads.p99Ms} | ${hl.trivialReads.maxMs} |
`
    : ''
}
A reader's question is cut into chunks of a bounded amount of work (some 50 ms of the heaviest
questions here), and the object takes
the hits that came in between (docs/ARCHITECTURE.md, "Reads that never stall hits"), so a hit
waits for at most one chunk, however many readers there are. The rest of its wait under load is
the machine's: under \`wrangler dev\` the Worker, every object and the local D1 share one process
on these ${r.machine.cores} cores with the load generator, so any flood of requests raises a hit's
latency — as the clients of \`GET /health\`, which touch neither the website nor its object,
show. Deployed, a website's object runs apart from the Workers that render pages and from D1.
${goalsSection(r)}${patternsSection(r)}
## 5. Read-your-writes

A hit's page view reaches D1's roll-ups when its log flushes: before any read of the website's
statistics, or when its flush policy says (section 1). A read right after a hit — the Stats
API asked for the hit's page the moment the hit answered 202 — counts it every time; its
latency, flush included, over ${r.readYourWrites.samples} samples: p50 **${r.readYourWrites.p50Ms} ms**, p99 ${r.readYourWrites.p99Ms} ms.

## 6. Size

| | Raw | gzip -9 | Brotli 11 |
|---|---|---|---|
| Tracker \`/js/script.js\` | ${n(r.sizes.tracker.raw)} B | ${n(r.sizes.tracker.gzip)} B | ${n(r.sizes.tracker.brotli)} B |${
    r.sizes.trackerFull
      ? `\n| With tracking without code \`/js/script.full.js\` | ${n(r.sizes.trackerFull.raw)} B | ${n(r.sizes.trackerFull.gzip)} B | ${n(r.sizes.trackerFull.brotli)} B |`
      : ''
  }
| Statistics page, HTML (30 days, ${n(r.data.distinctPages)}-page site) | ${kb(r.sizes.statsPage.html.raw)} | ${kb(r.sizes.statsPage.html.gzip)} | ${kb(r.sizes.statsPage.html.brotli)} |
| Statistics page + its ${r.sizes.statsPage.assets} assets (what a first visit transfers) | ${kb(r.sizes.statsPage.total.raw)} | ${kb(r.sizes.statsPage.total.gzip)} | ${kb(r.sizes.statsPage.total.brotli)} |

Cloudflare compresses responses on the way out, so the compressed columns are what travels.
The statistics page rendered in ${r.sizes.statsPageP50Ms} ms (p50, through wrangler dev, all its panels
and the chart in one response).${switchLine(r.sizes.statsPage)}
${r.sizes.bundle ? bundleSection(r.sizes.bundle) : ''}
## 7. Comparison

${comparison}
${scaleSection(r.scale)}`;
}

/** The page's switches in place, when the run had a Chromium to time them in. */
function switchLine(page: BenchReport['sizes']['statsPage']): string {
  if (page.switchP95Ms === undefined) return '';
  const kinds = Object.entries(page.switchP50MsByKind ?? {})
    .map(([kind, ms]) => `${kind} ${ms} ms`)
    .join(', ');
  return `
A change of the page in place, in Chromium (a tab whose rows the first paint did not read, the
chart's metric, a filter, a period), from the click to the first frame showing the new figures:
**${page.switchP95Ms} ms** p95 (\`sizes.statsPage.switchP95Ms\`; target ≤ 300 ms); medians ${kinds}.`;
}

function bundleSection(b: BundleReport): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  return `
The Worker itself, as \`wrangler deploy\` uploads it (\`--dry-run\`, minified): **${kib(b.raw)}**,
**${kib(b.gzip)} gzipped**; its global scope loads and runs in **${b.startupMs} ms** (V8 in Node, the
\`cloudflare:\` modules stood in for; Cloudflare refuses a Worker whose start-up passes its
limit). What its largest parts weigh in it (minified, before compression):

| Part | Size |
|---|---|
${b.parts.map((p) => `| ${p.name} | ${kib(p.bytes)} |`).join('\n')}

What the largest dependencies weighed, and where they went (each measured as wrangler's
gzipped upload size before and after): **zod with its OpenAPI layer** (@hono/zod-openapi,
zod-to-openapi) was 104 KiB of it, 375 → 271 KiB — measured alone, minified and gzipped, zod
was 95 KB (39 KB of them its 40-odd locales, which could not be tree-shaken) and the OpenAPI
layer over it 10 KB: the API's schemas are now src/lib/json-schema.ts and src/http/openapi.ts (3 KiB
minified), which write the same OpenAPI document, and the fields kept their own checks. **The
Public Suffix List** (tldts, for refusing a website on \`co.uk\` or \`github.io\`) was 47 KiB,
271 → 224 KiB: it is now a static asset the Worker reads when a website is added
(static/public-suffixes.txt, 50 KB gzipped, not part of the script). mimetext, with the
core-js it pulled in, was 21 KiB (src/lib/text/mime.ts writes the e-mails). **re2js** (RE2's
syntax matched in linear time, for the \`matches\` filters and page goals) was 147 KiB of the
minified script, about 45 KiB gzipped: with saved segments and annotations added, the Worker
measured 250.5 KiB gzipped with it (wrangler's \`--dry-run\`), past the budget. The patterns are
now src/lib/pattern/pattern.ts, a Thompson automaton of Sightline's own that takes RE2's syntax but its
Unicode classes, held to re2js's answers by a property test (re2js is a test dependency only);
on 35,000 page texts here it matched 25–78 million characters a second, 1.5–3 times re2js's
speed. What is left is Sightline's own code, drizzle-orm, hono and bowser.

**The MCP server** (\`/mcp\`, src/mcp/) is Sightline's own small implementation of the
protocol's part it needs, not the official TypeScript SDK's server: measured on 2026-11-28,
the SDK's \`McpServer\` with its web-standard Streamable HTTP transport and zod, bundled and
minified alone (esbuild, as for a Worker), is 746 KB, **171 KB gzipped** — with the Worker at
238.5 KiB gzipped before the MCP server, it would take it far past the 250 KB budget. Sightline's
own server took the Worker from 238.5 to 242.7 KiB gzipped (wrangler's \`--dry-run\`): **4.2 KiB**.
The SDK's client and the protocol's conformance suite test it (test/e2e/mcp.test.ts).
`;
}
