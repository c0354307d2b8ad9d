/** The rows of a Parquet file from its footer (src/archive/parquet-rows.ts), as the archive's manifest counts them. */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { parquetRows } from '../../src/archive/parquet-rows.ts';

const file = (rows: number, rowGroupSize?: number) =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: Array.from({ length: rows }, (_, i) => i), type: 'INT32' },
        { name: 'page', data: Array.from({ length: rows }, (_, i) => `/p${i}`), type: 'STRING' },
        { name: 'ok', data: Array.from({ length: rows }, (_, i) => i % 2 === 0), type: 'BOOLEAN' },
      ],
      ...(rowGroupSize ? { rowGroupSize } : {}),
    }),
  );

describe('parquetRows', () => {
  it.each([0, 1, 3, 1000])('reads %i rows from the footer', (rows) => {
    expect(parquetRows(file(rows))).toBe(rows);
  });

  it('counts the rows of every row group', () => {
    expect(parquetRows(file(2500, 1000))).toBe(2500);
  });

  it('reads the footer from the end of a file alone', () => {
    const whole = file(1000);
    const footer = new DataView(whole.buffer).getUint32(whole.length - 8, true) + 8;
    expect(parquetRows(whole.slice(whole.length - footer))).toBe(1000);
    expect(() => parquetRows(whole.slice(whole.length - footer + 1))).toThrow('longer than');
  });

  it('refuses what is not Parquet', () => {
    expect(() => parquetRows(new TextEncoder().encode('{"id":1}\n'))).toThrow('not a Parquet file');
  });
});
