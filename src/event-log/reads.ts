/**
 * A website's log's reads (docs/ARCHITECTURE.md, "Reads that never stall hits"): the query
 * engine's questions, funnels, journeys, the names of custom properties, the export and what
 * the log keeps, each
 * in turns of the one read lane its hits come between; answered empty before the log's first
 * hit; a failure logged and answered, never thrown across the object's boundary.
 */
import type { FunnelQuery, JourneyAnswer, JourneyQuery } from '../counting/flow-queries.ts';
import type { GroupReads } from '../counting/group-reads.ts';
import type { GroupAnswer, GroupQuery, LogQuery } from '../counting/query.ts';
import { noPartials } from '../counting/query-metrics.ts';
import { keepAnswer, keptAnswer } from './answers.ts';
import type { Dictionary } from './dictionary.ts';
import { exportStream } from './export-reads.ts';
import { FlowReader } from './flow-reads.ts';
import type { LogDb } from './log-db.ts';
import { LogReader } from './log-reads.ts';
import type { LogRead, NotStored, PartRead, PartState } from './log-types.ts';
import { isClosed } from './partitions.ts';
import { type PropertyName, type PropertyNamesQuery, PropertyReader } from './property-reads.ts';
import { ReadLane } from './read-lane.ts';
import { type LogStorage, logStorage } from './storage-reads.ts';

/** Runs a read's work and answers; a failure is the answer `{ok: false}`, logged. */
type Answer = <T>(failure: string, work: () => Promise<T>) => Promise<T | NotStored>;

/** A partition before its first hit. */
const EMPTY: PartState = { closed: false, from: null, to: null };

export class LogReads {
  private readonly lane = new ReadLane();
  private readonly reader: LogReader;
  private readonly flows: FlowReader;
  private readonly properties: PropertyReader;

  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
    private readonly answer: Answer,
    /** Whether the log has had its first hit (its tables exist). */
    private readonly hasTables: () => boolean,
  ) {
    this.reader = new LogReader(db, dict, this.lane);
    this.flows = new FlowReader(db, dict, this.lane, this.reader);
    this.properties = new PropertyReader(db, dict, this.lane, this.reader);
  }

  /** A question of the query engine, read in chunks the hits can come between (./log-reads.ts). */
  query(q: LogQuery): Promise<PartRead<GroupAnswer[]>> {
    const none = q.groups.map(() => ({ rows: [], total: 0 }));
    return this.read(none, () => this.reader.query(q), ['query', q]);
  }

  /**
   * A question's groupings as groups that read, unpaged (./log-reads.ts): what a log that is
   * one part of a website's answers, for the parts' groups to be added together.
   */
  groupReads(q: LogQuery): Promise<PartRead<GroupReads[]>> {
    const none = q.groups.map(() => ({ groups: [], total: noPartials(), byGoal: [] }));
    return this.read(none, () => this.reader.groupReads(q), ['groupReads', q]);
  }

  /** A funnel's visitors per step (./flow-reads.ts). */
  funnel(q: FunnelQuery): Promise<PartRead<number[]>> {
    return this.read(
      q.steps.map(() => 0),
      () => this.flows.funnel(q),
      ['funnel', q],
    );
  }

  /** A page of a journey's paths (./flow-reads.ts). */
  journeys(q: JourneyQuery): Promise<PartRead<JourneyAnswer>> {
    return this.read({ rows: [], total: 0 }, () => this.flows.journeys(q), ['journeys', q]);
  }

  /** The names of the custom properties a range's hits carry (./property-reads.ts). */
  propertyNames(q: PropertyNamesQuery): Promise<PartRead<PropertyName[]>> {
    return this.read([], () => this.properties.names(q), ['propertyNames', q]);
  }

  /** The log's events, bytes and dates (./storage-reads.ts). */
  storage(): Promise<PartRead<LogStorage>> {
    const none = { events: 0, bytes: this.db.bytes, from: null, to: null };
    return this.read(none, async () => ({
      ok: true as const,
      ...(await logStorage(this.db, this.lane)),
    }));
  }

  /** Every event, oldest first, as NDJSON or CSV lines (./export-reads.ts); `header`: a CSV's. */
  exportEvents(format: 'ndjson' | 'csv', header = true): ReadableStream<Uint8Array> {
    return exportStream(this.db, this.dict, this.lane, format, this.hasTables, header);
  }

  /**
   * A read, answered `none` before the log's first hit; a failure is logged and answered.
   * The answer says whether this partition of the log is closed and which dates it holds
   * (./parts.ts); a closed one keeps its answer to the question `asked` (./answers.ts).
   */
  private read<T>(
    none: T,
    work: () => Promise<LogRead<T>>,
    asked?: [string, { from: string; to: string; groups?: GroupQuery[] }],
  ): Promise<PartRead<T>> {
    return this.answer('log not read', async () => {
      if (!this.hasTables())
        return { ok: true as const, value: none, rowsRead: 0, chunks: 0, part: EMPTY };
      const closed = isClosed(this.db);
      const dates = this.db.one<{ from: string | null; to: string | null }>(
        'SELECT min(date) AS "from", max(date) AS "to" FROM days',
      );
      const key = closed && asked ? this.keyOf(asked, dates) : undefined;
      const before = this.db.io.rowsRead;
      const kept = key === undefined ? undefined : keptAnswer<T>(this.db, key);
      const read: LogRead<T> =
        kept === undefined
          ? await work()
          : { ok: true, value: kept, rowsRead: this.db.io.rowsRead - before, chunks: 0 };
      if (!read.ok) return read;
      if (key !== undefined && kept === undefined) keepAnswer(this.db, key, read.value);
      return { ...read, part: { closed, ...dates } };
    });
  }

  /**
   * The key a closed partition keeps its answer to a question under: the question with its
   * range cut to the partition's dates (a range moved by a day asks a partition it still
   * covers whole the same question). A range that starts before the dates the partition holds
   * whole (retention, conversion) is kept as asked: that read says so. So is the start of a
   * grouping by weeks: its first week is labelled with the range's first day.
   */
  private keyOf(
    [method, q]: [string, { from: string; to: string; groups?: GroupQuery[] }],
    dates: { from: string | null; to: string | null },
  ): string {
    const first = this.reader.firstDate();
    if (dates.from === null || dates.to === null || (first !== undefined && q.from < first))
      return JSON.stringify([method, q]);
    const weeks = q.groups?.some((g) => g.dimensions.includes('time:week'));
    const [, later] = [q.from, dates.from].sort();
    const from = weeks ? q.from : later;
    const [to] = [q.to, dates.to].sort();
    return JSON.stringify([method, { ...q, from, to }]);
  }
}
