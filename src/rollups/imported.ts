/**
 * Which import counts for which dates (docs/ARCHITECTURE.md, "Imported history"): of
 * overlapping imports, the newest counts for each date and statistic. Worked out here from
 * the imports' ranges, newest first, against the dates newer imports already cover: a sorted
 * list of disjoint ranges, so a thousand imports cost a thousand binary searches per
 * statistic, not a thousand ranges each.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { imports } from '../db/schema.ts';
import { addDays, isCalendarDate, MAX_DATE, MIN_DATE } from '../lib/time/dates.ts';

/** A run of dates for which one import's rows of some statistics count. */
export type ImportedSegment = { importId: number; from: string; to: string; names: string[] };

type Range = { from: string; to: string };

/**
 * The dates each complete import of a website counts for, per statistic: its own range, less
 * the dates of every newer import of the same statistic, oldest import first. An import whose
 * range is not of dates Sightline takes (none is written so since they are checked) counts
 * for nothing, so that it can never fail a read.
 */
export async function importedSegments(
  db: Database,
  websiteId: number,
): Promise<ImportedSegment[]> {
  const all = (await completeImports(db, websiteId)).filter(
    (i) => isCalendarDate(i.from) && isCalendarDate(i.to) && i.from <= i.to,
  );
  const byImport = new Map<number, Map<string, ImportedSegment>>();
  for (const name of new Set(all.flatMap((i) => i.statistics)))
    newestFirst(all, name, (row, piece) => {
      const ranges = byImport.get(row.id) ?? new Map<string, ImportedSegment>();
      byImport.set(row.id, ranges);
      const key = `${piece.from}/${piece.to}`;
      const segment = ranges.get(key) ?? { importId: row.id, ...piece, names: [] };
      segment.names.push(name);
      ranges.set(key, segment);
    });
  return [...byImport.keys()]
    .sort((a, b) => a - b)
    .flatMap((id) =>
      [...(byImport.get(id)?.values() ?? [])].sort((a, b) => (a.from < b.from ? -1 : 1)),
    );
}

/** Hands each piece of dates an import of `name` counts for to `counts`, newest import first. */
function newestFirst(
  all: Covering[],
  name: string,
  counts: (row: Covering, piece: Range) => void,
): void {
  const covered: Range[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const row = all[i] as Covering;
    if (!row.statistics.includes(name)) continue;
    // The ranges that meet or touch this one: from `first`, while they start by its end.
    const first = firstEndingFrom(covered, addDays(row.from, -1));
    let at = row.from;
    let last = first;
    const after = addDays(row.to, 1);
    for (; last < covered.length && (covered[last] as Range).from <= after; last++) {
      const c = covered[last] as Range;
      if (c.from > at) counts(row, { from: at, to: addDays(c.from, -1) });
      if (c.to >= at) at = addDays(c.to, 1);
    }
    if (at <= row.to) counts(row, { from: at, to: row.to });
    // This import's dates are covered now: one range for it and those it meets or touches.
    const merged = { from: row.from, to: row.to };
    if (last > first) {
      const a = covered[first] as Range;
      const b = covered[last - 1] as Range;
      if (a.from < merged.from) merged.from = a.from;
      if (b.to > merged.to) merged.to = b.to;
    }
    covered.splice(first, last - first, merged);
  }
}

/** An import as readers count it: its range and the statistics it carries. */
export type Covering = { id: number; from: string; to: string; statistics: string[] };

const statisticsOf = (text: string) => (text === '' ? [] : text.split(','));

/** A website's complete imports, oldest first. */
export async function completeImports(db: Database, websiteId: number): Promise<Covering[]> {
  const rows = await db
    .select({
      id: imports.id,
      from: imports.fromDate,
      to: imports.toDate,
      statistics: imports.statistics,
    })
    .from(imports)
    .where(and(eq(imports.websiteId, websiteId), eq(imports.status, 'complete')))
    .orderBy(asc(imports.id))
    .all();
  return rows.map((r) => ({ ...r, statistics: statisticsOf(r.statistics) }));
}

/** The index of the first of sorted disjoint ranges that ends on or after `date`. */
function firstEndingFrom(ranges: Range[], date: string): number {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ranges[mid] as Range).to < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The oldest date of a website's imported history (of dates Sightline takes), or null. */
export async function firstImportedDate(db: Database, websiteId: number): Promise<string | null> {
  const row = await db
    .select({ first: sql<string | null>`min(${imports.fromDate})` })
    .from(imports)
    .where(
      and(
        eq(imports.websiteId, websiteId),
        eq(imports.status, 'complete'),
        // SQLite's date() of a date that does not exist is NULL, or another date.
        sql`date(${imports.fromDate}) IS ${imports.fromDate} AND ${imports.fromDate} BETWEEN ${MIN_DATE} AND ${MAX_DATE}`,
      ),
    )
    .get();
  return row?.first ?? null;
}

/**
 * Dates a website has events of its own (page views or custom events rolled up), with its
 * id, first and last date as ?1, ?2 and ?3: an import's rows on them give way (src/imports/store.ts).
 */
export const OWN_DATES_SQL = `SELECT DISTINCT date FROM stats WHERE website_id = ?1 AND name IN ('pageviews', 'event') AND date BETWEEN ?2 AND ?3`;

/** The first and last of a website's own dates within a range, if it has any. */
export async function ownDatesWithin(
  db: Database,
  websiteId: number,
  range: { from: string; to: string },
): Promise<{ first: string; last: string; count: number } | null> {
  const row = await db.$client
    .prepare(
      `SELECT min(date) AS first, max(date) AS last, count(*) AS count FROM (${OWN_DATES_SQL})`,
    )
    .bind(websiteId, range.from, range.to)
    .first<{ first: string | null; last: string | null; count: number }>();
  return row?.first && row.last ? { first: row.first, last: row.last, count: row.count } : null;
}
