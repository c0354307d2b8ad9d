/**
 * `npm run bench -- --scale`: a website's log over partitions, at 1×, 4× and 10× the
 * benchmark's year (docs/ARCHITECTURE.md, "When a website outgrows one object").
 *
 * The year is loaded once through the real ingestion code (scripts/bench/load.ts); a size of
 * k× is that year with every date's events k times, each copy its own visitors and visits
 * (visitor v of copy c is v·k + c): the same shapes — pages, sources, visits, funnels — with k
 * times the people. Sending 12 M hits through the Worker would take hours here, so each
 * size's events go into its website's partitions through the log's own code (`importEvents`
 * of the benchmark's object, scripts/bench/worker.ts: the object's dictionary, rows and day
 * index), partition after partition: a partition closes at the first date after it holds
 * `LOG_PARTITION_EVENTS`, as the log closes it, and the directory (D1's `log_positions`)
 * lists each as its flushes would.
 */
import { dateOfDay } from '../../src/lib/time/dates.ts';
import type { ImportedEvent } from './worker.ts';

/** A question's figures at one size (scripts/bench/scale-reads.ts says how each is measured). */
type ScaleQuestionReport = {
  key: string;
  title: string;
  rowsRead: number;
  /** The whole answer as measured here (partitions asked in parallel on this machine's cores). */
  p50Ms: number;
  p95Ms: number;
  /** The slowest partition's time plus the merge: what a deployed website waits. */
  criticalP50Ms: number;
  criticalP95Ms: number;
  slowestPartitionP50Ms: number;
  mergeP50Ms: number;
  /** The bytes of the partitions' answers the merge holds. */
  mergeBytes: number;
  /** The same question asked again (closed partitions answer from what they kept). */
  againP50Ms: number;
  againP95Ms: number;
  againRowsRead: number;
};

export type ScaleSizeReport = {
  factor: number;
  events: number;
  partitions: number;
  bytes: number;
  bytesPerEvent: number;
  /** Seconds to put the size's events into its partitions (besides the year's ingestion). */
  loadSeconds: number;
  questions: ScaleQuestionReport[];
  /** The first date of the open partition. */
  openFrom: string;
  /**
   * Hits while four readers ask the heaviest questions of the same website over the year, and
   * over the open partition's dates only (`underOwnReads`: its own share of each read).
   */
  hits: {
    alone: Spread;
    underReads: Spread;
    reads: Spread;
    underOwnReads?: Spread;
    ownReads?: Spread;
  };
};

type Spread = { samples: number; p50Ms: number; p99Ms: number; maxMs: number };

export type ScaleReport = {
  generatedAt: string;
  partitionEvents: number;
  cores: number;
  /** The year's events at 1×, and the seconds its ingestion took. */
  year: { events: number; loadSeconds: number };
  runs: number;
  sizes: ScaleSizeReport[];
};

/** How many events a size's partitions hold, and their bytes. */
type Imported = { events: number; partitions: number; bytes: number; openFrom: string };

/**
 * Puts `factor` copies of every date's events into the website's partitions, `limit` events
 * a partition (closed at the first date after), in batches through `/bench/import`.
 */
export async function importScaled(
  post: (path: string, body: unknown) => Promise<unknown>,
  websiteId: number,
  events: Iterable<ImportedEvent>,
  factor: number,
  limit: number,
  onProgress?: (events: number) => void,
): Promise<Imported> {
  let partition = 0;
  let held = 0;
  let batch: ImportedEvent[] = [];
  const out: Imported = { events: 0, partitions: 1, bytes: 0, openFrom: '' };
  const bytes = new Map<number, number>();
  const send = async (close = false) => {
    const r = (await post('/bench/import', {
      websiteId,
      partition,
      close,
      rows: batch,
    })) as { imported: number; bytes: number };
    bytes.set(partition, r.bytes);
    out.events += r.imported;
    batch = [];
    onProgress?.(out.events);
  };
  const date: ImportedEvent[] = [];
  const copies = async () => {
    if (date.length === 0) return;
    if (held >= limit) {
      await send(true);
      partition++;
      held = 0;
    }
    if (held === 0) out.openFrom = dateOfDay((date[0] as ImportedEvent).day);
    for (let copy = 0; copy < factor; copy++)
      for (const e of date) {
        batch.push({ ...e, visitor: e.visitor * factor + copy, visit: e.visit * factor + copy });
        if (batch.length === 5_000) await send();
      }
    held += date.length * factor;
    date.length = 0;
  };
  for (const e of events) {
    if (date.length > 0 && (date[0] as ImportedEvent).day !== e.day) await copies();
    date.push(e);
  }
  await copies();
  if (batch.length) await send();
  out.partitions = partition + 1;
  out.bytes = [...bytes.values()].reduce((a, b) => a + b, 0);
  return out;
}

const n = (x: number) => x.toLocaleString('en');

/**
 * The whole answer here against the partitions' times added up (each partition asked alone),
 * at the largest size: the first breakdown's, as evidence that they run one after another.
 */
function wholeVsSum(sizes: ScaleSizeReport[]): string {
  const z = sizes.at(-1);
  const q = z?.questions[0];
  if (!z || !q) return '';
  return `at ${z.factor}×, ${n(Math.round(q.p50Ms))} ms whole against ${z.partitions} partitions of ${n(Math.round(q.slowestPartitionP50Ms))} ms at the slowest`;
}

