/**
 * Plausible's CSV export (its "Export to CSV" zip, or its CSV files one by one): ten tables
 * `imported_<table>_<YYYYMMDD>_<YYYYMMDD>.csv` (the `imported_` prefix optional), each row a
 * (date, value…) aggregate with counts, columns matched by their header's names. Each table
 * gives the statistics whose meaning it carries (docs/ARCHITECTURE.md, "Imported history"):
 *
 * | table | statistics (count) |
 * |---|---|
 * | visitors | visitors, pageviews, visits, bounces, visit_duration of the date |
 * | sources | referrer (the host of `referrer`), campaign (`utm_campaign`), by visits |
 * | pages | page, by page views |
 * | entry_pages, exit_pages | landing_page by entrances, exit_page by exits |
 * | custom_events | event, by events (`pageview` left out) |
 * | locations | country, by visitors (no continent; cities are GeoNames ids, left out) |
 * | devices, browsers, operating_systems | device, browser, os, by visitors |
 */
import { DEVICES, PLAUSIBLE_NAMES } from '../counting/query-dimensions.ts';
import { countryName } from '../ingest/steps/geo.ts';
import { isCalendarDate, MAX_DATE, MIN_DATE } from '../lib/time/dates.ts';
import {
  Columns,
  eventName,
  type FileHandler,
  type FormatReader,
  ImportError,
  type Tally,
} from './format.ts';

/** The tables of Plausible's export, by the name in their file's name. */
const PLAUSIBLE_TABLES = [
  'visitors',
  'sources',
  'pages',
  'entry_pages',
  'exit_pages',
  'custom_events',
  'locations',
  'devices',
  'browsers',
  'operating_systems',
] as const;

type Table = (typeof PLAUSIBLE_TABLES)[number];

/**
 * `imported_pages_20240101_20240131.csv` → its table and dates (written as dates, maybe not
 * real ones: `plausibleReader` checks them); null when it is not one.
 */
function plausibleFileName(name: string): { table: Table; from: string; to: string } | null {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const match = /^(?:imported_)?([a-z_]+)_(\d{4})(\d{2})(\d{2})_(\d{4})(\d{2})(\d{2})\.csv$/.exec(
    base,
  );
  if (!match || !(PLAUSIBLE_TABLES as readonly string[]).includes(match[1] as string)) return null;
  const [, table, y1, m1, d1, y2, m2, d2] = match;
  return { table: table as Table, from: `${y1}-${m1}-${d1}`, to: `${y2}-${m2}-${d2}` };
}

/** A stored text of Sightline's for one of Plausible's names (`Mac` → `macOS`). */
const ownNames = new Map(
  [...PLAUSIBLE_NAMES].flatMap(([own, theirs]) => (theirs ? [[theirs, own] as const] : [])),
);
const ownDevices = new Map([...DEVICES].map(([own, theirs]) => [theirs.toLowerCase(), own]));

/** A browser's or system's name as Sightline keeps it; `(not set)` is `Unknown`. */
const ownName = (name: string) =>
  name === '' || name === '(not set)' ? 'Unknown' : (ownNames.get(name) ?? name);

/** Plausible's device (screen size) as Sightline's; a laptop is a desktop. */
const ownDevice = (device: string) => {
  const key = device.toLowerCase();
  if (key === 'laptop') return 'desktop';
  if (key === '' || key === '(not set)') return 'Unknown';
  return ownDevices.get(key) ?? device;
};

