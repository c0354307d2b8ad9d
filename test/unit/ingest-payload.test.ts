import { describe, expect, it } from 'vitest';
import { eventLabel, type HitEvent, MAX_URL, parseHit } from '../../src/ingest/payload.ts';

const PAGE = 'https://a.com/';

/** The parsed hit with URLs as strings, comparable with toEqual. */
function parsed(body: unknown) {
  const result = parseHit(body);
  if (!result.ok) throw new Error(`expected a valid hit, got: ${result.message}`);
  const { hit } = result;
  return { ...hit, page: hit.page.href, referrer: hit.referrer?.href ?? null };
}

/** The error message of an invalid hit. */
function errorOf(body: unknown): string {
  const result = parseHit(body);
  if (result.ok) throw new Error(`expected an invalid hit: ${JSON.stringify(body)}`);
  return result.message;
}

const EMPTY = {
  referrer: null,
  resolution: null,
  language: null,
  domain: null,
  event: null,
  props: [],
  revenue: null,
  engagement: null,
  hash: false,
  dnt: false,
};

describe('parseHit: valid hits', () => {
  it('keeps an event name with ":" as other trackers\' are kept (U+A789)', () => {
    expect(parsed({ page: PAGE, event: { name: 'Outbound Link: Click' } })).toMatchObject({
      event: { name: 'Outbound Link\uA789 Click', value: null, unit: null },
    });
  });

  it('a minimal hit', () => {
    expect(parsed({ page: PAGE })).toEqual({ page: PAGE, ...EMPTY });
  });

  it('a full hit', () => {
    const body = {
      page: 'https://www.example.com/blog?x=1#top',
      referrer: 'https://www.google.com/',
      screen_resolution: '1920x1080',
      language: 'en-US',
      domain: 'example.com',
      event: { name: 'signup', value: 1, unit: 'seat' },
      props: { plan: 'pro', seats: 3, trial: false, note: null, list: [1], '': 'x' },
      revenue: { amount: '29.90', currency: 'eur' },
      dnt: true,
    };
    const result = parseHit(body);
    expect(result.ok && result.hit.page instanceof URL).toBe(true);
    expect(result.ok && result.hit.referrer instanceof URL).toBe(true);
    expect(parsed(body)).toEqual({
      page: 'https://www.example.com/blog?x=1#top',
      referrer: 'https://www.google.com/',
      resolution: '1920x1080',
      language: 'en-US',
      domain: 'example.com',
      event: { name: 'signup', value: '1', unit: 'seat' },
      props: [
        ['plan', 'pro'],
        ['seats', '3'],
        ['trial', 'false'],
      ],
      revenue: { amount: 29_900_000, currency: 'EUR' },
      engagement: null,
      hash: false,
      dnt: true,
    });
  });

  it("an engagement: its page view's time seen and deepest scroll, whole", () => {
    expect(parsed({ page: PAGE, engagement: { ms: 1234.9, scroll: 49.6 } })).toEqual({
      page: PAGE,
      ...EMPTY,
      engagement: { ms: 1234, scroll: 50 },
    });
    expect(parsed({ page: PAGE, engagement: { ms: 0 } }).engagement).toEqual({
      ms: 0,
      scroll: null,
    });
    expect(errorOf({ page: PAGE, event: { name: 'x' }, engagement: { ms: 1 } })).toBe(
      'a hit is a page view, an event or an engagement: not both event and engagement',
    );
    expect(parsed({ page: PAGE, engagement: { ms: 9e15 } }).engagement?.ms).toBe(86_400_000);
    expect(errorOf({ page: PAGE, engagement: { ms: -1 } })).toBe(
      'engagement.ms must be a number of milliseconds, 0 or more',
    );
  });

  it.each([
    ['http://a.com/', 'http://a.com/'],
    ['https://a.com', 'https://a.com/'],
    ['HTTPS://A.COM/X', 'https://a.com/X'],
    ['https://a.com:8443/p?q=1', 'https://a.com:8443/p?q=1'],
    ['https://bücher.de/ü', 'https://xn--bcher-kva.de/%C3%BC'],
    ['http://192.168.1.10:8080/', 'http://192.168.1.10:8080/'],
    ['http://localhost:3000/', 'http://localhost:3000/'],
  ])('page %s → %s', (page, href) => {
    expect(parsed({ page }).page).toBe(href);
  });

  it('a page of exactly 2048 characters is accepted', () => {
    const page = `https://a.com/${'a'.repeat(MAX_URL - 'https://a.com/'.length)}`;
    expect(page.length).toBe(2048);
    expect(parsed({ page }).page).toBe(page);
  });

  it.each([
    ['https://www.google.com/', 'https://www.google.com/'],
    ['https://t.co/abc', 'https://t.co/abc'],
    ['http://b.com', 'http://b.com/'],
  ])('referrer %s is kept as a URL', (referrer, href) => {
    expect(parsed({ page: PAGE, referrer }).referrer).toBe(href);
  });

  it.each([
    ['garbage', 'garbage'],
    ['empty', ''],
    ['null', null],
    ['relative', '/from/here'],
    ['a bare host', 'www.google.com'],
    ['Android app', 'android-app://com.google.android.gm/'],
    ['Android app (short)', 'android-app://x'],
  ])('referrer %s becomes null, not an error', (_label, referrer) => {
    expect(parsed({ page: PAGE, referrer })).toEqual({ page: PAGE, ...EMPTY });
  });

  it.each([
    ['1920x1080', '1920x1080'],
    ['1x1', '1x1'],
    ['20000x20000', '20000x20000'],
    ['390x844', '390x844'],
    ['', null],
    [null, null],
  ])('screen_resolution %j → %j', (screen_resolution, resolution) => {
    expect(parsed({ page: PAGE, screen_resolution }).resolution).toBe(resolution);
  });

  it.each([
    [true, true],
    [false, false],
    [undefined, false],
  ])('dnt %j → %s', (dnt, expected) => {
    expect(parsed({ page: PAGE, dnt }).dnt).toBe(expected);
  });

  it('unknown extra fields are ignored', () => {
    expect(parsed({ page: PAGE, foo: 'bar', extra: { a: 1 }, hostname: 'evil', v: 2 })).toEqual({
      page: PAGE,
      ...EMPTY,
    });
  });

  it('null optional fields are accepted', () => {
    expect(
      parsed({
        page: PAGE,
        referrer: null,
        screen_resolution: null,
        language: null,
        domain: null,
        event: null,
      }),
    ).toEqual({ page: PAGE, ...EMPTY });
  });

  it('language and domain are passed through as sent', () => {
    expect(parsed({ page: PAGE, language: 'pt_BR', domain: 'www.a.com' })).toEqual({
      page: PAGE,
      ...EMPTY,
      language: 'pt_BR',
      domain: 'www.a.com',
    });
  });
});

