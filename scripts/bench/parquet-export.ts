/**
 * `exports.parquet`: how fast the event log is encoded as Parquet and how much memory that
 * takes (docs/ARCHITECTURE.md, "Exports"). The Parquet Worker's own code
 * (src/parquet/parquet-stream.ts) encodes a year of the benchmark's website here, in this
 * process: in the full run its NDJSON export as the API streams it from `wrangler dev`; with
 * `--parquet-export`, a generated year of as many events shaped as the benchmark's (pages,
 * referrers, places and devices of its spread), streamed in the object's pieces of 5,000.
 * Throughput is events per second of the encoder's CPU time (what the Parquet Worker is
 * billed); the heap is V8's used heap above where it started, garbage not yet collected
 * included, sampled at each piece, each row group and every 4,096 growths of the writer's
 * buffer — within a column's encoding, so close to the true peak.
 */
import { ByteWriter } from 'hyparquet-writer';
import { parquetStream, ROW_GROUP } from '../../src/parquet/parquet-stream.ts';
import { round } from './under-load.ts';

export type ParquetExportReport = {
  via: string;
  events: number;
  /** The file's bytes, and the NDJSON's it was made from. */
  bytes: number;
  ndjsonBytes: number;
  rowGroup: number;
  rowGroups: number;
  /** Wall time, and the CPU time of this process while it encoded. */
  seconds: number;
  cpuSeconds: number;
  eventsPerSecond: number;
  idleHeapBytes: number;
  peakHeapAboveIdleBytes: number;
  /**
   * The same encoding run by `--parquet-export` with V8's heap capped (`node
   * --max-old-space-size=…`), so that garbage is collected as it goes: what it holds.
   */
  capped?: { maxOldSpaceMb: number; peakHeapAboveIdleBytes: number };
};

/** Encodes an NDJSON export as Parquet, measured. */
export async function measureParquetExport(
  ndjson: ReadableStream<Uint8Array>,
  via: string,
): Promise<ParquetExportReport> {
  globalThis.gc?.();
  const idle = process.memoryUsage().heapUsed;
  let peak = idle;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const ensure = ByteWriter.prototype.ensure;
  let growths = 0;
  ByteWriter.prototype.ensure = function (this: ByteWriter, size: number) {
    if (++growths % 4_096 === 0) sample();
    return ensure.call(this, size);
  };
  let events = 0;
  let ndjsonBytes = 0;
  const counted = ndjson.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        ndjsonBytes += chunk.length;
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) events++;
        sample();
        controller.enqueue(chunk);
      },
    }),
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  let bytes = 0;
  try {
    for await (const chunk of parquetStream(counted) as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      sample();
    }
  } finally {
    ByteWriter.prototype.ensure = ensure;
  }
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return {
    via,
    events,
    bytes,
    ndjsonBytes,
    rowGroup: ROW_GROUP,
    rowGroups: Math.ceil(events / ROW_GROUP),
    seconds: round((performance.now() - started) / 1000, 1),
    cpuSeconds: round(cpuSeconds, 1),
    eventsPerSecond: Math.round(events / Math.max(cpuSeconds, 1e-3)),
    idleHeapBytes: idle,
    peakHeapAboveIdleBytes: peak - idle,
  };
}

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera'];
const OSES = ['Windows', 'iOS', 'Android', 'Mac', 'Linux', 'Chrome OS'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const SOURCES = ['Direct / None', 'Google', 'Bing', 'Twitter', 'Hacker News', 'Newsletter'];

/**
 * A year of `events` events as the NDJSON export writes them, in pieces of 5,000: a pool of
 * distinct events (their spread of pages, referrers, places and devices) sent again and
 * again with new ids and times, so that generating them costs the measure nothing.
 */
export function generatedYear(events: number, seed = 7): ReadableStream<Uint8Array> {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() ** 2 * list.length)] as T;
  const encoder = new TextEncoder();
  const PIECE = 5_000;
  const pool: string[][] = [];
  for (let p = 0; p < 10; p++) {
    const piece: string[] = [];
    for (let i = 0; i < PIECE; i++) {
      const view = next() < 0.93;
      const place = Math.floor(next() ** 3 * 60);
      const page = `/${pick(['blog', 'docs', 'pricing', 'about', 'changelog'])}/${Math.floor(next() ** 3 * 2_000)}`;
      const referrer =
        next() < 0.4 ? `https://ref-${Math.floor(next() ** 2 * 500)}.example/` : null;
      const device = pick(DEVICES);
      // The event's columns after `id`, `time`, `date` and `hour`, as its line ends.
      const rest = JSON.stringify({
        kind: view ? 'pageview' : 'event',
        name: view ? 'pageview' : 'Signup',
        label: null,
        page,
        hostname: 'bench.example.com',
        visitor: 1 + Math.floor(next() * 3_300),
        visit: 1 + Math.floor(next() * 4_000),
        new_visitor: i % 3 === 0 ? 1 : 0,
        new_visit: i % 2,
        visit_views: view ? 1 + (i % 6) : null,
        visit_seconds: i % 120,
        entry_page: page,
        referrer,
        source: pick(SOURCES),
        channel: referrer ? 'Referral' : 'Direct',
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        utm_content: null,
        utm_term: null,
        country: `C${place}`,
        region: `C${place}-R${Math.floor(next() * 5)}`,
        city: `City ${place * 10 + Math.floor(next() * 10)}`,
        continent: 'EU',
        language: 'en',
        browser: pick(BROWSERS),
        browser_version: '131',
        os: pick(OSES),
        os_version: '15',
        device,
        screen: device,
        props: view ? null : { plan: 'pro' },
        revenue: null,
        currency: null,
        engaged_ms: view ? (i * 37) % 90_000 : null,
        scroll: view ? i % 101 : null,
      });
      piece.push(`,${rest.slice(1)}\n`);
    }
    pool.push(piece);
  }
  const start = Date.UTC(2025, 0, 1);
  const step = (365 * 86_400_000) / events;
  let id = 0;
  return new ReadableStream({
    pull(controller) {
      const piece = pool[Math.floor(id / PIECE) % pool.length] as string[];
      let text = '';
      for (const rest of piece) {
        if (id >= events) break;
        const time = new Date(start + id * step).toISOString();
        id++;
        text += `{"id":${id},"time":"${time}","date":"${time.slice(0, 10)}","hour":${Number(time.slice(11, 13))}${rest}`;
      }
      if (text) controller.enqueue(encoder.encode(text));
      if (id >= events) controller.close();
    },
  });
}
