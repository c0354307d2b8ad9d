/**
 * The event log's columns as Parquet types (docs/GUIDE.md, "Take your data"): the NDJSON
 * export's columns, in its order (src/website-log/object/read/event-lines.ts `EVENT_COLUMNS`,
 * which test/unit/parquet.test.ts holds them to), with the same meanings — timestamps as
 * timestamps, dates as dates, counts as integers, texts as UTF-8, the custom properties as
 * JSON — and how each is encoded: the texts of few values dictionary-encoded always, the
 * others when a dictionary pays (the writer decides), every page compressed (Snappy).
 */
import type { SchemaElement } from 'hyparquet-writer';

/** How a column's values are written, and from what the NDJSON line holds. */
type Kind = 'int64' | 'int32' | 'double' | 'timestamp' | 'date' | 'text' | 'few' | 'json';

/** The columns, in the export's order: `!` after a kind, never null. */
export const PARQUET_COLUMNS: [name: string, kind: `${Kind}${'' | '!'}`][] = [
  ['id', 'int64!'],
  ['time', 'timestamp!'],
  ['date', 'date!'],
  ['hour', 'int32!'],
  ['kind', 'few!'],
  ['name', 'text'],
  ['label', 'text'],
  ['page', 'text'],
  ['hostname', 'few'],
  ['visitor', 'int32'],
  ['visit', 'int32'],
  ['new_visitor', 'int32'],
  ['new_visit', 'int32'],
  ['visit_views', 'int32'],
  ['visit_seconds', 'int32'],
  ['entry_page', 'text'],
  ['referrer', 'text'],
  ['source', 'few'],
  ['channel', 'few'],
  ['utm_source', 'text'],
  ['utm_medium', 'few'],
  ['utm_campaign', 'text'],
  ['utm_content', 'text'],
  ['utm_term', 'text'],
  ['country', 'few'],
  ['region', 'few'],
  ['city', 'text'],
  ['continent', 'few'],
  ['language', 'few'],
  ['browser', 'few'],
  ['browser_version', 'few'],
  ['os', 'few'],
  ['os_version', 'few'],
  ['device', 'few'],
  ['screen', 'few'],
  ['props', 'json'],
  ['revenue', 'double'],
  ['currency', 'few'],
  ['engaged_ms', 'int64'],
  ['scroll', 'int32'],
];

/** A column's schema element. */
function elementOf(name: string, kind: Kind, required: boolean): SchemaElement {
  const repetition_type = required ? 'REQUIRED' : 'OPTIONAL';
  const base = { name, repetition_type } as const;
  switch (kind) {
    case 'int64':
      return { ...base, type: 'INT64' };
    case 'int32':
      return { ...base, type: 'INT32' };
    case 'double':
      return { ...base, type: 'DOUBLE' };
    case 'timestamp':
      return {
        ...base,
        type: 'INT64',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
    case 'date':
      return { ...base, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'json':
      return {
        ...base,
        type: 'BYTE_ARRAY',
        converted_type: 'JSON',
        logical_type: { type: 'JSON' },
      };
    default:
      return {
        ...base,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        logical_type: { type: 'STRING' },
      };
  }
}

/** The columns' kinds, by name, and whether each is never null. */
export const COLUMN_KINDS = PARQUET_COLUMNS.map(([name, spec]) => ({
  name,
  kind: spec.replace('!', '') as Kind,
  required: spec.endsWith('!'),
}));

/** The file's schema: its root, then each column. */
export const PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: PARQUET_COLUMNS.length },
  ...COLUMN_KINDS.map((c) => elementOf(c.name, c.kind, c.required)),
];

/** A day's milliseconds: a `date` column's value is days since 1970-01-01. */
const DAY_MS = 86_400_000;

/** A value of the NDJSON line as its column's Parquet value (null stays null). */
export function parquetValue(kind: Kind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'int64':
      return BigInt(value as number);
    case 'timestamp':
      return BigInt(Date.parse(value as string));
    case 'date':
      return Date.parse(value as string) / DAY_MS;
    case 'text':
    case 'few':
      return String(value);
    default:
      return value;
  }
}
