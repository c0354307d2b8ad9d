/**
 * The records of a large import of single hits, staged in D1 (docs/ARCHITECTURE.md,
 * "Imported history"). When the visitor-days and visits of ./raw.ts outgrow memory, they are
 * kept as rows of the pending import itself: `imported_stats` rows of a statistic no reader
 * asks for (`STAGED`), a row per local date and up to `STAGED_CHARS` of JSON records, its
 * count the records it holds — so deleting, abandoning or sweeping the import removes them
 * with the rest. Once the file has ended they are read back a local date at a time, each
 * visitor-day's and visit's partial records combined — its first page view the earliest
 * (then the first in the file), its last the latest (then the last in the file), its page
 * views summed — and counted as `RawCounter` counts in memory; then the staged rows are
 * deleted. A date whose records outweigh memory is read in as many passes, each taking the
 * keys of one hash.
 */
import type { Database } from '../db/client.ts';
import type { Tally } from './format.ts';
import { countVisit, countVisitor, RECORD_BYTES, type Visit, type VisitorDay } from './raw.ts';

/** The statistics staged records are kept under (never a statistic of Sightline's). */
const STAGED = { visitors: '~visitor-days', visits: '~visits' } as const;
type Kind = keyof typeof STAGED;

/** The most JSON one staged row holds (D1 keeps rows up to 2 MB). */
const STAGED_CHARS = 256 * 1024;

/** Staged rows written in one batch, and read by one query, at most. */
const ROWS_AT_ONCE = 16;

/** The staged records of one pending import. */
export class ImportStaging {
  /** The rows D1 wrote staging and deleting them. */
  rowsWritten = 0;

  constructor(
    private readonly db: Database,
    private readonly websiteId: number,
    private readonly importId: number,
  ) {}

  /** Keeps records, per local date. */
  async stage(visitors: Map<string, VisitorDay[]>, visits: Map<string, Visit[]>): Promise<void> {
    const d1 = this.db.$client;
    const statements: D1PreparedStatement[] = [];
    const add = (kind: Kind, byDate: Map<string, unknown[]>) => {
      for (const [date, records] of byDate)
        for (const { text, count } of packed(records))
          statements.push(
            d1
              .prepare(
                'INSERT INTO imported_stats (website_id, name, date, value, import_id, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
              )
              .bind(this.websiteId, STAGED[kind], date, text, this.importId, count),
          );
    };
    add('visitors', visitors);
    add('visits', visits);
    for (let i = 0; i < statements.length; i += ROWS_AT_ONCE)
      await this.run(statements.slice(i, i + ROWS_AT_ONCE));
  }

  /**
   * Counts every staged record into the tally, a kind and a date at a time, the records of
   * one pass weighing about `limit` at most; `flush` writes the tally's rows when it holds
   * many. Then deletes the staged rows.
   */
  async count(tally: Tally, limit: number, flush: () => Promise<void>): Promise<void> {
    const each = { tally, limit, flush };
    await this.countKind('visitors', each, combineVisitor, countVisitor);
    await this.countKind('visits', each, combineVisit, countVisit);
    await this.run([
      this.db.$client
        .prepare(
          'DELETE FROM imported_stats WHERE website_id = ?1 AND name IN (?2, ?3) AND import_id = ?4',
        )
        .bind(this.websiteId, STAGED.visitors, STAGED.visits, this.importId),
    ]);
  }

  private async countKind<R extends VisitorDay | Visit>(
    kind: Kind,
    { tally, limit, flush }: { tally: Tally; limit: number; flush: () => Promise<void> },
    combine: (keys: Map<string, R>, record: R) => void,
    countOne: (tally: Tally, date: string, record: R) => void,
  ) {
    for await (const { date, records, chars } of this.dates(kind)) {
      // No more passes than records: each takes the keys of one hash.
      const passes = Math.min(records, Math.ceil((records * RECORD_BYTES + 2 * chars) / limit));
      for (let pass = 0; pass < passes; pass++) {
        const keys = new Map<string, R>();
        for await (const staged of this.read<R>(kind, date))
          for (const record of staged)
            if (passes === 1 || hash(record[0]) % passes === pass) combine(keys, record);
        for (const record of keys.values()) countOne(tally, date, record);
        await flush();
      }
    }
  }

  /** The dates with staged records of a kind, oldest first: how many, in how much JSON. */
  private async *dates(kind: Kind) {
    let after = '';
    for (;;) {
      const { results } = await this.db.$client
        .prepare(
          `SELECT date, sum(count) AS records, sum(length(value)) AS chars FROM imported_stats
          WHERE website_id = ?1 AND name = ?2 AND date > ?3 AND import_id = ?4
          GROUP BY date ORDER BY date LIMIT 500`,
        )
        .bind(this.websiteId, STAGED[kind], after, this.importId)
        .all<{ date: string; records: number; chars: number }>();
      yield* results;
      const last = results.at(-1);
      if (!last) return;
      after = last.date;
    }
  }

  /** A date's staged records of a kind, a staged row at a time. */
  private async *read<R>(kind: Kind, date: string) {
    let after = '';
    for (;;) {
      const { results } = await this.db.$client
        .prepare(
          `SELECT value FROM imported_stats
          WHERE website_id = ?1 AND name = ?2 AND date = ?3 AND value > ?4 AND import_id = ?5
          ORDER BY value LIMIT ${ROWS_AT_ONCE}`,
        )
        .bind(this.websiteId, STAGED[kind], date, after, this.importId)
        .all<{ value: string }>();
      for (const { value } of results) yield JSON.parse(value) as R[];
      const last = results.at(-1);
      if (!last) return;
      after = last.value;
    }
  }

  private async run(statements: D1PreparedStatement[]) {
    const results = await this.db.$client.batch(statements);
    for (const r of results) this.rowsWritten += r.meta.rows_written ?? 0;
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

/** (at, seq) before (at, seq): the earlier, then the first in the file. */
const before = (at: number, seq: number, thanAt: number, thanSeq: number) =>
  at < thanAt || (at === thanAt && seq < thanSeq);

/** A visitor-day is its first page view's record. */
function combineVisitor(keys: Map<string, VisitorDay>, record: VisitorDay) {
  const known = keys.get(record[0]);
  if (!known || before(record[1], record[2], known[1], known[2])) keys.set(record[0], record);
}

/** A visit: its first page view's values, its last's, its page views summed. */
function combineVisit(keys: Map<string, Visit>, record: Visit) {
  const known = keys.get(record[0]);
  if (!known) {
    keys.set(record[0], record);
    return;
  }
  known[5] += record[5];
  if (before(record[1], record[2], known[1], known[2])) {
    [known[1], known[2], known[6], known[7]] = [record[1], record[2], record[6], record[7]];
    [known[8], known[9]] = [record[8], record[9]];
  }
  if (before(known[3], known[4], record[3], record[4])) {
    [known[3], known[4], known[10]] = [record[3], record[4], record[10]];
  }
}

/** FNV-1a of a key: which pass of a date's takes it. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
