/**
 * The benchmark's measurements against `wrangler dev` serving the real Worker: requests from
 * many lanes for a while (`load`), a hit's latency while readers keep asking the heaviest
 * filtered questions of the same website (`hitsUnderReads`), and how soon a read sees a hit
 * (`readYourWrites`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configElsewhere } from '../lib/worker.ts';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export type Load = {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
};

/** What a route's load has measured so far: its latencies, statuses and seconds. */
type Taken = { latencies: number[]; statuses: Record<string, number>; seconds: number };

const nothingTaken = (): Taken => ({ latencies: [], statuses: {}, seconds: 0 });

/** Sends requests from `concurrency` lanes for `seconds`, adding what it measures to `into`. */
async function take(
  seconds: number,
  concurrency: number,
  request: (i: number) => Promise<Response>,
  into: Taken,
): Promise<void> {
  let sent = into.latencies.length;
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = sent++;
        const s = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        into.latencies.push(performance.now() - s);
        into.statuses[res.status] = (into.statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  into.seconds += (performance.now() - t0) / 1000;
}

/** Throughput and latency of what was taken. */
function loadOf({ latencies, statuses, seconds }: Taken): Load {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    requestsPerSecond: round(sorted.length / seconds, 1),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    statuses,
  };
}

/** Sends requests from `concurrency` lanes for `seconds`; throughput and latency. */
export async function load(
  seconds: number,
  concurrency: number,
  request: (i: number) => Promise<Response>,
): Promise<Load> {
  const taken = nothingTaken();
  await take(seconds, concurrency, request, taken);
  return loadOf(taken);
}

/**
 * Several routes loaded in turns — a, b, a, b, … `turns` each, `seconds` in all per route — so
 * that the shared machine's slower and faster moments weigh on each alike (a ratio of two
 * routes measured one after the other swung by a quarter from run to run): each route's
 * throughput and latency over all its turns.
 */
export async function loadsInTurns(
  seconds: number,
  concurrency: number,
  requests: ((i: number) => Promise<Response>)[],
  turns = 5,
): Promise<Load[]> {
  const taken = requests.map(nothingTaken);
  for (let turn = 0; turn < turns; turn++)
    for (const [r, request] of requests.entries())
      await take(seconds / turns, concurrency, request, taken[r] as Taken);
  return taken.map(loadOf);
}

/**
 * wrangler.toml for the benchmark's `wrangler dev`: the entry point by its absolute path, and
 * the readers' and the API's limits raised out of the way (the benchmark's readers ask more
 * than any one person would; the hits' limits stay as configured).
 */
export function benchConfig(root: string, dir: string): string {
  const raised = new Set([
    'RATE_LIMIT_API',
    'RATE_LIMIT_READS',
    'RATE_LIMIT_PUBLIC_READS',
    'RATE_LIMIT_WEBSITE_READS',
  ]);
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const blocks = toml.split('[[ratelimits]]').map((block, i) => {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    return i > 0 && name && raised.has(name)
      ? block.replace(/limit\s*=\s*\d+/, 'limit = 1000000')
      : block;
  });
  const file = join(dir, 'wrangler.toml');
  writeFileSync(file, configElsewhere(blocks.join('[[ratelimits]]')));
  return file;
}

/** p50, p99 and the largest of a list of milliseconds. */
export function spread(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? 0),
  };
}

/** Hits one after another until `stop` says; each one's latency. */
async function hitsUntil(hit: (i: number) => Promise<Response>, stop: () => boolean) {
  const ms: number[] = [];
  for (let i = 0; !stop(); i++) {
    const s = performance.now();
    const res = await hit(i);
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`a hit answered ${res.status}`);
    ms.push(performance.now() - s);
  }
  return ms;
}

const until = (seconds: number) => {
  const deadline = performance.now() + seconds * 1000;
  return () => performance.now() >= deadline;
};

/**
 * A hit's latency — one client sending hits one after another for `seconds` — while
 * `readers` clients keep asking `questions` in turn (one after another, each from its own
 * address): the hits' p50/p99, and the reads'.
 */
export async function hitsWhileReading(options: {
  seconds: number;
  readers: number;
  hit: (i: number) => Promise<Response>;
  questions: (() => Promise<Response>)[];
}) {
  let done = false;
  const readTimes: number[] = [];
  const readers = Array.from({ length: options.readers }, async (_, r) => {
    for (let i = r; !done; i++) {
      const ask = options.questions[i % options.questions.length] as () => Promise<Response>;
      const s = performance.now();
      const res = await ask();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`a read answered ${res.status}`);
      readTimes.push(performance.now() - s);
    }
  });
  const ms = await hitsUntil(options.hit, until(options.seconds));
  done = true;
  await Promise.all(readers);
  return { hits: spread(ms), reads: spread(readTimes) };
}

/**
 * A hit's latency alone; while `readers` clients keep asking `questions` of the same website;
 * and while as many clients keep asking `trivial` (a route that touches no website: what any
 * load costs a hit where the Worker, the objects and D1 share one machine, as under
 * `wrangler dev`): the hits' p50/p99 each time, and the reads' latencies.
 */
export async function hitsUnderReads(options: {
  seconds: number;
  readers: number;
  hit: (i: number) => Promise<Response>;
  questions: (() => Promise<Response>)[];
  trivial: () => Promise<Response>;
}) {
  const alone = await hitsUntil(options.hit, until(options.seconds));
  const underReads = await hitsWhileReading(options);
  const underTrivial = await hitsWhileReading({ ...options, questions: [options.trivial] });
  return {
    readers: options.readers,
    seconds: options.seconds,
    alone: spread(alone),
    underReads: underReads.hits,
    reads: underReads.reads,
    underTrivial: underTrivial.hits,
    trivialReads: underTrivial.reads,
  };
}

/**
 * How soon a read sees a hit: a hit sent, then at once the website's statistic read through the
 * API (which flushes its log first): the read's latency, and whether it counted the hit.
 */
export async function readYourWrites(options: {
  samples: number;
  hit: (path: string) => Promise<Response>;
  read: (path: string) => Promise<Response>;
}) {
  const times: number[] = [];
  for (let i = 0; i < options.samples; i++) {
    const path = `/read-your-writes-${i}-${Date.now()}`;
    const res = await options.hit(path);
    if (res.status !== 202 || res.headers.get('x-drop-reason'))
      throw new Error(`the hit was not stored: ${res.status}`);
    const s = performance.now();
    const read = await options.read(path);
    const body = (await read.json()) as { data?: { value: string }[] };
    times.push(performance.now() - s);
    if (!body.data?.some((row) => row.value === path))
      throw new Error('the read after a hit did not count it');
  }
  return spread(times);
}
