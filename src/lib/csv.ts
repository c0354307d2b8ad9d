/** CSV as spreadsheets read it safely (RFC 4180, CRLF line ends). */

/** A cell: quoted when needed; formulas neutralised (a leading `'`) so spreadsheets never run them. */
function csvCell(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A whole file: a header line, then a line per row. */
export function csvFile(header: string[], rows: (string | number)[][]): string {
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
