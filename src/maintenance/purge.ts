/**
 * Purging the data of deleted websites in bounded chunks. Deleting a website only removes its
 * row and leaves a tombstone in `website_purges`; a site with years of roll-ups could hold
 * millions of rows, far more than one request should delete, so the hourly maintenance
 * removes at most `chunk` rows per statement and `rows` rows per run, from each table that
 * holds rows by website (its report claims, then its roll-ups: src/rollups/deleted.ts), and
 * then the tombstone. The website's event log (its Durable Object) is destroyed first, so
 * that no flush of it can add roll-ups once they are being deleted.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { metered, QueryBudget, QueryBudgetExhausted } from '../db/query-budget.ts';
import { reportSends, websitePurges } from '../db/schema.ts';
import { logError } from '../lib/log.ts';
import { ROLLUP_PURGES } from '../rollups/deleted.ts';

export type PurgeResult = { rowsDeleted: number; websitesFinished: number };

/** One chunk of a website's rows: its report claims, then its roll-ups. */
const TABLES: ((websiteId: number, limit: number) => SQL)[] = [
  (websiteId, limit) =>
    sql`DELETE FROM ${reportSends} WHERE rowid IN (SELECT rowid FROM ${reportSends} WHERE ${reportSends.websiteId} = ${websiteId} LIMIT ${limit})`,
  ...ROLLUP_PURGES,
];

export async function purgeDeletedWebsites(
  base: Database,
  {
    chunk = 5_000,
    rows = 50_000,
    queries = new QueryBudget(100),
    destroyLog,
  }: {
    chunk?: number;
    rows?: number;
    queries?: QueryBudget;
    /** Deletes the website's event log (src/website-log/worker/calls.ts `destroyLog`). */
    destroyLog?: (websiteId: number) => Promise<void>;
  } = {},
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
      try {
        await destroyLog?.(websiteId);
      } catch (err) {
        // The log first: its roll-ups wait until it is gone (the next run tries again).
        logError('event log not deleted', { websiteId }, err);
        continue;
      }
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
