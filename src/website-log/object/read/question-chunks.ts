/**
 * The log's reads: questions of the query engine (src/counting/query.ts) answered from the
 * log's rows, cut into chunks of whole local dates (docs/ARCHITECTURE.md, "Reads that never
 * stall hits" and "The query engine"). Each chunk is one statement of ./question-sql.ts, sized to
 * cost about `CHUNK_COST`, run in the object's read lane (./lane.ts): the object takes its
 * hits between chunks. A visit and a visitor never cross a local date, so the sums of the
 * chunks add up exactly; they are summed here per group, then the groups' values are read
 * from the dictionary (./question-values.ts), searched, sorted and paged. What a read holds is
 * one set of sums per group of its range, never its rows.
 */

import { answerOf, type GroupReads } from '../../../counting/group-reads.ts';
import type { GoalSplit, GroupAnswer, GroupQuery, LogQuery } from '../../../counting/query.ts';
import { GOAL, queryDimension } from '../../../counting/query-dimensions.ts';
import {
  noPartials,
  PARTIALS,
  type PartialName,
  type Partials,
  queryMetric,
} from '../../../counting/query-metrics.ts';
import { dayNumber } from '../../../lib/time/dates.ts';
import type { LogRead } from '../../answers.ts';
import { keptFrom } from '../tables/days.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { LogDb } from '../tables/log-db.ts';
import { FilterIds, propertiesById } from './filters/filter-ids.ts';
import type { Resolved } from './filters/filter-sql.ts';
import type { ReadLane, Step } from './lane.ts';
import { type Chunk, chunkStatement, type GoalMap, type GroupPlan } from './question-sql.ts';
import { type Group, groupReads } from './question-values.ts';

/**
 * What a read counts as it goes: its chunks (each one turn of the read lane); and the newest
 * event when it began, the last it reads (a hit taken meanwhile is in the next read).
 */
export type Tally = { chunks: number; through: number };

/**
 * What a chunk should cost: the rows its statement reads (SQLite's count), and each row it
 * returns as `RETURNED_COST` more (the object adds it up): some 50 ms of the heaviest
 * questions on the benchmark's machine (each chunk has a cost of its own, in statement and
 * turn and the groups it returns again, so smaller chunks make reads slower). A chunk is sized by work, not by a clock: deployed, a
 * Worker's clocks stand still while its code runs (they move on I/O only), so a read timed
 * in the object would take every chunk for free.
 */
const CHUNK_COST = 200_000;
const RETURNED_COST = 4;
/** Events in the first chunk of a read, and the fewest and most in any. */
const FIRST_CHUNK = 20_000;
const SMALLEST_CHUNK = 2_000;
const LARGEST_CHUNK = 400_000;

/**
 * A grouping's groups, found by their raw values: one map per dimension, nested (no text key
 * made per row of a chunk).
 */
class Groups {
  private readonly root = new Map<number | null, unknown>();
  readonly all: Group[] = [];

  constructor(private readonly depth: number) {}

  /** The group of the `depth` values of `row` from `at` on, made when new. */
  at(row: (number | null)[], at: number): Group {
    let map = this.root;
    for (let i = 0; i < this.depth - 1; i++) {
      const value = row[at + i] ?? null;
      let next = map.get(value) as Map<number | null, unknown> | undefined;
      if (!next) {
        next = new Map();
        map.set(value, next);
      }
      map = next;
    }
    const last = this.depth > 0 ? (row[at + this.depth - 1] ?? null) : null;
    let group = map.get(last) as Group | undefined;
    if (!group) {
      group = { key: row.slice(at, at + this.depth), sums: noPartials(), hits: false };
      map.set(last, group);
      this.all.push(group);
    }
    return group;
  }
}

/** The sums a grouping needs for its metrics. */
function partialsOf(g: GroupQuery): Set<PartialName> {
  return new Set(g.metrics.flatMap((m) => queryMetric(m).needs));
}

