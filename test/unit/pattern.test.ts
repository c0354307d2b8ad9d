/**
 * Sightline's patterns (src/lib/pattern/pattern.ts) against RE2's own answers (re2js, a port of RE2,
 * kept for this comparison only): for random patterns of the syntax it takes and random
 * texts, a pattern matches a text exactly when RE2's does; what RE2 refuses is refused; and
 * a pattern that would backtrack for ever elsewhere takes time linear in the text.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { Pattern, PatternError } from '../../src/lib/pattern/pattern.ts';

const re2 = (pattern: string, text: string) => RE2JS.compile(pattern).matcher(text).find();

describe('a pattern', () => {
  it('matches as RE2 does, on examples of every form', () => {
    const cases: [string, string[]][] = [
      ['^/blog/', ['/blog/a', '/blog', 'x/blog/']],
      ['^/(blog|pricing)$', ['/blog', '/pricing', '/blog/x', '/pricin']],
      ['a.c', ['abc', 'a\nc', 'ac']],
      ['(?s)a.c', ['a\nc']],
      ['(?i)ÉTÉ', ['été', 'ÉTÉ', 'ete']],
      ['(?i:ab)c', ['ABc', 'ABC']],
      ['[^/?]*\\?q=\\d+$', ['/a?q=12', '/a?q=', '/a/b?q=1']],
      ['\\bcat\\b', ['a cat here', 'concatenate', 'cat']],
      ['\\Bcat', ['concat', 'cat']],
      ['(?m)^b$', ['a\nb\nc', 'abc']],
      ['^a{2,3}$', ['a', 'aa', 'aaa', 'aaaa']],
      ['^a{2,}$', ['a', 'aa', 'aaaaa']],
      ['^(ab)*?c', ['c', 'ababc', 'abac']],
      ['[[:alpha:]]+[[:digit:]]', ['abc1', '123']],
      ['[\\d\\-x]+$', ['1-2x', 'a']],
      ['\\x41\\x{263A}', ['A☺', 'A']],
      ['\\.\\*\\+', ['.*+', 'a*+']],
      ['', ['', 'anything']],
      ['a|', ['b']],
      ['\\A/x\\z', ['/x', '/x\n']],
      ['(?P<name>a)(?:b)', ['ab']],
      ['x{', ['x{', 'x']],
      ['[]a]', [']', 'a', 'b']],
      ['😀+', ['😀😀', 'a']],
    ];
    for (const [pattern, texts] of cases)
      for (const text of texts)
        expect(new Pattern(pattern).test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(
          re2(pattern, text),
        );
  });

  it('refuses what RE2 refuses, and the forms it does not take, saying what', () => {
    for (const [pattern, why] of [
      ['(', 'missing closing )'],
      [')', 'unexpected )'],
      ['[a', 'missing closing ]'],
      ['*a', 'missing argument to repetition operator'],
      ['a**', 'invalid nested repetition operator'],
      ['a{1001}', 'invalid repeat count'],
      ['a{3,2}', 'invalid repeat count'],
      ['(?=a)', 'look-arounds are not supported'],
      ['(?<!a)b', 'look-arounds are not supported'],
      ['(a)\\1', 'invalid escape sequence'],
      ['\\pL', 'Unicode classes are not supported'],
      ['[z-a]', 'invalid character class range'],
      ['((((a{100}){100}){100}))', 'pattern too large'],
    ] as const) {
      expect(() => new Pattern(pattern), pattern).toThrow(PatternError);
      expect(() => new Pattern(pattern), pattern).toThrow(why);
      if (why !== 'Unicode classes are not supported' && why !== 'pattern too large')
        expect(() => RE2JS.compile(pattern), pattern).toThrow();
    }
  });

  it('matches exactly as RE2 does, for random patterns and texts', () => {
    const pieces = fc.constantFrom(
      'a',
      'b',
      'A',
      '/',
      'é',
      '.',
      '^',
      '$',
      '\\d',
      '\\w',
      '\\s',
      '\\W',
      '\\b',
      '[ab]',
      '[^a/]',
      '[a-c]',
      '(?i)',
      '\\.',
      '\\?',
      '1',
      ' ',
    );
    const quantifier = fc.constantFrom(
      '',
      '',
      '',
      '*',
      '+',
      '?',
      '{2}',
      '{1,3}',
      '{0,}',
      '*?',
      '+?',
    );
    const atom: fc.Arbitrary<string> = fc.letrec((tie) => ({
      atom: fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .tuple(pieces, quantifier)
            .map(([p, q]) => (p === '(?i)' || p === '^' || p === '$' || p === '\\b' ? p : p + q)),
        },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              fc.array(tie('atom'), { minLength: 1, maxLength: 3 }),
              fc.array(tie('atom'), { maxLength: 3 }),
              quantifier,
              fc.boolean(),
            )
            .map(
              ([left, right, q, alt]) => `(${left.join('')}${alt ? `|${right.join('')}` : ''})${q}`,
            ),
        },
      ),
    })).atom as fc.Arbitrary<string>;
    const text = fc.array(
      fc.constantFrom('a', 'b', 'A', '/', 'é', 'É', '1', ' ', '.', '?', '\n', 'x'),
      {
        maxLength: 12,
      },
    );
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 5 }),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (parts, texts) => {
          const pattern = parts.join('');
          let oracle: RE2JS;
          try {
            oracle = RE2JS.compile(pattern);
          } catch {
            expect(() => new Pattern(pattern), pattern).toThrow(PatternError);
            return;
          }
          const mine = new Pattern(pattern);
          for (const chars of texts) {
            const t = chars.join('');
            expect(mine.test(t), `${pattern} on ${JSON.stringify(t)}`).toBe(
              oracle.matcher(t).find(),
            );
          }
        },
      ),
      { numRuns: 3_000, seed: 2026 },
    );
  });

  it('takes time linear in the text where a backtracking engine would not end', () => {
    // (a+)+$ over "aaaa…ab" backtracks 2^n times in an engine that backtracks.
    const text = `${'a'.repeat(20_000)}b`;
    expect(new Pattern('^(a+)+$').test(text)).toBe(false);
    expect(new Pattern('(.*a){20}$').test(text)).toBe(false);
    expect(new Pattern('(x+x+)+y').test('x'.repeat(5_000))).toBe(false);
  });
});
