/**
 * The log's reads — filtered questions (src/stats/filters.ts) — cut into chunks of whole
 * local dates (docs/ARCHITECTURE.md, "Reads that never stall hits"). Each chunk is one
 * statement of ./log-query.ts, sized to take about `CHUNK_MS`, run in the object's read lane
 * (./read-lane.ts): the object takes its hits between chunks. A visit and a visitor never
 * cross a local date, so the counts of the chunks add up exactly; they are summed here per
 * value, then the values are read from the dictionary, searched, sorted and paged. What a
 * read holds is one count per distinct value of its range, never its rows.
 */
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { type Filter, levelOf } from '../counting/dimensions.ts';
import { STAT_NAMES, type StatName, TIME_VALUED } from '../counting/statistics.ts';
import { containsText } from '../db/contains-text.ts';
import { dateOfDay, dayNumber } from '../lib/dates.ts';
import { convertedFrom } from './convert.ts';
import { keptFrom } from './days.ts';
import type { Dictionary } from './dictionary.ts';
import type { LogDb } from './log-db.ts';
import { type Chunk, chunkStatement, type FilterIds, sumsStatement } from './log-query.ts';
import type { LogRead } from './log-types.ts';
import type { ReadLane } from './read-lane.ts';

export type LogStatsQuery = {
  name: StatName;
  from: string;
  to: string;
  filters: Filter[];
  search?: string | undefined;
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
};

/** The sums a summary's figures are made of (`figuresOf`, src/stats/overview.ts). */
export type LogSums = {
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  visit_duration: number;
  event: number;
};

export type TopValuesQuery = Pick<LogStatsQuery, 'from' | 'to' | 'filters'> & {
  names: StatName[];
  limit: number;
  /** `value`: the first values in ascending order instead (a chart's dates or hours). */
  sortBy?: 'count' | 'value';
};

/** What a read counts as it goes: its chunks (each one turn of the read lane). */
type Tally = { chunks: number };

/** A page of a statistic's values, and how many values there are. */
export type ValuePage = { rows: { value: string; count: number }[]; total: number };

/** How long a chunk should take; the next chunk's size follows the last one's speed. */
const CHUNK_MS = 25;
/** Events in the first chunk of a read, and the fewest and most in any. */
const FIRST_CHUNK = 20_000;
const SMALLEST_CHUNK = 2_000;
const LARGEST_CHUNK = 400_000;

const dialect = new SQLiteSyncDialect();

/** The statistics whose values are hours (`00`–`23`); the other time-valued ones are dates. */
const HOURLY: ReadonlySet<StatName> = new Set([
  'pageviews_hours',
  'visitors_hours',
  'visits_hours',
]);

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * Orders texts as SQLite does (`BINARY`: by their UTF-8 bytes, that is by code point). UTF-16
 * code units are in code point order but for surrogates, which stand for code points above
 * every other unit: at the first unit that differs, surrogates are moved above U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number) =>
  unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;

