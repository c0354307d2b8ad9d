/**
 * The one-entry-per-line lists of a website (`exclude_ips`, `exclude_params`): blank lines
 * and lines starting with `#` are comments; entries are trimmed.
 */
export type LineListResult =
  | { ok: true; text: string }
  | { ok: false; line: number; entry: string };

/** The entries of a list, comments and blank lines left out. */
export function listEntries(text: string): string[] {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * Validates every entry; returns the text with line endings normalised and lines trimmed,
 * or the first bad line (1-based) and its entry.
 */
export function validateLineList(
  text: string,
  isValid: (entry: string) => boolean,
): LineListResult {
  const lines = text.split(/\r\n?|\n/).map((line) => line.trim());
  for (const [i, line] of lines.entries()) {
    if (line === '' || line.startsWith('#')) continue;
    if (!isValid(line)) return { ok: false, line: i + 1, entry: line };
  }
  return { ok: true, text: lines.join('\n').trim() };
}
