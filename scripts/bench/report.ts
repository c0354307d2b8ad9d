/** docs/BENCHMARKS.md from one run's figures (docs/benchmarks.json holds the same figures). */
import { readFileSync } from 'node:fs';
import { STAT_NAMES } from '../../src/stats/names.ts';

type Sizes = { raw: number; gzip: number; brotli: number };
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
    rowsPerDropped: number;
    rowsPerStoredHit: number;
    /** Rows written per page view at 1, 10 and 50 page views a second. */
    rowsPerPageviewAt: Record<'1' | '10' | '50', number>;
  };
  reads: Read[];
  /** Filtered statistics read from the site's event log in its Durable Object (rows read: SQLite's count). */
  filteredReads: (Read & { /** The filters as query parameters. */ filters: string })[];
  /** The complete months compacted into month and year roll-ups before the reads. */
  compaction: { months: number; rowsWritten: number; rowsRead: number; seconds: number };
  /** Events in the site's log when the filtered reads were measured. */
  eventsImported: number;
  throughput: {
    concurrency: number;
    seconds: number;
    event: Load;
    trivial: Load;
    ratio: number;
  };
  /** From a hit's 202 to its page view in D1's roll-ups, nobody reading. */
  rollupLatency: { samples: number; flushDelayMs: number; p50Ms: number; maxMs: number };
  sizes: {
    tracker: Sizes;
    statsPage: { html: Sizes; assets: number; total: Sizes };
    statsPageP50Ms: number;
  };
  runSeconds: number;
};

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

const n = (x: number) => x.toLocaleString('en');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const statuses = (s: Record<string, number>) =>
  Object.entries(s)
    .map(([code, count]) => `${n(count)}× ${code}`)
    .join(', ');

export function renderMarkdown(r: BenchReport): string {
  /** Page views one alarm's flush sums at `perSecond` page views a second. */
  const perFlush = (perSecond: number) => n((perSecond * r.rollupLatency.flushDelayMs) / 1000);
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
or \`npm run bench -- --quick\` for a smaller data set. Sizes are parameters (\`--pageviews\`,
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
log (\`EventLog\`, the same code as the websites' Durable Objects), whose flush wrote the
roll-ups; the logs were flushed at the end of every day of traffic. For speed the load runs
outside workerd, over Node's SQLite (the logs and the local D1 database file), one process per
core (days are independent: visitor hashes are salted per day). Nothing is written by hand;
test/cli/bench-loader.test.ts proves the result equals the Worker's.

## 1. Cost per hit (rows written: the event log and D1)

Measured inside workerd: the rows the website's event log (its Durable Object) writes for each
hit — SQLite's own count — plus the D1 rows of its flushes (\`meta.rows_written\`), on a fresh
site fed ${n(r.writes.days)} days of the same kind of traffic (${n(r.writes.pageviews)} page views, ${n(r.writes.events)} events,
${n(r.writes.dropped)} dropped hits), arriving at 50 page views a second, the logs flushing on
their alarm's cadence (${r.rollupLatency.flushDelayMs / 1000} s).

| Hit | Rows written (average) | Floor |
|---|---|---|
| Page view | **${r.writes.rowsPerPageview}** | 1 |
| Event | **${r.writes.rowsPerEvent}** | 1 |
| Dropped hit (bot, …) | ${r.writes.rowsPerDropped} | 0 |
| Any stored hit | ${r.writes.rowsPerStoredHit} | 1 |

The same traffic at other rates (a fresh website each), page views only:

| Page views a second | 1 | 10 | 50 |
|---|---|---|---|
| Rows written per page view | ${r.writes.rowsPerPageviewAt['1']} | ${r.writes.rowsPerPageviewAt['10']} | **${r.writes.rowsPerPageviewAt['50']}** |

Why above the floor: a page view writes its event in its log and, when it starts a visit, the
short-lived visitor row that decides "new visitor" and "new visit" without storing an IP (a
visit's later page views change only the object's memory); and its share of the flushes, which sum all events since the last flush into one row per distinct (statistic,
date, value): about ${perFlush(50)} page views per flush at 50 a second, ${perFlush(10)} at 10, ${perFlush(1)} at 1 — the slower
the traffic, the fewer page views share a flush's rows. Pages, landing pages and exit pages
take the most: one row each per distinct page a flush touches. An event is one row in the log
(its share of a flush rounds away). No table has a secondary index, so no write is paid twice.
Before the event log every page view wrote its roll-ups to D1 itself: 9.71 rows on average
(docs/ARCHITECTURE.md, Cost).

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
years. A range is cut into the fewest pieces the roll-ups hold (src/lib/dates.ts
\`piecesOf\`): whole years and months from the month and year roll-ups, days only at its
ends, so the long tail (\`page\`, \`landing_page\`, \`exit_page\`: ${n(r.data.distinctPages)} distinct pages,
most (page, day) pairs counted a few times) is read once per month rather than once per day.
The cost model (src/stats/queries.ts, tested in test/integration/stats-cost.test.ts) is at
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
maintenance does once a month is over in the website's time zone (src/stats/compaction.ts):
${n(r.compaction.rowsWritten)} D1 rows written and ${n(r.compaction.rowsRead)} read in all (${r.compaction.seconds} s), that is
${(r.compaction.rowsWritten / Math.max(1, r.data.pageviews)).toFixed(2)} rows written per page view of the year, once — nothing on the hit's path: a hit
still writes only its day's rows, and a late one (a month already compacted) adds to its
month's and year's rows in the same flush.

## 3. Filtered reads (the event log)

A filtered question is answered by the website's event log in its Durable Object, which holds
every hit with all its dimensions (docs/ARCHITECTURE.md, Filters). Here the site's
${n(r.eventsImported)} events (the year above) were put into its real object under workerd, and
each breakdown below asked of it ${r.config.runs} times as the Stats API asks (\`WebsiteLog.statistic\`,
first page of 25 sorted by count, the object reached from a Worker): the object's rows read
(SQLite's own count, exact), rows returned / distinct values, and p50 / p95 milliseconds.

| Statistic | Filters | Days | Rows read | Returned / distinct | p50 / p95 ms |
|---|---|---|---|---|---|
${r.filteredReads.map((f) => `| \`${f.statistic}\` | \`${f.filters}\` | ${f.days} | ${n(f.rowsRead)} | ${n(f.rowsReturned)} / ${n(f.distinctValues)} | **${f.p50Ms}** / ${f.p95Ms} |`).join('\n')}

