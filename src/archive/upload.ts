/**
 * One date's Parquet file into the bucket, streamed: its SHA-256 computed as the bytes pass,
 * its rows read from its footer (./parquet-rows.ts). R2 takes a stream only of a known length,
 * so a file is held until it reaches `PART_BYTES` — most dates are far smaller, and go up in
 * one `put` — and a larger one goes up as a multipart upload of parts of that size (R2 wants
 * every part but the last of one size), never held whole (docs/ARCHITECTURE.md, "The daily
 * archive").
 */
import { parquetRows } from './parquet-rows.ts';

/** What was written: rows (0: none, and no object), bytes and the file's SHA-256 (hex). */
export type Written = { rows: number; bytes: number; sha256: string | null };

/** A multipart upload's part: R2 wants at least 5 MiB; 8 MiB bounds what a run holds. */
const PART_BYTES = 8 * 1024 * 1024;
/** The end of a file kept for its footer; a footer is a few kilobytes a row group. */
const TAIL_BYTES = 1024 * 1024;

const PARQUET_TYPE = 'application/vnd.apache.parquet';

const hex = (buffer: ArrayBuffer) =>
  [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

function joined(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** Chunks held, taken from the front by the byte. */
class Held {
  chunks: Uint8Array[] = [];
  bytes = 0;

  add(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
  }

  /** The first `n` bytes, no longer held. */
  take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const chunk = this.chunks[0] as Uint8Array;
      const used = Math.min(chunk.byteLength, n - at);
      out.set(chunk.subarray(0, used), at);
      at += used;
      if (used === chunk.byteLength) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    this.bytes -= n;
    return out;
  }

  all(): Uint8Array {
    return this.take(this.bytes);
  }
}

/**
 * Writes the Parquet stream `body` to `key`. A file of no rows is not written. One `put` is
 * conditional (`If-None-Match: *`): finding the object there already — written by a run that
 * failed before its manifest entry — it takes that object's rows and checksum (its custom
 * metadata) instead of writing it again. A multipart upload has no such condition and
 * replaces the object (the same date's same events).
 */
export async function uploadParquet(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  metadata: Record<string, string>,
): Promise<Written> {
  // workerd's own (the scripts' DOM types know no `crypto.DigestStream`).
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream(
    'SHA-256',
  );
  const hashing = digest.getWriter();
  const held = new Held();
  let tail: Uint8Array = new Uint8Array(0);
  let bytes = 0;
  let upload: R2MultipartUpload | undefined;
  const parts: R2UploadedPart[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await hashing.write(value);
      bytes += value.byteLength;
      held.add(value);
      tail = keptEnd(tail, value);
      while (held.bytes >= PART_BYTES) {
        upload ??= await bucket.createMultipartUpload(key, {
          customMetadata: metadata,
          httpMetadata: { contentType: PARQUET_TYPE },
        });
        parts.push(await upload.uploadPart(parts.length + 1, held.take(PART_BYTES)));
      }
    }
    await hashing.close();
    const sha256 = hex(await digest.digest);
    const rows = parquetRows(tail);
    if (upload) {
      if (held.bytes > 0) parts.push(await upload.uploadPart(parts.length + 1, held.all()));
      await upload.complete(parts);
      return { rows, bytes, sha256 };
    }
    if (rows === 0) return { rows, bytes: 0, sha256: null };
    return await putOnce(bucket, key, held.all(), { ...metadata, rows: String(rows), sha256 });
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    await upload?.abort().catch(() => undefined);
    throw err;
  }
}

/** The last `TAIL_BYTES` of what came so far. */
function keptEnd(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.byteLength >= TAIL_BYTES) return chunk.slice(chunk.byteLength - TAIL_BYTES);
  const keep = Math.min(tail.byteLength, TAIL_BYTES - chunk.byteLength);
  return joined([tail.subarray(tail.byteLength - keep), chunk], keep + chunk.byteLength);
}

/** One `put` unless the object is there; then the one there, as its metadata describes it. */
async function putOnce(
  bucket: R2Bucket,
  key: string,
  file: Uint8Array,
  metadata: Record<string, string> & { rows: string; sha256: string },
): Promise<Written> {
  const options = {
    sha256: metadata.sha256,
    customMetadata: metadata,
    httpMetadata: { contentType: PARQUET_TYPE },
  };
  const put = await bucket.put(key, file, { ...options, onlyIf: { etagDoesNotMatch: '*' } });
  if (put) return { rows: Number(metadata.rows), bytes: file.byteLength, sha256: metadata.sha256 };
  const there = await bucket.head(key);
  const rows = Number(there?.customMetadata?.rows);
  const sha256 = there?.customMetadata?.sha256;
  if (there && sha256 && Number.isSafeInteger(rows)) return { rows, bytes: there.size, sha256 };
  // Not one of ours as a `put` writes it: replaced.
  await bucket.put(key, file, options);
  return { rows: Number(metadata.rows), bytes: file.byteLength, sha256: metadata.sha256 };
}
