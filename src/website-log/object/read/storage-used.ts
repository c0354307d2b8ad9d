/**
 * What a website's log keeps (`GET /api/v1/websites/{id}/storage`): its events, the bytes of
 * its object's storage, and its first and last dates. The events are counted by ranges of
 * ids, each one turn of the read lane (./lane.ts), so that a big log's count never holds
 * its hits; the rows read are the log's (a thousandth of a write's price each).
 */
import type { LogDb } from '../tables/log-db.ts';
import type { ReadLane } from './lane.ts';

/** A log's figures: `from` and `to` are null before its first hit. */
export type LogStorage = { events: number; bytes: number; from: string | null; to: string | null };

/** Ids counted per turn of the lane: some 10 ms here. */
const COUNTED_PER_TURN = 200_000;

/** The log's figures, and the rows their turns read (each turn's own, counted exactly). */
export async function logStorage(
  db: LogDb,
  lane: ReadLane,
): Promise<{ value: LogStorage; rowsRead: number; chunks: number }> {
  let rowsRead = 0;
  let chunks = 0;
  const turn = <T>(work: () => T) =>
    lane.run(() => {
      const before = db.io.rowsRead;
      const value = work();
      rowsRead += db.io.rowsRead - before;
      chunks++;
      return value;
    });
  const span = await turn(() =>
    db.one<{ low: number | null; high: number | null }>(
      'SELECT min(id) AS low, max(id) AS high FROM log',
    ),
  );
  let events = 0;
  if (span.low !== null && span.high !== null)
    for (let after = span.low - 1; after < span.high; after += COUNTED_PER_TURN) {
      const from = after;
      events += await turn(
        () =>
          db.one<{ n: number }>(
            'SELECT count(*) AS n FROM log WHERE id > ? AND id <= ?',
            from,
            from + COUNTED_PER_TURN,
          ).n,
      );
    }
  const dates = await turn(() =>
    db.one<{ first: string | null; last: string | null }>(
      'SELECT min(date) AS first, max(date) AS last FROM days',
    ),
  );
  return {
    value: { events, bytes: db.bytes, from: dates.first, to: dates.last },
    rowsRead,
    chunks,
  };
}
