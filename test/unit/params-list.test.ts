import { describe, expect, it } from 'vitest';
import { validateParamList } from '../../src/websites/lists/params-list.ts';

describe('validateParamList: accepted lists', () => {
  it.each([
    ['', ''],
    ['\n\n', ''],
    ['  \r\n\t\r\n', ''],
    ['utm_source', 'utm_source'],
    ['*', '*'],
    ['  *  ', '*'],
    ['utm_source\nutm_medium\nfbclid', 'utm_source\nutm_medium\nfbclid'],
    ['utm_source\r\nutm_medium\r\n', 'utm_source\nutm_medium'],
    ['utm_source\rutm_medium', 'utm_source\nutm_medium'],
    ['  utm_source  \n\tgclid\t', 'utm_source\ngclid'],
    ['\n\nref\n\n\nsource\n\n', 'ref\n\n\nsource'],
    ['# tracking\nutm_source\n*', '# tracking\nutm_source\n*'],
    ['   # indented comment\nref', '# indented comment\nref'],
    ['#', '#'],
    ['# a comment with & = ? # and spaces', '# a comment with & = ? # and spaces'],
    ['#\u0000', '#\u0000'],
    ['a', 'a'],
    ['A', 'A'],
    ['utm-source', 'utm-source'],
    ['utm.source', 'utm.source'],
    ['filter[tag]', 'filter[tag]'],
    ['ids[]', 'ids[]'],
    ['a*', 'a*'],
    ['**', '**'],
    ['%20', '%20'],
    ['a+b', 'a+b'],
    ['a;b', 'a;b'],
    ['a/b', 'a/b'],
    ['café', 'café'],
    ['日本', '日本'],
    ['😀', '😀'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
  ])('%j → ok %j', (text, normalised) => {
    expect(validateParamList(text)).toEqual({ ok: true, text: normalised });
  });

  it('accepts a name of exactly 255 characters', () => {
    const name = 'p'.repeat(255);
    expect(validateParamList(name)).toEqual({ ok: true, text: name });
  });

  it('accepts a long comment line', () => {
    const comment = `# ${'x'.repeat(10_000)}`;
    expect(validateParamList(comment)).toEqual({ ok: true, text: comment });
  });

  it('accepts many lines', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `param_${i}`);
    expect(validateParamList(lines.join('\r\n'))).toEqual({ ok: true, text: lines.join('\n') });
  });

  it('is idempotent on its own output', () => {
    const first = validateParamList('\r\n # utm \r\n utm_source \r\n\r\n * \r\n');
    expect(first).toEqual({ ok: true, text: '# utm\nutm_source\n\n*' });
    if (first.ok) expect(validateParamList(first.text)).toEqual(first);
  });
});

describe('validateParamList: rejected names', () => {
  it.each([
    ['utm source', 'utm source'],
    ['utm\tsource', 'utm\tsource'],
    ['utm\u000bsource', 'utm\u000bsource'],
    ['utm\u000csource', 'utm\u000csource'],
    ['utm\u00a0source', 'utm\u00a0source'],
    ['utm\u2028source', 'utm\u2028source'],
    ['utm\u3000source', 'utm\u3000source'],
    ['a&b', 'a&b'],
    ['&', '&'],
    ['a=b', 'a=b'],
    ['=', '='],
    ['utm_source=google', 'utm_source=google'],
    ['a?b', 'a?b'],
    ['?', '?'],
    ['?utm_source', '?utm_source'],
    ['a#b', 'a#b'],
    ['a#', 'a#'],
    ['*#', '*#'],
    ['a\u0000b', 'a\u0000b'],
    ['a\u0000', 'a\u0000'],
    ['\u0000', '\u0000'],
    ['a\u0001b', 'a\u0001b'],
    ['a\u001bb', 'a\u001bb'],
    ['a\u001fb', 'a\u001fb'],
    ['a\u007fb', 'a\u007fb'],
    ['a\bb', 'a\bb'],
    ['* utm', '* utm'],
    ['utm_source utm_medium', 'utm_source utm_medium'],
    ['utm_source&utm_medium', 'utm_source&utm_medium'],
    ['x=1&y=2', 'x=1&y=2'],
  ])('rejects %j', (text, entry) => {
    expect(validateParamList(text)).toEqual({ ok: false, line: 1, entry });
  });

  // U+0080–U+009F are control characters (Unicode Cc) just like U+0000–U+001F.
  it.each([
    ['U+0080', 'a\u0080b'],
    ['U+0085 (NEL)', 'a\u0085b'],
    ['U+009F', 'a\u009fb'],
  ])('rejects the C1 control character %s', (_, text) => {
    expect(validateParamList(text)).toEqual({ ok: false, line: 1, entry: text });
  });

  it('rejects a name of 256 characters', () => {
    const name = 'p'.repeat(256);
    expect(validateParamList(name)).toEqual({ ok: false, line: 1, entry: name });
  });

  it('rejects a very long name', () => {
    const name = 'p'.repeat(100_000);
    expect(validateParamList(`ref\n${name}`)).toEqual({ ok: false, line: 2, entry: name });
  });

  it('measures the limit after trimming', () => {
    const name = 'p'.repeat(255);
    expect(validateParamList(`   ${name}   `)).toEqual({ ok: true, text: name });
  });

  it.each([
    ['utm_source\nbad name', 2, 'bad name'],
    ['utm_source\r\n\r\n# c\r\n  a=b  ', 4, 'a=b'],
    ['first bad\nsecond bad', 1, 'first bad'],
    ['ok\n*\n#c\n\nx&y\nz?w', 5, 'x&y'],
    ['ok\rbad=1', 2, 'bad=1'],
  ])('reports the first bad line in %j', (text, line, entry) => {
    expect(validateParamList(text)).toEqual({ ok: false, line, entry });
  });

  it('reports a bad line deep in a long list', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `p${i}`);
    lines[2999] = 'a b';
    expect(validateParamList(lines.join('\n'))).toEqual({ ok: false, line: 3000, entry: 'a b' });
  });
});
