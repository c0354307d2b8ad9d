/**
 * Writing one hit: every roll-up row of the hit and the visitor's last-seen time go to D1
 * in one `batch()` — a transaction, so either all of them are written or none is.
 *
 * Whether this page view is a visitor's first of the day, or starts a new visit (docs/ARCHITECTURE.md, The counting model:
 * after 30 minutes without a page view, or arriving from another site than the one that
 * started the current visit), is decided inside the batch from the `visitors` row
 * (statements run in order, before the visitor row is updated by the last one). Two concurrent hits of the same visitor therefore cannot both
 * count as "new": the database serialises them.
 */
import type { Database } from '../db/client.ts';
import {
  firstOfDayStats,
  firstOfVisitStats,
  type LogHit,
  pageviewStats,
  type Stat,
  visitorHash,
} from '../event-log/events.ts';
import { saltFor } from './visitor.ts';

/**
 * The statements are plain SQL text with bound parameters, built here rather than through
 * drizzle's query builder: this runs on every hit, and building and compiling drizzle `sql`
 * templates cost several times the CPU of the whole rest of the hit. Table and column names
 * are those of src/db/schema.ts (the tests write and read through both).
 */
type Statement = { text: string; params: (string | number)[] };

/** A new visit starts after this long without a page view (docs/ARCHITECTURE.md, The counting model). */
const VISIT_GAP_MS = 30 * 60 * 1000;

/** `INSERT … SELECT` of several stats rows, counted when `condition` holds. */
function insertStats(
  websiteId: number,
  date: string,
  rows: Stat[],
  condition: Statement = { text: '1', params: [] },
): Statement {
  const values = rows.map(() => '(?, ?)').join(', ');
  // The WHERE clause is required before ON CONFLICT in an INSERT … SELECT (SQLite grammar).
  return {
    text: `INSERT INTO stats (website_id, name, date, value, count)
    SELECT ?, column1, ?, column2, 1 FROM (VALUES ${values})
    WHERE ${condition.text}
    ON CONFLICT (website_id, name, date, value) DO UPDATE SET count = count + 1`,
    params: [websiteId, date, ...rows.flat(), ...condition.params],
  };
}

/**
 * Writes hits in one `batch()`: a transaction, so all of them count or none does. Several
 * hits come from one tracker call that names several websites (Plausible's `d` list); a
 * retry after a failure then cannot count the first ones twice.
 */
export async function writeHits(db: Database, hits: LogHit[]): Promise<void> {
  const statements: Statement[] = [];
  for (const hit of hits) statements.push(...(await hitStatements(db, hit)));
  const d1 = db.$client;
  await d1.batch(statements.map(({ text, params }) => d1.prepare(text).bind(...params)));
}

/** The statements of one hit: its roll-ups, and its visitor's row for page views. */
async function hitStatements(db: Database, hit: LogHit): Promise<Statement[]> {
  if (hit.kind === 'event')
    return hit.event ? [insertStats(hit.websiteId, hit.date, [['event', hit.event]])] : [];
  const salt = await saltFor(db, hit.date, hit.time);
  const hash = await visitorHash(salt, hit.websiteId, hit.ip, hit.userAgent);
  const statements: Statement[] = [insertStats(hit.websiteId, hit.date, pageviewStats(hit))];
  // The visit goes on: a page view within 30 minutes, not arriving from a site other than
  // the one that started the visit (reloads and SPA navigations repeat that referrer).
  const visitGoesOn = `last_seen_at > ? AND (? = '' OR visit_referrer = ?)`;
  const goesOnParams = [hit.time - VISIT_GAP_MS, hit.referrer, hit.referrer];
  statements.push(
    insertStats(hit.websiteId, hit.date, firstOfDayStats(hit), {
      text: 'NOT EXISTS (SELECT 1 FROM visitors WHERE hash = ?)',
      params: [hash],
    }),
    insertStats(hit.websiteId, hit.date, firstOfVisitStats(hit), {
      text: `NOT EXISTS (SELECT 1 FROM visitors WHERE hash = ? AND ${visitGoesOn})`,
      params: [hash, ...goesOnParams],
    }),
    // In an upsert's SET, column names are the row's values before the update.
    {
      text: `INSERT INTO visitors (hash, last_seen_at, visit_referrer, website_id) VALUES (?, ?, ?, ?)
        ON CONFLICT (hash) DO UPDATE SET
          visit_referrer = CASE WHEN ${visitGoesOn} THEN visit_referrer ELSE excluded.visit_referrer END,
          last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
      params: [hash, hit.time, hit.referrer, hit.websiteId, ...goesOnParams],
    },
  );
  return statements;
}
