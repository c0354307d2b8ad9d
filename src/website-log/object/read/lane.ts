/**
 * The lane a log's reads take turns in (docs/ARCHITECTURE.md, "Reads that never stall
 * hits"): one chunk of one read at a time, in the order they asked, and after each a turn of
 * the event loop, so that the hits waiting for the object are taken before the next chunk.
 * A hit waits for at most the chunk under way, whatever the number of readers.
 */
export class ReadLane {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  /** Runs `chunk` when the lane is free; the lane is handed on after a turn of the event loop. */
  async run<T>(chunk: () => T): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      return chunk();
    } finally {
      setTimeout(() => this.handOn(), 0);
    }
  }

  private handOn(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }
}

/** Runs a piece of a read's work as one turn of the read lane (hits come between turns). */
export type Step = <T>(work: () => T) => Promise<T>;
