/**
 * The counters of dropped hits in D1 (`dropped_hits`, docs/ARCHITECTURE.md "Filtered
 * traffic"): added to from what a website's log counted in memory, a row per (local date,
 * reason, bot name, bot kind) and flush — never a row per hit — and read per day for the API
 * and the Filtered traffic page. A deleted website's are purged with its roll-ups
 * (./deleted.ts).
 */
import type { FlushCost } from './increments.ts';

/** One counter: the website, its local date, the reason, a bot's name and kind ('' else). */
export type DroppedCount = {
  websiteId: number;
  date: string;
  reason: string;
  name: string;
  kind: string;
  hits: number;
};

/** Counters per D1 statement: one JSON parameter carries them (D1 binds at most 100 values). */
const PER_STATEMENT = 2_000;

/**
 * Adds the counters to D1, one statement per website and 2,000 counters, in one batch (a
 * transaction); only while D1 has the website (a log that outlives it adds nothing).
 */
export async function addDroppedCounts(d1: D1Database, counts: DroppedCount[]): Promise<FlushCost> {
  const byWebsite = new Map<number, DroppedCount[]>();
  for (const c of counts) byWebsite.set(c.websiteId, [...(byWebsite.get(c.websiteId) ?? []), c]);
  const statements: D1PreparedStatement[] = [];
  for (const [websiteId, rows] of byWebsite)
    for (let i = 0; i < rows.length; i += PER_STATEMENT) {
      const chunk = rows
        .slice(i, i + PER_STATEMENT)
        .map((c) => [c.date, c.reason, c.name, c.kind, c.hits]);
      statements.push(
        d1
          .prepare(
            `INSERT INTO dropped_hits (website_id, date, reason, name, kind, hits)
            SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?2)
            WHERE EXISTS (SELECT 1 FROM websites WHERE id = ?1)
            ON CONFLICT (website_id, date, reason, name, kind) DO UPDATE SET hits = hits + excluded.hits`,
          )
          .bind(websiteId, JSON.stringify(chunk)),
      );
    }
  if (statements.length === 0) return { rowsWritten: 0, rowsRead: 0, statements: 0 };
  const results = await d1.batch(statements);
  return {
    rowsWritten: results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0),
    rowsRead: results.reduce((n, r) => n + (r.meta.rows_read ?? 0), 0),
    statements: statements.length,
  };
}

/** A counter as read back: its date, reason, bot name and kind ('' when none), hits. */
export type DroppedRow = { date: string; reason: string; name: string; kind: string; hits: number };

/** The website's counters of the local dates `from`–`to`, by date. */
export async function droppedCountsOf(
  d1: D1Database,
  websiteId: number,
  range: { from: string; to: string },
): Promise<DroppedRow[]> {
  const { results } = await d1
    .prepare(
      `SELECT date, reason, name, kind, hits FROM dropped_hits
      WHERE website_id = ?1 AND date >= ?2 AND date <= ?3 AND hits > 0
      ORDER BY date, reason, name, kind`,
    )
    .bind(websiteId, range.from, range.to)
    .all<DroppedRow>();
  return results;
}
