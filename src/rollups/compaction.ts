/**
 * Month and year roll-ups (docs/ARCHITECTURE.md, "Long ranges"): once a calendar month is
 * over in a website's time zone, its daily rows are summed into `stats_months` and added to
 * the year's row in `stats_years`, and `compacted_months.through` moves to it, all in one D1
 * batch (a transaction) whose first statement is a guard: it fails, rolling the batch back,
 * unless `through` is still what this run read, so two runs never add a month twice.
 *
 * A hit that arrives for a month already compacted (a late flush, a time zone changed) is
 * added to the month's and year's rows by the flush, in the transaction that adds it to its
 * day (./increments.ts). D1 runs one transaction at a time, so a flush is either
 * before a compaction (its day is summed) or after it (it sees `through` and adds to the
 * month): never both, never neither. Reads (./sums.ts) then take whole years and months
 * from here and only the days at a range's ends from `stats`.
 */
import { eq, sql } from 'drizzle-orm';
import { STAT_NAMES } from '../counting/statistics.ts';
import type { Database } from '../db/client.ts';
import { compactedMonths } from '../db/schema.ts';
import { addMonths, lastDateOf, localDateHour, utcDate } from '../lib/time/dates.ts';
import { firstRollupDate } from './sums.ts';

/** The last compacted month of a website (`YYYY-MM`), or null before its first compaction. */
export async function compactedThrough(db: Database, websiteId: number): Promise<string | null> {
  const row = await db
    .select({ through: compactedMonths.through })
    .from(compactedMonths)
    .where(eq(compactedMonths.websiteId, websiteId))
    .get();
  return row?.through ?? null;
}

/** Statements one website's compaction sends at most: its first month, then a batch of 3. */
const QUERIES_PER_WEBSITE = 4;

/** Months one batch compacts at most (a website's first compaction may have years of days). */
const MONTHS_PER_BATCH = 12;

/**
 * The furthest a time zone is behind UTC: 12 hours after a month ends in UTC, it is over in
 * every website's time zone.
 */
const BEHIND_MS = 12 * 3_600_000;

export type CompactionResult = {
  websites: number;
  months: number;
  rowsWritten: number;
  rowsRead: number;
};

/**
 * Compacts the complete months of up to `websites` websites that have any left; a website
 * whose months are far behind moves `MONTHS_PER_BATCH` at a time (the next run goes on).
 */
export async function compactMonths(
  db: Database,
  now: number,
  {
    websites = 20,
    queries,
  }: {
    websites?: number;
    /** The statements `db` may still send (a website takes up to `QUERIES_PER_WEBSITE`). */
    queries?: { readonly left: number };
  } = {},
): Promise<CompactionResult> {
  const result: CompactionResult = { websites: 0, months: 0, rowsWritten: 0, rowsRead: 0 };
  if (queries && queries.left < 1 + QUERIES_PER_WEBSITE) return result;
  // Websites behind the last month that is over everywhere (so none is chosen only to be
  // skipped); each is compacted up to its own last month that is over, which may be later.
  const latest = addMonths(utcDate(now - BEHIND_MS).slice(0, 7), -1);
  const behind = await db.all<{ id: number; timezone: string; through: string | null }>(
    sql`SELECT w.id, w.timezone, c.through FROM websites w
      LEFT JOIN compacted_months c ON c.website_id = w.id
      WHERE c.through IS NULL OR c.through < ${latest}
      ORDER BY w.id LIMIT ${websites}`,
  );
  for (const site of behind) {
    if (queries && queries.left < QUERIES_PER_WEBSITE) break;
    const over = addMonths(localDateHour(now, site.timezone).date.slice(0, 7), -1);
    if (site.through !== null && site.through >= over) continue;
    const start =
      site.through === null
        ? ((await firstRollupDate(db, site.id))?.slice(0, 7) ?? null)
        : addMonths(site.through, 1);
    const through =
      start === null || start > over
        ? over
        : minMonth(addMonths(start, MONTHS_PER_BATCH - 1), over);
    const cost = await compact(db, site.id, site.through, start ?? through, through);
    result.websites++;
    result.months += start === null || start > through ? 0 : monthsBetween(start, through);
    result.rowsWritten += cost.rowsWritten;
    result.rowsRead += cost.rowsRead;
  }
  return result;
}

const minMonth = (a: string, b: string) => (a < b ? a : b);

const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
  Number(to.slice(5, 7)) -
  Number(from.slice(5, 7)) +
  1;

/** Compacts the months `from`–`to` of one website whose `through` was `previous`. */
async function compact(
  db: Database,
  websiteId: number,
  previous: string | null,
  from: string,
  to: string,
): Promise<{ rowsWritten: number; rowsRead: number }> {
  const d1 = db.$client;
  const names = STAT_NAMES.map((_, i) => `?${i + 4}`).join(', ');
  const exists = 'EXISTS (SELECT 1 FROM websites WHERE id = ?1)';
  const results = await d1.batch([
    // The guard: `through` moves from what was read, or the statement fails (NOT NULL).
    d1
      .prepare(
        `INSERT INTO compacted_months (website_id, through) SELECT ?1, ?3 WHERE ${exists}
        ON CONFLICT (website_id) DO UPDATE SET
          through = CASE WHEN through IS ?2 THEN excluded.through ELSE NULL END`,
      )
      .bind(websiteId, previous, to),
    d1
      .prepare(
        `INSERT INTO stats_months (website_id, name, month, value, count, visitors)
        SELECT website_id, name, substr(date, 1, 7), value, sum(count), sum(visitors) FROM stats
        WHERE website_id = ?1 AND name IN (${names}) AND date BETWEEN ?2 AND ?3 AND ${exists}
        GROUP BY name, substr(date, 1, 7), value`,
      )
      .bind(websiteId, `${from}-01`, lastDateOf(to), ...STAT_NAMES),
    d1
      .prepare(
        `INSERT INTO stats_years (website_id, name, year, value, count, visitors)
        SELECT website_id, name, substr(month, 1, 4), value, sum(count), sum(visitors) FROM stats_months
        WHERE website_id = ?1 AND name IN (${names}) AND month BETWEEN ?2 AND ?3 AND ${exists}
        GROUP BY name, substr(month, 1, 4), value
        ON CONFLICT (website_id, name, year, value) DO UPDATE SET
          count = count + excluded.count, visitors = visitors + excluded.visitors`,
      )
      .bind(websiteId, from, to, ...STAT_NAMES),
  ]);
  return {
    rowsWritten: results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0),
    rowsRead: results.reduce((n, r) => n + (r.meta.rows_read ?? 0), 0),
  };
}
