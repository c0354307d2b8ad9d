/**
 * fast-check arbitraries shared by the property-based tests (test/integration/property-*):
 * hostile strings, number-like values, JSON values, URLs, header values and query strings.
 */
import fc from 'fast-check';

/** A lone UTF-16 surrogate: valid in a JS string and in JSON text (`"\ud800"`), not in UTF-8. */
const loneSurrogate = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((code) => String.fromCharCode(code));

/** Characters that separate, escape, quote or hide things somewhere in the stack. */
const awkwardChar = fc.constantFrom(
  '\u0000',
  '\n',
  '\r',
  '\t',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u202e',
  '\u2028',
  '\ufeff',
  '\uffff',
  '\uA789',
  '%',
  '%00',
  '%zz',
  '%E0%A4%A',
  '\\',
  '"',
  "'",
  '`',
  '<',
  '>',
  '&',
  ':',
  ',',
  ';',
  '=',
  '?',
  '#',
  '/',
  '..',
  '*',
  '_',
  '+',
  ' ',
  '@',
  '[',
  ']',
  '{',
  '}',
  '.',
  '-',
  'www.',
);

/** Strings of every kind: ASCII, printable Unicode graphemes, any code point, awkward characters. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary-ascii' }),
  fc.string({
    unit: fc.oneof(awkwardChar, loneSurrogate, fc.string({ unit: 'grapheme', maxLength: 1 })),
  }),
);

/** Long strings: hundreds to tens of thousands of characters (past every field limit). */
export const longString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 250, maxLength: 1500 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
        fc.integer({ min: 30, max: 2500 }),
      )
      .map(([s, n]) => s.repeat(n)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
        fc.integer({ min: 2500, max: 25_000 }),
      )
      .map(([s, n]) => s.repeat(n)),
  },
);

/** Numbers, including the extremes (NaN and ±Infinity become `null` in JSON). */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    2,
    3,
    10,
    25,
    100,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e16,
    1e21,
    -1e21,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    0.1,
    1.5,
  ),
);

/** Strings that look (or almost look) like numbers. */
export const numericString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'NaN',
    'nan',
    'Infinity',
    '-Infinity',
    '1e309',
    '-1e309',
    '0x10',
    '0b1',
    '0o7',
    '-0',
    '+1',
    '-1',
    '0',
    '1',
    '2',
    '1.5',
    '1.0',
    '1e3',
    ' 1',
    '1 ',
    '01',
    '00',
    '9007199254740993',
    '9999999999999999',
    '99999999999999999999',
    '1'.repeat(400),
    '\u0661',
    '\uff11',
    'true',
    'null',
    '',
  ),
  anyNumber.map(String),
  fc.bigInt().map(String),
);

/** Any text a form field or query parameter can carry. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: anyString },
  { weight: 2, arbitrary: numericString },
  { weight: 1, arbitrary: longString },
);

/**
 * Search terms: short, with LIKE's wildcards and escape, and long (up to and past the
 * 255-character limit; D1 refuses LIKE patterns over 50 bytes).
 */
export const searchTerm: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%', '_', '\\', '%_\\', '"', '<script>', ' ', 'x'.repeat(255), 'x'.repeat(256)),
  fc
    .tuple(
      fc.constantFrom('a', 'A', '%', '_', '\\', '\u00e9', '/', ' '),
      fc.integer({ min: 40, max: 260 }),
    )
    .map(([ch, n]) => ch.repeat(n)),
  anyText,
);

/** Any JSON value, with unicode and hostile strings, numbers, nesting, arrays and objects. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  { weight: 2, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  },
);

/** A value for a known field: mostly `specific`, sometimes any JSON value at all. */
export function mostly<T>(specific: fc.Arbitrary<T>, weight = 4): fc.Arbitrary<T | unknown> {
  return fc.oneof({ weight, arbitrary: specific }, { weight: 1, arbitrary: anyJson });
}

/** A realistic value most of the time; now and then an arbitrary one of the field's kind. */
export function usually<T, U>(
  realistic: fc.Arbitrary<T>,
  other: fc.Arbitrary<U>,
  weight = 12,
): fc.Arbitrary<T | U> {
  return fc.oneof({ weight, arbitrary: realistic }, { weight: 1, arbitrary: other });
}

/** Host names around `domains`: themselves, www., subdomains, other spellings, IPs, junk. */
export function hostArb(domains: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...domains) },
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...domains)
        .chain((d) =>
          fc.constantFrom(
            `www.${d}`,
            `sub.${d}`,
            `a.b.${d}`,
            d.toUpperCase(),
            `${d}.`,
            `user:pw@${d}`,
            `${d}:8080`,
            `${d}:99999`,
            `x${d}`,
            `${d}.evil.example`,
            `www.www.${d}`,
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'unknown.example.net',
        'localhost',
        '127.0.0.1',
        '0x7f.1',
        '[::1]',
        '[::ffff:203.0.113.9]',
        'xn--bcher-kva.example',
        'b\u00fccher.example',
        '\uff45xample.com',
        'example.com\u3002',
        '',
        '%',
        '-a-.example',
      ),
    },
    { weight: 1, arbitrary: fc.domain() },
    { weight: 1, arbitrary: anyString },
  );
}

