import { describe, expect, it } from 'vitest';
import { campaignOf, excludedParams, MAX_PAGE, pagePath } from '../../src/ingest/steps/page.ts';

const NONE = excludedParams('');

/** pagePath of a URL string with an `exclude_params` text. */
function page(url: string, exclude = ''): string {
  return pagePath(new URL(url), excludedParams(exclude));
}

describe('excludedParams', () => {
  it.each([
    ['', false, []],
    ['\n\n  \n', false, []],
    ['fbclid', false, ['fbclid']],
    ['fbclid\ngclid\nutm_source', false, ['fbclid', 'gclid', 'utm_source']],
    ['  fbclid  \n\tgclid\t', false, ['fbclid', 'gclid']],
    ['fbclid\r\ngclid\r\n', false, ['fbclid', 'gclid']],
    ['# tracking ids\nfbclid\n\n# more\ngclid', false, ['fbclid', 'gclid']],
    ['   # indented comment\nref', false, ['ref']],
    ['#fbclid', false, []],
    ['*', true, []],
    ['  *  ', true, []],
    ['fbclid\n*\ngclid', true, ['fbclid', 'gclid']],
    ['a*', false, ['a*']],
    ['**', false, ['**']],
    ['fbclid\nfbclid', false, ['fbclid']],
  ])('%j → all %s, names %j', (text, all, names) => {
    const result = excludedParams(text);
    expect(result.all).toBe(all);
    expect([...result.names]).toEqual(names);
  });
});

describe('pagePath: nothing excluded', () => {
  it.each([
    ['https://a.com/', '/'],
    ['https://a.com', '/'],
    ['https://a.com/blog/post-1', '/blog/post-1'],
    ['https://a.com/p?x=1&y=2', '/p?x=1&y=2'],
    ['https://a.com/p?y=2&x=1', '/p?y=2&x=1'],
    ['https://a.com/search?q=a+b&r=%20c', '/search?q=a+b&r=%20c'],
    ['https://a.com/%E4%BD%A0%E5%A5%BD?x=1', '/你好?x=1'],
    ['https://a.com/你好', '/你好'],
    ['https://a.com/p?=1&x=2', '/p?=1&x=2'],
    ['https://a.com/p?flag', '/p?flag'],
    // Fragments are never part of the page.
    ['https://a.com/p#section', '/p'],
    ['https://a.com/p?x=1#section', '/p?x=1'],
    ['https://a.com/p#frag?x=1', '/p'],
    ['https://a.com/#/spa/route', '/'],
    // An empty query, or one of only separators, is dropped.
    ['https://a.com/p?', '/p'],
    ['https://a.com/p?#x', '/p'],
    ['https://a.com/p?&', '/p'],
    ['https://a.com/p?&&x=1&&', '/p?x=1'],
  ])('%s → %s', (url, expected) => {
    expect(pagePath(new URL(url), NONE)).toBe(expected);
  });
});

describe('pagePath: attribution parameters are never part of the page', () => {
  it.each([
    ['https://a.com/?utm_source=mail&utm_campaign=newsletter', '/'],
    ['https://a.com/p?utm_source=nl&id=7&utm_medium=email&gclid=z', '/p?id=7'],
    ['https://a.com/p?UTM_Source=x&Fbclid=y&msclkid=1&ttclid=2&li_fat_id=3&k=1', '/p?k=1'],
    ['https://a.com/p?utm_id=42&utm_source_platform=x&gbraid=1&wbraid=2&dclid=3', '/p'],
    ['https://a.com/p?mc_cid=1&mc_eid=2&_hsenc=3&_hsmi=4&igshid=5&yclid=6&twclid=7', '/p'],
    ['https://a.com/p?utm%5Fsource=x&k=1', '/p?k=1'],
    // Only whole names: parameters that merely look alike stay.
    ['https://a.com/p?utm=1&xgclid=2&gclid2=3&ref=4', '/p?utm=1&xgclid=2&gclid2=3&ref=4'],
  ])('%s → %s', (url, expected) => {
    expect(page(url, '')).toBe(expected);
  });
});

