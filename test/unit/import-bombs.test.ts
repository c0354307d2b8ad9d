/**
 * Compressed bombs (docs/SECURITY.md): a gzip or a zip that inflates far past what a CSV
 * export compresses to stops early, and the bytes it made the import read and inflate are
 * counted, never the time it took.
 */
import { gzipSync, strToU8, Zip, ZipDeflate } from 'fflate';
import { describe, expect, it } from 'vitest';
import { filePieces, ImportFileError } from '../../src/imports/files.ts';
import { countedBody as counted, newlineBomb } from '../support/bombs.ts';

/** Reads a body's files to the end or the first error: the text it gave, and the error. */
async function drain(body: ReadableStream<Uint8Array>, packing: 'gzip' | 'zip', name?: string) {
  let text = 0;
  try {
    for await (const piece of filePieces(body, packing, name)) text += piece.text.length;
  } catch (err) {
    return { text, err };
  }
  return { text, err: null };
}

describe('a compressed bomb', () => {
  it('a gzip stops once it has expanded 200 times its size (and 32 MiB)', async () => {
    const bomb = newlineBomb();
    expect(bomb.length).toBeLessThan(1.1e6);
    const body = counted(bomb);
    const { text, err } = await drain(body.stream, 'gzip', 'export.csv.gz');
    expect(err).toBeInstanceOf(ImportFileError);
    expect((err as ImportFileError).file).toBe('export.csv.gz');
    expect((err as ImportFileError).message).toContain('expands more than 200 times');
    // 1 GB inside: two of its pieces read (128 KB of 1 MB), inflated about 40 MB.
    expect(body.sent()).toBeLessThanOrEqual(128 * 1024);
    expect(text).toBeLessThan(48 * 2 ** 20);
  });

  it('a zip stops the same way, naming its entry', async () => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, data) => {
      if (err) throw err;
      parts.push(data);
    });
    const entry = new ZipDeflate('imported_pages_20240101_20240102.csv', { level: 9 });
    zip.add(entry);
    entry.push(strToU8('date,hostname,page,visits,visitors,pageviews\n'));
    const zeros = new Uint8Array(1 << 20).fill(48);
    for (let i = 0; i < 64; i++) entry.push(zeros, i === 63);
    zip.end();
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    expect(bytes.length).toBeLessThan(300_000);
    const body = counted(bytes);
    const { text, err } = await drain(body.stream, 'zip');
    expect((err as ImportFileError).file).toBe('imported_pages_20240101_20240102.csv');
    expect((err as ImportFileError).message).toContain('expands more than 200 times');
    expect(text).toBeLessThan(48 * 2 ** 20);
  });

  it('an ordinary export inflates whole', async () => {
    const rows = Array.from(
      { length: 50_000 },
      (_, i) => `/p${i % 300},2024-01-01T00:00:${i % 60}Z`,
    );
    const csv = `path,date\n${rows.join('\n')}\n`;
    const { text, err } = await drain(counted(gzipSync(strToU8(csv))).stream, 'gzip');
    expect(err).toBeNull();
    expect(text).toBe(csv.length);
  });
});
