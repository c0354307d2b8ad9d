/**
 * Writing one hit: every roll-up row of the hit and the visitor's last-seen time go to D1
 * in one `batch()` — a transaction, so either all of them are written or none is.
 *
 * Whether this page view is a visitor's first of the day, or starts a new visit (DESIGN §2:
 * after 30 minutes without a page view, or arriving from another site than the one that
 * started the current visit), is decided inside the batch from the `visitors` row (statements run in order, before the visitor row
 * is updated by the last one). Two concurrent hits of the same visitor therefore cannot both
 * count as "new": the database serialises them.
 */
import { type SQL, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.ts';
import { stats, visitors } from '../db/schema.ts';

/**
 * The statements are built with drizzle's `sql` (bound parameters) and compiled by its
 * SQLite dialect, then batched on the D1 client itself: drizzle's own `batch()` cannot run
 * raw statements that carry parameters.
 */
const dialect = new SQLiteAsyncDialect();

function prepare(d1: D1Database, query: SQL): D1PreparedStatement {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return d1.prepare(text).bind(...params);
}

/** One roll-up increment: statistic name and value (the date is the hit's local date). */
export type Stat = readonly [name: string, value: string];

/** A new visit starts after this long without a page view (DESIGN §2). */
const VISIT_GAP_MS = 30 * 60 * 1000;

export type HitWrite = {
  websiteId: number;
  date: string;
  now: number;
  /** Counted on every hit. */
  always: Stat[];
  /** Page views only: the visitor and the rows counted on their first page view of the day / of a visit. */
  visitor?: {
    hash: string;
    firstOfDay: Stat[];
    firstOfVisit: Stat[];
    /** Host of the hit's external referrer, '' when it has none (or an internal one). */
    referrer: string;
  };
};

/** `INSERT … SELECT` of several stats rows, counted when `condition` holds. */
function insertStats(
  websiteId: number,
  date: string,
  rows: Stat[],
  condition?: ReturnType<typeof sql>,
) {
  const values = sql.join(
    rows.map(([name, value]) => sql`(${name}, ${value})`),
    sql`, `,
  );
  // The WHERE clause is required before ON CONFLICT in an INSERT … SELECT (SQLite grammar).
  return sql`INSERT INTO ${stats} (website_id, name, date, value, count)
    SELECT ${websiteId}, column1, ${date}, column2, 1 FROM (VALUES ${values})
    WHERE ${condition ?? sql`1`}
    ON CONFLICT (website_id, name, date, value) DO UPDATE SET count = count + 1`;
}

export async function writeHit(db: Database, hit: HitWrite): Promise<void> {
  const statements: SQL[] = [insertStats(hit.websiteId, hit.date, hit.always)];
  const v = hit.visitor;
  if (v) {
    const seenToday = sql`EXISTS (SELECT 1 FROM ${visitors} WHERE hash = ${v.hash})`;
    // The visit goes on: a page view within 30 minutes, not arriving from a site other than
    // the one that started the visit (reloads and SPA navigations repeat that referrer).
    const visitGoesOn = (row: SQL) =>
      sql`${row}last_seen_at > ${hit.now - VISIT_GAP_MS} AND (${v.referrer} = '' OR ${row}visit_referrer = ${v.referrer})`;
    if (v.firstOfDay.length > 0) {
      statements.push(insertStats(hit.websiteId, hit.date, v.firstOfDay, sql`NOT ${seenToday}`));
    }
    if (v.firstOfVisit.length > 0) {
      const goesOn = sql`EXISTS (SELECT 1 FROM ${visitors} WHERE hash = ${v.hash} AND ${visitGoesOn(sql``)})`;
      statements.push(insertStats(hit.websiteId, hit.date, v.firstOfVisit, sql`NOT ${goesOn}`));
    }
    // In an upsert's SET, column names are the row's values before the update.
    statements.push(
      sql`INSERT INTO ${visitors} (hash, last_seen_at, visit_referrer, website_id) VALUES (${v.hash}, ${hit.now}, ${v.referrer}, ${hit.websiteId})
        ON CONFLICT (hash) DO UPDATE SET
          visit_referrer = CASE WHEN ${visitGoesOn(sql``)} THEN visit_referrer ELSE excluded.visit_referrer END,
          last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
    );
  }
  await db.$client.batch(statements.map((statement) => prepare(db.$client, statement)));
}
