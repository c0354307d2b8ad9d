/**
 * The website log's read methods (docs/ARCHITECTURE.md, "Reads that never stall hits"): the
 * query engine's questions, funnels, journeys, the names of custom properties, the export and
 * what the log keeps, each in turns of the one read lane its hits come between; answered empty
 * before the log's first hit; a failure logged and answered, never thrown across the object's
 * boundary.
 */
import {
  type FunnelQuery,
  type JourneyAnswer,
  type JourneyQuery,
  mergeFunnels,
  mergeJourneys,
} from '../../../counting/flow-queries.ts';
import {
  addedTo,
  answerOf,
  type GroupReads,
  type IndexedGroupReads,
  indexed,
  mergeGroupReads,
} from '../../../counting/group-reads.ts';
import type { GroupAnswer, GroupQuery, LogQuery } from '../../../counting/query.ts';
import { noPartials } from '../../../counting/query-metrics.ts';
import { addDays } from '../../../lib/time/dates.ts';
import type { LogRead, NotStored, PartRead, PartState } from '../../answers.ts';
import { isClosed } from '../partition.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { LogDb } from '../tables/log-db.ts';
import { answersEpoch, ClosedValues, keepAnswer, keptAnswer } from './answer-cache.ts';
import { type ExportRange, exportStream } from './event-lines.ts';
import { FlowReader } from './flows.ts';
import { ReadLane } from './lane.ts';
import { type PropertyName, type PropertyNamesQuery, PropertyReader } from './property-names.ts';
import { LogReader } from './question-chunks.ts';
import { type LogStorage, logStorage } from './storage-used.ts';

/** Runs a read's work and answers; a failure is the answer `{ok: false}`, logged. */
type Answer = <T>(failure: string, work: () => Promise<T>) => Promise<T | NotStored>;

/** A question's range (and groupings, for what their labels read of it). */
type Range = { from: string; to: string; groups?: GroupQuery[] };

/** A question asked of a range's parts (`ask`), and their answers added together. */
type Split<T> = {
  ask: (part: { from: string; to: string }) => Promise<LogRead<T>>;
  merge: (a: T, b: T) => T;
};

/**
 * What the open partition answers a question of many partitions: its rows, made with the
 * closed partitions' groups it keeps; or, keeping none, its own groups, and whether it would
 * keep the closed ones' (a question asked before: ../../worker/partitions.ts).
 */
export type OverClosed = { answer: GroupAnswer[] } | { own: GroupReads[]; keep: boolean };

/** A partition before its first hit. */
const EMPTY: PartState = { closed: false, from: null, to: null };

export class LogReads {
  private readonly lane = new ReadLane();
  private readonly reader: LogReader;
  private readonly flows: FlowReader;
  private readonly properties: PropertyReader;
  /** The closed partitions' groups and paths, kept in memory while this is the open partition. */
  private readonly closedGroups = new ClosedValues<IndexedGroupReads[]>((reads) =>
    reads.reduce((n, r) => n + r.reads.groups.length, 0),
  );
  private readonly closedPaths = new ClosedValues<JourneyAnswer>((a) => a.rows.length);

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

  /** A question of the query engine, read in chunks the hits can come between (./question-chunks.ts). */
  query(q: LogQuery): Promise<PartRead<GroupAnswer[]>> {
    const none = q.groups.map(() => ({ rows: [], total: 0 }));
    return this.read(none, () => this.reader.query(q), ['query', q]);
  }

  /**
   * A question's groupings as groups that read, unpaged (./question-chunks.ts): what a log that is
   * one part of a website's answers, for the parts' groups to be added together.
   */
  groupReads(q: LogQuery): Promise<PartRead<GroupReads[]>> {
    const none = q.groups.map(() => ({ groups: [], total: noPartials(), byGoal: [] }));
    return this.read(none, () => this.reader.groupReads(q), ['groupReads', q], {
      ask: (part) => this.reader.groupReads({ ...q, ...part }),
      merge: (a, b) => a.map((reads, i) => mergeGroupReads([reads, b[i] as GroupReads])),
    });
  }

