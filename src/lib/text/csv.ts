/**
 * CSV (RFC 4180, CRLF line ends): files people open in spreadsheets, which read them safely
 * (`csvLine`, `csvFile`), and data files other tools import, which keep every value exactly
 * (`dataLine`).
 */

/** A cell, quoted when needed. */
const quoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** A cell: quoted when needed; formulas neutralised (a leading `'`) so spreadsheets never run them. */
function csvCell(value: string | number): string {
  const text = String(value);
  return quoted(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
}

/** One line of a file opened in spreadsheets, with its line break. */
export function csvLine(row: (string | number)[]): string {
  return `${row.map(csvCell).join(',')}\r\n`;
}

/**
 * One line of a data file that other tools import (Plausible's export), with its line break:
 * every value exactly as it is, quoted when needed — never neutralised, so that `+sale` comes
 * back `+sale` from an export and an import.
 */
export function dataLine(row: (string | number)[]): string {
  return `${row.map((value) => quoted(String(value))).join(',')}\r\n`;
}

/** A whole file: a header line, then a line per row. */
export function csvFile(header: string[], rows: (string | number)[][]): string {
  return [header, ...rows].map(csvLine).join('');
}

/** A record of a CSV file read: its cells and the line it starts on (from 1). */
export type CsvRecord = { line: number; cells: string[] };

/** The most characters one record may hold: a longer one is not a CSV of ours to read. */
const MAX_RECORD = 64 * 1024;

/**
 * The most characters read without a record (blank lines, a record being read): more is no
 * CSV either, and stops a compressed bomb of line breaks early.
 */
const MAX_GAP = 1024 * 1024;

/**
 * Reads CSV as it arrives (RFC 4180, as Go's `encoding/csv` and ClickHouse write it): text
 * pushed in pieces of any size, records taken out as soon as they end. Quoted cells may hold
 * commas, quotes (`""`) and line breaks; a line ends with LF or CRLF; a byte-order mark at the
 * start is skipped; a blank line is no record. A malformed record throws `CsvError` with its
 * line, and so do a record longer than `MAX_RECORD` and `MAX_GAP` characters without one.
 * Memory holds one record, whatever the file's size.
 */
export class CsvReader {
  private cells: string[] = [];
  private cell = '';
  private quoted = false;
  /** In a quoted cell. */
  private inQuotes = false;
  /** A quote just closed a quoted cell (or is the first of `""`). */
  private afterQuote = false;
  private line = 1;
  private recordLine = 1;
  private size = 0;
  /** Characters since the last record. */
  private gap = 0;
  private started = false;
  private lastWasCr = false;
  /** The line the last quoted cell opened on. */
  private quoteLine = 1;

  /** The records that end within `text`. */
  push(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (!this.started) {
        this.started = true;
        if (ch === '\uFEFF') continue;
      }
      if (++this.size > MAX_RECORD)
        throw new CsvError(this.recordLine, `a record longer than ${MAX_RECORD} characters`);
      if (++this.gap > MAX_GAP)
        throw new CsvError(this.line, `${MAX_GAP} characters without a record`);
      if (this.inQuotes) {
        if (ch === '"') {
          this.inQuotes = false;
          this.afterQuote = true;
        } else {
          if (ch === '\n') this.line++;
          this.cell += ch;
        }
        continue;
      }
      if (this.afterQuote) {
        this.afterQuote = false;
        if (ch === '"') {
          this.cell += '"';
          this.inQuotes = true;
          continue;
        }
        if (ch !== ',' && ch !== '\n' && ch !== '\r')
          throw new CsvError(
            this.line,
            this.quoteLine < this.line
              ? `a character after the closing quote of a cell opened on line ${this.quoteLine} (a quote left open there?)`
              : 'a character after the closing quote of a cell',
          );
      }
      if (ch === '"') {
        if (this.cell !== '' || this.quoted)
          throw new CsvError(this.line, 'a quote inside an unquoted cell');
        this.quoted = true;
        this.inQuotes = true;
        this.quoteLine = this.line;
      } else if (ch === ',') this.endCell();
      else if (ch === '\r') this.lastWasCr = true;
      else if (ch === '\n') {
        this.endRecord(out);
        this.line++;
        this.recordLine = this.line;
      } else {
        if (this.lastWasCr) throw new CsvError(this.line, 'a carriage return inside a line');
        this.cell += ch;
      }
      if (ch !== '\r') this.lastWasCr = false;
    }
    return out;
  }

  /** The last record, when the text does not end with a line break. */
  end(): CsvRecord[] {
    if (this.inQuotes) throw new CsvError(this.quoteLine, 'a quoted cell that never ends');
    const out: CsvRecord[] = [];
    this.endRecord(out);
    return out;
  }

  private endCell() {
    this.cells.push(this.cell);
    this.cell = '';
    this.quoted = false;
  }

  private endRecord(out: CsvRecord[]) {
    const blank = this.cells.length === 0 && this.cell === '' && !this.quoted;
    if (!blank) {
      this.endCell();
      out.push({ line: this.recordLine, cells: this.cells });
      this.gap = 0;
    }
    this.cells = [];
    this.cell = '';
    this.quoted = false;
    this.size = 0;
  }
}

/** A CSV that cannot be read, at a line. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}
