/**
 * What every import format shares: the roll-up rows its files add up to (`Tally`), a
 * record's cells read by their header's names (`Columns`), the bounds of what an import
 * holds, and the error that names the file, the line and the column a malformed file went
 * wrong at.
 */
import { type Increment, storedEventName } from '../counting/statistics.ts';
import { asUrlPath, hasControlCharacter, withoutControlCharacters } from '../lib/text/text.ts';
import { isCalendarDate, localDateHour, MAX_DATE, MIN_DATE } from '../lib/time/dates.ts';

/** A malformed file: where (file, line from 1, column by its header's name) and what. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly column: string | null,
    readonly reason: string,
  ) {
    super(
      `${file}${line === null ? '' : `, line ${line}`}${column === null ? '' : `, column "${column}"`}: ${reason}`,
    );
  }
}

/** The longest value a roll-up keeps (as pages are stored: src/ingest/steps/page.ts). */
const MAX_VALUE = 255;

/** A value as a roll-up keeps it: its first `MAX_VALUE` characters. */
export const keptValue = (value: string) =>
  value.length > MAX_VALUE ? value.slice(0, MAX_VALUE) : value;

/**
 * The largest count an import holds, in a row of a file and summed per (statistic, date,
 * value): a trillion, more than any website's day (docs/ARCHITECTURE.md, "Imported
 * history"). So a value's sum over every date Sightline takes (2,932,532 days) stays under
 * 2.94 × 10^18, a third of D1's largest integer, whatever the website's own counts add, and
 * over the longest range a question asks (3,660 days) under 2^53, exact as a JavaScript
 * number; sums across values are read as floats, which never overflow (src/rollups/sums.ts
 * `rollupSums`).
 */
export const MAX_COUNT = 1_000_000_000_000;

/** What a count past `MAX_COUNT` is told. */
export const PAST_MAX_COUNT = `more than ${MAX_COUNT.toLocaleString('en-US')}, more than any website's day holds`;

/** Counts of one (statistic, date, value) that add up past `MAX_COUNT`; the caller names where. */
export class CountTooLarge extends Error {}

/** Statistics whose values are pages (a path and its query). */
const PAGE_STATISTICS = new Set(['page', 'landing_page', 'exit_page']);

/**
 * A text as a hit would have left it: a page as the URL of a hit's page keeps it (tabs and
 * line breaks dropped, other control characters percent-escaped), any other text with each
 * run of control characters made one space. (Event names with one are refused, as a hit's
 * are: `eventName`.)
 */
function cleaned(name: string, value: string): string {
  if (!hasControlCharacter(value)) return value;
  return PAGE_STATISTICS.has(name) ? asUrlPath(value) : withoutControlCharacters(value).trim();
}

/**
 * The roll-up rows an import adds, summed per (statistic, date, value) until `take` hands
 * them on to be written (the caller takes them once `size` is large), and the range of
 * dates they cover.
 */
export class Tally {
  private rows = new Map<string, Increment>();
  from: string | null = null;
  to: string | null = null;
  /** The values added (a record's counts, each of a statistic): what the rows written are per. */
  values = 0;

  /** Adds a count; throws `CountTooLarge` when its (statistic, date, value) adds up past `MAX_COUNT`. */
  add(name: string, date: string, value: string, count: number): void {
    const text = cleaned(name, value);
    if (count === 0 || text === '') return;
    this.values++;
    const kept = keptValue(text);
    const key = `${name}\u0000${date}\u0000${kept}`;
    const row = this.rows.get(key);
    const sum = (row?.[3] ?? 0) + count;
    if (sum > MAX_COUNT)
      throw new CountTooLarge(
        `the counts of ${name} "${kept.slice(0, 40)}" on ${date} add up to ${PAST_MAX_COUNT}`,
      );
    if (row) row[3] = sum;
    else this.rows.set(key, [name, date, kept, count]);
    if (this.from === null || date < this.from) this.from = date;
    if (this.to === null || date > this.to) this.to = date;
  }

  get size(): number {
    return this.rows.size;
  }

  /** The rows summed so far, which the tally forgets. */
  take(): Increment[] {
    const rows = [...this.rows.values()];
    this.rows.clear();
    return rows;
  }
}

/** A file's records, read by the names its header gives its columns. */
export class Columns {
  private readonly at: Map<string, number>;

  constructor(
    readonly file: string,
    header: string[],
  ) {
    this.at = new Map(header.map((name, i) => [name.trim().toLowerCase(), i]));
  }

  has(name: string): boolean {
    return this.at.has(name);
  }

