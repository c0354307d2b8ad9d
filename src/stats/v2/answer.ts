/**
 * The answer of `POST /api/v2/query` (Plausible's Stats API v2; docs/ARCHITECTURE.md, "Stats
 * API v2"): the question asked of the query engine, and its rows as Plausible returns them —
 * `{"results": [{"metrics": […], "dimensions": […]}], "meta": {…}, "query": {…}}`, the query
 * echoed with its range as date-times in the website's time zone and its effective order.
 */
import { addDays, addMonths, daysBetween } from '../../lib/dates.ts';
import { answer, isUnavailable, type Reader } from '../engine/engine.ts';
import { QueryError } from './errors.ts';
import type { V2Query } from './query.ts';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Every bucket of a time dimension over the range (`include.time_labels`). */
function timeLabels(dimension: string, range: { from: string; to: string }): string[] {
  const days = Array.from({ length: daysBetween(range.from, range.to) }, (_, i) =>
    addDays(range.from, i),
  );
  switch (dimension) {
    case 'time:hour':
      return days.flatMap((d) => Array.from({ length: 24 }, (_, h) => `${d} ${pad2(h)}:00:00`));
    case 'time:week': {
      const weeks = days.filter((d, i) => i === 0 || new Date(`${d}T00:00:00Z`).getUTCDay() === 1);
      return weeks;
    }
    case 'time:month': {
      const months: string[] = [];
      for (let m = range.from.slice(0, 7); `${m}-01` <= range.to; m = addMonths(m, 1))
        months.push(`${m}-01`);
      return months;
    }
    default:
      return days;
  }
}

/** What `include` adds to `meta`. */
function metaOf(q: V2Query, total: number): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (q.include.imports) {
    // Sightline keeps no imported history yet: there is nothing to include.
    meta.imports_included = false;
    meta.imports_skip_reason = 'no_imported_data';
  }
  const time = q.grouped.find((d) => d.startsWith('time:'));
  if (q.include.time_labels && time) meta.time_labels = timeLabels(time, q.range);
  if (q.include.total_rows) meta.total_rows = total;
  return meta;
}

/** The query as the answer echoes it. */
function echoOf(q: V2Query): Record<string, unknown> {
  const include = Object.fromEntries(Object.entries(q.include).filter(([, v]) => v));
  return {
    site_id: q.siteId,
    metrics: q.metrics,
    date_range: q.range.echo,
    filters: q.asked,
    dimensions: q.dimensions,
    order_by: q.order,
    include,
    pagination: q.pagination,
  };
}

/** Asks the engine and answers as Plausible does; a range before the log's first date is a 400. */
export async function answerQuery(reader: Reader, q: V2Query): Promise<Record<string, unknown>> {
  const answers = await answer(reader, {
    from: q.range.from,
    to: q.range.to,
    ...(q.range.between ? { between: q.range.between } : {}),
    filters: q.filters,
    groups: [
      {
        dimensions: q.grouped,
        metrics: q.metrics,
        order: q.order,
        limit: q.pagination.limit,
        offset: q.pagination.offset,
      },
    ],
  });
  if (isUnavailable(answers))
    throw new QueryError(
      `Invalid date_range: the website's events are kept from ${answers.firstDate}; a question with filters or these dimensions must start then or later.`,
    );
  const [first] = answers;
  return {
    results: (first?.rows ?? []).map((row) => ({
      metrics: row.metrics,
      dimensions: row.dimensions,
    })),
    meta: metaOf(q, first?.total ?? 0),
    query: echoOf(q),
  };
}
