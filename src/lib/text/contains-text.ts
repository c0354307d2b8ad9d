/**
 * Case-insensitive substring search in SQL, for every letter of Unicode: the `search` of the
 * website list and of every statistic.
 */
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { hasControlCharacter } from './text.ts';

/**
 * At most this many different letters outside ASCII are folded per search. D1 limits an
 * expression tree to a depth of 100, and each other-case spelling of a letter nests one
 * `replace()` (one or two per letter: `Ú`; `ǅ` and `Ǆ`). The API refuses terms with more
 * (`needsTooManyFoldings`); elsewhere, letters past the limit match their exact case only.
 */
export const MAX_FOLDED_LETTERS = 40;

/**
 * `text` contains `term` as a literal substring, ignoring the case of every letter: what
 * `LIKE '%term%'` with `%`, `_` and `\` escaped would match, for all of Unicode. Not `LIKE`
 * itself: D1 refuses a LIKE pattern longer than 50 bytes ("pattern too complex"), a search
 * term may be 255 characters, and SQLite's `LIKE` and `lower()` fold ASCII letters only. So
 * the term is lower-cased here (JavaScript's Unicode rules), and the column by `lower()` for
 * ASCII plus one `replace()` for each other-case spelling of a non-ASCII letter the term
 * contains (`Ú` → `ú` for a term with `ú`): no more work than the term needs.
 *
 * @example
 * containsText(stats.value, 'ÚSTÍ') // matches '/ústí-nad-labem' and '/ÚSTÍ'
 */
export function containsText(
  text: SQLWrapper,
  term: string,
  /** The most other-case spellings folded (letters past them match their exact case only). */
  most = 2 * MAX_FOLDED_LETTERS,
): SQL {
  const folded = term.toLowerCase();
  let column = sql`lower(${text})`;
  // Written as SQL string literals, not bound: D1 takes at most 100 bound parameters per
  // statement. They are letters of the term's own, quoted by `literal`.
  const folds = Math.max(0, Math.min(most, 2 * MAX_FOLDED_LETTERS));
  for (const [from, to] of caseFoldings(term, folded).slice(0, folds))
    column = sql`replace(${column}, ${literal(from)}, ${literal(to)})`;
  return sql`instr(${column}, ${folded}) > 0`;
}

/**
 * At most this many other-case spellings are folded for all the terms of one question to the
 * event log together (its filters and its search): each is a `replace()` over every distinct
 * value compared. Beyond, the API answers 422 naming the filter (or the search) that goes
 * past it; the statistics page names the filter it leaves out.
 */
export const MAX_FOLDINGS_PER_QUESTION = 2 * MAX_FOLDED_LETTERS;

/** How many other-case spellings `containsText` folds for `term` (its `replace()` calls). */
export function foldingsOf(term: string): number {
  return Math.min(caseFoldings(term, term.toLowerCase()).length, 2 * MAX_FOLDED_LETTERS);
}

/** True when `containsText` could not fold the case of every letter of `term`. */
export function needsTooManyFoldings(term: string): boolean {
  const pairs = caseFoldings(term, term.toLowerCase());
  return (
    pairs.length > 2 * MAX_FOLDED_LETTERS ||
    new Set(pairs.map(([, to]) => to)).size > MAX_FOLDED_LETTERS
  );
}

/** The non-ASCII spellings that lower-case to a letter of the (lower-cased) term: [from, to]. */
function caseFoldings(term: string, folded: string): [string, string][] {
  const pairs = new Map<string, string>();
  const add = (from: string, to: string) => {
    const usable = /[^\p{ASCII}]/u.test(from) && !hasControlCharacter(from + to);
    if (usable && from !== to && from.toLowerCase() === to) pairs.set(from, to);
  };
  for (const ch of new Set(term)) add(ch, ch.toLowerCase());
  for (const ch of new Set(folded)) {
    add(ch.toUpperCase(), ch);
    // Turkish dotted capital I (İ) lower-cases to i + combining dot.
    add(ch.toLocaleUpperCase('tr'), ch);
  }
  return [...pairs];
}

/** A SQL string literal (quotes doubled) of a short text without control characters. */
function literal(text: string): SQL {
  return sql.raw(`'${text.replace(/'/g, "''")}'`);
}
