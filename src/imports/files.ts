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

/** The media types an import is sent as, and what each is. */
const PACKINGS: Record<string, Packing> = {
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'application/gzip': 'gzip',
  'application/x-gzip': 'gzip',
  'text/csv': 'csv',
  'text/plain': 'csv',
};

/**
 * The packing a media type names; for bytes of no stated kind (`application/octet-stream`, no
 * type: a browser's upload of a `.gz`, the command line), the file name's; else null.
 */
export function packingOf(mediaType: string, fileName = ''): Packing | null {
  const type = mediaType.toLowerCase();
  const known = PACKINGS[type];
  if (known) return known;
  if (type !== '' && type !== 'application/octet-stream') return null;
  const name = fileName.toLowerCase();
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.gz')) return 'gzip';
  return name.endsWith('.csv') ? 'csv' : null;
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
  const reader = body.getReader();
  const first = await reader.read();
  const head = first.value ?? new Uint8Array(0);
  // The first bytes say what a file is, whatever it was sent as.
  const packed = isZip(head) ? 'zip' : isGzip(head) ? 'gzip' : packing === 'zip' ? 'zip' : 'csv';
  const rest = replayed(head, reader, first.done === true);
  if (packed === 'zip') {
    if (!isZip(head)) throw new ImportFileError('not a zip file');
    yield* zipPieces(rest);
    return;
  }
  const file = name.replace(/\.gz$/i, '');
  const stream =
    packed === 'gzip'
      ? rest.pipeThrough(
          new DecompressionStream('gzip') as ReadableWritablePair<Uint8Array, Uint8Array>,
        )
      : rest;
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
      yield { file, text: decoder.decode(chunk, { stream: true }), done: false };
  } catch (err) {
    if (packed === 'gzip') throw new ImportFileError('the gzip file is damaged', `${err}`);
    throw err;
  }
  yield { file, text: decoder.decode(), done: true };
}

/** A zip's local file header starts `PK\x03\x04`; an empty zip, `PK\x05\x06`. */
const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5);
/** A gzip member starts 1f 8b. */
const isGzip = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b;

/** The stream again, from the piece already read. */
function replayed(
  head: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: boolean,
): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        if (head.length > 0) controller.enqueue(head);
        if (done) controller.close();
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
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
