/**
 * The cheap test before RE2's (src/event-log/dictionary-search.ts, `necessities`): what it
 * reads off a pattern is needed by every text the pattern matches, so it never rules out a
 * match — for page goals' patterns and for any other RE2 pattern.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { necessities } from '../../src/event-log/dictionary-search.ts';
import { pageFilter } from '../../src/stats/goals.ts';

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

  it('never rules out a text any pattern matches', () => {
    const syntax = fc.constantFrom(
      '^',
      '$',
      '/',
      'a',
      'b',
      '.',
      '.*',
      '?',
      '*',
      '+',
      '|',
      '(',
      ')',
      '[^/?]*',
      '[ab]',
      '\\.',
      '\\?',
      '{2}',
      '(?i)',
      'A',
    );
    fc.assert(
      fc.property(
        fc.array(syntax, { maxLength: 8 }),
        fc.array(pieces, { maxLength: 10 }),
        (parts, text) => {
          const pattern = `^${parts.join('')}`;
          let re: RE2JS;
          try {
            re = RE2JS.compile(pattern);
          } catch {
            return;
          }
          const candidate = text.join('');
          if (re.matcher(candidate).find()) expect(passes(pattern, candidate)).toBe(true);
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
