/**
 * The counters of a log's dropped hits (docs/ARCHITECTURE.md, "Filtered traffic"): each hit
 * its website's pipeline dropped (sent by the Worker in the hit's one call of its log) or
 * its log dropped (`too_fast`) adds one to a counter in memory, keyed by its local date,
 * reason and — for a bot — name and kind. They go to D1 (`dropped_hits`, upserts:
 * src/rollups/dropped-hits.ts) once the oldest has waited `DROPPED_WITHIN_MS`, at once when
 * `MOST_DROPPED_KEYS` counters are held, and with every flush a reader asks for: so a flood
 * of dropped hits writes a row per counter a minute, not a row per hit, and nothing in the
 * object's storage. A timer, not the alarm, writes them: while it is pending the object is
 * neither hibernated nor evicted (so its memory stays), and it writes no row of its own. What
 * a crash or a restart loses is the counters not written yet — never a counted hit.
 */
import { logError } from '../../lib/log.ts';
import { addDroppedCounts, type DroppedCount } from '../../rollups/dropped-hits.ts';
import { type FlushCost, NO_COST } from '../../rollups/increments.ts';

/** A dropped hit as its log counts it: a bot's name and kind ('' for another reason, or unnamed). */
export type DroppedHit = Omit<DroppedCount, 'hits'>;

/** The longest the oldest counter waits in memory before it is written to D1. */
export const DROPPED_WITHIN_MS = 60_000;
/** The most counters held: at this many they are written at once (the memory stays bounded). */
export const MOST_DROPPED_KEYS = 1_000;
/** After a failed write, the counters (kept) are tried again after this long. */
const RETRY_DELAY_MS = 30_000;

export class DroppedCounts {
  private counts = new Map<string, DroppedCount>();
  /** When the oldest counter held was started (null: none held). */
  private since: number | null = null;
  /** No write before this (a failed one waits: `RETRY_DELAY_MS`). */
  private notBefore = 0;

  /** Counts a dropped hit at `now`; answers when the counters are due to be written. */
  note(hit: DroppedHit, now: number): number {
    this.add({ ...hit, hits: 1 });
    this.since ??= now;
    return this.dueAt() ?? now;
  }

  /** When the counters held are due to be written (null: none held). */
  dueAt(): number | null {
    if (this.since === null) return null;
    const due = this.counts.size >= MOST_DROPPED_KEYS ? 0 : this.since + DROPPED_WITHIN_MS;
    return Math.max(due, this.notBefore);
  }

  /**
   * Writes every counter held to D1 and forgets it; hits counted meanwhile start new counters.
   * A failed write keeps them (added back) for a later try, and throws.
   */
  async write(d1: D1Database, now: number): Promise<FlushCost> {
    if (this.counts.size === 0) return { ...NO_COST };
    const counts = [...this.counts.values()];
    const since = this.since;
    this.counts = new Map();
    this.since = null;
    try {
      return await addDroppedCounts(d1, counts);
    } catch (err) {
      for (const c of counts) this.add(c);
      this.since = Math.min(since ?? now, this.since ?? now);
      this.notBefore = now + RETRY_DELAY_MS;
      throw err;
    }
  }

  /** Forgets every counter (the log is deleted). */
  clear(): void {
    this.counts = new Map();
    this.since = null;
  }

  /** Adds `c.hits` to its counter. */
  private add(c: DroppedCount): void {
    const key = JSON.stringify([c.websiteId, c.date, c.reason, c.name, c.kind]);
    const count = this.counts.get(key);
    if (count) count.hits += c.hits;
    else this.counts.set(key, { ...c });
  }
}

/** The counters of an object, and the timer that writes them to D1 when they are due. */
export class DroppedWriter {
  private readonly counts = new DroppedCounts();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer is set for. */
  private timerAt = 0;

  constructor(private readonly d1: D1Database) {}

  /** Counts a dropped hit; the timer is set for when its counter is due. */
  note(hit: DroppedHit): void {
    this.counts.note(hit, Date.now());
    this.arm();
  }

  /** Writes the counters held now; answers D1's rows (a failure is logged: none, kept). */
  async flush(): Promise<FlushCost> {
    try {
      return await this.counts.write(this.d1, Date.now());
    } catch (err) {
      logError('dropped hits not written', {}, err);
      return { ...NO_COST };
    } finally {
      this.arm();
    }
  }

  /** Forgets the counters and the timer (the log is deleted). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.counts.clear();
  }

  /** Sets the timer for the counters' due time (none held: none), unless it is set as soon. */
  private arm(): void {
    const due = this.counts.dueAt();
    if (due !== null && this.timer !== undefined && this.timerAt <= due) return;
    // None held (all written): no timer keeps the object in memory.
    clearTimeout(this.timer);
    this.timer = undefined;
    if (due === null) return;
    this.timerAt = due;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      Math.max(0, due - Date.now()),
    );
  }
}
