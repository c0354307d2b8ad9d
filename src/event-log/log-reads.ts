/**
 * The log's reads (filtered questions, src/stats/filters.ts): each runs one statement of
 * ./log-query.ts over the events between two ids (./days.ts) and shapes its rows.
 */
import { STAT_NAMES } from '../stats/names.ts';
import { idsOf, keptFrom } from './days.ts';
import type { LogDb } from './log-db.ts';
import {
  type LogStatsQuery,
  type LogSums,
  statisticStatement,
  sumsStatement,
  topValuesStatement,
} from './log-query.ts';
import type { LogRead } from './log-types.ts';

/**
 * Runs a read over the events of the dates `from`–`to` (found through `days`), counting its
 * rows read; the first date the log holds whole instead when the range starts before it
 * (`EVENT_RETENTION_DAYS` deleted the dates before).
 */
export function readDates<T>(
  db: LogDb,
  from: string,
  to: string,
  work: (ids: [number, number]) => T,
): LogRead<T> {
  const before = db.io.rowsRead;
  const first = keptFrom(db);
  if (first !== null && from < first) return { ok: false, firstDate: first };
  const value = work(idsOf(db, from, to));
  return { ok: true, value, rowsRead: db.io.rowsRead - before };
}

/** A page of a statistic's values, and how many values there are. */
export type ValuePage = { rows: { value: string; count: number }[]; total: number };
export const emptyPage = (): ValuePage => ({ rows: [], total: 0 });
export const noSums = (): LogSums => ({
  visitors: 0,
  visits: 0,
  pageviews: 0,
  bounces: 0,
  visit_duration: 0,
  event: 0,
});

export type TopValuesQuery = Parameters<typeof topValuesStatement>[0];

/** A statistic's values, sorted, and the page `offset`/`limit` of them. */
export function readStatistic(
  db: LogDb,
  q: LogStatsQuery & { limit: number; offset: number },
  ids: [number, number],
): ValuePage {
  const statement = statisticStatement(q, ids);
  const rows = db.rows<{ value: string; count: number }>(statement.text, ...statement.params);
  return { rows: rows.slice(q.offset, q.offset + q.limit), total: rows.length };
}

/** The first page of each of several statistics, in one statement. */
export function readTopValues(db: LogDb, q: TopValuesQuery, ids: [number, number]): ValuePage[] {
  if (!q.names.every((name) => STAT_NAMES.includes(name))) throw new Error('unknown statistic');
  const statement = topValuesStatement(q, ids);
  const answer = q.names.map(emptyPage);
  for (const row of db.rows<{ q: number; value: string; count: number; total: number }>(
    statement.text,
    ...statement.params,
  )) {
    const page = answer[row.q];
    if (!page) continue;
    page.rows.push({ value: row.value, count: row.count });
    page.total = row.total;
  }
  return answer;
}

/** The sums of a summary's figures. */
export function readSums(
  db: LogDb,
  q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>,
  ids: [number, number],
): LogSums {
  const statement = sumsStatement(q, ids);
  return db.one<LogSums>(statement.text, ...statement.params);
}