export class LogReader {
  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
    private readonly lane: ReadLane,
  ) {}

  /** One statistic, sorted, with the page `offset`/`limit` of its values and how many there are. */
  async statistic(
    q: LogStatsQuery & { limit: number; offset: number },
  ): Promise<LogRead<ValuePage>> {
    return this.counted(q, async (tally) => {
      const [counts] = await this.countsOf([q.name], q, tally);
      const values = this.searched(q.name, this.valuesOf(q.name, counts ?? new Map()), q.search);
      this.sort(values, q.sortBy, q.sort);
      return { rows: values.slice(q.offset, q.offset + q.limit), total: values.length };
    });
  }

  /** The first page (`limit` values by count, or by value) of each of several statistics. */
  async topValues(q: TopValuesQuery): Promise<LogRead<ValuePage[]>> {
    if (!q.names.every((name) => STAT_NAMES.includes(name))) throw new Error('unknown statistic');
    return this.counted(q, async (tally) => {
      const counts = await this.countsOf(q.names, q, tally);
      return q.names.map((name, i) => {
        const values = this.valuesOf(name, counts[i] ?? new Map());
        if (q.sortBy === 'value') this.sort(values, 'value', 'asc');
        else this.sort(values, 'count', 'desc');
        return { rows: values.slice(0, q.limit), total: values.length };
      });
    });
  }

  /** The sums of a summary's figures over the kept events of a range. */
  async sums(q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>): Promise<LogRead<LogSums>> {
    return this.counted(q, async (tally) => {
      const filters = this.idsOf(q.filters);
      const total: LogSums = {
        visitors: 0,
        visits: 0,
        pageviews: 0,
        bounces: 0,
        visit_duration: 0,
        event: 0,
      };
      if (filters === null) return total;
      await this.eachChunk(q, tally, (chunk) => {
        const statement = sumsStatement(filters, chunk);
        const sums = this.db.one<LogSums>(statement.text, ...statement.params);
        for (const key of Object.keys(total) as (keyof LogSums)[]) total[key] += sums[key];
      });
      return total;
    });
  }

  /**
   * A read of the events of `from`–`to`, its rows read and chunks counted; the first date the
   * log holds whole instead when the range starts before it (retention deleted the dates
   * before, or an older version wrote them and they are not converted yet: ./convert.ts) —
   * also when retention deleted some of its dates between two of its chunks.
   */
  private async counted<T>(
    range: { from: string; to: string },
    work: (tally: Tally) => Promise<T>,
  ): Promise<LogRead<T>> {
    const first = this.firstDate();
    if (first !== undefined && range.from < first) return { ok: false, firstDate: first };
    const before = this.db.io.rowsRead;
    const tally: Tally = { chunks: 0 };
    const value = await work(tally);
    const after = this.firstDate();
    if (after !== undefined && range.from < after) return { ok: false, firstDate: after };
    return { ok: true, value, rowsRead: this.db.io.rowsRead - before, chunks: tally.chunks };
  }

  /** The first date the log holds whole: kept by retention and converted (./convert.ts). */
  private firstDate(): string | undefined {
    return [keptFrom(this.db), convertedFrom(this.db)]
      .filter((d): d is string => d !== null)
      .sort()
      .at(-1);
  }

  /** The counts per value (an id, a day or an hour) of each statistic, summed over the chunks. */
  private async countsOf(
    names: readonly StatName[],
    q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>,
    tally: Tally,
  ): Promise<Map<number, number>[]> {
    const filters = this.idsOf(q.filters);
    const counts = names.map(() => new Map<number, number>());
    if (filters === null) return counts;
    await this.eachChunk(q, tally, (chunk) => {
      const statement = chunkStatement(names, filters, chunk);
      for (const row of this.db.rows<{ q: number; v: number | null; n: number }>(
        statement.text,
        ...statement.params,
      )) {
        const map = counts[row.q];
        if (!map || row.v === null) continue;
        map.set(row.v, (map.get(row.v) ?? 0) + row.n);
      }
    });
    return counts;
  }

  /**
   * Runs `work` over the chunks of `from`–`to`: whole local dates, as many as take about
   * `CHUNK_MS` at the speed of the chunk before, each in the read lane.
   */
  private async eachChunk(
    range: { from: string; to: string },
    tally: Tally,
    work: (chunk: Chunk) => void,
  ): Promise<void> {
    const dates = this.datesOf(range);
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
      const took = await this.lane.run(() => {
        const began = performance.now();
        work(chunk);
        return performance.now() - began;
      });
      const perEvent = took / Math.max(events, 1);
      target = Math.min(
        LARGEST_CHUNK,
        Math.max(SMALLEST_CHUNK, perEvent > 0 ? CHUNK_MS / perEvent : LARGEST_CHUNK),
      );
    }
  }

  /** The dates of a range the log holds, in order: each one's ids and its number of events. */
  private datesOf(range: { from: string; to: string }) {
    const newest = this.db.one<{ id: number | null }>('SELECT max(id) AS id FROM log').id ?? 0;
    const runs = this.db.rows<{ first: number; last: number | null; date: string }>(
      `SELECT d.first, (SELECT min(n.first) FROM days n WHERE n.first > d.first) - 1 AS last,
          d.date FROM days d WHERE d.date BETWEEN ? AND ? ORDER BY d.date, d.first`,
      range.from,
      range.to,
    );
    const dates: { day: number; low: number; high: number; events: number }[] = [];
    for (const run of runs) {
      const last = run.last ?? newest;
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

  /**
   * Each filter with the ids of the values it names, or contains in any case (`contains`);
   * null when the filters keep nothing: an `is` or `contains` naming no value the log holds.
   * A `not` of a page or an event naming none keeps every hit, and is left out (on a hit it
   * would otherwise make visits and visitors be found hit by hit).
   */
  private idsOf(filters: Filter[]): FilterIds[] | null {
    const found: FilterIds[] = [];
    for (const filter of filters) {
      let ids: number[];
      if (filter.operator === 'contains') ids = this.dict.idsWhere(this.contains(filter.value));
      else {
        const id = this.dict.idOf(filter.value);
        ids = id === null ? [] : [id];
      }
      if (ids.length > 0) found.push({ filter, ids });
      else if (filter.operator !== 'not') return null;
      else if (levelOf(filter.dimension) !== 'hit') found.push({ filter, ids });
    }
    return found;
  }

  /** `value` contains `term`, in any case, as the Stats API's `search` matches. */
  private contains(term: string) {
    const query = dialect.sqlToQuery(containsText(sql.raw('value'), term));
    return { text: query.sql, params: query.params as (string | number)[] };
  }

  /** A statistic's counts as values: dates, hours or texts; those empty or not above 0 left out. */
  private valuesOf(
    name: StatName,
    counts: Map<number, number>,
  ): { value: string; count: number }[] {
    const kept = [...counts].filter(([, count]) => count > 0);
    if (TIME_VALUED.has(name))
      return kept.map(([key, count]) => ({
        value: HOURLY.has(name) ? pad2(key) : dateOfDay(key),
        count,
      }));
    const texts = this.dict.decodeAll(kept.map(([key]) => key));
    return kept
      .map(([key, count]) => ({ value: texts.get(key) ?? '', count }))
      .filter((row) => row.value !== '');
  }

  /** The values a `search` keeps (any case, as the roll-ups' search: src/db/contains-text.ts). */
  private searched(
    name: StatName,
    values: { value: string; count: number }[],
    search: string | undefined,
  ) {
    if (!search) return values;
    if (TIME_VALUED.has(name)) {
      const term = search.toLowerCase();
      return values.filter((row) => row.value.toLowerCase().includes(term));
    }
    const matching = new Set(
      this.dict.decodeAll(this.dict.idsWhere(this.contains(search))).values(),
    );
    return values.filter((row) => matching.has(row.value));
  }

  /** Sorts as the Stats API does: by count or value, ties by value ascending. */
  private sort(
    values: { value: string; count: number }[],
    sortBy: 'count' | 'value',
    sort: 'asc' | 'desc',
  ): void {
    const direction = sort === 'asc' ? 1 : -1;
    values.sort((a, b) =>
      sortBy === 'value'
        ? direction * byCodePoint(a.value, b.value)
        : direction * (a.count - b.count) || byCodePoint(a.value, b.value),
    );
  }
}
