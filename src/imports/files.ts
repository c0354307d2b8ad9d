/**
 * The files of an import's body, as text arriving in pieces: the entries of a zip (Plausible's
 * export, Umami's), a gzip-compressed CSV (GoatCounter's `.csv.gz`) or one CSV. Read as the
 * body streams in, so that memory holds a piece at a time, never the file.
 */
import { Unzip, UnzipInflate } from 'fflate';

/** How an import's body is packed, from its media type or name. */
export type Packing = 'zip' | 'gzip' | 'csv';

/** A piece of one file's text, in order; `done` once the file has ended. */
export type FilePiece = { file: string; text: string; done: boolean };

/** A zip's input is handed to the inflater in slices this big, so that one slice's output stays small. */
const SLICE = 16 * 1024;

/** The packing a media type or file name names, or null. */
export function packingOf(mediaType: string, fileName = ''): Packing | null {
  const type = mediaType.toLowerCase();
  const name = fileName.toLowerCase();
  if (
    type === 'application/zip' ||
    type === 'application/x-zip-compressed' ||
    name.endsWith('.zip')
  )
    return 'zip';
  if (type === 'application/gzip' || type === 'application/x-gzip' || name.endsWith('.gz'))
    return 'gzip';
  if (type === 'text/csv' || type === 'text/plain' || name.endsWith('.csv')) return 'csv';
  return null;
}

/** A file of a zip that is not text (a folder, a file inside `__MACOSX/`) is left out. */
const skipped = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/');

/**
 * The files of a body, piece by piece. `name` names a lone CSV (or the CSV inside a gzip): a
 * file name as the user gave it, else `upload.csv`.
 */
export async function* filePieces(
  body: ReadableStream<Uint8Array>,
  packing: Packing,
  name = 'upload.csv',
): AsyncGenerator<FilePiece> {
  if (packing === 'zip') {
    yield* zipPieces(body);
    return;
  }
  const file = name.replace(/\.gz$/i, '');
  const stream =
    packing === 'gzip'
      ? body.pipeThrough(
          new DecompressionStream('gzip') as ReadableWritablePair<Uint8Array, Uint8Array>,
        )
      : body;
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
    yield { file, text: decoder.decode(chunk, { stream: true }), done: false };
  yield { file, text: decoder.decode(), done: true };
}

/** The entries of a zip, in the order they are stored. */
async function* zipPieces(body: ReadableStream<Uint8Array>): AsyncGenerator<FilePiece> {
  const queue: FilePiece[] = [];
  let failure: unknown;
  let files = 0;
  const unzip = new Unzip((entry) => {
    if (skipped(entry.name)) return;
    files++;
    const decoder = new TextDecoder('utf-8');
    entry.ondata = (err, data, final) => {
      if (err) {
        failure = err;
        return;
      }
      const text = decoder.decode(data, { stream: !final });
      queue.push({ file: entry.name, text, done: final });
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  const drain = function* () {
    if (failure) throw new ImportFileError('the zip file is damaged', `${failure}`);
    while (queue.length > 0) yield queue.shift() as FilePiece;
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = 0; at < chunk.length; at += SLICE) {
      try {
        unzip.push(chunk.subarray(at, at + SLICE));
      } catch (err) {
        throw new ImportFileError('the zip file is damaged', `${err}`);
      }
      yield* drain();
    }
  }
  try {
    unzip.push(new Uint8Array(0), true);
  } catch (err) {
    throw new ImportFileError('the zip file is damaged', `${err}`);
  }
  yield* drain();
  if (files === 0) throw new ImportFileError('the zip file holds no file');
}

/** A body that is not the archive it says it is. */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}
