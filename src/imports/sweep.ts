/**
 * The hourly maintenance's part of imported history (docs/ARCHITECTURE.md, "Imported
 * history"): the rows of imports deleted, replaced or abandoned, and rows no import holds any
 * more — of a website deleted while its import ran, whose import went with it — are removed,
 * in bounded chunks.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { imports } from '../db/schema.ts';
import { DELETE_CHUNK, removeDeletedImports } from './store.ts';

/** How long a pending import may run before the maintenance takes it for failed. */
const PENDING_FOR_MS = 60 * 60 * 1000;

/**
 * Imports that were deleted, replaced or abandoned (pending for over an hour: the request
 * that ran it stopped) lose their rows, and then rows of no import (`sweepOrphans`), at most
 * `budget` rows. Two statements when there is nothing to do (the hourly run's usual case).
 */
export async function sweepImports(db: Database, budget = 50_000): Promise<number> {
  const stale = sql`${imports.status} = 'pending' AND ${imports.createdAt} < ${Date.now() - PENDING_FOR_MS}`;
  const websites = await db
    .selectDistinct({ websiteId: imports.websiteId })
    .from(imports)
    .where(sql`${imports.status} = 'deleting' OR (${stale})`)
    .limit(100)
    .all();
  let deleted = 0;
  if (websites.length > 0) {
    await db.update(imports).set({ status: 'deleting' }).where(stale).run();
    for (const { websiteId } of websites) {
      if (deleted >= budget) break;
      deleted += await removeDeletedImports(db, websiteId, budget - deleted);
    }
  }
  return deleted < budget ? deleted + (await sweepOrphans(db, budget - deleted)) : deleted;
}

/**
 * Rows of websites that have no import at all any more — deleted with their website while the
 * import still wrote (the hourly purge of deleted websites had run), or left by a failure —
 * found by one statement that steps through the websites of `imported_stats` by its primary
 * key (a row read per website, not per row), at most `budget` rows removed. A chunk deletes
 * only rows of no import of the website, so an import that starts meanwhile keeps its own.
 */
async function sweepOrphans(db: Database, budget: number): Promise<number> {
  const d1 = db.$client;
  const { results } = await d1
    .prepare(
      `WITH RECURSIVE w(id) AS (
        SELECT (SELECT min(website_id) FROM imported_stats)
        UNION ALL
        SELECT (SELECT min(website_id) FROM imported_stats WHERE website_id > w.id) FROM w
        WHERE w.id IS NOT NULL
      )
      SELECT id FROM w WHERE id IS NOT NULL AND id NOT IN (SELECT website_id FROM imports)
      LIMIT 100`,
    )
    .all<{ id: number }>();
  let deleted = 0;
  for (const { id } of results)
    while (deleted < budget) {
      const result = await d1
        .prepare(
          `DELETE FROM imported_stats WHERE (website_id, name, date, value, import_id) IN (
            SELECT website_id, name, date, value, import_id FROM imported_stats
            WHERE website_id = ?1 AND import_id NOT IN (SELECT id FROM imports WHERE website_id = ?1)
            LIMIT ?2)`,
        )
        .bind(id, Math.min(DELETE_CHUNK, budget - deleted))
        .run();
      const changes = result.meta.changes ?? 0;
      deleted += changes;
      if (changes < DELETE_CHUNK) break;
    }
  return deleted;
}
