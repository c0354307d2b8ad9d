/**
 * The rows of a Parquet file, read from its footer: the file ends with its metadata (Thrift's
 * compact protocol), the metadata's length (4 bytes, little-endian) and `PAR1`. The metadata
 * is a struct whose field 3 is `num_rows`; the fields before it (the version, the schema) are
 * skipped. Enough of a reader for the manifest (./manifest.ts), not a Parquet reader.
 */

/** Thrift compact types: what a skip has to step over. */
const STOP = 0;
const TRUE = 1;
const FALSE = 2;
const BYTE = 3;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

class Reader {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    const b = this.bytes[this.at++];
    if (b === undefined) throw new Error('Parquet footer cut short');
    return b;
  }

  /** An unsigned varint, exact up to 2^53. */
  varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
    }
  }

  /** A zigzag integer (i16, i32, i64). */
  zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  skip(type: number): void {
    if (type === TRUE || type === FALSE) return;
    if (type === BYTE) this.at++;
    else if (type === DOUBLE) this.at += 8;
    else if (type === BINARY) {
      // The length first: `this.at += this.varint()` would add it to where the length began.
      const length = this.varint();
      this.at += length;
    } else if (type === LIST || type === SET) {
      const header = this.byte();
      const size = header >> 4 === 15 ? this.varint() : header >> 4;
      const element = header & 0x0f;
      // A list of booleans holds a byte each.
      for (let i = 0; i < size; i++)
        element === TRUE || element === FALSE ? this.at++ : this.skip(element);
    } else if (type === MAP) {
      const size = this.varint();
      if (size === 0) return;
      const types = this.byte();
      for (let i = 0; i < size; i++) {
        this.skip(types >> 4);
        this.skip(types & 0x0f);
      }
    } else if (type === STRUCT) {
      for (let field = this.field(0); field.type !== STOP; field = this.field(field.id))
        this.skip(field.type);
    } else this.zigzag(); // I16, I32, I64
  }

  /** A field's header: its id (a delta from the previous one, or written out) and type. */
  field(previous: number): { id: number; type: number } {
    const header = this.byte();
    const type = header & 0x0f;
    if (type === STOP) return { id: 0, type };
    const delta = header >> 4;
    return { id: delta === 0 ? this.zigzag() : previous + delta, type };
  }
}

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
  const reader = new Reader(tail.subarray(tail.length - length, tail.length - 8));
  for (let field = reader.field(0); field.type !== STOP; field = reader.field(field.id)) {
    if (field.id === 3) return reader.zigzag();
    reader.skip(field.type);
  }
  throw new Error('Parquet footer without num_rows');
}
