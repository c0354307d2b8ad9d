/** Compressed bombs for the imports' tests, made small: only their compressed bytes are kept. */
import { gzipSync } from 'fflate';

/** 1 GB of line breaks in 1 MB of gzip: a thousand members of 1 MiB each. */
export function newlineBomb(): Uint8Array {
  const member = gzipSync(new Uint8Array(1 << 20).fill(10), { level: 9 });
  const bomb = new Uint8Array(member.length * 1000);
  for (let i = 0; i < 1000; i++) bomb.set(member, i * member.length);
  return bomb;
}

/** A body sent 64 KB at a time, only when asked for; `sent()` counts the bytes taken. */
export function countedBody(bytes: Uint8Array) {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= bytes.length) return controller.close();
        const piece = bytes.slice(sent, sent + 64 * 1024);
        sent += piece.length;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, sent: () => sent };
}