/** `encodeURIComponent`, also for strings with lone surrogates (written as U+FFFD). */
export function encode(text: string): string {
  return encodeURIComponent(
    text.replace(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      '\uFFFD',
    ),
  );
}

/** A query string (without `?`): tracking parameters and arbitrary pairs, raw or encoded. */
export const queryArb: fc.Arbitrary<string> = fc.oneof(
  fc.webQueryParameters(),
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('utm_campaign', 'utm_source', 'fbclid', 'gclid', 'ref', 'a', 'a[]', ''),
          anyString,
        ),
        anyText,
        fc.boolean(),
      ),
      { maxLength: 5 },
    )
    .map((pairs) =>
      pairs
        .map(([k, v, encoded]) => (encoded ? `${encode(k)}=${encode(v)}` : `${k}=${v}`))
        .join('&'),
    ),
);

/** A path (starting with `/`): web paths, hostile segments, raw strings. */
export const pathArb: fc.Arbitrary<string> = fc.oneof(
  fc.webPath(),
  fc.constantFrom('/', '', '/%', '/%zz', '/a%2Fb', '/../..', '//x', '/\\x', '/a b'),
  anyString.map((s) => `/${s}`),
  longString.map((s) => `/${s}`),
);

/** URL-like strings around `domains`: valid http(s) URLs mostly, then every kind of near miss. */
export function urlArb(domains: string[]): fc.Arbitrary<string> {
  const scheme = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('https://', 'http://') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'HTTPS://',
        'ftp://',
        'javascript:',
        'data:',
        'android-app://',
        '//',
        '',
        'https:/',
        'https:',
        'file:///',
      ),
    },
  );
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          scheme,
          hostArb(domains),
          fc.oneof({ weight: 3, arbitrary: fc.constant('/') }, pathArb),
          fc.option(queryArb, { nil: '' }),
          fc.option(anyString, { nil: '' }),
        )
        .map(
          ([s, host, path, q, hash]) =>
            `${s}${host}${path}${q ? `?${q}` : ''}${hash ? `#${hash}` : ''}`,
        ),
    },
    { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
    { weight: 1, arbitrary: anyText },
  );
}

/**
 * A value an HTTP header can carry: printable ASCII (and tabs). Other bytes are legal on the
 * wire, but workerd's `Headers` can only send them as UTF-8, with a warning for every one.
 */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
  fc.string({ unit: fc.constantFrom('\t', ' ', ',', ';', '=', '"', '*', '?', '%'), maxLength: 10 }),
);

/** A client address as `CF-Connecting-IP` might carry it (or anything else). */
export const clientIp: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 4, arbitrary: fc.ipV4() },
  { weight: 2, arbitrary: fc.ipV6() },
  {
    weight: 1,
    arbitrary: fc.constantFrom('203.0.113.7', '::ffff:203.0.113.9', '2001:db8::1', 'unknown'),
  },
  { weight: 1, arbitrary: headerValue },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Query parameters as `name → values` (a name may repeat), with the names a route reads. */
export function paramsArb(
  known: Record<string, fc.Arbitrary<string>>,
): fc.Arbitrary<[string, string][]> {
  const names = Object.keys(known);
  const pair = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(...names)
        .chain((name) =>
          fc.tuple(
            fc.constant(name),
            fc.oneof({ weight: 3, arbitrary: known[name] as fc.Arbitrary<string> }, anyText),
          ),
        ),
    },
    { weight: 1, arbitrary: fc.tuple(anyString, anyText) },
  );
  return fc.array(pair, { maxLength: 8 });
}

/** A query string from pairs: encoded as a form would, or written raw (malformed escapes and all). */
export function queryString(pairs: [string, string][], raw: boolean): string {
  if (!raw) return new URLSearchParams(pairs).toString();
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** Is `status` an answer the Worker may give to a client's bad request or a good one (not 5xx)? */
export const isClientOrSuccess = (status: number) => status >= 200 && status < 500;

/**
 * Date query parameters: valid days around `today` and at the edges of the calendar,
 * impossible and malformed ones (Feb 29 of a common year, unpadded, timestamps, extended
 * years, full-width digits), any valid day, and any text.
 */
export function dateArb(today: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      today,
      '1970-01-01',
      '1969-12-31',
      '2000-02-29',
      '2024-02-29',
      '2023-02-29',
      '9998-12-31',
      '9999-12-01',
      '9999-12-31',
      '0000-00-00',
      '2026-1-1',
      '2026-01-01T00:00:00Z',
      '+02026-01-01',
      '\uff12\uff10\uff12\uff16-01-01',
      '',
    ),
    fc
      .date({ min: new Date('1960-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    anyText,
  );
}
