/**
 * Purging the data of deleted websites in bounded chunks (DESIGN §4). Deleting a website
 * only removes its row and leaves a tombstone in `website_purges`; a site with years of
 * roll-ups could hold millions of rows, far more than one request should delete, so the
 * hourly maintenance removes at most `chunk` rows per statement and `budget` rows per run.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { stats, websitePurges } from '../db/schema.ts';

export type PurgeResult = { rowsDeleted: number; websitesFinished: number };

export async function purgeDeletedWebsites(
  db: Database,
  { chunk = 5_000, budget = 50_000 }: { chunk?: number; budget?: number } = {},
): Promise<PurgeResult> {
  const result: PurgeResult = { rowsDeleted: 0, websitesFinished: 0 };
  const pending = await db
    .select({ websiteId: websitePurges.websiteId })
    .from(websitePurges)
    .limit(100)
    .all();
  for (const { websiteId } of pending) {
    while (result.rowsDeleted < budget) {
      const limit = Math.min(chunk, budget - result.rowsDeleted);
      // drizzle has no DELETE … LIMIT for SQLite; select the chunk's keys by the primary key's prefix.
      const deleted = await db.run(
        sql`DELETE FROM ${stats} WHERE (website_id, name, date, value) IN (SELECT website_id, name, date, value FROM ${stats} WHERE ${stats.websiteId} = ${websiteId} LIMIT ${limit})`,
      );
      const changes = deleted.meta.changes ?? 0;
      result.rowsDeleted += changes;
      if (changes < limit) {
        await db.delete(websitePurges).where(eq(websitePurges.websiteId, websiteId)).run();
        result.websitesFinished++;
        break;
      }
    }
    if (result.rowsDeleted >= budget) break;
  }
  return result;
}
