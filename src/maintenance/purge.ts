/**
 * Purging the data of deleted websites in bounded chunks. Deleting a website only removes its
 * row and leaves a tombstone in `website_purges`; a site with years of roll-ups could hold
 * millions of rows, far more than one request should delete, so the hourly maintenance
 * removes at most `chunk` rows per statement and `rows` rows per run, from each table that
 * holds rows by website (its report claims, then its roll-ups), and then the tombstone.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { reportSends, stats, websitePurges } from '../db/schema.ts';
import { metered, QueryBudget, QueryBudgetExhausted } from './budget.ts';

export type PurgeResult = { rowsDeleted: number; websitesFinished: number };

/** One chunk of a website's rows, chosen by the primary key's prefix (no DELETE … LIMIT). */
const TABLES: ((websiteId: number, limit: number) => SQL)[] = [
  (websiteId, limit) =>
    sql`DELETE FROM ${reportSends} WHERE rowid IN (SELECT rowid FROM ${reportSends} WHERE ${reportSends.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId, limit) =>
    sql`DELETE FROM ${stats} WHERE (website_id, name, date, value) IN (SELECT website_id, name, date, value FROM ${stats} WHERE ${stats.websiteId} = ${websiteId} LIMIT ${limit})`,
];

export async function purgeDeletedWebsites(
  base: Database,
  {
    chunk = 5_000,
    rows = 50_000,
    queries = new QueryBudget(100),
  }: { chunk?: number; rows?: number; queries?: QueryBudget } = {},
): Promise<PurgeResult> {
  const db = metered(base, queries);
  const result: PurgeResult = { rowsDeleted: 0, websitesFinished: 0 };
  try {
    const pending = await db
      .select({ websiteId: websitePurges.websiteId })
      .from(websitePurges)
      .limit(100)
      .all();
    for (const { websiteId } of pending) {
      let finished = true;
      for (const table of TABLES) {
        while (result.rowsDeleted < rows) {
          const limit = Math.min(chunk, rows - result.rowsDeleted);
          const changes = (await db.run(table(websiteId, limit))).meta.changes ?? 0;
          result.rowsDeleted += changes;
          if (changes < limit) break;
        }
        if (result.rowsDeleted >= rows) {
          finished = false;
          break;
        }
      }
      if (!finished) break;
      await db.delete(websitePurges).where(eq(websitePurges.websiteId, websiteId)).run();
      result.websitesFinished++;
    }
  } catch (err) {
    // Out of budget: what is left waits for the next run (every statement stands on its own).
    if (!(err instanceof QueryBudgetExhausted)) throw err;
  }
  return result;
}