export class LogReader {
  /** The filters' values as ids, found in turns of the lane and remembered (./filters/filter-ids.ts). */
  readonly ids: FilterIds;

  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
    private readonly lane: ReadLane,
  ) {
    this.ids = new FilterIds(db, dict);
  }

  /** Each grouping's page of rows, and how many rows it has. */
  async query(asked: LogQuery): Promise<LogRead<GroupAnswer[]>> {
    return this.readGroups(asked, (g, reads, step) => answerOf(g, reads, step));
  }

  /**
   * Each grouping's groups as they read, unpaged, with the sums `percentage` divides by: for
   * a question asked of several logs, whose groups are added together before their rows are
   * made (`mergeGroupReads`, src/counting/group-reads.ts).
   */
  async groupReads(asked: LogQuery): Promise<LogRead<GroupReads[]>> {
    return this.readGroups(asked, async (_, reads) => reads);
  }

  /** Each grouping's groups as they read, made into what `answer` makes of them. */
  private async readGroups<T>(
    asked: LogQuery,
    answer: (g: GroupQuery, reads: GroupReads, step: Step) => Promise<T>,
  ): Promise<LogRead<T[]>> {
    for (const g of asked.groups) for (const d of g.dimensions) queryDimension(d);
    return this.counted(asked, async (tally) => {
      const step: Step = (work) => this.lane.run(work);
      // Reading the dictionary for the properties' names, the filters' values and the goals'
      // hits is done in turns of the lane too.
      const { q, currency } = await step(() => {
        const q = propertiesById(this.dict, asked);
        return { q, currency: this.currencyId(q.currency) };
      });
      const filter = await this.ids.filters(asked.filters, step);
      const plans: GroupPlan[] = [];
      for (const [i, g] of q.groups.entries())
        plans.push({
          q: i,
          dimensions: g.dimensions,
          partials: partialsOf(g),
          ...(g.goals ? { goals: await this.goalMap(g.goals, step) } : {}),
        });
      // All visitors of the range, for `percentage`: one grouping more, without dimensions —
      // or by goal, for a grouping by goals (each goal's visitors, as its own question's).
      const totalAt = plans.length;
      if (q.groups.some((g) => g.metrics.includes('percentage') && !g.goals))
        plans.push({ q: totalAt, dimensions: [], partials: new Set(['vis']) });
      const goalTotals = new Map<number, number>();
      for (const [i, g] of q.groups.entries())
        if (g.goals && g.metrics.includes('percentage')) {
          goalTotals.set(i, plans.length);
          const { goals } = plans[i] as GroupPlan;
          plans.push({ q: plans.length, dimensions: [GOAL], partials: new Set(['vis']), goals });
        }
      const sums = plans.map((plan) => new Groups(plan.dimensions.length));
      const { counted, summed } = byDates(plans);
      // The statement's columns: q, a value per dimension, then the sums any grouping needs.
      const shape = {
        dimensions: Math.max(0, ...counted.map((plan) => plan.dimensions.length)),
        sums: PARTIALS.filter((p) => counted.some((plan) => plan.partials.has(p))),
      };
      let chunks = 0;
      if (filter !== false)
        await this.eachChunk(q, tally, (chunk) => {
          const statement = chunkStatement(filter, counted, chunk, q.between, currency);
          const rows = this.db.arrays(statement.text, ...statement.params);
          for (const row of rows) addRow(sums, shape, row as (number | null)[]);
          chunks++;
          return rows.length;
        });
      if (chunks > 0) for (const [at, from] of summed) sumDates(sums, at, from);
      const total = sums[totalAt]?.all[0]?.sums ?? noPartials();
      const answers: T[] = [];
      for (const [i, g] of q.groups.entries()) {
        const at = goalTotals.get(i);
        const byGoal = (at === undefined ? [] : (sums[at]?.all ?? [])).map(
          (group): [number, Partials] => [group.key[0] as number, group.sums],
        );
        const groups = await groupReads(this.dict, g, sums[i]?.all ?? [], {
          range: { from: q.from, to: q.to },
          step,
          searched: (term) => this.ids.containing(term, step),
        });
        answers.push(await answer(g, { groups, total, byGoal }, step));
      }
      return answers;
    });
  }

  /** A currency's id in the dictionary (0: none, or one no hit had). */
  private currencyId(currency: string | undefined): number {
    return currency ? (this.dict.idOf(currency) ?? 0) : 0;
  }

  /**
   * A grouping's goals as the ids of the hits that complete them: each goal a filter on a
   * hit's text (an event's name, a page view's page) — and, for a page goal's scroll
   * threshold, on how far its visit scrolled the page — its revenue in its currency.
   */
  private async goalMap(goals: GoalSplit[], step: Step): Promise<GoalMap> {
    const settled = await this.ids.each(
      goals.map((g) => g.filter),
      step,
    );
    const map: GoalMap = { columns: [], entries: [] };
    return step(() => {
      settled.forEach((found, goal) => {
        if (found === false) return;
        // A page goal's scroll threshold: its page views, scrolled at least that far.
        const [s, scrolled] =
          found !== true && found.kind === 'and' && found.nodes[1]?.kind === 'scrolled'
            ? [found.nodes[0] as Resolved, found.nodes[1].at]
            : [found, -1];
        const leaves = s !== true && s.kind === 'or' ? s.nodes : [s];
        const currency = this.currencyId(goals[goal]?.currency);
        for (const leaf of leaves) {
          if (leaf === true || leaf.kind !== 'leaf' || leaf.none || leaf.leaf.op.endsWith('_not'))
            throw new Error('a goal is the hits of some texts');
          const d = queryDimension(leaf.leaf.dimension);
          if (d.level !== 'hit' || d.kind !== 'text' || d.exit)
            throw new Error(`a goal cannot be the hits of ${leaf.leaf.dimension}`);
          const column = { sql: d.sql, pageViews: d.pageViews === true };
          let at = map.columns.findIndex(
            (c) => c.sql === column.sql && c.pageViews === column.pageViews,
          );
          if (at < 0) at = map.columns.push(column) - 1;
          for (const id of leaf.ids) map.entries.push([goal, at, id, currency, scrolled]);
        }
      });
      return map;
    });
  }

  /**
   * A read of the events of `from`–`to`, its rows read and chunks counted; the first date the
   * log holds whole instead when the range starts before it (retention deleted the dates
   * before) — also when retention deleted some of its dates between two of its chunks.
   */
  async counted<T>(
    range: { from: string; to: string },
    work: (tally: Tally) => Promise<T>,
  ): Promise<LogRead<T>> {
    const first = this.firstDate();
    if (first !== undefined && range.from < first) return { ok: false, firstDate: first };
    const before = this.db.io.rowsRead;
    const newest = this.db.one<{ id: number | null }>('SELECT max(id) AS id FROM log').id ?? 0;
    const tally: Tally = { chunks: 0, through: newest };
    const value = await work(tally);
    const after = this.firstDate();
    if (after !== undefined && range.from < after) return { ok: false, firstDate: after };
    return { ok: true, value, rowsRead: this.db.io.rowsRead - before, chunks: tally.chunks };
  }

  /** The first date the log holds whole: what retention kept (undefined: all of it). */
  firstDate(): string | undefined {
    return keptFrom(this.db) ?? undefined;
  }

  /**
   * Runs `work` over the chunks of `from`–`to`: whole local dates, as many as cost about
   * `CHUNK_COST` at the cost per event of the chunk before, each in the read lane. `work`
   * answers the rows its statement returned.
   */
  async eachChunk(
    range: { from: string; to: string },
    tally: Tally,
    work: (chunk: Chunk) => number,
  ): Promise<void> {
    const dates = this.datesOf(range, tally.through);
    let target = FIRST_CHUNK;
    for (let i = 0; i < dates.length; ) {
      const start = dates[i] as (typeof dates)[number];
      const chunk: Chunk = { low: start.low, high: start.high, first: start.day, last: start.day };
      let events = start.events;
      for (i++; i < dates.length; i++) {
        const next = dates[i] as (typeof dates)[number];
        if (events + next.events > target) break;
        chunk.low = Math.min(chunk.low, next.low);
        chunk.high = Math.max(chunk.high, next.high);
        chunk.last = next.day;
        events += next.events;
      }
      tally.chunks++;
      const cost = await this.lane.run(() => {
        const before = this.db.io.rowsRead;
        const returned = work(chunk);
        return this.db.io.rowsRead - before + RETURNED_COST * returned;
      });
      const perEvent = cost / Math.max(events, 1);
      target = Math.min(
        LARGEST_CHUNK,
        Math.max(SMALLEST_CHUNK, perEvent > 0 ? CHUNK_COST / perEvent : LARGEST_CHUNK),
      );
    }
  }

  /**
   * The dates of a range the log holds, in order, up to the event `through`: each one's ids
   * and its number of events.
   */
  private datesOf(range: { from: string; to: string }, through: number) {
    const runs = this.db.rows<{ first: number; last: number | null; date: string }>(
      `SELECT d.first, (SELECT min(n.first) FROM days n WHERE n.first > d.first) - 1 AS last,
          d.date FROM days d WHERE d.date BETWEEN ? AND ? AND d.first <= ? ORDER BY d.date, d.first`,
      range.from,
      range.to,
      through,
    );
    const dates: { day: number; low: number; high: number; events: number }[] = [];
    for (const run of runs) {
      const last = Math.min(run.last ?? through, through);
      const day = dayNumber(run.date);
      const date = dates.at(-1);
      if (date?.day === day) {
        date.low = Math.min(date.low, run.first);
        date.high = Math.max(date.high, last);
        date.events += last - run.first + 1;
      } else dates.push({ day, low: run.first, high: last, events: last - run.first + 1 });
    }
    return dates;
  }
}

