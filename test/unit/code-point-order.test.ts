/**
 * The log's reads order values as SQLite's `BINARY` does — by UTF-8 bytes, that is by code
 * point — so that a filtered answer sorts exactly as the roll-ups' (src/website-log/object/read/question-chunks.ts).
 * JavaScript's own comparison orders UTF-16 units, which differs for characters above U+FFFF
 * against those from U+E000.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodePoint } from '../../src/counting/row-order.ts';

const utf8 = new TextEncoder();
/** The order of two texts' UTF-8 bytes: negative, zero or positive. */
function byBytes(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

describe('byCodePoint', () => {
  it('orders as UTF-8 bytes do, where UTF-16 units do not', () => {
    // U+FF5E (a unit from U+E000) before U+1F600 (a surrogate pair), as in UTF-8.
    expect(Math.sign(byCodePoint('\uff5e', '😀'))).toBe(-1);
    expect('\uff5e' < '😀').toBe(false);
    expect(byCodePoint('a', 'a')).toBe(0);
    expect(Math.sign(byCodePoint('a', 'ab'))).toBe(-1);
  });

  it('agrees with the UTF-8 bytes for any two texts', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(byCodePoint(a, b))).toBe(Math.sign(byBytes(a, b)));
      }),
      { numRuns: 2_000, seed: 30 },
    );
  });
});