describe('parseHit: events', () => {
  it.each<[string, unknown, HitEvent, string]>([
    ['name only', { name: 'signup' }, { name: 'signup', value: null, unit: null }, 'signup'],
    [
      'name, value, unit',
      { name: 'purchase', value: 19.99, unit: 'usd' },
      { name: 'purchase', value: '19.99', unit: 'usd' },
      'purchase:19.99:usd',
    ],
    ['name and value', { name: 'x', value: 3 }, { name: 'x', value: '3', unit: null }, 'x:3:'],
    [
      'name and unit',
      { name: 'x', unit: 'usd' },
      { name: 'x', value: null, unit: 'usd' },
      'x::usd',
    ],
    ['value 0', { name: 'x', value: 0 }, { name: 'x', value: '0', unit: null }, 'x:0:'],
    [
      'negative value',
      { name: 'x', value: -1.5 },
      { name: 'x', value: '-1.5', unit: null },
      'x:-1.5:',
    ],
    [
      'string value',
      { name: 'x', value: 'gold' },
      { name: 'x', value: 'gold', unit: null },
      'x:gold:',
    ],
    ['empty string value', { name: 'x', value: '' }, { name: 'x', value: null, unit: null }, 'x'],
    [
      'null value and unit',
      { name: 'x', value: null, unit: null },
      { name: 'x', value: null, unit: null },
      'x',
    ],
    ['padded name', { name: '  signup  ' }, { name: 'signup', value: null, unit: null }, 'signup'],
    ['emoji name', { name: '🎉' }, { name: '🎉', value: null, unit: null }, '🎉'],
    [
      '64-character name',
      { name: 'n'.repeat(64) },
      { name: 'n'.repeat(64), value: null, unit: null },
      'n'.repeat(64),
    ],
    [
      '32-character unit',
      { name: 'x', unit: 'u'.repeat(32) },
      { name: 'x', value: null, unit: 'u'.repeat(32) },
      `x::${'u'.repeat(32)}`,
    ],
    // phpAnalytics' string form.
    ['string name', 'signup', { name: 'signup', value: null, unit: null }, 'signup'],
    [
      'string name:value:unit',
      'purchase:20:eur',
      { name: 'purchase', value: '20', unit: 'eur' },
      'purchase:20:eur',
    ],
    [
      'string name:value',
      'download:3',
      { name: 'download', value: '3', unit: null },
      'download:3:',
    ],
    ['string name::unit', 'x::usd', { name: 'x', value: null, unit: 'usd' }, 'x::usd'],
    ['string name:', 'signup:', { name: 'signup', value: null, unit: null }, 'signup'],
  ])('%s', (_label, event, expected, label) => {
    const hit = parsed({ page: PAGE, event });
    expect(hit.event).toEqual(expected);
    expect(eventLabel(hit.event as HitEvent)).toBe(label);
  });
});

