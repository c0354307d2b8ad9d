/**
 * The records of a large import of single hits, staged in D1 (docs/ARCHITECTURE.md,
 * "Imported history"). When the visitor-days and visits of ./raw.ts outgrow memory, they are
 * kept as rows of the pending import itself: `imported_stats` rows of a statistic no reader
 * asks for (`STAGED`), a row per local date and up to `STAGED_CHARS` of JSON records, its
 * count the records it holds — so deleting, abandoning or sweeping the import removes them
 * with the rest. Once the file has ended, SQL combines each visitor-day's and visit's
 * partial records (its first page view: the earliest, then the first in the file; its last:
 * the latest, then the last in the file; its page views summed), counts them into the
 * import's rows as `RawCounter` counts in memory, a run of dates at a time, and deletes the
 * staged rows.
 */
import type { Database } from '../db/client.ts';
import { VISIT_VALUES, VISITOR_VALUES, type Visit, type VisitorDay } from './raw.ts';

/** The statistics staged records are kept under (never a statistic of Sightline's). */
const STAGED = { visitors: '~visitor-days', visits: '~visits' } as const;

/** The most JSON one staged row holds (D1 keeps rows up to 2 MB). */
const STAGED_CHARS = 256 * 1024;

/** Staged records counted by one statement, at most (a date's are never split). */
const COUNT_EVERY = 50_000;

/** Staged rows written in one batch, at most. */
const ROWS_PER_BATCH = 50;

const UPSERT = `INSERT INTO imported_stats (website_id, name, date, value, import_id, count)
  SELECT ?1, name, date, value, ?2, sum(n) FROM cells WHERE value != ''
  GROUP BY name, date, value HAVING sum(n) > 0
  ON CONFLICT (website_id, name, date, value, import_id) DO UPDATE SET count = count + excluded.count`;

const stagedOf = (name: string) => `staged AS (
  SELECT s.date AS date, j.value AS r FROM imported_stats s, json_each(s.value) j
  WHERE s.website_id = ?1 AND s.name = '${name}' AND s.date BETWEEN ?3 AND ?4 AND s.import_id = ?2)`;

/** A visitor-day is its first page view's record: `visitors`, and `VISITOR_VALUES` (?5) from its hour. */
const COUNT_VISITORS = `WITH ${stagedOf(STAGED.visitors)},
firsts AS MATERIALIZED (
  SELECT date, r FROM (
    SELECT date, r, row_number() OVER (PARTITION BY date, r ->> 0 ORDER BY r ->> 1, r ->> 2) AS k
    FROM staged)
  WHERE k = 1),
cells AS (
  SELECT 'visitors' AS name, date, date AS value, 1 AS n FROM firsts
  UNION ALL SELECT v.value, f.date, f.r ->> (v.key + 3), 1 FROM firsts f, json_each(?5) v)
${UPSERT}`;

/**
 * A visit: `visits`; `VISIT_VALUES` (?5, but the last) of its first page view's record, from
 * its hour; `exit_page` of its last's; a bounce if it had one page view; its duration.
 */
const COUNT_VISITS = `WITH ${stagedOf(STAGED.visits)},
visits AS MATERIALIZED (
  SELECT date, first, last, views FROM (
    SELECT date,
      first_value(r) OVER (PARTITION BY date, r ->> 0 ORDER BY r ->> 1, r ->> 2) AS first,
      first_value(r) OVER (PARTITION BY date, r ->> 0 ORDER BY r ->> 3 DESC, r ->> 4 DESC) AS last,
      sum(r ->> 5) OVER (PARTITION BY date, r ->> 0) AS views,
      row_number() OVER (PARTITION BY date, r ->> 0) AS k
    FROM staged)
  WHERE k = 1),
cells AS (
  SELECT 'visits' AS name, date, date AS value, 1 AS n FROM visits
  UNION ALL SELECT v.value, s.date, s.first ->> (v.key + 6), 1 FROM visits s, json_each(?5) v
  UNION ALL SELECT 'exit_page', date, last ->> 10, 1 FROM visits
  UNION ALL SELECT 'bounces', date, date, 1 FROM visits WHERE views = 1
  UNION ALL SELECT 'visit_duration', date, date, ((last ->> 3) - (first ->> 1)) / 1000 FROM visits)
${UPSERT}`;