describe('pagePath: excluded parameters', () => {
  it.each([
    ['https://a.com/p?sid=abc', 'sid', '/p'],
    ['https://a.com/p?sid=abc&x=1', 'sid', '/p?x=1'],
    ['https://a.com/p?x=1&sid=abc', 'sid', '/p?x=1'],
    ['https://a.com/p?x=1&sid=abc&y=2', 'sid', '/p?x=1&y=2'],
    // Kept parameters keep their order and their exact encoding.
    ['https://a.com/p?z=%C3%A9&sid=IwAR0abc&y=%20a+b&x=1', 'sid', '/p?z=é&y=%20a+b&x=1'],
    ['https://a.com/p?b=2&sid=x&a=1', 'sid', '/p?b=2&a=1'],
    // Several names.
    ['https://a.com/p?ref=nl&id=7&lang=en&sid=z', 'ref\nlang\nsid', '/p?id=7'],
    // Repeated parameters are all removed.
    ['https://a.com/p?a=1&a=2&b=3&a=4', 'a', '/p?b=3'],
    ['https://a.com/p?a=1&b=3&b=4', 'a', '/p?b=3&b=4'],
    // Parameters without `=`.
    ['https://a.com/p?sid', 'sid', '/p'],
    ['https://a.com/p?flag&x=1&other', 'flag', '/p?x=1&other'],
    ['https://a.com/p?x=1&flag', 'flag', '/p?x=1'],
    // A value that contains `=`.
    ['https://a.com/p?x=1=2&k=3', 'x', '/p?k=3'],
    // Encoded names are compared decoded.
    ['https://a.com/p?s%5Fid=x&k=1', 's_id', '/p?k=1'],
    ['https://a.com/p?s%5fid=x&k=1', 's_id', '/p?k=1'],
    ['https://a.com/p?my+param=1&k=2', 'my param', '/p?k=2'],
    ['https://a.com/p?my%20param=1&k=2', 'my param', '/p?k=2'],
    ['https://a.com/p?caf%C3%A9=1&k=2', 'café', '/p?k=2'],
    // Names are case-sensitive, as in URLSearchParams.
    ['https://a.com/p?SID=1', 'sid', '/p?SID=1'],
    // A name is matched whole, not as a prefix.
    ['https://a.com/p?sid2=1&xsid=2', 'sid', '/p?sid2=1&xsid=2'],
    // A name that is not in the query changes nothing.
    ['https://a.com/p?x=1&y=2', 'sid', '/p?x=1&y=2'],
    // Comment lines are not names.
    ['https://a.com/p?x=1&y=2', '# x\ny', '/p?x=1'],
  ])('%s without %j → %s', (url, exclude, expected) => {
    expect(page(url, exclude)).toBe(expected);
  });

  it.each([
    ['https://a.com/p?x=1&y=2', '/p'],
    ['https://a.com/p?fbclid=1', '/p'],
    ['https://a.com/p', '/p'],
    ['https://a.com/p?x=1#frag', '/p'],
  ])('* removes the whole query: %s → %s', (url, expected) => {
    expect(page(url, '*')).toBe(expected);
    expect(page(url, 'fbclid\n*')).toBe(expected);
  });

  it.each([
    ['https://a.com/p?%E0%A4%A=1&k=2', 'x', '/p?%E0%A4%A=1&k=2'],
    ['https://a.com/p?%E0%A4%A=1&k=2', '%E0%A4%A', '/p?k=2'],
    ['https://a.com/p?x=%E0%A4%A&k=2', 'x', '/p?k=2'],
    ['https://a.com/p?x=%E0%A4%A&k=2', 'k', '/p?x=%E0%A4%A'],
    ['https://a.com/p?%=1&k=2', 'k', '/p?%=1'],
    ['https://a.com/p?%ZZ=1&k=2', '%ZZ', '/p?k=2'],
  ])('malformed escapes do not throw: %s without %j → %s', (url, exclude, expected) => {
    expect(() => page(url, exclude)).not.toThrow();
    expect(page(url, exclude)).toBe(expected);
  });
});

describe('pagePath: stored as people read it (decoded UTF-8)', () => {
  it.each([
    ['https://a.com/%C3%BAst%C3%AD-nad-labem', '/ústí-nad-labem'],
    ['https://a.com/ústí-nad-labem', '/ústí-nad-labem'],
    ['https://a.com/%c3%bast%c3%ad', '/ústí'],
    ['https://a.com/caf%C3%A9?q=cr%C3%A8me', '/café?q=crème'],
    ['https://a.com/%F0%9F%98%80', '/😀'],
    ['https://a.com/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82', '/привет'],
    // ASCII escapes stay: decoding them could turn one path into another.
    ['https://a.com/a%2Fb', '/a%2Fb'],
    ['https://a.com/a%3Fb', '/a%3Fb'],
    ['https://a.com/a%23b', '/a%23b'],
    ['https://a.com/a%25C3%25BA', '/a%25C3%25BA'],
    ['https://a.com/hello%20world', '/hello%20world'],
    ['https://a.com/%41', '/%41'],
    // Control characters never appear: NUL, C1 controls, bidi and other format characters.
    ['https://a.com/a%00b', '/a%00b'],
    ['https://a.com/a%C2%85b', '/a%C2%85b'],
    ['https://a.com/a%E2%80%AEb', '/a%E2%80%AEb'],
    ['https://a.com/a%E2%80%8Bb', '/a%E2%80%8Bb'],
    ['https://a.com/a%E2%80%A8b', '/a%E2%80%A8b'],
    ['https://a.com/a%C2%A0b', '/a%C2%A0b'],
    // Invalid UTF-8 keeps its escapes: lone continuation, truncated, overlong, surrogate.
    ['https://a.com/%FF', '/%FF'],
    ['https://a.com/%80x', '/%80x'],
    ['https://a.com/%C3', '/%C3'],
    ['https://a.com/%C3%28', '/%C3%28'],
    ['https://a.com/%C0%AF', '/%C0%AF'],
    ['https://a.com/%ED%A0%80', '/%ED%A0%80'],
    ['https://a.com/%E4%BD', '/%E4%BD'],
    ['https://a.com/%E4%BD%A0%FF%E5%A5%BD', '/你%FF好'],
    // A malformed escape is not an escape.
    ['https://a.com/100%', '/100%'],
    ['https://a.com/%zz%C3%BA', '/%zz%C3%BA'.replace('%C3%BA', 'ú')],
  ])('%s → %s', (url, expected) => {
    expect(pagePath(new URL(url), NONE)).toBe(expected);
  });

  it('never maps two different paths to one value (decodes only non-ASCII)', () => {
    const paths = ['/a/b', '/a%2Fb', '/a%252Fb', '/%C3%BA', '/%25C3%25BA', '/ú'];
    const values = paths.map((p) => pagePath(new URL(`https://a.com${p}`), NONE));
    // `/%C3%BA` and `/ú` are the same URL (the parser encodes the second): one value.
    expect(new Set(values).size).toBe(5);
  });

  it('is bounded to 255 characters after decoding, never cutting a character or an escape', () => {
    const emoji = pagePath(new URL(`https://a.com/${'😀'.repeat(200)}`), NONE);
    expect(emoji.length).toBeLessThanOrEqual(255);
    expect(emoji).toBe(`/${'😀'.repeat(127)}`);
    const escapes = pagePath(new URL(`https://a.com/${'a'.repeat(252)}%2F`), NONE);
    expect(escapes).toBe(`/${'a'.repeat(252)}`);
    const long = pagePath(new URL(`https://a.com/${'ú'.repeat(300)}`), NONE);
    expect(long).toBe(`/${'ú'.repeat(254)}`);
  });
});