  /**
   * A question's groupings as the open partition answers them when closed partitions hold
   * part of its range (../../worker/partitions.ts): the closed partitions' groups it keeps for the question
   * under `closed` (their numbers and epochs), its own added, made into rows here; keeping
   * none, its own groups, for the Worker to add the closed ones' to and — for a question
   * asked before, so that one asked once costs the partition nothing more — hand back
   * (`keepClosed`). A closed partition answers as `groupReads` does, and says it is closed.
   */
  async overClosed(q: LogQuery, closed: string): Promise<PartRead<OverClosed>> {
    const own = await this.groupReads(q);
    if (!own.ok) return own;
    const key = this.closedKey('query', q, closed);
    const kept = own.part?.closed ? undefined : this.closedGroups.get(key);
    if (!kept)
      return { ...own, value: { own: own.value, keep: this.closedGroups.askedBefore(key) } };
    const step = <T>(work: () => T) => this.lane.run(work);
    const answer = await Promise.all(
      q.groups.map((g, i) =>
        answerOf(g, addedTo(kept[i] as IndexedGroupReads, own.value[i] as GroupReads), step),
      ),
    );
    return { ...own, value: { answer } };
  }

  /** Keeps the closed partitions' groups for a question, under `closed` (`overClosed`). */
  keepClosed(q: LogQuery, closed: string, reads: GroupReads[]): void {
    this.closedGroups.keep(this.closedKey('query', q, closed), reads.map(indexed));
  }

  /**
   * A page of a journey's paths as the open partition answers it when closed partitions hold
   * part of its range: as `overClosed`, with the closed partitions' paths and its own.
   */
  async journeysOverClosed(
    q: JourneyQuery,
    closed: string,
  ): Promise<PartRead<{ answer: JourneyAnswer } | { own: JourneyAnswer; keep: boolean }>> {
    const own = await this.journeys({ ...q, offset: 0, limit: Number.MAX_SAFE_INTEGER });
    if (!own.ok) return own;
    const key = this.closedKey('journeys', q, closed);
    const kept = own.part?.closed ? undefined : this.closedPaths.get(key);
    if (!kept)
      return { ...own, value: { own: own.value, keep: this.closedPaths.askedBefore(key) } };
    const answer = await this.lane.run(() => mergeJourneys(q, [kept, own.value]));
    return { ...own, value: { answer } };
  }

  /** Keeps the closed partitions' paths of a journey, under `closed` (`journeysOverClosed`). */
  keepClosedJourneys(q: JourneyQuery, closed: string, paths: JourneyAnswer): void {
    this.closedPaths.keep(this.closedKey('journeys', q, closed), paths);
  }

  /**
   * The key of the closed partitions' groups for a question: its range cut to the day before
   * this partition's first date (the closed partitions' dates), and their numbers and epochs.
   */
  private closedKey(method: string, q: { to: string }, closed: string): string {
    const from = this.hasTables() ? this.datesHeld().from : null;
    const to = from === null || q.to < from ? q.to : addDays(from, -1);
    // A page of a journey, in any order, is made from all its paths: kept once for them all.
    const { offset: _o, limit: _l, sortBy: _b, sort: _s, ...asked } = q as Record<string, unknown>;
    return JSON.stringify([method, { ...(method === 'journeys' ? asked : q), to }, closed]);
  }

  /** The partition's epoch (./answer-cache.ts), which moves on when its answers no longer hold. */
  epoch(): Promise<PartRead<number>> {
    return this.read(0, async () => ({
      ok: true as const,
      value: answersEpoch(this.db),
      rowsRead: 0,
      chunks: 0,
    }));
  }

  /** A funnel's visitors per step (./flows.ts). */
  funnel(q: FunnelQuery): Promise<PartRead<number[]>> {
    return this.read(
      q.steps.map(() => 0),
      () => this.flows.funnel(q),
      ['funnel', q],
      {
        ask: (part) => this.flows.funnel({ ...q, ...part }),
        merge: (a, b) => mergeFunnels([a, b]),
      },
    );
  }

  /** A page of a journey's paths (./flows.ts). */
  journeys(q: JourneyQuery): Promise<PartRead<JourneyAnswer>> {
    // Only a journey asked whole (by one of several partitions) is added up from two reads.
    const whole = q.offset === 0 && q.limit === Number.MAX_SAFE_INTEGER;
    return this.read(
      { rows: [], total: 0 },
      () => this.flows.journeys(q),
      ['journeys', q],
      whole
        ? {
            ask: (part) => this.flows.journeys({ ...q, ...part }),
            merge: (a, b) => mergeJourneys(q, [a, b]),
          }
        : undefined,
    );
  }

  /** The names of the custom properties a range's hits carry (./property-names.ts). */
  propertyNames(q: PropertyNamesQuery): Promise<PartRead<PropertyName[]>> {
    return this.read([], () => this.properties.names(q), ['propertyNames', q]);
  }

  /** The log's events, bytes and dates (./storage-used.ts). */
  storage(): Promise<PartRead<LogStorage>> {
    const none = { events: 0, bytes: this.db.bytes, from: null, to: null };
    return this.read(none, async () => ({
      ok: true as const,
      ...(await logStorage(this.db, this.lane)),
    }));
  }

