/**
 * The event log's NDJSON export as a Parquet file, streamed (docs/ARCHITECTURE.md, "Exports"):
 * the lines are read as the response's reader asks for more, `ROW_GROUP` events at a time;
 * each such piece is one row group, written by hyparquet-writer's `ParquetWriter` and sent on
 * at once, so memory holds one row group and its encoding, never the file. The footer (each
 * row group's place and statistics) follows the last.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { COLUMN_KINDS, PARQUET_SCHEMA, parquetValue } from './parquet-schema.ts';

/** Events a row group holds: the memory an export takes grows with it (docs/benchmarks.json). */
export const ROW_GROUP = 10_000;

/** A `ByteWriter` whose bytes are taken away after each row group (`take`). */
class TakenWriter extends ByteWriter {
  /** The bytes written since the last take (the writer's offsets keep counting the file's). */
  take(): Uint8Array {
    const bytes = this.getBytes().slice();
    this.index = 0;
    return bytes;
  }
}

/** Lines of a stream of UTF-8 text, a piece at a time. */
async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    yield* lines;
  }
  rest += decoder.decode();
  if (rest !== '') yield rest;
}

/** Column data of an empty row group. */
const emptyColumns = () => COLUMN_KINDS.map(() => [] as unknown[]);

/**
 * The events of an NDJSON stream (one JSON object a line, with the export's columns) as one
 * Parquet file. `rows`: the events a row group holds.
 */
export function parquetStream(
  ndjson: ReadableStream<Uint8Array>,
  rows = ROW_GROUP,
): ReadableStream<Uint8Array> {
  const lines = linesOf(ndjson);
  const writer = new TakenWriter(1 << 20);
  const parquet = new ParquetWriter({
    writer,
    schema: PARQUET_SCHEMA,
    codec: 'SNAPPY',
    createdBy: 'Sightline',
  });
  const group = (columns: unknown[][]) =>
    parquet.write({
      rowGroupSize: rows,
      columnData: COLUMN_KINDS.map((c, i) => ({
        name: c.name,
        data: columns[i] as never[],
        // A text of few values (a browser, a country) is dictionary-encoded in every row group.
        ...(c.kind === 'few' ? { encoding: 'RLE_DICTIONARY' as const } : {}),
      })),
    });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const columns = emptyColumns();
      let count = 0;
      let done = false;
      while (count < rows) {
        const next = await lines.next();
        if (next.done) {
          done = true;
          break;
        }
        if (next.value.trim() === '') continue;
        const event = JSON.parse(next.value) as Record<string, unknown>;
        COLUMN_KINDS.forEach((c, i) => {
          (columns[i] as unknown[]).push(parquetValue(c.kind, event[c.name]));
        });
        count++;
      }
      if (count > 0) await group(columns);
      if (done) await parquet.finish();
      const bytes = writer.take();
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      if (done) controller.close();
    },
    async cancel() {
      // Ends the lines' reading, which cancels the NDJSON stream.
      await lines.return(undefined);
    },
  });
}
