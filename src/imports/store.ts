/**
 * Imported history in D1 (docs/ARCHITECTURE.md, "Imported history"): an import's rows are
 * written while it is `pending`, which no reader sees, and become visible all at once when
 * one batch marks it `complete` — so a file that fails part-way leaves no trace a reader can
 * see, and its rows are deleted at once (or by the hourly maintenance: ./sweep.ts).
 * Of overlapping imports, the newest counts for each date and statistic (src/rollups/imported.ts):
 * importing a period again replaces it; an older import a newer one covers whole is deleted.
 */
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Increment } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import { type ImportRow, imports } from '../db/schema.ts';
import { ApiError } from '../lib/errors.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import { completeImports, OWN_DATES_SQL } from '../rollups/imported.ts';
import { CountTooLarge, MAX_COUNT, PAST_MAX_COUNT } from './format.ts';

export const IMPORT_SOURCES = ['plausible', 'goatcounter', 'umami'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/**
 * What each source's imported history does not carry (docs/ARCHITECTURE.md, "Imported
 * history"): those statistics are absent for its dates, not zero.
 */
export const NOT_IMPORTED: Record<ImportSource, string> = {
  plausible: 'hours of the day, screen sizes, languages, continents and cities',
  goatcounter: 'screen sizes, languages, continents, cities and campaigns other than its own',
  umami: 'continents and cities',
};

/** An import as the API shows it. */
export type ImportRecord = {
  id: number;
  source: string;
  from: string;
  to: string;
  rows: number;
  created_at: string;
};

const toImportRecord = (row: ImportRow): ImportRecord => ({
  id: row.id,
  source: row.source,
  from: row.fromDate,
  to: row.toDate,
  rows: row.rows,
  created_at: apiTimestamp(row.createdAt),
});

/** Starts an import: its row, `pending` until `commitImport`. */
export async function beginImport(
  db: Database,
  websiteId: number,
  source: ImportSource,
): Promise<number> {
  const row = await db
    .insert(imports)
    .values({
      websiteId,
      source,
      fromDate: '',
      toDate: '',
      status: 'pending',
      createdAt: Date.now(),
    })
    .returning({ id: imports.id })
    .get();
  return row.id;
}

/** Rows a statement upserts at most (one JSON value carries them: D1 binds 100 values). */
const ROWS_PER_STATEMENT = 2_000;

/**
 * Adds increments (statistic, local date, value, count) to a pending import's rows: one row
 * written per (statistic, date, value), a repeated key adding to its count. Nothing is
 * written once the import is no longer pending (deleted, or its website deleted: a 409), and
 * a count that would add up past `MAX_COUNT` is a `CountTooLarge`. Returns the rows D1 wrote.
 */
export async function writeImported(
  db: Database,
  websiteId: number,
  importId: number,
  increments: Increment[],
): Promise<number> {
  const d1 = db.$client;
  const statements: D1PreparedStatement[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < increments.length; i += ROWS_PER_STATEMENT) {
    const rows = increments.slice(i, i + ROWS_PER_STATEMENT);
    sizes.push(rows.length);
    statements.push(
      d1
        .prepare(
          `INSERT INTO imported_stats (website_id, name, date, value, import_id, count)
          SELECT ?1, value ->> 0, value ->> 1, value ->> 2, ?2, value ->> 3 FROM json_each(?3)
          WHERE EXISTS (SELECT 1 FROM imports WHERE id = ?2 AND status = 'pending')
          ON CONFLICT (website_id, name, date, value, import_id) DO UPDATE SET count = count + excluded.count
          WHERE count + excluded.count <= ?4`,
        )
        .bind(websiteId, importId, JSON.stringify(rows), MAX_COUNT),
    );
  }
  if (statements.length === 0) return 0;
  const results = await d1.batch(statements);
  // Each row is inserted or added to, unless its import is gone or its sum would pass the bound.
  if (results.some((r, i) => (r.meta.changes ?? 0) < (sizes[i] ?? 0))) {
    const pending = await db
      .select({ id: imports.id })
      .from(imports)
      .where(and(eq(imports.id, importId), eq(imports.status, 'pending')))
      .get();
    if (!pending) throw new ApiError(409, 'The import was deleted while it ran.');
    throw new CountTooLarge(
      `the counts of one statistic, date and value add up to ${PAST_MAX_COUNT}`,
    );
  }
  return results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0);
}

/** A complete import's dates and statistics. */
/**
 * Makes a pending import visible, in one batch: its range, records and statistics noted, its
 * rows on dates the website has events of its own removed when the owner let it overlap them
 * (Sightline's own counts win), and each earlier import it covers whole — every date and every
 * statistic — marked for deletion. Returns the rows D1 wrote.
 */
