/**
 * Applying a flush's increments to D1's roll-ups (docs/ARCHITECTURE.md, "The flush"): the
 * guard that moves the website's position, and the increments, summed per (statistic, date,
 * value), as `INSERT … ON CONFLICT DO UPDATE` from one JSON parameter each (D1 binds at most
 * 100 values per statement); those of a month already compacted into month and year rows
 * (./compaction.ts) are added to them too, by two more statements that write nothing
 * otherwise. All of it one D1 batch — a transaction — and all of it only while D1 has the
 * website.
 */
import { type Increment, VISITORS_OF, type VisitorRollup } from '../counting/statistics.ts';

/** The coarser roll-ups a late event adds to: table, key column, length of its key. */
const LATE = [
  ['stats_months', 'month', 7],
  ['stats_years', 'year', 4],
] as const;

/** Increments per statement: a few hundred bytes each, well under D1's limits. */
const INCREMENTS_PER_STATEMENT = 2_000;

/**
 * A roll-up row's increments as a flush adds them: its count, and its visitors (a page's or
 * a referrer's, `VISITORS_OF`: the visitors' roll-ups are kept in the rows they are of).
 */
type RowIncrement = [name: string, date: string, value: string, count: number, visitors: number];

/** Increments as the rows they add to, each row once. */
function rowIncrements(increments: Increment[]): RowIncrement[] {
  const rows = new Map<string, RowIncrement>();
  for (const [name, date, value, n] of increments) {
    const of = Object.hasOwn(VISITORS_OF, name) ? VISITORS_OF[name as VisitorRollup] : null;
    const stat = of ?? name;
    const key = `${stat}\u0000${date}\u0000${value}`;
    const row = rows.get(key) ?? [stat, date, value, 0, 0];
    rows.set(key, row);
    row[of ? 4 : 3] += n;
  }
  return [...rows.values()].filter((row) => row[3] !== 0 || row[4] !== 0);
}

/** What a flush wrote: D1's rows written and read (exact, from `meta`). */
export type FlushCost = { rowsWritten: number; rowsRead: number; statements: number };

export const NO_COST: FlushCost = { rowsWritten: 0, rowsRead: 0, statements: 0 };

/** What a flush did: its cost, and whether D1 no longer has the website (nothing written). */
export type Applied = FlushCost & { websiteGone: boolean };

/** A partition of a website's log: the website, and the partition's number (0 the first). */
export type LogPartition = { websiteId: number; partition: number };

/** What the directory notes of a partition at each flush (`log_positions`). */
export type PartitionFigures = {
  firstDate: string | null;
  lastDate: string | null;
  /** Events rolled up by this flush, added to the partition's. */
  events: number;
  bytes: number;
  /** The partition takes no more hits. */
  closed?: boolean;
  /**
   * The first date from which this flush on, D1 holds the visitors of the partition's pages
   * and referrers (`page_visitors`, `referrer_visitors`): set by its first flush that counts
   * them ('' from the beginning), kept after.
   */
  visitorsFrom?: string | null;
};

/**
 * Applies a flush of a partition's events `(from, to]`: its guard (which notes the
 * partition's figures in the directory too) and its increments, one batch.
 */
export async function applyFlush(
  d1: D1Database,
  { websiteId, partition }: LogPartition,
  from: number,
  to: number,
  increments: Increment[],
  figures: PartitionFigures,
): Promise<Applied> {
  const statements = [
    d1
      .prepare(
        `INSERT INTO log_positions (website_id, partition, position, first_date, last_date, events, bytes, closed, visitors_from)
        SELECT ?1, ?2, CASE WHEN ?3 = 0 OR EXISTS (SELECT 1 FROM log_positions WHERE website_id = ?1 AND partition = ?2)
          THEN ?4 ELSE json('no position to move from') END, ?5, ?6, ?7, ?8, ?9, ?10
        WHERE EXISTS (SELECT 1 FROM websites WHERE id = ?1)
        ON CONFLICT (website_id, partition) DO UPDATE SET
          position = CASE WHEN position = ?3 THEN excluded.position ELSE NULL END,
          first_date = excluded.first_date, last_date = excluded.last_date,
          events = events + excluded.events, bytes = excluded.bytes, closed = excluded.closed,
          visitors_from = coalesce(visitors_from, excluded.visitors_from)`,
      )
      .bind(
        websiteId,
        partition,
        from,
        to,
        figures.firstDate,
        figures.lastDate,
        figures.events,
        figures.bytes,
        figures.closed ? 1 : 0,
        figures.visitorsFrom ?? null,
      ),
  ];
  const rows = rowIncrements(increments);
  for (let i = 0; i < rows.length; i += INCREMENTS_PER_STATEMENT) {
    const chunk = JSON.stringify(rows.slice(i, i + INCREMENTS_PER_STATEMENT));
    statements.push(
      d1
        .prepare(
          `INSERT INTO stats (website_id, name, date, value, count, visitors)
          SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?2)
          WHERE EXISTS (SELECT 1 FROM websites WHERE id = ?1)
          ON CONFLICT (website_id, name, date, value) DO UPDATE SET
            count = count + excluded.count, visitors = visitors + excluded.visitors`,
        )
        .bind(websiteId, chunk),
    );
    // An event of a month already compacted adds to its month's and year's rows too.
    for (const [table, key, length] of LATE) {
      statements.push(
        d1
          .prepare(
            `INSERT INTO ${table} (website_id, name, ${key}, value, count, visitors)
            SELECT ?1, value ->> 0, substr(value ->> 1, 1, ${length}), value ->> 2, sum(value ->> 3), sum(value ->> 4)
            FROM json_each(?2)
            WHERE substr(value ->> 1, 1, 7) <= (SELECT through FROM compacted_months WHERE website_id = ?1)
              AND EXISTS (SELECT 1 FROM websites WHERE id = ?1)
            GROUP BY 2, 3, 4
            ON CONFLICT (website_id, name, ${key}, value) DO UPDATE SET
              count = count + excluded.count, visitors = visitors + excluded.visitors`,
          )
          .bind(websiteId, chunk),
      );
    }
  }
  const results = await d1.batch(statements);
  return {
    rowsWritten: results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0),
    rowsRead: results.reduce((n, r) => n + (r.meta.rows_read ?? 0), 0),
    statements: statements.length,
    websiteGone: (results[0]?.meta.changes ?? 0) === 0,
  };
}

/** The position up to which D1 holds a partition's roll-ups (0 before its first flush). */
export async function appliedPosition(
  d1: D1Database,
  { websiteId, partition }: LogPartition,
): Promise<number> {
  const row = await d1
    .prepare('SELECT position FROM log_positions WHERE website_id = ? AND partition = ?')
    .bind(websiteId, partition)
    .first<{ position: number }>();
  return row?.position ?? 0;
}
