/**
 * The rows of a Parquet file, read from its footer — the file ends with its metadata, the
 * metadata's length (4 bytes, little-endian) and `PAR1` — by hyparquet's metadata reader
 * (MIT, the reading half of the writer the Parquet Worker uses). Enough for the manifest
 * (./manifest.ts): only the footer's bytes need be kept.
 */
import { parquetMetadata } from 'hyparquet/src/metadata.js';

/** How many bytes at the end of a Parquet file hold its footer (metadata, length, magic). */
function footerLength(tail: Uint8Array): number {
  const end = tail.length;
  const magic = String.fromCharCode(...tail.subarray(end - 4));
  if (end < 12 || magic !== 'PAR1') throw new Error('not a Parquet file');
  const view = new DataView(tail.buffer, tail.byteOffset + end - 8, 4);
  return view.getUint32(0, true) + 8;
}

/** `num_rows` of the Parquet file whose last bytes are `tail` (at least its footer). */
export function parquetRows(tail: Uint8Array): number {
  const length = footerLength(tail);
  if (length > tail.length) throw new Error('Parquet footer longer than the bytes kept');
  return Number(parquetMetadata(tail.subarray(tail.length - length)).num_rows);
}
