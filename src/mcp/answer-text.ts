/**
 * A tool's answer as text an assistant reads well (./tools.ts): lists of records as tables,
 * one row per line, and the Stats API v2's rows with their dimensions and metrics named; any
 * other value as indented JSON. The same figures are the result's structured content.
 */

type Row = Record<string, unknown>;

const cell = (value: unknown): string =>
  value === null || value === undefined
    ? '–'
    : typeof value === 'object'
      ? Array.isArray(value)
        ? value.map(cell).join(' → ')
        : JSON.stringify(value)
      : String(value);

/** Records as a table: a header of their keys, then a row each. */
function table(rows: Row[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = rows.map((r) => `| ${keys.map((k) => cell(r[k])).join(' | ')} |`);
  return [`| ${keys.join(' | ')} |`, `|${keys.map(() => '---').join('|')}|`, ...lines].join('\n');
}

const isRecordList = (value: unknown): value is Row[] =>
  Array.isArray(value) &&
  value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));

/** The Stats API v2's answer: each result's dimensions and metrics under their names. */
function v2Text(answer: Row): string {
  const query = (answer.query ?? {}) as { metrics?: string[]; dimensions?: string[] };
  const results = answer.results as { metrics: unknown[]; dimensions: unknown[] }[];
  const rows = results.map((r) =>
    Object.fromEntries([
      ...(query.dimensions ?? []).map((d, i) => [d, r.dimensions[i]]),
      ...(query.metrics ?? []).map((m, i) => [m, r.metrics[i]]),
    ]),
  );
  const meta = answer.meta ? `\n\nmeta: ${JSON.stringify(answer.meta)}` : '';
  const range = (answer.query as { date_range?: unknown[] } | undefined)?.date_range;
  const head = range ? `date_range: ${cell(range)}\n\n` : '';
  return `${head}${rows.length ? table(rows) : 'No rows.'}${meta}`;
}

/** An answer as text. */
export function answerText(answer: Row): string {
  if (Array.isArray(answer.results)) return v2Text(answer);
  return Object.entries(answer)
    .map(([key, value]) =>
      isRecordList(value)
        ? `${key}:\n${value.length ? table(value) : '(none)'}`
        : `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : cell(value)}`,
    )
    .join('\n\n');
}
