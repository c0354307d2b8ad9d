/**
 * `npm run import -- --website example.com --source plausible|goatcounter|umami --file F
 *   [--overlap own_wins] [--remote] [--persist-to DIR]`
 * Imports a file of any size into a website's history, as the API does (src/imports/run.ts),
 * streaming it from disk: memory holds a piece of the file and 20,000 roll-up rows at a time,
 * whatever the file's size. All or nothing: a malformed file names the file, the line and the
 * column, and imports nothing. Prints what it read and wrote, and the time it took.
 */
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { websites } from '../src/db/schema.ts';
import { packingOf } from '../src/imports/files.ts';
import { ImportError } from '../src/imports/format.ts';
import { runImport } from '../src/imports/run.ts';
import { IMPORT_SOURCES, type ImportSource } from '../src/imports/store.ts';
import { normalizeDomain } from '../src/websites/domain.ts';
import { fail, parseOptions, targetOptions, withDatabase } from './lib/d1.ts';

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

const started = performance.now();
try {
  const done = await withDatabase(
    { remote: values.remote, persistTo: values['persist-to'] },
    async (db) => {
      const site = await db.select().from(websites).where(eq(websites.domain, domain.domain)).get();
      if (!site)
        fail(`no website ${domain.domain}${values.remote ? '' : ' in the local database'}`);
      const body = Readable.toWeb(createReadStream(file, { highWaterMark: 256 * 1024 }));
      return runImport(db, site, body as ReadableStream<Uint8Array>, {
        source: source as ImportSource,
        packing,
        fileName: basename(file),
        overlap: values.overlap === 'own_wins',
      });
    },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const { record } = done;
  process.stdout.write(
    `Imported ${record.source} ${record.from} to ${record.to} into ${domain.domain}: ${done.records.toLocaleString('en-US')} records of ${(size / 1e6).toFixed(1)} MB, ${done.rowsWritten.toLocaleString('en-US')} rows written, in ${seconds} s (import ${record.id}).\n`,
  );
} catch (err) {
  fail(err instanceof ImportError || err instanceof Error ? err.message : String(err));
}
