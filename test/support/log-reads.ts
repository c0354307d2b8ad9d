/**
 * API v1's reads of a website's log, as the statistics page and the Stats API ask them: each
 * the engine's question API v1 asks (`v1Grouping`, `v1Filters`: src/query/parse/v1.ts), put to
 * the log's `query` directly.
 * For tests that ask the log directly (a Durable Object's stub, or the `WebsiteLogCore` itself).
 */

import type { GroupAnswer, GroupQuery, LogQuery } from '../../src/counting/query.ts';
import type { StatName } from '../../src/counting/statistics.ts';
import type { Filter } from '../../src/query/parse/v1.ts';
import { V1_STATISTICS, v1Filters, v1Grouping } from '../../src/query/parse/v1.ts';
import type { LogRead } from '../../src/website-log/answers.ts';

type Queried = { query(q: LogQuery): Promise<LogRead<GroupAnswer[]>> };
type Range = { from: string; to: string; filters: Filter[] };
type ValuePage = { rows: { value: string; count: number }[]; total: number };

const asPage = (a: GroupAnswer): ValuePage => ({
  rows: a.rows.map((r) => ({ value: r.dimensions[0] as string, count: r.metrics[0] ?? 0 })),
  total: a.total,
});

async function ask<T>(
  log: Queried,
  range: Range,
  groups: GroupQuery[],
  read: (answers: GroupAnswer[]) => T,
): Promise<LogRead<T>> {
  const answer = await log.query({
    from: range.from,
    to: range.to,
    filters: v1Filters(range.filters),
    groups,
  });
  return answer.ok ? { ...answer, value: read(answer.value) } : answer;
}

/** The summary's sums over the kept events of a range. */
export type LogSums = Record<
  'visitors' | 'visits' | 'pageviews' | 'bounces' | 'visit_duration' | 'event',
  number
>;
const SUMMED = ['visitors', 'visits', 'pageviews', 'bounces', 'visit_duration', 'event'] as const;

export function v1Reads(log: Queried) {
  return {
    /** One statistic, sorted, with the page `offset`/`limit` of its values and how many there are. */
    statistic(
      q: Range & {
        name: StatName;
        search?: string;
        sortBy: 'count' | 'value';
        sort: 'asc' | 'desc';
        limit: number;
        offset: number;
      },
    ): Promise<LogRead<ValuePage>> {
      return ask(log, q, [v1Grouping(q.name, q, q.search)], (a) => asPage(a[0] as GroupAnswer));
    },
    /** The first page of each of several statistics (by count, or by value ascending). */
    topValues(
      q: Range & { names: StatName[]; limit: number; sortBy?: 'count' | 'value' },
    ): Promise<LogRead<ValuePage[]>> {
      const page = {
        sortBy: q.sortBy ?? 'count',
        sort: q.sortBy === 'value' ? 'asc' : 'desc',
        limit: q.limit,
        offset: 0,
      } as const;
      return ask(
        log,
        q,
        q.names.map((name) => v1Grouping(name, page)),
        (a) => a.map(asPage),
      );
    },
    /** The sums of a summary's figures. */
    sums(q: Range): Promise<LogRead<LogSums>> {
      const metrics = SUMMED.map((name) => V1_STATISTICS[name].metric);
      return ask(log, q, [{ dimensions: [], metrics, order: [], limit: 1, offset: 0 }], (a) => {
        const values = a[0]?.rows[0]?.metrics ?? [];
        return Object.fromEntries(SUMMED.map((name, i) => [name, values[i] ?? 0])) as LogSums;
      });
    },
  };
}
