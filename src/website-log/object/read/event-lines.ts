/**
 * The event log as a file (docs/ARCHITECTURE.md, "Exports"): every stored page view and custom
 * event, oldest first, one line each — NDJSON or CSV — with the columns of `EVENT_COLUMNS`,
 * its texts read from the dictionary. Streamed: each piece is one statement of `PAGE` events
 * in the read lane, so that hits come between pieces as they do between a read's chunks, and
 * memory holds a piece, never the log.
 */
import { REVENUE_UNIT } from '../../../counting/query-metrics.ts';
import { csvLine } from '../../../lib/text/csv.ts';
import { dateOfDay, dayNumber } from '../../../lib/time/dates.ts';
import { EXPORTED_TEXTS } from '../tables/columns.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { LogDb } from '../tables/log-db.ts';
import type { ReadLane } from './lane.ts';

/** The columns of an exported event, in order (docs/GUIDE.md, "Take your data", documents each). */
export const EVENT_COLUMNS = [
  'id',
  'time',
  'date',
  'hour',
  'kind',
  'name',
  'label',
  'page',
  'hostname',
  'visitor',
  'visit',
  'new_visitor',
  'new_visit',
  'visit_views',
  'visit_seconds',
  'entry_page',
  'referrer',
  'source',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'country',
  'region',
  'city',
  'continent',
  'language',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'screen',
  'props',
  'revenue',
  'currency',
  'engaged_ms',
  'scroll',
] as const;

/** Events a piece reads. */
const PAGE = 5_000;

/** Places are kept as `code:name`: the export gives the code (a city, its name). */
const PLACE_CODES = new Set(['country', 'region', 'continent']);

type Row = Record<string, number | string | null>;

/** The local dates of an export, inclusive (null: all of them). */
export type ExportRange = { from: string; to: string } | null;

/**
 * The ids an export of `range` reads, from `days` (the runs of each local date's events):
 * the first of its dates' first run up to the last of their last — a date's events sit in
 * runs among the others' only for hits sent late, so the statement's `day` condition skips
 * few. Null: the log holds none of its dates.
 */
function idsOf(db: LogDb, range: ExportRange): { low: number; high: number } | null {
  if (!range) return { low: 0, high: Number.MAX_SAFE_INTEGER };
  const run = db.one<{ low: number | null; high: number | null }>(
    `SELECT min(d.first) AS low,
      max(coalesce((SELECT min(n.first) FROM days n WHERE n.first > d.first) - 1, ${Number.MAX_SAFE_INTEGER})) AS high
    FROM days d WHERE d.date BETWEEN ? AND ?`,
    range.from,
    range.to,
  );
  return run.low === null || run.high === null ? null : { low: run.low, high: run.high };
}

/** The events after `after`, up to `PAGE`, as records of `EVENT_COLUMNS`. */
function pieceOf(
  db: LogDb,
  dict: Dictionary,
  after: number,
  range: ExportRange,
  high: number,
): Row[] {
  const days = range ? [dayNumber(range.from), dayNumber(range.to)] : [0, Number.MAX_SAFE_INTEGER];
  const rows = db.rows<Record<string, number | string | null>>(
    `SELECT id, kind, time, day, hour, visitor, visit, firsts, visit_views, visit_seconds, props, revenue, engaged, scroll,
      ${EXPORTED_TEXTS.map(([, column]) => column).join(', ')}
    FROM log WHERE id > ? AND id <= ? AND day BETWEEN ? AND ? ORDER BY id LIMIT ?`,
    after,
    high,
    ...days,
    PAGE,
  );
  const ids = new Set<number>();
  const props = rows.map((row) => {
    for (const [, column] of EXPORTED_TEXTS) {
      const id = row[column];
      if (typeof id === 'number') ids.add(id);
    }
    const parsed = row.props ? (JSON.parse(String(row.props)) as Record<string, number>) : null;
    if (parsed)
      for (const [name, value] of Object.entries(parsed)) {
        ids.add(Number(name));
        ids.add(value);
      }
    return parsed;
  });
  const text = dict.decodeAll(ids);
  return rows.map((row, i) => {
    const out: Row = {
      id: row.id as number,
      time: new Date(row.time as number).toISOString(),
      date: dateOfDay(row.day as number),
      hour: row.hour as number,
      kind: row.kind === 1 ? 'event' : 'pageview',
      visitor: row.visitor as number,
      visit: row.visit as number,
      new_visitor: ((row.firsts as number) & 1) === 1 ? 1 : 0,
      new_visit: ((row.firsts as number) & 2) === 2 ? 1 : 0,
      visit_views: row.visit_views ?? null,
      visit_seconds: row.visit_seconds ?? 0,
      revenue: row.revenue === null ? null : (row.revenue as number) / REVENUE_UNIT,
      engaged_ms: row.engaged ?? null,
      scroll: row.scroll ?? null,
    };
    for (const [column, source] of EXPORTED_TEXTS) {
      const id = row[source];
      const value = typeof id === 'number' ? (text.get(id) ?? null) : null;
      out[column] =
        value !== null && PLACE_CODES.has(column)
          ? (value.split(':', 1)[0] ?? value)
          : column === 'city' && value !== null
            ? value.slice(value.indexOf(':') + 1)
            : value;
    }
    const p = props[i];
    out.props = p
      ? JSON.stringify(
          Object.fromEntries(
            Object.entries(p).map(([name, value]) => [
              text.get(Number(name)) ?? '',
              text.get(value) ?? '',
            ]),
          ),
        )
      : null;
    return out;
  });
}

/** One record as a line of its format. */
function lineOf(row: Row, format: 'ndjson' | 'csv'): string {
  if (format === 'ndjson') {
    const record: Record<string, unknown> = {};
    for (const column of EVENT_COLUMNS)
      record[column] =
        column === 'props' && row.props ? JSON.parse(String(row.props)) : row[column];
    return `${JSON.stringify(record)}\n`;
  }
  return csvLine(EVENT_COLUMNS.map((column) => row[column] ?? ''));
}

/**
 * The log's events of a range of local dates (null: all), as a stream of lines, oldest
 * first; a CSV starts with its header. Each piece is read when the stream's reader asks for
 * it, in the read lane.
 */
export function exportStream(
  db: LogDb,
  dict: Dictionary,
  lane: ReadLane,
  format: 'ndjson' | 'csv',
  hasTables: () => boolean,
  header = true,
  range: ExportRange = null,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  let high = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = '';
      if (!started) {
        started = true;
        if (format === 'csv' && header) text += csvLine([...EVENT_COLUMNS]);
        const ids = hasTables() ? await lane.run(() => idsOf(db, range)) : null;
        if (ids) [after, high] = [ids.low - 1, ids.high];
      }
      const piece =
        hasTables() && high > after
          ? await lane.run(() => pieceOf(db, dict, after, range, high))
          : [];
      for (const row of piece) text += lineOf(row, format);
      const last = piece[piece.length - 1];
      if (last) after = last.id as number;
      if (text !== '') controller.enqueue(encoder.encode(text));
      if (piece.length < PAGE) controller.close();
    },
  });
}