/** The date dimension: its groups are the range's dates. */
const DAY = 'time:day';

/**
 * The groupings the statement counts, and those it need not: a grouping by nothing (no
 * goals), asked with one by date, is that one's groups added up — a visit and a visitor
 * never cross a local date, so the range's visitors and visits are its dates' summed — and
 * the grouping by date then counts its sums too (`summed`: [the grouping, the one by date],
 * by index). The figures and the chart of a filtered view are so one grouping of the log.
 */
function byDates(plans: GroupPlan[]): { counted: GroupPlan[]; summed: [number, number][] } {
  const dated = plans.findIndex(
    (p) => !p.goals && p.dimensions.length === 1 && p.dimensions[0] === DAY,
  );
  const whole = plans.filter((p) => !p.goals && p.dimensions.length === 0);
  const daily = plans[dated];
  if (!daily || whole.length === 0) return { counted: plans, summed: [] };
  const partials = new Set(
    [daily.partials, ...whole.map((p) => p.partials)].flatMap((s) => [...s]),
  );
  return {
    counted: plans.flatMap((p) =>
      p === daily ? [{ ...p, partials }] : whole.includes(p) ? [] : [p],
    ),
    summed: whole.map((p) => [p.q, dated]),
  };
}

/**
 * The one group of grouping `at` (by nothing), as the statement would have counted it: the
 * sums of grouping `from`'s groups (by date).
 */
function sumDates(sums: Groups[], at: number, from: number): void {
  const group = sums[at]?.at([], 0);
  if (!group) return;
  group.hits = true;
  for (const dated of sums[from]?.all ?? [])
    for (const p of PARTIALS) group.sums[p] += dated.sums[p];
}

/** Adds a row of a chunk's statement (`q, d0, …, sums…`) to its grouping's sums. */
function addRow(
  groups: Groups[],
  shape: { dimensions: number; sums: PartialName[] },
  row: (number | null)[],
): void {
  const q = row[0] as number;
  const into = groups[q >> 1];
  if (!into) return;
  const group = into.at(row, 1);
  if ((q & 1) === 0) group.hits = true;
  let at = 1 + shape.dimensions;
  for (const p of shape.sums) group.sums[p] += row[at++] as number;
}
