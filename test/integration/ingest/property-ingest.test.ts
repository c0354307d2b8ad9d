/**
 * Property-based: no hit can make `POST /api/event` or `POST /api/send` answer 5xx, and a
 * hit refused with 4xx writes nothing (docs/ARCHITECTURE.md, The HTTP contract). Bodies are Sightline's, Plausible's and
 * Umami's payloads with every field arbitrary, arbitrary JSON values, raw text and bytes,
 * under arbitrary content types, headers, client addresses and Cloudflare geolocation.
 */
import { exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { flushAllLogs, makeOwner, makeWebsite, ORIGIN, snapshots } from '../../support/api.ts';
import {
  anyJson,
  anyNumber,
  anyString,
  anyText,
  clientIp,
  headerValue,
  hostArb,
  isClientOrSuccess,
  longString,
  mostly,
  numericString,
  pathArb,
  queryArb,
  urlArb,
  usually,
} from '../../support/arbitraries.ts';
import { AUSTIN, CHROME_WINDOWS, SAFARI_IPHONE } from '../../support/hits.ts';

const MAIN = 'prop-ingest.example.com';
const OTHER = 'prop-other.example.org';
const DOMAINS = [MAIN, OTHER];

let mainId: number;
let otherId: number;

beforeAll(async () => {
  const { key } = await makeOwner('prop-ingest');
  // Bots are not excluded on the main site, so that arbitrary User-Agents reach the write path.
  mainId = (await makeWebsite(key, { domain: MAIN, exclude_bots: '0' })).id;
  otherId = (
    await makeWebsite(key, {
      domain: OTHER,
      timezone: 'Pacific/Kiritimati',
      exclude_params: 'fbclid\ngclid\nutm_source',
      exclude_ips: '203.0.113.0/24\n# office\n2001:db8::/32',
    })
  ).id;
});

type Body = { text: string } | { bytes: Uint8Array } | { none: true };

type Sent = {
  path: '/api/event' | '/api/send';
  body: Body;
  /** null: no Content-Type header (a string body then gets text/plain from Request). */
  contentType: string | null;
  ip: string | null;
  ua: string | null;
  headers: Record<string, string>;
  cf: Record<string, unknown>;
};

async function send(s: Sent) {
  const headers = new Headers();
  if (s.contentType !== null) headers.set('content-type', s.contentType);
  if (s.ip !== null) headers.set('cf-connecting-ip', s.ip);
  if (s.ua !== null) headers.set('user-agent', s.ua);
  for (const [name, value] of Object.entries(s.headers)) headers.set(name, value);
  const body = 'text' in s.body ? s.body.text : 'bytes' in s.body ? s.body.bytes : null;
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}${s.path}`, { method: 'POST', headers, body, cf: s.cf } as RequestInit),
  );
  return {
    status: res.status,
    dropReason: res.headers.get('x-drop-reason'),
    text: await res.text(),
  };
}

/**
 * Everything a hit may change: the websites' logs (rolled up into D1 first, as a reader would
 * see them) and D1's tables, read in one batch.
 */
const state = async () => {
  await flushAllLogs();
  return snapshots('stats', 'log_positions', 'websites');
};

/** Outcomes of one property's runs, to check that the generators reach the write path. */
type Tally = { stored: number; dropped: number; refused: number };
const newTally = (): Tally => ({ stored: 0, dropped: 0, refused: 0 });

/** The property itself: never 5xx; a 4xx leaves every table as it was; 2xx as documented. */
async function checkHit(s: Sent, tally: Tally) {
  const before = await state();
  const res = await send(s);
  expect(isClientOrSuccess(res.status), `${res.status} ${res.text}`).toBe(true);
  if (res.status >= 400) {
    tally.refused += 1;
    expect(await state()).toEqual(before);
    // 429 may come from a rate limiter with its own body; every other refusal is the API's.
    if (res.status !== 429) {
      expect(JSON.parse(res.text)).toEqual({ message: expect.any(String), status: res.status });
    }
    return;
  }
  if (res.dropReason === null) tally.stored += 1;
  else tally.dropped += 1;
  if (s.path === '/api/event') {
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  } else {
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({});
  }
}

// ---------------------------------------------------------------------------------------------
// Generators for the request around the body.

const uaArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(CHROME_WINDOWS, SAFARI_IPHONE) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'curl/8.5.0',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      '',
    ),
  },
  { weight: 2, arbitrary: headerValue },
  { weight: 1, arbitrary: fc.constant(null) },
);

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'accept-language': fc.oneof(fc.constantFrom('de-DE,de;q=0.9', 'en', '*', 'x'), headerValue),
    dnt: fc.oneof(fc.constantFrom('1', '0'), headerValue),
    'sec-gpc': fc.oneof(fc.constantFrom('1', '0'), headerValue),
    'sec-ch-ua': fc.oneof(
      fc.constant('"Chromium";v="131", "Google Chrome";v="131", "Not_A Brand";v="24"'),
      headerValue,
    ),
    'sec-ch-ua-platform': fc.oneof(
      fc.constantFrom('"Windows"', '"Android"', '"macOS"'),
      headerValue,
    ),
    'sec-ch-ua-mobile': fc.oneof(fc.constantFrom('?0', '?1'), headerValue),
    'sec-purpose': fc.oneof(fc.constantFrom('prefetch', 'prefetch;prerender'), headerValue),
    'x-forwarded-for': fc.oneof(fc.ipV4(), headerValue),
    'x-umami-cache': headerValue,
  },
  { requiredKeys: [] },
);

const cfArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(AUSTIN) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        country: mostly(fc.constantFrom('US', 'DE', 'XX', 'T1', 'us', 'U', 'ZZ', '')),
        continent: mostly(fc.constantFrom('NA', 'EU', 'AN', 'XX', 'na', '')),
        city: mostly(anyString),
        regionCode: mostly(fc.constantFrom('TX', 'BE', '')),
      },
      { requiredKeys: [] },
    ),
  },
);

const goodContentType = fc.constantFrom(
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/json',
  'application/json; charset=utf-8',
  'TEXT/PLAIN',
  ' application/json ; x=y',
);
const anyContentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 4, arbitrary: goodContentType },
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/ld+json',
      'application/json-patch+json',
      'text/plain;',
      'text/plainx',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

// ---------------------------------------------------------------------------------------------
// Generators for the body.

const pageArb = urlArb(DOMAINS);
/** A page on one of the websites, with an arbitrary path and query: a hit that can be stored. */
const sitePage = fc
  .tuple(
    fc.constantFrom(MAIN, `www.${MAIN}`, `blog.${MAIN}`, OTHER, `www.${OTHER}`),
    fc.oneof({ weight: 2, arbitrary: fc.constantFrom('/', '/pricing') }, pathArb),
    fc.option(queryArb, { nil: '' }),
  )
  .map(([host, path, query]) => `https://${host}${path}${query ? `?${query}` : ''}`);
const domainField = fc.oneof(
  { weight: 3, arbitrary: hostArb(DOMAINS) },
  {
    weight: 1,
    arbitrary: fc
      .array(hostArb(DOMAINS), { minLength: 1, maxLength: 12 })
      .map((list) => list.join(',')),
  },
);
const resolutionArb = fc.oneof(
  fc.constantFrom('1920x1080', '1x1', '20000x20000', '0x0', '20001x1', '1920X1080', '1920x', ''),
  fc.tuple(numericString, numericString).map(([w, h]) => `${w}x${h}`),
  anyString,
);
const languageArb = fc.oneof(fc.constantFrom('en', 'de-DE', 'zh_Hant_TW', 'x', ''), anyString);
/** An event name, value or unit: identifiers, with the `:` that separates them, and junk. */
const tokenArb = fc.oneof(
  fc.constantFrom('signup', 'purchase', 'Outbound Link: Click', 'usd', '49', ' ', ''),
  anyString,
  longString,
);
const eventArb = fc.oneof(
  fc.record(
    {
      name: mostly(tokenArb),
      value: mostly(fc.oneof(anyNumber, numericString, tokenArb)),
      unit: mostly(tokenArb),
    },
    { requiredKeys: [] },
  ),
  fc.array(tokenArb, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(':')),
  anyJson,
);

/** Unknown keys alongside the known ones. */
const extras = fc.dictionary(
  fc.oneof(
    anyString,
    fc.constantFrom('__proto__', 'constructor', 'toString', 'path', 'websiteId', 'hits'),
  ),
  anyJson,
  { maxKeys: 3 },
);
const withExtras = <T extends Record<string, unknown>>(arb: fc.Arbitrary<T>) =>
  fc.tuple(arb, extras).map(([known, more]) => ({ ...more, ...known }));

/** Sightline's (and phpAnalytics') hit: close to what the tracker sends, or anything at all. */
const nativeHit = fc.oneof(
  fc.record(
    {
      page: sitePage,
      referrer: usually(
        fc.constantFrom(null, '', 'https://www.google.com/search?q=x', `https://${MAIN}/`),
        pageArb,
      ),
      screen_resolution: usually(fc.constantFrom('1920x1080', '390x844', null), resolutionArb),
      language: usually(fc.constantFrom('en-US', 'de', null), languageArb),
      domain: usually(fc.constantFrom(MAIN, OTHER, `www.${MAIN}`), domainField),
      event: usually(
        fc.constantFrom(
          null,
          { name: 'signup' },
          { name: 'purchase', value: 49.5, unit: 'usd' },
          'download:report.pdf',
        ),
        eventArb,
      ),
      dnt: usually(fc.boolean(), anyJson),
    },
    { requiredKeys: ['page'] },
  ),
  withExtras(
    fc.record(
      {
        page: mostly(pageArb, 8),
        referrer: mostly(fc.oneof(pageArb, fc.constantFrom('android-app://com.x/', ''))),
        screen_resolution: mostly(resolutionArb),
        language: mostly(languageArb),
        domain: mostly(domainField),
        event: mostly(eventArb),
        dnt: mostly(fc.boolean()),
      },
      { requiredKeys: [] },
    ),
  ),
);

/** Plausible's event, short keys or long ones: close to its tracker's, or anything at all. */
const plausibleHit = fc.oneof(
  fc.record(
    {
      n: usually(fc.constantFrom('pageview', 'Signup', 'Outbound Link: Click'), tokenArb),
      u: sitePage,
      d: usually(
        fc.constantFrom(MAIN, OTHER, `${MAIN},${OTHER}`, `${MAIN},www.${MAIN}`),
        domainField,
      ),
      r: usually(fc.constantFrom(null, 'https://duckduckgo.com/'), pageArb),
      p: usually(
        fc.constantFrom({ value: 49, unit: 'usd' }, '{"plan":"pro"}', {}),
        fc.oneof(
          fc.record({ value: anyJson, unit: anyJson }, { requiredKeys: [] }),
          fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
          anyJson,
        ),
      ),
      $: usually(
        fc.constantFrom({ amount: '19.99', currency: 'EUR' }),
        fc.record({ amount: anyJson, currency: anyJson }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: ['n', 'u'] },
  ),
  withExtras(
    fc.record(
      {
        n: mostly(
          fc.oneof(fc.constantFrom('pageview', 'engagement', 'Signup', 'a:b'), tokenArb),
          8,
        ),
        u: mostly(pageArb, 8),
        d: mostly(domainField),
        r: mostly(pageArb),
        p: mostly(
          fc.oneof(
            fc.record({ value: anyJson, unit: anyJson }, { requiredKeys: [] }),
            fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
            anyString,
          ),
        ),
        m: anyJson,
        $: mostly(fc.record({ amount: anyJson, currency: anyJson }, { requiredKeys: [] })),
        w: mostly(anyNumber),
        h: mostly(fc.constantFrom(0, 1)),
        i: mostly(fc.boolean()),
        name: mostly(tokenArb),
        url: mostly(pageArb),
        domain: mostly(domainField),
        referrer: mostly(pageArb),
        props: anyJson,
        revenue: anyJson,
      },
      { requiredKeys: [] },
    ),
  ),
);

/**
 * Umami's `{type, payload}`: close to its tracker's, or anything at all. `website` names a
 * site by id, by UUID, by domain, or not at all. (A function: the websites' ids are known
 * only once `beforeAll` has run.)
 */
const umamiHit = () => {
  const website = fc.oneof(
    fc.constantFrom(
      String(mainId),
      String(otherId),
      '0',
      '-1',
      '01',
      '9007199254740993',
      '9999999999999999',
      '00000000-0000-0000-0000-000000000000',
      MAIN,
      OTHER,
    ),
    fc.constantFrom(mainId, otherId, 0, 1e16, 1.5),
    fc.uuid(),
    hostArb(DOMAINS),
    numericString,
  );
  const url = fc.oneof(
    fc.constantFrom('/', '/pricing?utm_campaign=x', 'pricing', ''),
    pathArb,
    pageArb,
    anyString,
  );
  const data = fc.record(
    { value: anyJson, unit: anyJson, revenue: anyJson, currency: anyJson },
    { requiredKeys: [] },
  );
  const realistic = fc.record({
    type: fc.constant('event'),
    payload: fc.record(
      {
        website: usually(fc.constantFrom(String(mainId), mainId, MAIN, OTHER), website),
        hostname: usually(fc.constantFrom(MAIN, `www.${MAIN}`, OTHER), hostArb(DOMAINS)),
        url: usually(fc.constantFrom('/', '/pricing?utm_campaign=x'), url),
        referrer: usually(fc.constantFrom('', 'https://www.bing.com/'), pageArb),
        screen: usually(fc.constantFrom('1920x1080', ''), resolutionArb),
        language: usually(fc.constantFrom('en-US', ''), languageArb),
        title: fc.constantFrom('Home', ''),
        name: usually(fc.constantFrom('signup', 'Outbound Link: Click'), tokenArb),
        data: usually(fc.constantFrom({ revenue: 10, currency: 'USD' }, { value: 3 }), data),
      },
      { requiredKeys: ['website'] },
    ),
  });
  const chaotic = withExtras(
    fc.record(
      {
        type: mostly(fc.constantFrom('event', 'identify', 'Event'), 8),
        payload: mostly(
          withExtras(
            fc.record(
              {
                website: mostly(website, 8),
                hostname: mostly(hostArb(DOMAINS)),
                url: mostly(url),
                referrer: mostly(pageArb),
                screen: mostly(resolutionArb),
                language: mostly(languageArb),
                title: anyJson,
                name: mostly(tokenArb),
                data: mostly(data),
                tag: anyJson,
                id: anyJson,
              },
              { requiredKeys: [] },
            ),
          ),
          8,
        ),
      },
      { requiredKeys: [] },
    ),
  );
  return fc.oneof(realistic, chaotic);
};

/** A JSON value written as the body: mostly as is, sometimes damaged. */
function jsonBody(value: fc.Arbitrary<unknown>): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => ({ text: JSON.stringify(v) ?? '' })) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.nat(), anyString).map(([v, cut, junk]) => {
        const text = JSON.stringify(v) ?? '';
        return { text: `${text.slice(0, cut % (text.length + 1))}${junk}` };
      }),
    },
  );
}