Targets: p50 ≤ 150 ms over 30 days and ≤ 1.5 s over 365 days. A filtered read is one SQL
statement over the events of its dates (the \`days\` index finds them): a filter at the
level the statistic counts at (a browser for \`country\`, a referrer for \`exit_page\`) is
applied in the statistic's own pass, the others in one scan for the kept events, then the
grouping of the statistic; its cost grows with the hits of the range, not with the site's whole history,
and no table of the log has a secondary index (each would add a row written to every hit).
Exit pages, bounces and visit duration cost most: they group all page views of the kept
visits to find each visit's last one.

## 4. Ingestion throughput

\`POST /api/event\` against \`wrangler dev\` serving the real Worker (local D1, the rate limiter of
wrangler.toml in place; each request from its own client address), ${r.throughput.concurrency} requests in flight for
${r.throughput.seconds} s, compared with \`GET /health\` of the same Worker in the same run (no database:
the floor of the platform on this machine). The load generator runs on the same 2 cores.

| Route | Requests/s | p50 ms | p99 ms | Answers |
|---|---|---|---|---|
| \`POST /api/event\` | ${r.throughput.event.requestsPerSecond} | ${r.throughput.event.p50Ms} | ${r.throughput.event.p99Ms} | ${statuses(r.throughput.event.statuses)} |
| \`GET /health\` | ${r.throughput.trivial.requestsPerSecond} | ${r.throughput.trivial.p50Ms} | ${r.throughput.trivial.p99Ms} | ${statuses(r.throughput.trivial.statuses)} |

Ratio: hits run at **${r.throughput.ratio}×** the trivial route's rate (target ≥ 0.8). The
difference is the hit's work: parsing and enrichment, the website (from the isolate's cache:
no D1 read), two rate-limit checks, and the call to the website's event log, answered once the
event is durable in its storage. All requests go to one website, so one object takes them in
turn. Under \`wrangler dev\` each rate-limit check is a request to a local object and the log
runs in the same process as the Worker, so all of it shares these 2 cores with the load
generator; deployed, the limiter is a local counter and the object runs elsewhere.

## 5. From 202 to the roll-ups

A hit's page view reaches D1's roll-ups when its log flushes: before any read of the website's
statistics (read-your-writes), or on the log's alarm ${r.rollupLatency.flushDelayMs / 1000} s after the
first unflushed event. Measured with nobody reading — one hit at a time on a quiet website,
D1 polled every 20 ms — over ${r.rollupLatency.samples} hits: p50 **${n(r.rollupLatency.p50Ms)} ms**, at most ${n(r.rollupLatency.maxMs)} ms.

## 6. Size

| | Raw | gzip -9 | Brotli 11 |
|---|---|---|---|
| Tracker \`/js/script.js\` | ${n(r.sizes.tracker.raw)} B | ${n(r.sizes.tracker.gzip)} B | ${n(r.sizes.tracker.brotli)} B |
| Statistics page, HTML (30 days, ${n(r.data.distinctPages)}-page site) | ${kb(r.sizes.statsPage.html.raw)} | ${kb(r.sizes.statsPage.html.gzip)} | ${kb(r.sizes.statsPage.html.brotli)} |
| Statistics page + its ${r.sizes.statsPage.assets} assets (what a first visit transfers) | ${kb(r.sizes.statsPage.total.raw)} | ${kb(r.sizes.statsPage.total.gzip)} | ${kb(r.sizes.statsPage.total.brotli)} |

Cloudflare compresses responses on the way out, so the compressed columns are what travels.
The statistics page rendered in ${r.sizes.statsPageP50Ms} ms (p50, through wrangler dev, all its panels
and the chart in one response).

## 7. Comparison

${comparison}
`;
}
