/**
 * Section 3d's `imports.peakHeap`: how much memory an import of single hits takes in the
 * Worker. A generated Umami export (./umami-export.ts: 1,000,000 sessions over a year, gzipped)
 * is POSTed to the API of the Worker under wrangler dev, and the isolate's JavaScript heap —
 * what Cloudflare's 128 MB limit is on — is read through its inspector
 * (`Runtime.getHeapUsage`, the heap's used bytes, garbage not yet collected included) before
 * the import (the idle heap) and every 25 ms while it runs. The inspector answers between
 * the isolate's turns, so the samples fall between the import's awaits (each piece of the
 * file, each D1 batch): within one piece the heap may go a little higher.
 */
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { createGzip } from 'node:zlib';
import { startWorker } from '../lib/worker.ts';
import { umamiExportLines } from './umami-export.ts';
import { round } from './under-load.ts';

/** One import's heap: the idle heap, the peak of the samples, the answer. */
type HeapRun = {
  idleBytes: number;
  peakBytes: number;
  aboveIdleBytes: number;
  samples: number;
  status: number;
  records: number;
  seconds: number;
};

export type PeakHeapReport = HeapRun & {
  via: string;
  file: { sessions: number; rows: number; bytes: number; gzipBytes: number };
  /** V8's old generation capped at this (`--max-old-space-size`) for the figures above. */
  oldSpaceCapBytes: number;
  /** The same import with no cap: garbage piles up until V8 sees a reason to collect it. */
  uncapped: HeapRun;
};

/** The cap of V8's old generation for the reported run: the target above the idle heap. */
const OLD_SPACE_CAP_MB = 64;

/** Writes the generated export, gzipped, to `path`: its rows and bytes. */
export async function writeUmamiExport(
  path: string,
  sessions: number,
  seed: number,
  end: number,
): Promise<PeakHeapReport['file']> {
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(path);
  gzip.pipe(out);
  let rows = 0;
  let bytes = 0;
  let lines: string[] = [];
  const send = async (text: string) => {
    if (!gzip.write(text))
      await new Promise<void>((resolve) => gzip.once('drain', () => resolve()));
  };
  for (const line of umamiExportLines({ sessions, days: 365, end, seed })) {
    rows++;
    bytes += Buffer.byteLength(line) + 1;
    lines.push(line);
    if (lines.length === 10_000) {
      await send(`${lines.join('\n')}\n`);
      lines = [];
    }
  }
  gzip.end(`${lines.join('\n')}\n`);
  await new Promise<void>((resolve) => out.once('close', () => resolve()));
  // The header is no row.
  return { sessions, rows: rows - 1, bytes, gzipBytes: statSync(path).size };
}

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The isolate's inspector: the heap's used bytes, asked one at a time. */
async function inspector(port: number) {
  // The inspector proxy takes connections from local pages only: an Origin says so.
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, {
    headers: { origin: 'http://localhost' },
  } as never);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const send = (method: string) =>
    new Promise<unknown>((resolve) => {
      waiting.set(++id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    heapUsed: async () => ((await send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize,
    close: () => ws.close(),
  };
}

/**
 * Imports the generated Umami export at `path` (`writeUmamiExport`), through the API of the
 * Worker under wrangler dev on the local D1 state `state` (with the owner's API key), once
 * with V8's old generation capped at `OLD_SPACE_CAP_MB` (workerd then collects garbage as an
 * isolate near its limit does, and an import that needed more would fail) and once without,
 * each into a new website, and reads the isolate's heap all along.
 */
export async function measureImportHeap(o: {
  state: string;
  config: string;
  apiKey: string;
  path: string;
  file: PeakHeapReport['file'];
  log: (line: string) => void;
}): Promise<PeakHeapReport> {
  o.log(`  importing it (${round(o.file.gzipBytes / 1e6, 1)} MB) with the old generation capped`);
  const capped = await importOnce(o, OLD_SPACE_CAP_MB);
  o.log('  and again without the cap');
  const uncapped = await importOnce(o, null);
  return {
    via: 'POST /api/v1/websites/{id}/imports under wrangler dev; the isolate heap read through its inspector',
    file: o.file,
    oldSpaceCapBytes: OLD_SPACE_CAP_MB * 2 ** 20,
    ...capped,
    uncapped,
  };
}

/** One import of the file at `path` into a new website, its heap sampled. */
async function importOnce(
  o: { state: string; config: string; apiKey: string; path: string },
  oldSpaceMb: number | null,
): Promise<HeapRun> {
  const port = await freePort();
  // Miniflare passes these to workerd's V8 each time it (re)starts it: set while it runs.
  const flags = process.env.MINIFLARE_WORKERD_V8_FLAGS;
  if (oldSpaceMb) process.env.MINIFLARE_WORKERD_V8_FLAGS = `--max-old-space-size=${oldSpaceMb}`;
  else delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
  const dev = await startWorker(o.state, 'src/index.ts', {}, o.config, port);
  try {
    const base = `http://127.0.0.1:${dev.port}`;
    const headers = { authorization: `Bearer ${o.apiKey}`, 'cf-connecting-ip': '172.16.9.2' };
    const made = await fetch(`${base}/api/v1/websites`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: `heap-${oldSpaceMb ?? 'uncapped'}.example.com` }),
    });
    const site = ((await made.json()) as { data: { id: number } }).data.id;
    const heap = await inspector(port);
    // The idle heap: the least of a few readings once the Worker has answered.
    let idle = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) idle = Math.min(idle, await heap.heapUsed());
    let peak = idle;
    let samples = 0;
    let importing = true;
    const sampler = (async () => {
      while (importing) {
        peak = Math.max(peak, await heap.heapUsed());
        samples++;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const started = performance.now();
    const res = await fetch(
      `${base}/api/v1/websites/${site}/imports?source=umami&file_name=website_event.csv.gz`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/gzip' },
        body: readFileSync(o.path),
      },
    );
    const answer = (await res.json().catch(() => ({}))) as { data?: { rows: number } };
    const seconds = round((performance.now() - started) / 1000, 1);
    importing = false;
    await sampler;
    heap.close();
    return {
      idleBytes: idle,
      peakBytes: peak,
      aboveIdleBytes: peak - idle,
      samples,
      status: res.status,
      records: answer.data?.rows ?? 0,
      seconds,
    };
  } finally {
    await dev.stop();
    if (flags === undefined) delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
    else process.env.MINIFLARE_WORKERD_V8_FLAGS = flags;
  }
}
