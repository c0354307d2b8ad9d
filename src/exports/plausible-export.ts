/**
 * A website's numbers in the format of Plausible's CSV export (docs/ARCHITECTURE.md,
 * "Exports"): a zip, its entries stored uncompressed as Plausible's are, of the ten tables
 * `imported_<table>_<first>_<last>.csv` (first and last: the website's first and last dates
 * with events), their columns in Plausible's order, a row per (date, value…), by date — so
 * that Plausible, Sightline and every tool that reads Plausible's export can import it.
 *
 * Each table is one grouping of the query engine by date and its values, of the website's own
 * events (imported history left out, as Plausible's export leaves it out), asked a month at
 * a time — the ten groupings of a month in one read of the log — so memory holds a month's
 * rows. With `EVENT_RETENTION_DAYS`, the export starts at the first date the log
 * holds whole. A data file, not a spreadsheet's: its values are written exactly as they are
 * (`dataLine`), formulas or not, so that a round trip gives them back.
 */
import { Zip, ZipPassThrough } from 'fflate';
import type { GroupQuery } from '../counting/query.ts';
import { dataLine } from '../lib/text/csv.ts';
import { addDays, earlierDate } from '../lib/time/dates.ts';
import { answer, isUnavailable, type Reader } from '../query/run/reader.ts';

/** A table: its name, the engine's dimensions after the date, its metrics, its columns. */
type Table = {
  table: string;
  dimensions: string[];
  metrics: string[];
  /** The header; a row is the date, the dimensions' values as `cells` makes them, the metrics. */
  columns: string[];
  /** The cells of a row's values, or null to leave the row out. */
  cells?: (values: string[]) => (string | number)[] | null;
};

const SESSION = ['visitors', 'visits', 'sl:duration', 'sl:bounces', 'pageviews'];
const SESSION_COLUMNS = ['visitors', 'visits', 'visit_duration', 'bounces', 'pageviews'];
/** `(not set)` and `Direct / None` are no value in Plausible's tables. */
const plain = (value: string) => (value === '(not set)' || value === 'Direct / None' ? '' : value);

const TABLES: Table[] = [
  {
    table: 'visitors',
    dimensions: [],
    metrics: ['visitors', 'pageviews', 'sl:bounces', 'visits', 'sl:duration'],
    columns: ['date', 'visitors', 'pageviews', 'bounces', 'visits', 'visit_duration'],
  },
  {
    table: 'sources',
    dimensions: [
      'visit:source',
      'visit:referrer',
      'visit:utm_source',
      'visit:utm_medium',
      'visit:utm_campaign',
      'visit:utm_content',
      'visit:utm_term',
    ],
    metrics: ['pageviews', 'visitors', 'visits', 'sl:duration', 'sl:bounces'],
    columns: [
      'date',
      'source',
      'referrer',
      'utm_source',
      'utm_medium',
      'utm_campaign',
      'utm_content',
      'utm_term',
      'pageviews',
      'visitors',
      'visits',
      'visit_duration',
      'bounces',
    ],
    cells: (values) => values.map(plain),
  },
  {
    table: 'pages',
    dimensions: ['event:hostname', 'event:page'],
    // Engagement as Plausible's export sums it: the visits' deepest scrolls and the visits
    // that sent one; the seconds seen, over the page's visitors (Sightline's time on page).
    metrics: [
      'visits',
      'visitors',
      'pageviews',
      'sl:scroll_sum',
      'sl:scroll_visits',
      'sl:engaged_seconds',
      'visitors',
    ],
    columns: [
      'date',
      'hostname',
      'page',
      'visits',
      'visitors',
      'pageviews',
      'total_scroll_depth',
      'total_scroll_depth_visits',
      'total_time_on_page',
      'total_time_on_page_visits',
    ],
    cells: ([host = '', page = '']) => [plain(host), page],
  },
  {
    table: 'entry_pages',
    dimensions: ['visit:entry_page'],
    metrics: ['visitors', 'visits', 'sl:duration', 'sl:bounces', 'pageviews'],
    columns: [
      'date',
      'entry_page',
      'visitors',
      'entrances',
      'visit_duration',
      'bounces',
      'pageviews',
    ],
  },
  {
    table: 'exit_pages',
    dimensions: ['visit:exit_page'],
    metrics: ['visitors', 'sl:duration', 'visits', 'sl:bounces', 'pageviews'],
    columns: ['date', 'exit_page', 'visitors', 'visit_duration', 'exits', 'bounces', 'pageviews'],
  },
  {
    table: 'custom_events',
    dimensions: ['event:name'],
    metrics: ['visitors', 'events'],
    columns: ['date', 'name', 'link_url', 'path', 'visitors', 'events'],
    cells: ([name = '']) => (name === 'pageview' ? null : [name, '', '']),
  },
  {
    table: 'locations',
    dimensions: ['visit:country', 'visit:region'],
    metrics: SESSION,
    columns: ['date', 'country', 'region', 'city', ...SESSION_COLUMNS],
    cells: ([country = '', region = '']) =>
      plain(country) === '' ? null : [country, plain(region), 0],
  },
  {
    table: 'devices',
    dimensions: ['visit:device'],
    metrics: SESSION,
    columns: ['date', 'device', ...SESSION_COLUMNS],
  },
  {
    table: 'browsers',
    dimensions: ['visit:browser', 'visit:browser_version'],
    metrics: SESSION,
    columns: ['date', 'browser', 'browser_version', ...SESSION_COLUMNS],
    cells: ([browser = '', version = '']) => [browser, plain(version)],
  },
  {
    table: 'operating_systems',
    dimensions: ['visit:os', 'visit:os_version'],
    metrics: SESSION,
    columns: ['date', 'operating_system', 'operating_system_version', ...SESSION_COLUMNS],
    cells: ([os = '', version = '']) => [os, plain(version)],
  },
];

