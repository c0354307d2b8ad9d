import { describe, expect, it } from 'vitest';
import { containsPattern } from '../../src/websites/queries.ts';

describe('containsPattern', () => {
  it.each([
    ['50%_A\\b', '%50\\%\\_a\\\\b%'],
    ['', '%%'],
    ['example', '%example%'],
    ['Example.COM', '%example.com%'],
    ['%', '%\\%%'],
    ['_', '%\\_%'],
    ['\\', '%\\\\%'],
    ['%%', '%\\%\\%%'],
    ['__', '%\\_\\_%'],
    ['\\\\', '%\\\\\\\\%'],
    ['\\%', '%\\\\\\%%'],
    ['\\_', '%\\\\\\_%'],
    ['a%b_c\\d', '%a\\%b\\_c\\\\d%'],
    ['my_site', '%my\\_site%'],
    ['100%', '%100\\%%'],
    ['*', '%*%'],
    ['?', '%?%'],
    ["'", "%'%"],
    ["' OR 1=1 --", "%' or 1=1 --%"],
    ['[a-z]', '%[a-z]%'],
    ['xn--bcher-kva', '%xn--bcher-kva%'],
    ['BÜCHER', '%bücher%'],
    ['  spaced  ', '%  spaced  %'],
    ['\u0000', '%\u0000%'],
  ])('containsPattern(%j) → %j', (term, pattern) => {
    expect(containsPattern(term)).toBe(pattern);
  });

  it('leaves no unescaped LIKE wildcard from the term', () => {
    const pattern = containsPattern('a%b_c%%__\\%');
    const inner = pattern.slice(1, -1);
    // Remove escape pairs; what remains must hold no wildcard or lone backslash.
    expect(inner.replace(/\\[\\%_]/g, '')).toBe('abc');
  });
});