type Kind = keyof typeof STAGED;

/** The staged records of one pending import; `rowsWritten` and `values` as `runImport` reports them. */
export class ImportStaging {
  rowsWritten = 0;
  /** The rows the count wrote (each a value of the records counted in D1). */
  values = 0;

  constructor(
    private readonly db: Database,
    private readonly websiteId: number,
    private readonly importId: number,
  ) {}

  /** Keeps records, per local date. */
  async stage(visitors: Map<string, VisitorDay[]>, visits: Map<string, Visit[]>): Promise<void> {
    const d1 = this.db.$client;
    const statements: D1PreparedStatement[] = [];
    for (const [kind, byDate] of [
      ['visitors', visitors],
      ['visits', visits],
    ] as const)
      for (const [date, records] of byDate)
        for (const { text, count } of packed(records))
          statements.push(
            d1
              .prepare(
                'INSERT INTO imported_stats (website_id, name, date, value, import_id, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
              )
              .bind(this.websiteId, STAGED[kind], date, text, this.importId, count),
          );
    for (let i = 0; i < statements.length; i += ROWS_PER_BATCH)
      await this.run(statements.slice(i, i + ROWS_PER_BATCH));
  }

  /** Counts every staged record into the import's rows, then deletes the staged rows. */
  async count(): Promise<void> {
    await this.countAll('visitors', COUNT_VISITORS, VISITOR_VALUES);
    await this.countAll('visits', COUNT_VISITS, VISIT_VALUES.slice(0, -1));
    await this.run([
      this.db.$client
        .prepare(
          'DELETE FROM imported_stats WHERE website_id = ?1 AND name IN (?2, ?3) AND import_id = ?4',
        )
        .bind(this.websiteId, STAGED.visitors, STAGED.visits, this.importId),
    ]);
  }

  /** Counts a kind's staged records, a run of dates of at most `COUNT_EVERY` records at a time. */
  private async countAll(kind: Kind, sql: string, names: string[]) {
    const d1 = this.db.$client;
    const countRun = async (from: string, to: string) => {
      const [result] = await this.run([
        d1.prepare(sql).bind(this.websiteId, this.importId, from, to, JSON.stringify(names)),
      ]);
      this.values += result?.meta.changes ?? 0;
    };
    let after = '';
    for (;;) {
      const { results } = await d1
        .prepare(
          `SELECT date, sum(count) AS n FROM imported_stats
          WHERE website_id = ?1 AND name = ?2 AND date > ?3 AND import_id = ?4
          GROUP BY date ORDER BY date LIMIT 1000`,
        )
        .bind(this.websiteId, STAGED[kind], after, this.importId)
        .all<{ date: string; n: number }>();
      if (results.length === 0) return;
      let from = '';
      let records = 0;
      for (const { date, n } of results) {
        if (records > 0 && records + n > COUNT_EVERY) {
          await countRun(from, after);
          records = 0;
        }
        if (records === 0) from = date;
        records += n;
        after = date;
      }
      await countRun(from, after);
    }
  }

  private async run(statements: D1PreparedStatement[]) {
    const results = await this.db.$client.batch(statements);
    for (const r of results) this.rowsWritten += r.meta.rows_written ?? 0;
    return results;
  }
}

/** Records as JSON arrays of at most `STAGED_CHARS` (a longer record alone). */
function* packed(records: unknown[]): Generator<{ text: string; count: number }> {
  let parts: string[] = [];
  let chars = 0;
  for (const record of records) {
    const json = JSON.stringify(record);
    if (parts.length > 0 && chars + json.length > STAGED_CHARS) {
      yield { text: `[${parts.join(',')}]`, count: parts.length };
      parts = [];
      chars = 0;
    }
    parts.push(json);
    chars += json.length + 1;
  }
  if (parts.length > 0) yield { text: `[${parts.join(',')}]`, count: parts.length };
}
