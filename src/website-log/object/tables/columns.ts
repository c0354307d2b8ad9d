/**
 * The columns of `log`, a website's event log (docs/ARCHITECTURE.md, "The event log"): the
 * one list the table, its upgrades, the row type, the statement that writes a row, the
 * engine's check of its SQL and the export's texts derive from. A new group of columns is
 * new entries here with the next schema version (./versions.ts adds them to older logs),
 * their values in `insertEvent` (./rows.ts: the compiler names what is missing) and,
 * for the export, their names there.
 */

type Column = {
  name: string;
  /** `text`: JSON; every other column is an integer. */
  type?: 'text';
  /** A value every row has (then `default` for rows written before the column was). */
  notNull?: true;
  default?: number;
  /** An id of `dict` (./dictionary.ts): the export writes its text under `exportAs`. */
  dict?: true;
  exportAs?: string;
  /** The schema version that added the column (./versions.ts); 6 made the table. */
  since: 6 | 7 | 8 | 10;
};

export const LOG_COLUMNS = [
  { name: 'id', notNull: true, since: 6 },
  /** 0 a page view, 1 a custom event. */
  { name: 'kind', notNull: true, since: 6 },
  { name: 'time', notNull: true, since: 6 },
  /** The local date, as days since 1970-01-01 (`dayNumber`). */
  { name: 'day', notNull: true, since: 6 },
  { name: 'hour', notNull: true, since: 6 },
  { name: 'visitor', notNull: true, since: 6 },
  { name: 'visit', notNull: true, since: 6 },
  /** 1: the visitor's first page view of the day; 2: the first of a visit; 3: both. */
  { name: 'firsts', notNull: true, since: 6 },
  { name: 'page', dict: true, exportAs: 'page', since: 6 },
  { name: 'event', dict: true, exportAs: 'label', since: 6 },
  { name: 'visit_views', since: 6 },
  { name: 'previous_page', dict: true, since: 6 },
  { name: 'visit_seconds', notNull: true, default: 0, since: 6 },
  { name: 'visit_hour', since: 6 },
  { name: 'landing', dict: true, exportAs: 'entry_page', since: 6 },
  { name: 'referrer', dict: true, exportAs: 'referrer', since: 6 },
  { name: 'campaign', dict: true, exportAs: 'utm_campaign', since: 6 },
  { name: 'visitor_hour', since: 6 },
  { name: 'country', dict: true, exportAs: 'country', since: 6 },
  { name: 'continent', dict: true, exportAs: 'continent', since: 6 },
  { name: 'city', dict: true, exportAs: 'city', since: 6 },
  { name: 'language', dict: true, exportAs: 'language', since: 6 },
  { name: 'browser', dict: true, exportAs: 'browser', since: 6 },
  { name: 'os', dict: true, exportAs: 'os', since: 6 },
  { name: 'device', dict: true, exportAs: 'device', since: 6 },
  { name: 'resolution', dict: true, exportAs: 'screen', since: 6 },
  // What the query engine's dimensions read beyond the roll-ups' (src/counting/query-dimensions.ts): the
  // page's host and the event's name; the visit's landing host, source, channel and UTM
  // tags; the visitor's browser and OS versions and region. Rows written before have none.
  { name: 'hostname', dict: true, exportAs: 'hostname', since: 7 },
  { name: 'name', dict: true, exportAs: 'name', since: 7 },
  { name: 'landing_host', dict: true, since: 7 },
  { name: 'source', dict: true, exportAs: 'source', since: 7 },
  { name: 'channel', dict: true, exportAs: 'channel', since: 7 },
  { name: 'utm_source', dict: true, exportAs: 'utm_source', since: 7 },
  { name: 'utm_medium', dict: true, exportAs: 'utm_medium', since: 7 },
  { name: 'utm_content', dict: true, exportAs: 'utm_content', since: 7 },
  { name: 'utm_term', dict: true, exportAs: 'utm_term', since: 7 },
  { name: 'browser_version', dict: true, exportAs: 'browser_version', since: 7 },
  { name: 'os_version', dict: true, exportAs: 'os_version', since: 7 },
  { name: 'region', dict: true, exportAs: 'region', since: 7 },
  // A hit's custom properties: `{"<name's id>": <value's id>}` of `dict`; a custom event's
  // revenue, in millionths of its currency.
  { name: 'props', type: 'text', since: 8 },
  { name: 'revenue', since: 8 },
  { name: 'currency', dict: true, exportAs: 'currency', since: 8 },
  // A page view's engagement (../write/engagement.ts): the milliseconds it was seen, visible and
  // focused; and, on the visit's first page view of its page, the deepest scroll of the
  // visit's views of that page, in percent. None before its first engagement.
  { name: 'engaged', since: 10 },
  { name: 'scroll', since: 10 },
] as const satisfies readonly Column[];

type Listed = (typeof LOG_COLUMNS)[number];

/** A column's name. */
export type LogColumn = Listed['name'];

/** A row of `log`: integers (texts as ids of `dict`), `props` as JSON; null where allowed. */
export type LogRow = {
  [C in Listed as C['name']]: C extends { notNull: true } ? ValueOf<C> : ValueOf<C> | null;
};
type ValueOf<C> = C extends { type: 'text' } ? string : number;

/** A column's definition in `CREATE TABLE` and `ADD COLUMN`. */
function definition(column: Column): string {
  if (column.name === 'id') return 'id INTEGER PRIMARY KEY';
  const type = column.type === 'text' ? 'TEXT' : 'INTEGER';
  const notNull = column.notNull ? ' NOT NULL' : '';
  const fallback = column.default === undefined ? '' : ` DEFAULT ${column.default}`;
  return `${column.name} ${type}${notNull}${fallback}`;
}

/** `CREATE TABLE log` with the columns up to schema version `version`. */
export function createLogTable(version: number, ifNotExists = false): string {
  const columns = (LOG_COLUMNS as readonly Column[]).filter((c) => c.since <= version);
  const create = ifNotExists ? 'CREATE TABLE IF NOT EXISTS' : 'CREATE TABLE';
  return `${create} log (\n  ${columns.map(definition).join(',\n  ')}\n);`;
}

/** The statements that add to `log` the columns schema version `version` added. */
export function addedLogColumns(version: number): string {
  return (LOG_COLUMNS as readonly Column[])
    .filter((c) => c.since === version)
    .map((c) => `ALTER TABLE log ADD COLUMN ${definition(c)};`)
    .join('\n');
}

/** The names of every column, for the engine's check of the SQL its registries write. */
export const LOG_COLUMN_NAMES: ReadonlySet<string> = new Set(LOG_COLUMNS.map((c) => c.name));

/** The columns of texts (ids of `dict`) the export writes, by the exported name. */
export const EXPORTED_TEXTS: ReadonlyArray<readonly [exported: string, column: LogColumn]> =
  LOG_COLUMNS.flatMap((c) => ('exportAs' in c ? [[c.exportAs, c.name] as const] : []));
