/**
 * How the query engine's rows are ordered (docs/ARCHITECTURE.md, "The query engine"): by the
 * order a grouping asks, then by its dimensions, texts by code point as SQLite orders them.
 */
import type { GroupQuery, ResultRow } from './query.ts';

/**
 * Orders texts as SQLite does (`BINARY`: by their UTF-8 bytes, that is by code point). UTF-16
 * code units are in code point order but for surrogates, which stand for code points above
 * every other unit: at the first unit that differs, surrogates are moved above U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number) =>
  unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;

/** The order of a grouping's rows: keys of its metrics or dimensions, and their directions. */
export type Ordered = Pick<GroupQuery, 'order' | 'dimensions' | 'metrics'>;

/** A metric's value for ordering: none is lowest. */
export const ranked = (value: number | null | undefined) => value ?? Number.NEGATIVE_INFINITY;

/** Compares rows as `order` says, then by their dimensions (a null metric lowest). */
function comparer(g: Ordered) {
  const keys = [...g.order, ...g.dimensions.map((d): [string, 'asc' | 'desc'] => [d, 'asc'])].map(
    ([key, direction]) => ({
      metric: g.metrics.indexOf(key),
      dimension: g.dimensions.indexOf(key),
      sign: direction === 'asc' ? 1 : -1,
    }),
  );
  return (a: ResultRow, b: ResultRow) => {
    for (const { metric, dimension, sign } of keys) {
      let d = 0;
      if (metric >= 0) {
        const x = ranked(a.metrics[metric]);
        const y = ranked(b.metrics[metric]);
        d = x === y ? 0 : x < y ? -1 : 1;
      } else if (dimension >= 0)
        d = byCodePoint(a.dimensions[dimension] as string, b.dimensions[dimension] as string);
      if (d !== 0) return sign * d;
    }
    return 0;
  };
}

/** Sorts a grouping's rows as it asks: its `order`, then its dimensions ascending. */
export function sortRows(g: Ordered, rows: ResultRow[]): void {
  rows.sort(comparer(g));
}