/** The host of a referrer as Plausible writes it (a URL without its scheme). */
export const referrerHost = (referrer: string) =>
  referrer
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split(/[/?#]/, 1)[0]
    ?.toLowerCase() ?? '';

type RowReader = (cols: Columns, cells: string[], line: number, add: Adder, date: string) => void;
type Adder = (name: string, value: string, count: number) => void;

const TABLES: Record<Table, RowReader> = {
  visitors: (cols, cells, line, add, date) => {
    // Their values are the date (src/counting/statistics.ts, `TIME_VALUED`).
    for (const name of ['visitors', 'pageviews', 'visits', 'bounces', 'visit_duration'])
      add(name, date, cols.count(cells, line, name));
  },
  sources: (cols, cells, line, add) => {
    const visits = cols.count(cells, line, 'visits');
    add('referrer', referrerHost(cols.text(cells, 'referrer')), visits);
    add('campaign', cols.text(cells, 'utm_campaign'), visits);
  },
  pages: (cols, cells, line, add) =>
    add('page', cols.text(cells, 'page'), cols.count(cells, line, 'pageviews')),
  entry_pages: (cols, cells, line, add) =>
    add('landing_page', cols.text(cells, 'entry_page'), cols.count(cells, line, 'entrances')),
  exit_pages: (cols, cells, line, add) =>
    add('exit_page', cols.text(cells, 'exit_page'), cols.count(cells, line, 'exits')),
  custom_events: (cols, cells, line, add) => {
    const name = cols.text(cells, 'name');
    if (name === 'pageview') return;
    add(
      'event',
      eventName({ file: cols.file, line, column: 'name' }, name),
      cols.count(cells, line, 'events'),
    );
  },
  locations: (cols, cells, line, add) => {
    const code = cols.text(cells, 'country').toUpperCase();
    if (!/^[A-Z][A-Z0-9]$/.test(code) || code === 'ZZ' || code === 'XX') return;
    add('country', `${code}:${countryName(code)}`, cols.count(cells, line, 'visitors'));
  },
  devices: (cols, cells, line, add) =>
    add('device', ownDevice(cols.text(cells, 'device')), cols.count(cells, line, 'visitors')),
  browsers: (cols, cells, line, add) =>
    add('browser', ownName(cols.text(cells, 'browser')), cols.count(cells, line, 'visitors')),
  operating_systems: (cols, cells, line, add) =>
    add('os', ownName(cols.text(cells, 'operating_system')), cols.count(cells, line, 'visitors')),
};

/** The statistics each table gives (the table in this file's comment). */
const TABLE_STATISTICS: Record<Table, string[]> = {
  visitors: ['visitors', 'pageviews', 'visits', 'bounces', 'visit_duration'],
  sources: ['referrer', 'campaign'],
  pages: ['page'],
  entry_pages: ['landing_page'],
  exit_pages: ['exit_page'],
  custom_events: ['event'],
  locations: ['country'],
  devices: ['device'],
  browsers: ['browser'],
  operating_systems: ['os'],
};

/** The column each table must have besides `date`: what it counts by. */
const KEY_COLUMN: Partial<Record<Table, string>> = {
  pages: 'page',
  entry_pages: 'entry_page',
  exit_pages: 'exit_page',
  custom_events: 'name',
  locations: 'country',
  devices: 'device',
  browsers: 'browser',
  operating_systems: 'operating_system',
};

/** The reader of Plausible's export into a tally. */
export function plausibleReader(tally: Tally): FormatReader {
  let from: string | null = null;
  let to: string | null = null;
  const tables = new Set<Table>();
  return {
    file(name): FileHandler {
      const named = plausibleFileName(name);
      if (!named)
        throw new ImportError(
          name,
          null,
          null,
          "not a file of Plausible's export: its name must be <table>_<YYYYMMDD>_<YYYYMMDD>.csv, the table one of " +
            PLAUSIBLE_TABLES.join(', '),
        );
      if (!isCalendarDate(named.from) || !isCalendarDate(named.to))
        throw new ImportError(
          name,
          null,
          null,
          `its name's dates must be real dates from ${MIN_DATE} to ${MAX_DATE} (YYYYMMDD)`,
        );
      if (named.from > named.to)
        throw new ImportError(name, null, null, 'the dates in its name end before they start');
      tables.add(named.table);
      from = from === null || named.from < from ? named.from : from;
      to = to === null || named.to > to ? named.to : to;
      let cols: Columns | undefined;
      return {
        header(cells) {
          cols = new Columns(name, cells);
          cols.required('date');
          const key = KEY_COLUMN[named.table];
          if (key) cols.required(key);
        },
        record(cells, line) {
          const c = cols as Columns;
          const date = c.date(cells, line, 'date');
          // Rows outside the dates of its name are left out, as Plausible's importer does.
          if (date < named.from || date > named.to) return;
          TABLES[named.table](
            c,
            cells,
            line,
            (stat, value, count) => tally.add(stat, date, value, count),
            date,
          );
        },
      };
    },
    finish() {},
    declared: () => (from !== null && to !== null ? { from, to } : null),
    statistics: () => [...tables].flatMap((t) => TABLE_STATISTICS[t]),
  };
}
