/**
 * The `exclude_params` list: one query parameter name per line; a line `*` removes every
 * parameter. Blank lines and `#` lines are comments, as in `exclude_ips`.
 */
import { hasControlCharacter } from '../../lib/text/text.ts';
import { type LineListResult, validateLineList } from './line-list.ts';

const MAX_NAME = 255;

/** A name as it appears before `=` in a query string: no separators, no white space. */
function isParamName(entry: string): boolean {
  return (
    entry === '*' ||
    (entry.length <= MAX_NAME && !/[\s&=?#]/.test(entry) && !hasControlCharacter(entry))
  );
}

/** Validates an `exclude_params` text; on failure names the first bad line (1-based). */
export function validateParamList(text: string): LineListResult {
  return validateLineList(text, isParamName);
}