/** BENCHMARKS.md's section on partitions, from the scale run's figures. */
export function scaleSection(s: ScaleReport | undefined): string {
  if (!s) return '';
  const sizes = s.sizes;
  const head = `| Size | Events | Partitions | Bytes per event | Load s |\n|---|---|---|---|---|\n${sizes
    .map(
      (z) =>
        `| ${z.factor}× | ${n(z.events)} | ${z.partitions} | ${z.bytesPerEvent} | ${n(Math.round(z.loadSeconds))} |`,
    )
    .join('\n')}`;
  const keys = sizes[0]?.questions.map((q) => q.key) ?? [];
  const rows = keys.flatMap((key) =>
    sizes.map((z) => {
      const q = z.questions.find((x) => x.key === key) as ScaleQuestionReport;
      const target = key.startsWith('funnel') || key.startsWith('journey') ? 1000 : 300;
      const mark = z.factor === 10 && q.criticalP50Ms > target ? ' ✗' : '';
      return `| ${z.factor === sizes[0]?.factor ? q.title : ''} | ${z.factor}× | ${n(q.rowsRead)} | ${q.p50Ms} / ${q.p95Ms} | **${q.criticalP50Ms}**${mark} / ${q.criticalP95Ms} | ${q.slowestPartitionP50Ms} + ${q.mergeP50Ms} | ${n(Math.round(q.mergeBytes / 1024))} | **${q.againP50Ms}** / ${q.againP95Ms} (${n(q.againRowsRead)} rows) |`;
    }),
  );
  const hits = sizes
    .map(
      (z) =>
        `| ${z.factor}× | ${z.hits.alone.p50Ms} / ${z.hits.alone.p99Ms} | ${n(z.hits.underReads.samples)} | ${z.hits.underReads.p50Ms} / **${z.hits.underReads.p99Ms}** | ${n(z.hits.reads.samples)} | ${z.hits.reads.p50Ms} / ${z.hits.reads.maxMs} | ${z.hits.underOwnReads ? `${z.hits.underOwnReads.p50Ms} / **${z.hits.underOwnReads.p99Ms}**` : ''} | ${z.hits.ownReads ? `${n(z.hits.ownReads.samples)}, ${z.hits.ownReads.p50Ms} / ${z.hits.ownReads.maxMs}` : ''} |`,
    )
    .join('\n');
  return `
## 8. A website's log over many objects (\`scale\`)

Measured by \`npm run bench -- --scale\` on ${s.generatedAt.slice(0, 10)}, with
\`LOG_PARTITION_EVENTS\` = ${n(s.partitionEvents)}. The benchmark's year (${n(s.year.events)} events, ingested
through the real code in ${n(Math.round(s.year.loadSeconds))} s) is put into a website's partitions ${sizes.map((z) => z.factor).join(', ')} times
over: every date's events k times, each copy its own visitors and visits, so the shapes stay
and the people multiply; each size's events go into the partitions through the log's own code
(scripts/bench/scale.ts says why and how).

${head}

Each question is asked over the 365 days, ${s.runs} times each way:

- **whole, here**: the answer as the Worker gets it, every partition asked in parallel and their
  answers merged, each partition's kept answers forgotten first. Here it is not what a deployed
  website waits: \`wrangler dev\`'s workerd runs every object of this machine on one thread,
  so the partitions answer one after another (the whole answer is about the sum of the
  partitions' times: ${wholeVsSum(sizes)});
- **critical path**: each partition asked alone, one after the other, and their answers merged:
  the slowest partition's time plus the merge (p50 of each shown beside), which is what a
  deployed website waits, its partitions running on separate machines (target at 10×: ≤ 300 ms
  for a breakdown or v2 question, ≤ 1,000 ms for the funnel and the journey; ✗ marks a miss);
- **again**: the same question asked once more, as a dashboard reloaded (target ≤ 100 ms at
  10×): each closed partition says its epoch (a row), and the open partition answers from the
  closed partitions' groups it keeps, added up, and its own — what it kept of its dates before
  its newest, reading only its newest date again (the rows read shown); a funnel's closed
  partitions answer from what they kept, a row each (docs/ARCHITECTURE.md, "When a website
  outgrows one object").

| Question | Size | Rows read | Whole, here p50 / p95 ms | Critical path p50 / p95 ms | Slowest partition + merge, p50 ms | Merge holds KB | Again p50 / p95 ms |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Hits while four readers keep asking the heaviest of these questions of the same website (each
question new, so that every read reads): hits p99 target ≤ 250 ms at every size. Here the
hits miss it, more the more partitions there are: the readers' chunks of every partition take
turns on workerd's one thread with the open partition's hits, where a deployed website's
partitions run on machines of their own and the open one takes only its own share of each
read (one object's read lane lets its hits in between its chunks: section 4). Alone, the hits
answer as fast at every size. What the open partition's machine takes when deployed is its own
share of each read: the last columns measure the hits while the same four readers ask the same
questions over the open partition's dates only (from its first date).

| Size | Hits alone p50 / p99 ms | Hits under reads | p50 / p99 ms | Reads | p50 / max ms | Hits under the open partition's reads, p50 / p99 ms | Those reads, p50 / max ms |
|---|---|---|---|---|---|---|---|
${hits}
`;
}
