/**
 * One import, start to end (docs/ARCHITECTURE.md, "Imported history"): the body's files read
 * as they stream in (./files.ts), each record handed to its format's reader, the roll-up rows
 * written 20,000 at a time to the pending import (./store.ts), and, once every file has been
 * read, the import made visible in one batch — or, at the first malformed record, nothing:
 * its rows are removed and the error names the file, the line and the column.
 */
import type { Database } from '../db/client.ts';
import { ApiError, type FieldErrors } from '../lib/errors.ts';
import { logError } from '../lib/log.ts';
import { CsvError, CsvReader } from '../lib/text/csv.ts';
import { ownDatesWithin } from '../rollups/imported.ts';
import { ImportStaging } from './d1-staging.ts';
import { filePieces, ImportFileError, type Packing } from './files.ts';
import {
  CountTooLarge,
  type FileHandler,
  type FormatReader,
  ImportError,
  Tally,
} from './format.ts';
import { goatCounterReader } from './goatcounter.ts';
import { plausibleReader } from './plausible-import.ts';
import { RawCounter } from './raw.ts';
import {
  abandonImport,
  beginImport,
  commitImport,
  type ImportRecord,
  type ImportSource,
  listImports,
  removeDeletedImports,
  writeImported,
} from './store.ts';
import { umamiReader } from './umami.ts';

export type ImportOptions = {
  source: ImportSource;
  packing: Packing;
  /** The name of a lone CSV (or gzip) as the user gave it. */
  fileName?: string | undefined;
  /** The owner lets the import cover dates with events of the website's own (which win). */
  overlap: boolean;
  /** Brings the website's roll-ups up to date before its own dates are looked at. */
  flush?: () => Promise<void>;
};

export type ImportResult = {
  record: ImportRecord;
  /** The records read from the files (header lines not counted). */
  records: number;
  /** The values the records held (each count of a statistic): at most one row written each. */
  values: number;
  /** The rows D1 wrote: the imported roll-up rows and the import's own. */
  rowsWritten: number;
  /** Of them, the rows staging records that outgrew memory, written and deleted (./d1-staging.ts). */
  staged: number;
};

/** Roll-up rows held before they are written. */
const WRITE_EVERY = 20_000;

function readerFor(
  source: ImportSource,
  tally: Tally,
  counter: RawCounter,
  timeZone: string,
): FormatReader {
  if (source === 'plausible') return plausibleReader(tally);
  return source === 'goatcounter'
    ? goatCounterReader(counter, timeZone)
    : umamiReader(counter, timeZone);
}

/** The 422 of a malformed file: its message names the file, the line and the column. */
export const importFailed = (err: ImportError) =>
  new ApiError(422, err.message, { [err.file]: [err.message] } as FieldErrors);

/** Imports a body into a website; throws `ImportError` (nothing kept) or an `ApiError`. */
export async function runImport(
  db: Database,
  site: { id: number; timezone: string },
  body: ReadableStream<Uint8Array>,
  o: ImportOptions,
): Promise<ImportResult> {
  const tally = new Tally();
  const importId = await beginImport(db, site.id, o.source);
  let rowsWritten = 0;
  const flush = async () => {
    if (tally.size >= WRITE_EVERY)
      rowsWritten += await writeImported(db, site.id, importId, tally.take());
  };
  // Single hits' visitors and visits: in memory up to a bound, then staged in D1 (./raw.ts).
  const staging = new ImportStaging(db, site.id, importId);
  const counter = new RawCounter(tally, site.timezone, { spill: staging, flush });
  const reader = readerFor(o.source, tally, counter, site.timezone);
  let records: number;
  try {
    records = await readFiles(body, o, reader, async () => {
      await counter.settle();
      await flush();
    });
    try {
      await reader.finish();
      rowsWritten += await writeImported(db, site.id, importId, tally.take());
    } catch (err) {
      if (err instanceof CountTooLarge)
        throw new ImportError(o.fileName ?? 'the upload', null, null, err.message);
      throw err;
    }
    rowsWritten += staging.rowsWritten;
    const range =
      reader.declared() ?? (tally.from && tally.to ? { from: tally.from, to: tally.to } : null);
    if (!range) throw new ImportError(o.fileName ?? 'the upload', null, null, 'nothing to import');
    await o.flush?.();
    const own = await ownDatesWithin(db, site.id, range);
    if (own && !o.overlap)
      throw new ApiError(
        409,
        `The website has events of its own on ${own.count} of these dates (${own.first} to ${own.last}). Import with overlap=own_wins to keep its own counts for those dates and the import's for the others.`,
      );
    rowsWritten += await commitImport(db, site.id, importId, {
      ...range,
      rows: records,
      statistics: reader.statistics(),
      ownWin: own !== null,
    });
  } catch (err) {
    await abandonImport(db, site.id, importId).catch((e) =>
      logError('import not removed', { websiteId: site.id, importId }, e),
    );
    throw err;
  }
  // Counted from here on. The imports this one covers whole were marked for deletion as it
  // was committed: their rows go now (or with the hourly maintenance, should this fail).
  await removeDeletedImports(db, site.id).catch((e) =>
    logError('replaced imports not removed yet', { websiteId: site.id }, e),
  );
  const record = (await listImports(db, site.id)).find((r) => r.id === importId);
  if (!record) throw new ApiError(409, 'The import was deleted while it ran.');
  return { record, records, values: tally.values, rowsWritten, staged: staging.rowsWritten };
}

type OpenFile = { name: string; handler: FileHandler; csv: CsvReader; header: boolean };

/** Reads every file of a body into its handler; returns the records read. */
async function readFiles(
  body: ReadableStream<Uint8Array>,
  o: ImportOptions,
  reader: FormatReader,
  written: () => Promise<void>,
): Promise<number> {
  let records = 0;
  let current = null as OpenFile | null;
  /** The file last read, which a write of the rows read so far is told of. */
  let last = o.fileName ?? 'the upload';
  try {
    for await (const piece of filePieces(body, o.packing, o.fileName)) {
      if (current?.name !== piece.file)
        current = {
          name: piece.file,
          handler: reader.file(piece.file),
          csv: new CsvReader(),
          header: false,
        };
      const file = current;
      last = file.name;
      let line: number | null = null;
      try {
        const read = file.csv.push(piece.text);
        if (piece.done) read.push(...file.csv.end());
        for (const r of read) {
          line = r.line;
          if (!file.header) {
            file.handler.header(r.cells);
            file.header = true;
          } else {
            file.handler.record(r.cells, r.line);
            records++;
          }
        }
      } catch (err) {
        if (err instanceof CsvError) throw new ImportError(file.name, err.line, null, err.message);
        if (err instanceof CountTooLarge) throw new ImportError(file.name, line, null, err.message);
        throw err;
      }
      if (piece.done) {
        if (!file.header) throw new ImportError(file.name, null, null, 'the file is empty');
        current = null;
      }
      await written();
    }
  } catch (err) {
    if (err instanceof ImportFileError)
      throw new ImportError(err.file ?? o.fileName ?? 'the upload', null, null, err.message);
    // Rows of one statistic, date and value that added up past the bound over several writes.
    if (err instanceof CountTooLarge) throw new ImportError(last, null, null, err.message);
    throw err;
  }
  return records;
}