/** Days a question of the export covers (a month: a busy website's year of pages, with their
 * engagement's sums, passed an isolate's memory asked a quarter at a time). */
const PIECE_DAYS = 31;

/** The most rows one question may have (a month of a busy website's pages). */
const PIECE_ROWS = 5_000_000;

const compact = (date: string) => date.replaceAll('-', '');

/** The zip's file name: `example_com_20261125.zip` (`today` as `YYYYMMDD`). */
export const plausibleZipName = (domain: string, today: string) =>
  `${domain.replaceAll('.', '_')}_${today}.zip`;

/** One table's rows over a piece of the range, as CSV lines. */
async function tableRows(reader: Reader, t: Table, range: { from: string; to: string }) {
  const group: GroupQuery = {
    dimensions: ['time:day', ...t.dimensions],
    metrics: t.metrics,
    order: [['time:day', 'asc']],
    limit: PIECE_ROWS,
    offset: 0,
  };
  const answers = await answer(reader, { ...range, filters: [], groups: [group] });
  if (isUnavailable(answers)) throw new Error(`the log holds events from ${answers.firstDate}`);
  let text = '';
  for (const row of answers[0]?.rows ?? []) {
    const [date = '', ...values] = row.dimensions;
    const cells = t.cells ? t.cells(values) : values;
    if (cells === null || row.metrics.every((m) => !m)) continue;
    text += dataLine([date, ...cells, ...row.metrics.map((m) => m ?? 0)]);
  }
  return text;
}

/** The first date of a range the log holds whole (a range starts later under retention). */
async function heldFrom(reader: Reader, range: { from: string; to: string }): Promise<string> {
  // Two dimensions: a grouping only the log answers (the roll-ups would answer one).
  const probe: GroupQuery = {
    dimensions: ['event:hostname', 'event:page'],
    metrics: ['pageviews'],
    order: [],
    limit: 1,
    offset: 0,
  };
  const answers = await answer(reader, {
    from: range.from,
    to: range.from,
    filters: [],
    groups: [probe],
  });
  return isUnavailable(answers) && answers.firstDate > range.from ? answers.firstDate : range.from;
}

/** The zip's bytes, table after table, a piece of the range at a time. */
async function* zipBytes(
  reader: Reader,
  range: { from: string; to: string } | null,
  today: string,
): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    out.push(chunk);
  });
  const encoder = new TextEncoder();
  // Without events of its own, ten empty tables of today (names Plausible's importer reads).
  const from = range ? await heldFrom(reader, range) : today;
  const to = range?.to ?? today;
  for (const t of TABLES) {
    const name = `imported_${t.table}_${compact(from)}_${compact(to)}.csv`;
    const file = new ZipPassThrough(name);
    zip.add(file);
    file.push(encoder.encode(dataLine(t.columns)));
    for (let at = from; range && at <= range.to; at = addDays(at, PIECE_DAYS)) {
      const end = addDays(at, PIECE_DAYS - 1);
      file.push(
        encoder.encode(await tableRows(reader, t, { from: at, to: earlierDate(end, range.to) })),
      );
      yield* out.splice(0);
    }
    file.push(new Uint8Array(0), true);
    yield* out.splice(0);
  }
  zip.end();
  yield* out.splice(0);
}

/**
 * The zip of a website's own numbers over `range` (its first to last date with events; null:
 * none: ten empty tables of `today`, `YYYY-MM-DD`), streamed: each piece read when the
 * stream's reader asks for more. The reader must leave imported history out
 * (`readerOf(…, { imports: false })`).
 */
export function plausibleExport(
  reader: Reader,
  range: { from: string; to: string } | null,
  today: string,
): ReadableStream<Uint8Array> {
  return streamOf(zipBytes(reader, range, today));
}

/** A stream that pulls from an async iterator. */
function streamOf(chunks: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}