  /**
   * Every event of a range of local dates (null: all), oldest first, as NDJSON or CSV lines
   * (./event-lines.ts); `header`: a CSV's.
   */
  exportEvents(
    format: 'ndjson' | 'csv',
    header = true,
    range: ExportRange = null,
  ): ReadableStream<Uint8Array> {
    return exportStream(this.db, this.dict, this.lane, format, this.hasTables, header, range);
  }

  /**
   * A read, answered `none` before the log's first hit; a failure is logged and answered.
   * The answer says whether this partition of the log is closed and which dates it holds
   * (../../worker/partitions.ts). A closed one keeps its answer to the question `asked` (./answer-cache.ts); the
   * open one, when the question can be answered in two parts (`split`), keeps its answer for
   * the range's dates before its newest and reads only the newest date's events again — those
   * dates take no more hits (but one of a time zone moved back, which forgets what it kept:
   * ../partition.ts).
   */
  private read<T>(
    none: T,
    work: () => Promise<LogRead<T>>,
    asked?: [string, Range],
    split?: Split<T>,
  ): Promise<PartRead<T>> {
    return this.answer('log not read', async () => {
      if (!this.hasTables())
        return { ok: true as const, value: none, rowsRead: 0, chunks: 0, part: EMPTY };
      const closed = isClosed(this.db);
      const dates = this.datesHeld();
      const before = this.db.io.rowsRead;
      const past = !closed && split && asked ? this.pastOf(asked, dates) : undefined;
      let read: LogRead<T>;
      if (past && split) {
        const [method, q] = asked as [string, Range];
        const earlier = await this.kept(this.keyOf([method, { ...q, ...past.range }], dates), () =>
          split.ask(past.range),
        );
        if (!earlier.ok) return earlier;
        const newest = await split.ask(past.newest);
        if (!newest.ok) return newest;
        read = {
          ok: true,
          value: split.merge(earlier.value, newest.value),
          rowsRead: this.db.io.rowsRead - before,
          chunks: earlier.chunks + newest.chunks,
        };
      } else {
        const key = closed && asked ? this.keyOf(asked, dates) : undefined;
        read = key === undefined ? await work() : await this.kept(key, work);
        if (read.ok) read = { ...read, rowsRead: this.db.io.rowsRead - before };
      }
      if (!read.ok) return read;
      return { ...read, part: { closed, ...dates } };
    });
  }

  /** The first and last dates the partition holds. */
  private datesHeld() {
    return this.db.one<{ from: string | null; to: string | null }>(
      'SELECT min(date) AS "from", max(date) AS "to" FROM days',
    );
  }

  /**
   * The answer kept under `key`, or `work`'s, then kept — unless a hit changed the events
   * while it read (the partition's epoch moved on: ./answer-cache.ts).
   */
  private async kept<T>(key: string, work: () => Promise<LogRead<T>>): Promise<LogRead<T>> {
    const kept = keptAnswer<T>(this.db, key);
    if (kept !== undefined) return { ok: true, value: kept, rowsRead: 0, chunks: 0 };
    const epoch = answersEpoch(this.db);
    const read = await work();
    if (read.ok && answersEpoch(this.db) === epoch) keepAnswer(this.db, key, read.value);
    return read;
  }

  /**
   * The two parts of a question the open partition answers apart: its range before the
   * partition's newest date (kept) and that date; none when the range does not reach over
   * both, starts before the dates the partition holds whole, or groups by weeks (labelled by
   * the range's first day).
   */
  private pastOf(
    [, q]: [string, Range],
    dates: { from: string | null; to: string | null },
  ): { range: { from: string; to: string }; newest: { from: string; to: string } } | undefined {
    const newest = dates.to;
    const first = this.reader.firstDate();
    if (newest === null || q.from >= newest || q.to < newest) return undefined;
    if (first !== undefined && q.from < first) return undefined;
    if (q.groups?.some((g) => g.dimensions.includes('time:week'))) return undefined;
    return { range: { from: q.from, to: addDays(newest, -1) }, newest: { from: newest, to: q.to } };
  }

  /**
   * The key a closed partition keeps its answer to a question under: the question with its
   * range cut to the partition's dates (a range moved by a day asks a partition it still
   * covers whole the same question). A range that starts before the dates the partition holds
   * whole (retention, conversion) is kept as asked: that read says so. So is the start of a
   * grouping by weeks: its first week is labelled with the range's first day.
   */
  private keyOf(
    [method, q]: [string, Range],
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
