/**
 * The files of an import's body, as text arriving in pieces: the entries of a zip (Plausible's
 * export, Umami's), a gzip-compressed CSV (GoatCounter's `.csv.gz`) or one CSV. Read as the
 * body streams in, so that memory holds a piece at a time, never the file. What is compressed
 * is inflated `SLICE` bytes at a time (a slice inflates to 4 MB at most), and may expand
 * `MAX_EXPANSION` times at most (plus `EXPANSION_ALLOWANCE`): CSV exports compress 4 to 20
 * times, deflate's own limit is 1,032, and a compressed bomb stops there with a 422 naming
 * the file (docs/SECURITY.md).
 */
import { Gunzip, Unzip, UnzipInflate } from 'fflate';

/** How an import's body is packed, from its media type or name. */
export type Packing = 'zip' | 'gzip' | 'csv';

/** A piece of one file's text, in order; `done` once the file has ended. */
export type FilePiece = { file: string; text: string; done: boolean };

/** Compressed input is handed to the inflater in slices this big, so that one slice's output stays small. */
const SLICE = 4 * 1024;

/** How many times its compressed size a body may inflate to, at most… */
const MAX_EXPANSION = 200;
/** …beyond this much, which any body may inflate to. */
const EXPANSION_ALLOWANCE = 32 * 1024 * 1024;

/** The bytes a body's inflater took and gave: a body expanding past the bound throws. */
class Expansion {
  private input = 0;
  private output = 0;

  took(bytes: number) {
    this.input += bytes;
  }

  gave(bytes: number, file: string) {
    this.output += bytes;
    if (this.output > this.input * MAX_EXPANSION + EXPANSION_ALLOWANCE)
      throw new ImportFileError(
        `it expands more than ${MAX_EXPANSION} times its compressed size (a compressed bomb?)`,
        undefined,
        file,
      );
  }
}

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
  if (packed === 'gzip') {
    yield* gzipPieces(rest, name.replace(/\.gz$/i, ''), name);
    return;
  }
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of rest as unknown as AsyncIterable<Uint8Array>)
    yield { file: name, text: decoder.decode(chunk, { stream: true }), done: false };
  yield { file: name, text: decoder.decode(), done: true };
}

/** The CSV inside a gzip (`packed`: the gzip's own name, which its errors give). */
async function* gzipPieces(
  body: ReadableStream<Uint8Array>,
  file: string,
  packed: string,
): AsyncGenerator<FilePiece> {
  const expansion = new Expansion();
  const decoder = new TextDecoder('utf-8');
  const out: Uint8Array[] = [];
  const gunzip = new Gunzip((data) => {
    out.push(data);
  });
  const push = (slice: Uint8Array, final = false) => {
    expansion.took(slice.length);
    try {
      gunzip.push(slice, final);
    } catch (err) {
      throw new ImportFileError('the gzip file is damaged', `${err}`, packed);
    }
  };
  const drain = function* () {
    for (const data of out.splice(0)) {
      expansion.gave(data.length, packed);
      yield { file, text: decoder.decode(data, { stream: true }), done: false };
    }
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>)
    for (let at = 0; at < chunk.length; at += SLICE) {
      push(chunk.subarray(at, at + SLICE));
      yield* drain();
    }
  push(new Uint8Array(0), true);
  yield* drain();
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
  /** The inflated bytes of each piece queued. */
  const bytes: number[] = [];
  const expansion = new Expansion();
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
      bytes.push(data.length);
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  const drain = function* () {
    if (failure) throw new ImportFileError('the zip file is damaged', `${failure}`);
    while (queue.length > 0) {
      const piece = queue.shift() as FilePiece;
      expansion.gave(bytes.shift() ?? 0, piece.file);
      yield piece;
    }
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = 0; at < chunk.length; at += SLICE) {
      const slice = chunk.subarray(at, at + SLICE);
      expansion.took(slice.length);
      try {
        unzip.push(slice);
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

/** A body that is not the archive it says it is, or that inflates too far (`file`: which). */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
    readonly file?: string,
  ) {
    super(message);
  }
}
