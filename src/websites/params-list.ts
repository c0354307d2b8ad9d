/**
 * The `exclude_params` list: one query parameter name per line; a line `*` removes every
 * parameter. Blank lines and `#` lines are comments, as in `exclude_ips`.
 */
import { hasControlCharacter } from '../lib/text.ts';

export type ParamListResult =
  | { ok: true; text: string }
  | { ok: false; line: number; entry: string };

const MAX_NAME = 255;

/** Validates an `exclude_params` text; on failure names the first bad line (1-based). */
export function validateParamList(text: string): ParamListResult {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trim());
  for (const [i, line] of lines.entries()) {
    if (line === '' || line.startsWith('#') || line === '*') continue;
    // A name as it appears before `=` in a query string: no separators, no white space.
    if (line.length > MAX_NAME || /[\s&=?#]/.test(line) || hasControlCharacter(line)) {
      return { ok: false, line: i + 1, entry: line };
    }
  }
  return { ok: true, text: lines.join('\n').trim() };
}