describe('pagePath: length bound', () => {
  it('MAX_PAGE is 255', () => {
    expect(MAX_PAGE).toBe(255);
  });

  it.each([
    ['a long path', `https://a.com/${'a'.repeat(300)}`, `/${'a'.repeat(254)}`],
    ['a long query', `https://a.com/p?q=${'b'.repeat(300)}`, `/p?q=${'b'.repeat(250)}`],
    ['exactly 255', `https://a.com/${'c'.repeat(254)}`, `/${'c'.repeat(254)}`],
    ['254 characters', `https://a.com/${'c'.repeat(253)}`, `/${'c'.repeat(253)}`],
  ])('%s is cut to at most 255 characters', (_label, url, expected) => {
    const result = pagePath(new URL(url), NONE);
    expect(result).toBe(expected);
    expect(result.length).toBeLessThanOrEqual(255);
  });

  it('the bound applies after excluded parameters are removed', () => {
    const url = `https://a.com/p?fbclid=${'z'.repeat(400)}&x=1`;
    expect(page(url, 'fbclid')).toBe('/p?x=1');
  });
});

describe('campaignOf', () => {
  it.each([
    ['https://a.com/?utm_campaign=spring', 'spring'],
    ['https://a.com/p?utm_source=nl&utm_campaign=spring_sale&x=1', 'spring_sale'],
    ['https://a.com/?utm_campaign=%20spring%20sale%20', 'spring sale'],
    ['https://a.com/?utm_campaign=spring+sale', 'spring sale'],
    ['https://a.com/?utm_campaign=%C3%A9t%C3%A9', 'été'],
    ['https://a.com/?utm_campaign=a&utm_campaign=b', 'a'],
    ['https://a.com/?utm_campaign=spring#utm_campaign=fall', 'spring'],
    ['https://a.com/?utm_campaign=', null],
    ['https://a.com/?utm_campaign', null],
    ['https://a.com/?utm_campaign=%20%20', null],
    ['https://a.com/?utm_campaign=+++', null],
    ['https://a.com/', null],
    ['https://a.com/?utm_source=nl', null],
    ['https://a.com/?UTM_CAMPAIGN=x', null],
    ['https://a.com/#utm_campaign=x', null],
  ])('%s → %j', (url, campaign) => {
    expect(campaignOf(new URL(url))).toBe(campaign);
  });

  it('is bounded to 255 characters', () => {
    expect(campaignOf(new URL(`https://a.com/?utm_campaign=${'c'.repeat(300)}`))).toBe(
      'c'.repeat(255),
    );
    expect(campaignOf(new URL(`https://a.com/?utm_campaign=${'c'.repeat(255)}`))).toBe(
      'c'.repeat(255),
    );
  });

  it('a malformed escape does not throw', () => {
    expect(() => campaignOf(new URL('https://a.com/?utm_campaign=%E0%A4%A'))).not.toThrow();
    expect(campaignOf(new URL('https://a.com/?utm_campaign=%E0%A4%A'))).toBe('\uFFFD%A');
  });
});

describe('pagePath: a single-page app routed by #fragment (data-hash)', () => {
  it('keeps the fragment only when asked', () => {
    const url = new URL('https://a.com/app?x=1#/users/42');
    expect(pagePath(url, excludedParams(''), true)).toBe('/app?x=1#/users/42');
    expect(pagePath(url, excludedParams(''))).toBe('/app?x=1');
  });
});