  /** The index of a column the file must have. */
  required(name: string): number {
    const i = this.at.get(name);
    if (i === undefined) throw new ImportError(this.file, 1, name, 'the header has no such column');
    return i;
  }

  /** A cell by its column's name ('' when the file has no such column). */
  text(cells: string[], name: string): string {
    const i = this.at.get(name);
    return i === undefined ? '' : (cells[i] ?? '').trim();
  }

  /** A count: a whole number from 0 (0 when the file has no such column or the cell is empty). */
  count(cells: string[], line: number, name: string): number {
    const text = this.text(cells, name);
    if (text === '') return 0;
    if (!/^\d{1,15}$/.test(text))
      throw new ImportError(this.file, line, name, `not a whole number: "${text.slice(0, 40)}"`);
    const count = Number(text);
    if (count > MAX_COUNT)
      throw new ImportError(this.file, line, name, `${text} is ${PAST_MAX_COUNT}`);
    return count;
  }

  /** A date `YYYY-MM-DD`. */
  date(cells: string[], line: number, name: string): string {
    const text = this.text(cells, name);
    if (!isCalendarDate(text) || text < MIN_DATE || text > MAX_DATE)
      throw new ImportError(
        this.file,
        line,
        name,
        `not a date (YYYY-MM-DD): "${text.slice(0, 40)}"`,
      );
    return text;
  }
}

/**
 * An instant written `YYYY-MM-DD HH:MM[:SS[.fff]]` (or with `T`), UTC unless it names its
 * offset (`Z`, `+02:00`, Postgres' `+00`), as milliseconds; NaN unless every part is a real
 * date and time (2024-02-30 is not one: `Date.parse` would make it March 1st).
 */
export function instantOf(text: string): number {
  const m =
    /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
      text.trim(),
    );
  if (!m) return Number.NaN;
  const [, date = '', hour = '', minute = '', second = '00', fraction = '', zone = 'Z'] = m;
  if (!isCalendarDate(date) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59)
    return Number.NaN;
  const offset = /^[+-]\d{2}$/.test(zone)
    ? `${zone}:00`
    : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  return Date.parse(
    `${date}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset.toUpperCase()}`,
  );
}

/**
 * A custom event's name of a record, as the log keeps it (`storedEventName`); a name with a
 * control character (a line break, a tab…) is refused, as a hit's is (src/ingest/payload.ts).
 */
export function eventName(
  cell: { file: string; line: number; column: string },
  text: string,
): string {
  if (hasControlCharacter(text))
    throw new ImportError(
      cell.file,
      cell.line,
      cell.column,
      `an event name with a control character (a line break, a tab…), which a hit may not have either: ${JSON.stringify(text.slice(0, 40))}`,
    );
  return storedEventName(text);
}

/** Instants whose date is within the bounds in any time zone: the second date to the last but one. */
const WITHIN_FROM = Date.parse(`${MIN_DATE}T00:00:00Z`) + 86_400_000;
const WITHIN_TO = Date.parse(`${MAX_DATE}T00:00:00Z`);

/**
 * Checks that an instant of a record (`instantOf` of `text`, its cell) falls on a date
 * Sightline takes in the website's time zone, as every date of the API: a time of 1970-01-01
 * is still 1969 west of Greenwich. An `ImportError` naming the cell otherwise.
 */
export function checkLocalDate(
  cell: { file: string; line: number; column: string; text: string },
  at: number,
  timeZone: string,
): void {
  // A time zone is less than a day from UTC: only the first and last dates can fall outside.
  if (at >= WITHIN_FROM && at < WITHIN_TO) return;
  const { date } = localDateHour(at, timeZone);
  if (date < MIN_DATE || date > MAX_DATE)
    throw new ImportError(
      cell.file,
      cell.line,
      cell.column,
      `"${cell.text.slice(0, 40)}" is ${date} in the website's time zone (${timeZone}): dates are from ${MIN_DATE} to ${MAX_DATE}`,
    );
}

/** The reader of one import format: a handler per file, and what only the whole import gives. */
export type FormatReader = {
  /** The handler of a file, or an `ImportError` when the format has no such file. */
  file(name: string): FileHandler;
  /** Called once every file has been read, before the rows are written for the last time. */
  finish(): void | Promise<void>;
  /** The range the files say they cover (Plausible's file names), if they do. */
  declared(): { from: string; to: string } | null;
  /**
   * The statistics the files carry, found in them or not (an empty table of Plausible's says
   * there was nothing): for its dates, the import replaces older imports of these only.
   */
  statistics(): string[];
};

export type FileHandler = {
  /** The file's first record. */
  header(cells: string[]): void;
  /** Each record after it, with its line. */
  record(cells: string[], line: number): void;
};
