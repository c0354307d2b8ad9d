/**
 * Runs of one task that form a queue: each run begins after the one before has ended; a
 * caller joins the run queued and not yet begun, if there is one, else queues a new one —
 * either way the run it gets begins after it called.
 */
export class QueuedRuns<T> {
  /** The end of the queue: the next run begins after it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** A run queued and not begun yet. */
  private queued: Promise<T> | undefined;

  constructor(private readonly task: () => Promise<T>) {}

  run(): Promise<T> {
    if (this.queued) return this.queued;
    const next = this.tail.then(() => {
      this.queued = undefined;
      return this.task();
    });
    this.queued = next;
    this.tail = next.catch(() => undefined);
    return next;
  }
}
