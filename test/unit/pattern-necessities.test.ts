/**
 * The cheap test before RE2's (src/website-log/object/read/filters/dictionary-search.ts, `necessities`): what it
 * reads off a pattern is needed by every text the pattern matches, so it never rules out a
 * match — for page goals' patterns and for any other RE2 pattern.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { pageFilter } from '../../src/query/parse/goal-filters.ts';
import { necessities } from '../../src/website-log/object/read/filters/dictionary-search.ts';

const patternOf = (path: string) => {
  const filter = pageFilter(path);
  if (!('values' in filter)) throw new Error('a page goal is a leaf');
  return filter.values[0] as string;
};

/** Whether the cheap test lets `text` through to RE2. */
function passes(pattern: string, text: string): boolean {
  const needs = necessities(pattern);
  return (
    needs === null || (text.startsWith(needs.prefix) && needs.runs.every((r) => text.includes(r)))
  );
}

const pieces = fc.constantFrom('/', 'a', 'b', '.', '?', '-', '*', '**', '(', '[', '+', '\\', 'é');

describe('what a pattern needs of a text', () => {
  it('reads a page goal whole: its start and every literal run', () => {
    expect(necessities(patternOf('/pricing'))).toEqual({ prefix: '/pricing', runs: ['/pricing'] });
    expect(necessities(patternOf('/blog/**'))).toEqual({ prefix: '/blog/', runs: ['/blog/'] });
    expect(necessities(patternOf('**/checkout'))).toEqual({ prefix: '', runs: ['/checkout'] });
    expect(necessities(patternOf('/a.b/*/c+d'))).toEqual({
      prefix: '/a.b/',
      runs: ['/a.b/', '/c+d'],
    });
  });

  it('reads the literal start of other anchored patterns, nothing it cannot be sure of', () => {
    expect(necessities('^/blog/(a|b)')).toEqual({ prefix: '/blog/', runs: [] });
    expect(necessities('^/ab?c')).toEqual({ prefix: '/a', runs: [] });
    expect(necessities('^/ab{2}')).toEqual({ prefix: '/a', runs: [] });
    expect(necessities('^/abc|/def')).toBeNull();
    expect(necessities('/abc')).toBeNull();
    expect(necessities('^(?i)/abc')).toBeNull();
    expect(necessities('^\\Q/a.b\\E')).toBeNull();
    expect(necessities('^\\d+')).toBeNull();
  });

  it('never rules out a text a page goal matches', () => {
    fc.assert(
      fc.property(
        fc.array(pieces, { minLength: 1, maxLength: 8 }),
        fc.array(pieces, { maxLength: 12 }),
        (goal, text) => {
          const path = `/${goal.join('')}`;
          const pattern = patternOf(path);
          const re = RE2JS.compile(pattern);
          // A text made from the goal's own pieces as often as from others.
          for (const candidate of [text.join(''), path.replaceAll('*', 'x'), `${path}?q=1`])
            if (re.matcher(candidate).find()) expect(passes(pattern, candidate)).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never rules out a text any pattern matches: texts made from the pattern itself', () => {
    const made = neverRulesOut(necessities);
    // The cases that test something: a necessity read off the pattern, and a text it matches.
    expect(made.meaningful).toBeGreaterThanOrEqual(1_000);
    expect(made.failure).toBeUndefined();
  });

  it('catches a cheap test that forgets a quantifier takes the character before it', () => {
    // A mutant: the quantifiers read as if they were not there (`/ab?c` needs `/abc`).
    const mutant = (pattern: string) => necessities(pattern.replace(/[?*+]|\{\d+\}/g, ''));
    expect(neverRulesOut(mutant).failure).toBeDefined();
  });
});

/** A piece of an anchored pattern, and texts it matches. */
type Part = { source: string; texts: fc.Arbitrary<string> };

const letters = fc.constantFrom('a', 'b', '/', '-', '.', 'é');
const word = fc.array(letters, { maxLength: 4 }).map((l) => l.join(''));
const literal = (text: string): Part => ({
  source: text.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`),
  texts: fc.constant(text),
});

/** Pieces of RE2 syntax, each with what it matches: literals, classes, groups, quantifiers. */
const partArb: fc.Arbitrary<Part> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('/', 'a', 'b', '/blog', '.', '?', '-', 'é').map(literal),
  },
  { weight: 2, arbitrary: fc.constant({ source: '.*', texts: word }) },
  {
    weight: 2,
    arbitrary: fc.constant({
      source: '[^/?]*',
      texts: fc.array(fc.constantFrom('a', 'b', '-', '.'), { maxLength: 3 }).map((l) => l.join('')),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ source: '[ab]', texts: fc.constantFrom('a', 'b') }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'b', '/'), fc.constantFrom('?', '*', '+', '{2}'))
      .map(([c, q]) => ({
        source: `${c}${q}`,
        texts: (q === '?'
          ? fc.integer({ min: 0, max: 1 })
          : q === '*'
            ? fc.integer({ min: 0, max: 3 })
            : q === '+'
              ? fc.integer({ min: 1, max: 3 })
              : fc.constant(2)
        ).map((n) => c.repeat(n)),
      })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({ source: '(a|bb)', texts: fc.constantFrom('a', 'bb') }),
  },
  { weight: 1, arbitrary: fc.constant({ source: '(\\?.*)?', texts: fc.constantFrom('', '?q=1') }) },
);

/**
 * Anchored patterns made of `partArb`'s pieces, each with a text it matches (the pieces' texts
 * in order, then maybe more when the pattern does not end with `$`).
 */
const casesArb = fc
  .tuple(fc.array(partArb, { minLength: 1, maxLength: 6 }), fc.boolean(), word)
  .chain(([parts, ends, tail]) =>
    fc.tuple(...parts.map((p) => p.texts)).map((texts) => ({
      pattern: `^${parts.map((p) => p.source).join('')}${ends ? '$' : ''}`,
      text: `${texts.join('')}${ends ? '' : tail}`,
    })),
  );

/**
 * Checks that `needs` lets through every text its pattern matches, over 3,000 patterns and
 * texts made from them: the first failure, and how many cases had a necessity to test.
 */
function neverRulesOut(needs: typeof necessities) {
  let meaningful = 0;
  const result = fc.check(
    fc.property(casesArb, ({ pattern, text }) => {
      if (!RE2JS.compile(pattern).matcher(text).find()) throw new Error(`${pattern} ≁ ${text}`);
      const n = needs(pattern);
      if (n && (n.prefix !== '' || n.runs.length > 0)) meaningful++;
      return n === null || (text.startsWith(n.prefix) && n.runs.every((r) => text.includes(r)));
    }),
    { numRuns: 3_000, seed: 20261207 },
  );
  return { meaningful, failure: result.failed ? result.counterexample : undefined };
}