export async function commitImport(
  db: Database,
  websiteId: number,
  importId: number,
  done: { from: string; to: string; rows: number; statistics: string[]; ownWin: boolean },
): Promise<number> {
  const d1 = db.$client;
  const covered = (await completeImports(db, websiteId))
    .filter(
      (i) =>
        i.from >= done.from &&
        i.to <= done.to &&
        i.statistics.every((name) => done.statistics.includes(name)),
    )
    .map((i) => i.id);
  const statements = [
    d1
      .prepare(
        `UPDATE imports SET status = 'complete', from_date = ?2, to_date = ?3, rows = ?4, statistics = ?5
        WHERE id = ?1 AND status = 'pending'`,
      )
      .bind(importId, done.from, done.to, done.rows, done.statistics.join(',')),
    d1
      .prepare(
        `UPDATE imports SET status = 'deleting'
        WHERE website_id = ?1 AND status = 'complete' AND id IN (SELECT value FROM json_each(?2))`,
      )
      .bind(websiteId, JSON.stringify(covered)),
  ];
  if (done.ownWin)
    statements.unshift(
      d1
        .prepare(
          `DELETE FROM imported_stats WHERE website_id = ?1 AND import_id = ?4 AND date IN (${OWN_DATES_SQL})`,
        )
        .bind(websiteId, done.from, done.to, importId),
    );
  const results = await d1.batch(statements);
  const committed = results[results.length - 2]?.meta.changes ?? 0;
  if (committed !== 1) throw new ApiError(409, 'The import was deleted while it ran.');
  return results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0);
}

/** A website's complete imports whose dates meet a range, oldest first. */
export async function importsWithin(
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
): Promise<ImportRecord[]> {
  const rows = await db
    .select()
    .from(imports)
    .where(
      and(
        eq(imports.websiteId, websiteId),
        eq(imports.status, 'complete'),
        sql`${imports.fromDate} <= ${range.to} AND ${imports.toDate} >= ${range.from}`,
      ),
    )
    .orderBy(asc(imports.id))
    .all();
  return rows.map(toImportRecord);
}

/** A website's complete imports, newest first. */
export async function listImports(db: Database, websiteId: number): Promise<ImportRecord[]> {
  const rows = await db
    .select()
    .from(imports)
    .where(and(eq(imports.websiteId, websiteId), eq(imports.status, 'complete')))
    .orderBy(desc(imports.id))
    .all();
  return rows.map(toImportRecord);
}

/**
 * Deletes a complete import of a website, and then its rows: it is hidden from readers at
 * once, its rows removed in bounded chunks (the rest, if this request stops, by the hourly
 * maintenance). False when the website has no such import.
 */
export async function deleteImport(
  db: Database,
  websiteId: number,
  importId: number,
): Promise<boolean> {
  const marked = await db
    .update(imports)
    .set({ status: 'deleting' })
    .where(
      and(
        eq(imports.id, importId),
        eq(imports.websiteId, websiteId),
        eq(imports.status, 'complete'),
      ),
    )
    .run();
  if ((marked.meta.changes ?? 0) === 0) return false;
  await removeDeletedImports(db, websiteId);
  return true;
}

/** Marks an import that failed for deletion and removes its rows. */
export async function abandonImport(
  db: Database,
  websiteId: number,
  importId: number,
): Promise<void> {
  await db.update(imports).set({ status: 'deleting' }).where(eq(imports.id, importId)).run();
  await removeDeletedImports(db, websiteId);
}

/** Rows deleted per statement. */
export const DELETE_CHUNK = 5_000;

/**
 * Removes the rows of a website's imports marked `deleting`, then those imports, `DELETE_CHUNK`
 * rows a statement, at most `budget` rows. Returns the rows deleted.
 */
export async function removeDeletedImports(
  db: Database,
  websiteId: number,
  budget = 1_000_000,
): Promise<number> {
  const d1 = db.$client;
  const doomed = await db
    .select({ id: imports.id })
    .from(imports)
    .where(and(eq(imports.websiteId, websiteId), eq(imports.status, 'deleting')))
    .all();
  let deleted = 0;
  for (const { id } of doomed) {
    let finished = false;
    while (deleted < budget) {
      const result = await d1
        .prepare(
          `DELETE FROM imported_stats WHERE (website_id, name, date, value, import_id) IN (
            SELECT website_id, name, date, value, import_id FROM imported_stats
            WHERE website_id = ?1 AND import_id = ?2 LIMIT ?3)`,
        )
        .bind(websiteId, id, DELETE_CHUNK)
        .run();
      const changes = result.meta.changes ?? 0;
      deleted += changes;
      if (changes < DELETE_CHUNK) {
        finished = true;
        break;
      }
    }
    if (!finished) break;
    await db.delete(imports).where(eq(imports.id, id)).run();
  }
  return deleted;
}