const requestAround = (
  path: Sent['path'],
  body: fc.Arbitrary<Body>,
  contentType = anyContentType,
) =>
  fc.record({
    path: fc.constant(path),
    body,
    contentType,
    ip: clientIp,
    ua: uaArb,
    headers: extraHeaders,
    cf: cfArb,
  });

// Each property runs a few hundred requests at most: the whole file stays well under a minute.
describe('POST /api/event never answers 5xx, and a 4xx writes nothing', () => {
  it('Sightline and phpAnalytics hits with arbitrary fields', async () => {
    const tally = newTally();
    await fc.assert(
      fc.asyncProperty(
        requestAround(
          '/api/event',
          jsonBody(nativeHit),
          fc.oneof({ weight: 6, arbitrary: goodContentType }, anyContentType),
        ),
        (s) => checkHit(s, tally),
      ),
      { numRuns: 200 },
    );
    // The generators must reach every outcome, the write path included.
    expect(tally.stored).toBeGreaterThan(10);
    expect(tally.dropped).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(10);
  });

  it("Plausible's events with arbitrary fields", async () => {
    const tally = newTally();
    await fc.assert(
      fc.asyncProperty(
        requestAround(
          '/api/event',
          jsonBody(plausibleHit),
          fc.oneof({ weight: 6, arbitrary: goodContentType }, anyContentType),
        ),
        (s) => checkHit(s, tally),
      ),
      { numRuns: 150 },
    );
    expect(tally.stored).toBeGreaterThan(5);
    expect(tally.refused).toBeGreaterThan(5);
  });

  it('arbitrary JSON values, text, bytes and content types', async () => {
    const tally = newTally();
    const body: fc.Arbitrary<Body> = fc.oneof(
      { weight: 3, arbitrary: jsonBody(fc.oneof(anyJson, fc.array(nativeHit, { maxLength: 3 }))) },
      { weight: 2, arbitrary: anyText.map((text) => ({ text })) },
      { weight: 1, arbitrary: longString.map((text) => ({ text })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes })) },
      { weight: 1, arbitrary: fc.constant({ none: true as const }) },
    );
    await fc.assert(
      fc.asyncProperty(requestAround('/api/event', body), (s) => checkHit(s, tally)),
      { numRuns: 150 },
    );
    expect(tally.refused).toBeGreaterThan(10);
  });
});

describe('POST /api/send never answers 5xx, and a 4xx writes nothing', () => {
  it("Umami's payloads with arbitrary fields", async () => {
    const tally = newTally();
    await fc.assert(
      fc.asyncProperty(
        requestAround(
          '/api/send',
          jsonBody(umamiHit()),
          fc.oneof({ weight: 6, arbitrary: goodContentType }, anyContentType),
        ),
        (s) => checkHit(s, tally),
      ),
      { numRuns: 200 },
    );
    expect(tally.stored).toBeGreaterThan(10);
    expect(tally.dropped).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(5);
  });

  it('arbitrary JSON values (other trackers’ payloads too), text and content types', async () => {
    const tally = newTally();
    const body: fc.Arbitrary<Body> = fc.oneof(
      { weight: 3, arbitrary: jsonBody(fc.oneof(anyJson, nativeHit, plausibleHit)) },
      { weight: 2, arbitrary: anyText.map((text) => ({ text })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes })) },
    );
    await fc.assert(
      fc.asyncProperty(requestAround('/api/send', body), (s) => checkHit(s, tally)),
      { numRuns: 100 },
    );
    expect(tally.refused).toBeGreaterThan(10);
  });
});
