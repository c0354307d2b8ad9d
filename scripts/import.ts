/**
 * `npm run import -- --website example.com --source plausible|goatcounter|umami --file F
 *   [--overlap own_wins] [--remote] [--persist-to DIR]`
 * Imports a file of any size into a website's history, as the API does (src/imports/run.ts),
 * streaming it from disk: memory holds a piece of the file and 20,000 roll-up rows at a time,
 * whatever the file's size. All or nothing: a malformed file names the file, the line and the
 * column, and imports nothing. Prints what it read and wrote, and the time it took. Runs in a
 * process group of its own (./lib/process-group.ts), so that workerd ends with it, however
 * it ends.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { websites } from '../src/db/schema.ts';
import { packingOf } from '../src/imports/files.ts';
import { ImportError } from '../src/imports/format.ts';
import { runImport } from '../src/imports/run.ts';
import { IMPORT_SOURCES, type ImportSource } from '../src/imports/store.ts';
import { normalizeDomain } from '../src/websites/domain.ts';
import { fail, parseOptions, targetOptions, withDatabase } from './lib/d1.ts';
import { inOwnProcessGroup } from './lib/process-group.ts';

const USAGE =
  'usage: npm run import -- --website DOMAIN --source plausible|goatcounter|umami --file FILE [--overlap own_wins] [--remote]';

const { values } = parseOptions(() =>
  parseArgs({
    options: {
      website: { type: 'string' },
      source: { type: 'string' },
      file: { type: 'string' },
      overlap: { type: 'string' },
      ...targetOptions,
    },
    strict: true,
  }),
);
const { website, source, file } = values;
if (!website || !source || !file) fail(USAGE);
if (!(IMPORT_SOURCES as readonly string[]).includes(source))
  fail(`--source must be one of ${IMPORT_SOURCES.join(', ')}`);
if (values.overlap !== undefined && values.overlap !== 'own_wins')
  fail('--overlap takes one value: own_wins');
const packing = packingOf('', file);
if (!packing) fail(`${file}: not a .zip, .gz or .csv file`);
let size: number;
try {
  size = statSync(file).size;
} catch {
  fail(`${file}: no such file`);
}
const domain = normalizeDomain(website);
if (!domain.ok) fail(`${website}: not a domain`);
await inOwnProcessGroup();

/** A file read a piece at a time, when the import asks for the next (never ahead of it). */
function fileStream(path: string): ReadableStream<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        handle ??= await open(path);
        const piece = new Uint8Array(256 * 1024);
        const { bytesRead } = await handle.read(piece, 0, piece.length);
        if (bytesRead === 0) {
          await handle.close();
          controller.close();
        } else controller.enqueue(piece.subarray(0, bytesRead));
      },
      async cancel() {
        await handle?.close();
      },
    },
    { highWaterMark: 0 },
  );
}

const started = performance.now();
// This process's peak memory, sampled (the database runs in wrangler's own process).
let peak = process.memoryUsage().rss;
let heap = process.memoryUsage().heapUsed;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
  heap = Math.max(heap, process.memoryUsage().heapUsed);
}, 50);
try {
  const done = await withDatabase(
    { remote: values.remote, persistTo: values['persist-to'] },
    async (db) => {
      const site = await db.select().from(websites).where(eq(websites.domain, domain.domain)).get();
      if (!site)
        fail(`no website ${domain.domain}${values.remote ? '' : ' in the local database'}`);
      return runImport(db, site, fileStream(file), {
        source: source as ImportSource,
        packing,
        fileName: basename(file),
        overlap: values.overlap === 'own_wins',
      });
    },
  );
  clearInterval(sampler);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const { record } = done;
  process.stdout.write(
    `Imported ${record.source} ${record.from} to ${record.to} into ${domain.domain}: ${done.records.toLocaleString('en-US')} records of ${(size / 1e6).toFixed(1)} MB, ${done.rowsWritten.toLocaleString('en-US')} rows written, in ${seconds} s (import ${record.id}; peak memory ${Math.round(peak / 1e6)} MB, of it JavaScript's heap ${Math.round(heap / 1e6)} MB).\n`,
  );
} catch (err) {
  clearInterval(sampler);
  fail(err instanceof ImportError || err instanceof Error ? err.message : String(err));
}