describe('eventLabel', () => {
  it.each<[HitEvent, string]>([
    [{ name: 'signup', value: null, unit: null }, 'signup'],
    [{ name: 'purchase', value: '19.99', unit: 'usd' }, 'purchase:19.99:usd'],
    [{ name: 'x', value: '3', unit: null }, 'x:3:'],
    [{ name: 'x', value: null, unit: 'usd' }, 'x::usd'],
    [{ name: 'x', value: '0', unit: null }, 'x:0:'],
  ])('%j → %s', (event, label) => {
    expect(eventLabel(event)).toBe(label);
  });
});

describe('parseHit: invalid hits', () => {
  it.each([
    ['null', null],
    ['an array', []],
    ['an array of hits', [{ page: PAGE }]],
    ['a string', 'https://a.com/'],
    ['a number', 42],
    ['a boolean', true],
    ['undefined', undefined],
  ])('%s body → "The hit must be a JSON object."', (_label, body) => {
    expect(parseHit(body)).toEqual({ ok: false, message: 'The hit must be a JSON object.' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no page', {}, 'page must be a string'],
    ['numeric page', { page: 42 }, 'page must be a string'],
    ['null page', { page: null }, 'page must be a string'],
    ['javascript: page', { page: 'javascript:alert(1)' }, 'page must be an absolute http(s) URL'],
    ['ftp page', { page: 'ftp://a.com' }, 'page must be an absolute http(s) URL'],
    ['relative page', { page: '/relative' }, 'page must be an absolute http(s) URL'],
    ['data: page', { page: 'data:text/html,<h1>hi</h1>' }, 'page must be an absolute http(s) URL'],
    ['file: page', { page: 'file:///etc/passwd' }, 'page must be an absolute http(s) URL'],
    ['mailto: page', { page: 'mailto:a@b.c' }, 'page must be an absolute http(s) URL'],
    ['hostless page', { page: 'http://' }, 'page must be an absolute http(s) URL'],
    ['empty page', { page: '' }, 'page must be an absolute http(s) URL'],
    [
      'page longer than 2048',
      { page: `https://a.com/${'a'.repeat(2048)}` },
      'page is longer than 2048 characters',
    ],
    ['numeric referrer', { page: PAGE, referrer: 5 }, 'referrer must be a string'],
    [
      'referrer longer than 2048',
      { page: PAGE, referrer: `https://b.com/${'a'.repeat(2048)}` },
      'referrer is longer than 2048 characters',
    ],
    ...[
      '0x0',
      '99999x1',
      '1920*1080',
      'abc',
      '20001x1',
      '1x0',
      ' 1920x1080',
      '1920X1080',
      '1920x',
      '-1x5',
    ].map((screen_resolution): [string, Record<string, unknown>, string] => [
      `screen_resolution ${JSON.stringify(screen_resolution)}`,
      { page: PAGE, screen_resolution },
      'screen_resolution must be WIDTHxHEIGHT, each between 1 and 20000',
    ]),
    [
      'numeric screen_resolution',
      { page: PAGE, screen_resolution: 1920 },
      'screen_resolution must be a string like 1920x1080',
    ],
    ['numeric language', { page: PAGE, language: 5 }, 'language must be a string'],
    [
      'language longer than 35',
      { page: PAGE, language: 'x'.repeat(36) },
      'language is longer than 35 characters',
    ],
    ['numeric domain', { page: PAGE, domain: 5 }, 'domain must be a string'],
    [
      'domain longer than 253',
      { page: PAGE, domain: 'd'.repeat(254) },
      'domain is longer than 253 characters',
    ],
    ['string dnt', { page: PAGE, dnt: 'true' }, 'dnt must be a boolean'],
    ['numeric dnt', { page: PAGE, dnt: 1 }, 'dnt must be a boolean'],
    ['null dnt', { page: PAGE, dnt: null }, 'dnt must be a boolean'],
    // Events.
    [
      'numeric event',
      { page: PAGE, event: 5 },
      'event must be an object {name, value?, unit?} or a string',
    ],
    [
      'boolean event',
      { page: PAGE, event: true },
      'event must be an object {name, value?, unit?} or a string',
    ],
    [
      'event name with NUL',
      { page: PAGE, event: { name: 'a\u0000b' } },
      'event.name must not contain ":" or control characters',
    ],
    [
      'event name with a newline',
      { page: PAGE, event: { name: 'a\nb' } },
      'event.name must not contain ":" or control characters',
    ],
    [
      'event name with DEL',
      { page: PAGE, event: { name: 'a\u007f' } },
      'event.name must not contain ":" or control characters',
    ],
    [
      'event name with a C1 control',
      { page: PAGE, event: { name: 'a\u0085' } },
      'event.name must not contain ":" or control characters',
    ],
    ['empty event name', { page: PAGE, event: { name: '' } }, 'event.name must not be empty'],
    ['blank event name', { page: PAGE, event: { name: '   ' } }, 'event.name must not be empty'],
    [
      'event name longer than 64',
      { page: PAGE, event: { name: 'n'.repeat(65) } },
      'event.name is longer than 64 characters',
    ],
    [
      'event unit longer than 32',
      { page: PAGE, event: { name: 'x', unit: 'u'.repeat(33) } },
      'event.unit is longer than 32 characters',
    ],
    [
      'event unit with ":"',
      { page: PAGE, event: { name: 'x', unit: 'a:b' } },
      'event.unit must not contain ":" or control characters',
    ],
    [
      'event value with ":"',
      { page: PAGE, event: { name: 'x', value: 'a:b' } },
      'event.value must not contain ":" or control characters',
    ],
    [
      'event value longer than 64',
      { page: PAGE, event: { name: 'x', value: 'v'.repeat(65) } },
      'event.value is longer than 64 characters',
    ],
  ])('%s → %j', (_label, body, message) => {
    expect(parseHit(body)).toEqual({ ok: false, message });
  });

  // These hits are rightly rejected, but the message must point at the field that is wrong.
  it.each<[string, unknown, string]>([
    ['NaN', Number.NaN, 'event.value'],
    ['Infinity', Number.POSITIVE_INFINITY, 'event.value'],
    ['-Infinity', Number.NEGATIVE_INFINITY, 'event.value'],
    ['true', true, 'event.value'],
    ['an object', { amount: 1 }, 'event.value'],
  ])('event value %s is an error naming event.value', (_label, value, field) => {
    expect(errorOf({ page: PAGE, event: { name: 'x', value } })).toContain(field);
  });

  it('a non-string event name is an error naming event.name', () => {
    expect(errorOf({ page: PAGE, event: { name: 5 } })).toContain('event.name');
  });

  it.each([
    ['four parts', 'a:b:c:d'],
    ['empty name', ':5'],
    ['name longer than 64', 'n'.repeat(65)],
    ['unit longer than 32', `x:1:${'u'.repeat(33)}`],
    ['control character', 'sign\u0000up'],
  ])('an invalid string event (%s) gets the string-form message', (_label, event) => {
    expect(parseHit({ page: PAGE, event })).toEqual({
      ok: false,
      message: 'event must be "name", "name:value" or "name:value:unit"',
    });
  });

  it('a string event longer than 200 characters is an error naming its length', () => {
    expect(parseHit({ page: PAGE, event: 'e'.repeat(201) })).toEqual({
      ok: false,
      message: 'event is longer than 200 characters',
    });
  });

  it('every error message is a readable sentence, not a zod dump', () => {
    const bodies: unknown[] = [
      null,
      {},
      { page: 'ftp://a.com' },
      { page: PAGE, screen_resolution: 'abc' },
      { page: PAGE, event: { name: '' } },
      { page: PAGE, event: { name: 'x', value: Number.NaN } },
      { page: PAGE, event: 'a:b:c:d' },
      { page: PAGE, dnt: 'yes' },
    ];
    for (const body of bodies) {
      const message = errorOf(body);
      expect(typeof message).toBe('string');
      expect(message.length).toBeGreaterThan(10);
      expect(message).not.toMatch(/[[{]\s*"|invalid_type|invalid_union|ZodError|\n/);
    }
  });
});
