/**
 * Property-based: no request to the dashboard pages answers 5xx (docs/ARCHITECTURE.md, The HTTP contract). The statistics
 * page, its full views and CSV exports get arbitrary query parameters (range, dates, search,
 * sort, page, …); every other page arbitrary query strings; `POST /login` and the stats
 * password form arbitrary fields and bodies. Reading a page never changes anything; a
 * refused form signs nobody in.
 */
import { exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import { RANGES } from '../../../src/lib/time/dates.ts';
import { flushAllLogs, makeOwner, makeWebsite, ORIGIN, snapshots } from '../../support/api.ts';
import {
  anyString,
  anyText,
  dateArb,
  encode,
  headerValue,
  isClientOrSuccess,
  numericString,
  paramsArb,
  queryString,
  searchTerm,
} from '../../support/arbitraries.ts';
import { signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const PUBLIC = 'prop-pages.example.com';
const PRIVATE = 'prop-pages-private.example.com';
const PROTECTED = 'prop-pages-protected.example.com';
const SITE_PASSWORD = 'the site password';
const FORM = 'application/x-www-form-urlencoded';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let sessionCookie: string;
/** The cookie that the protected site's password form gives. */
let siteCookie: string;
let siteIds: number[];

beforeAll(async () => {
  owner = await makeOwner('prop-pages');
  const browser = await signedIn(owner);
  sessionCookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  siteIds = [
    (await makeWebsite(owner.key, { domain: PUBLIC, privacy: '0' })).id,
    (await makeWebsite(owner.key, { domain: PRIVATE, privacy: '1' })).id,
    (
      await makeWebsite(owner.key, {
        domain: PROTECTED,
        privacy: '2',
        password: SITE_PASSWORD,
      })
    ).id,
  ];
  // Traffic with values that need escaping in HTML, CSV and links.
  for (const [i, body] of [
    { page: `https://${PUBLIC}/?utm_campaign=%3Cb%3Espring`, referrer: 'https://www.google.com/' },
    { page: `https://${PUBLIC}/=cmd|'/C calc'!A0`, language: 'de' },
    { page: `https://${PUBLIC}/deal/100%25_off?q="x",y` },
    { page: `https://${PUBLIC}/${'long-'.repeat(60)}` },
    { page: `https://${PUBLIC}/`, event: { name: '<script>', value: 1, unit: 'usd' } },
    { page: `https://${PRIVATE}/` },
    { page: `https://${PROTECTED}/` },
  ].entries()) {
    const res = await sendHit(body, { ip: `192.0.2.${i + 1}` });
    if (res.status !== 202 || res.dropReason) throw new Error(`hit not stored: ${res.status}`);
  }
  // Rolled up now: reading a page then changes nothing (its flush finds the logs empty).
  await flushAllLogs();
  // Server secrets are created on first use (by the first visit of a protected site or of
  // an unsubscribe link); make them now, so that reading a page never has to.
  const unlocked = await page('POST', `/stats/${PROTECTED}/password`, {
    body: { text: `password=${encodeURIComponent(SITE_PASSWORD)}`, type: FORM },
  });
  if (unlocked.status !== 303) throw new Error(`password form: ${unlocked.status}`);
  siteCookie = unlocked.headers.getSetCookie()[0]?.split(';', 1)[0] ?? '';
  if (!siteCookie.startsWith('sl_site_')) throw new Error(`no site cookie: ${siteCookie}`);
  await page('GET', `/reports/unsubscribe/${siteIds[0]}/${'0'.repeat(32)}`);
});

// ---------------------------------------------------------------------------------------------
// Requests.

type Options = {
  signedIn?: boolean;
  ip?: string;
  /** Defaults to the Worker's own origin on a POST; null sends none. */
  origin?: string | null;
  body?: { text: string; type: string | null };
  cookie?: string;
};

async function page(method: string, path: string, options: Options = {}) {
  const headers = new Headers({ accept: 'text/html' });
  headers.set('cf-connecting-ip', options.ip ?? '198.18.200.1');
  const cookies = [options.signedIn ? sessionCookie : '', options.cookie ?? ''].filter(Boolean);
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  const origin = options.origin === undefined && method === 'POST' ? ORIGIN : options.origin;
  if (origin) headers.set('origin', origin);
  if (options.body?.type) headers.set('content-type', options.body.type);
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers,
      body: options.body ? options.body.text : null,
      redirect: 'manual',
    }),
  );
  return {
    status: res.status,
    headers: res.headers,
    text: await res.text(),
    location: res.headers.get('location'),
  };
}

/** Every table a page could write. */
const state = () =>
  snapshots(
    'websites',
    'owners',
    'api_keys',
    'sessions',
    'stats',
    'log_positions',
    'secrets',
    'throttles',
    'report_sends',
  );

/** The property for reads: never 5xx, and nothing changed, whatever the answer. */
async function checkRead(path: string, options: Options) {
  const before = await state();
  const res = await page('GET', path, options);
  expect(isClientOrSuccess(res.status), `${res.status} ${path}\n${res.text.slice(0, 500)}`).toBe(
    true,
  );
  expect(await state()).toEqual(before);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Generators.

const today = new Date().toISOString().slice(0, 10);
const date = dateArb(today);

/** The query parameters the statistics pages read, and others. */
const statsParams = paramsArb({
  range: fc.oneof(fc.constantFrom(...RANGES), fc.constantFrom('TODAY', '90d', 'all', '')),
  from: date,
  to: date,
  search: fc.oneof(fc.constantFrom('deal', 'DEAL/100'), searchTerm),
  sort_by: fc.constantFrom('value', 'count', 'id', ''),
  sort: fc.constantFrom('asc', 'desc', 'ASC', ''),
  page: fc.oneof(
    fc.constantFrom('1', '2', '1000000', '1000001', '0', '-1', '1.5', '1e9', '0x10'),
    numericString,
  ),
  name: fc.constantFrom(...STAT_NAMES),
});

/** A statistic's name as the page routes see it: real ones, near misses, anything. */
const statName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...STAT_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('stats', 'PAGE', 'page_', 'password', 'csv', '') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z_]{1,20}$/) },
  { weight: 1, arbitrary: anyString.map(encode) },
);

/** A website's domain as it appears in a page path. */
const domainSegment = fc.oneof(
  { weight: 5, arbitrary: fc.constant(PUBLIC) },
  { weight: 2, arbitrary: fc.constantFrom(PRIVATE, PROTECTED) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      `www.${PUBLIC}`,
      PUBLIC.toUpperCase(),
      `${PUBLIC}.`,
      encodeURIComponent(`https://${PUBLIC}`),
      `${PUBLIC}:443`,
      PRIVATE,
      PROTECTED,
      'unknown.example.net',
      '%',
      '%zz',
      '..',
      '',
    ),
  },
  { weight: 1, arbitrary: anyString.map(encode) },
);

/** The tail of a statistics path: the page, a full view or a CSV export. */
const statsTail = fc.oneof(
  fc.constant(''),
  statName.map((name) => `/${name}`),
  statName.map((name) => `/${name}.csv`),
);

// ---------------------------------------------------------------------------------------------
// Properties.

describe('statistics pages: never 5xx, and never a change', () => {
  it('GET /stats/{domain}, its full views and CSV exports with arbitrary query parameters', async () => {
    // Visitors: anonymous, the signed-in owner, one who gave the protected site's password.
    let shown = 0;
    await fc.assert(
      fc.asyncProperty(
        domainSegment,
        statsTail,
        statsParams,
        fc.boolean(),
        fc.constantFrom('anonymous', 'owner', 'unlocked'),
        async (domain, tail, pairs, raw, visitor) => {
          const path = `/stats/${domain}${tail}?${queryString(pairs, raw)}`;
          const res = await checkRead(path, {
            signedIn: visitor === 'owner',
            ...(visitor === 'unlocked' ? { cookie: siteCookie } : {}),
          });
          if (res.status === 200) {
            shown += 1;
            // A page, or a CSV export (a protected site shows its password form instead).
            const type = res.headers.get('content-type') ?? '';
            if (type.startsWith('text/csv')) {
              expect(tail.endsWith('.csv')).toBe(true);
              // Its columns named: the value's, then each metric's.
              expect(res.text).toMatch(
                /^(date|hour|[a-z_]+),(visitors|visits|page_views|events|bounces|duration)[a-z_,]*\r\n/,
              );
            } else {
              expect(type).toMatch(/^text\/html/);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(shown).toBeGreaterThan(30);
  });
});

describe('other pages: never 5xx, and never a change', () => {
  it('GET of every page with arbitrary query strings, signed in or not', async () => {
    const paths = fc.constantFrom(
      '/',
      '/login',
      '/register',
      '/logout',
      '/websites',
      '/websites/new',
      '/account',
      '/websites/{id}',
      '/websites/{id}/delete',
      '/websites/{other}',
      '/reports/unsubscribe/{id}/00000000000000000000000000000000',
      '/api/v1/docs',
      '/js/script.js',
      '/nothing-here',
    );
    const params = paramsArb({
      created: fc.constantFrom('1', '0', ''),
      saved: fc.constantFrom('1', '0', ''),
      deleted: fc.oneof(fc.constantFrom(PUBLIC, '<script>alert(1)</script>'), anyText),
      next: fc.constantFrom('/websites', '//evil.example', 'https://evil.example/'),
    });
    await fc.assert(
      fc.asyncProperty(
        paths,
        fc.oneof(fc.constantFrom(...siteIds.map(String)), anyString.map(encode)),
        params,
        fc.boolean(),
        fc.boolean(),
        async (template, id, pairs, raw, asOwner) => {
          const path = template
            .replace('{id}', String(siteIds[0]))
            .replace('{other}', id)
            .concat(`?${queryString(pairs, raw)}`);
          await checkRead(path, { signedIn: asOwner });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('regressions found by the properties', () => {
  it('answers a form that cannot be read with 400, not 500', async () => {
    const browser = await signedIn(owner);
    for (const path of [
      '/login',
      '/register',
      `/stats/${PROTECTED}/password`,
      '/websites',
      `/websites/${siteIds[0]}`,
      `/websites/${siteIds[0]}/delete`,
      '/account/api-key',
      '/account/password',
      '/logout',
    ]) {
      for (const type of ['multipart/form-data', 'multipart/form-data; boundary=b']) {
        const before = await state();
        const res = await page('POST', path, {
          body: { text: 'email=a&password=b', type },
          cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        });
        expect(res.status, `${path} ${type}`).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.text).toContain('<h1>Bad request</h1>');
        expect(res.text).toContain('The form could not be read.');
        expect(await state()).toEqual(before);
      }
    }
  });

  // D1 refuses a LIKE pattern over 50 bytes: a longer search was a 500.
  it('searches a full view and a CSV export with a long term', async () => {
    const search = encodeURIComponent(`/deal/100%_off?q="x",y${'_'.repeat(40)}`);
    const view = await page('GET', `/stats/${PUBLIC}/page?search=${search}`);
    expect(view.status).toBe(200);
    expect(view.text).toContain('Nothing found.');
    const csv = await page('GET', `/stats/${PUBLIC}/page.csv?search=${'LONG-'.repeat(30)}`);
    expect(csv.status).toBe(200);
    // (Pages are recorded up to 255 characters.)
    const [header, row, end] = csv.text.split('\r\n');
    expect(header).toBe('page,visitors,page_views,bounce_rate,time_on_page,scroll_depth');
    expect(row?.startsWith(`${`/${'long-'.repeat(60)}`.slice(0, 255)},1,1,`)).toBe(true);
    expect(end).toBe('');
  });
});

describe('forms: never 5xx, and a refusal signs nobody in', () => {
  /** A form body: urlencoded pairs (names may repeat), multipart, or anything at all. */
  const formBody = (fields: fc.Arbitrary<[string, string][]>) =>
    fc.oneof(
      {
        weight: 4,
        arbitrary: fields.map((pairs) => ({
          text: new URLSearchParams(pairs).toString(),
          type: FORM as string | null,
        })),
      },
      {
        weight: 1,
        arbitrary: fields.map((pairs) => ({
          text: `${pairs
            .map(
              ([name, value]) =>
                `--b\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"\r\n\r\n${value}\r\n`,
            )
            .join('')}--b--\r\n`,
          type: 'multipart/form-data; boundary=b' as string | null,
        })),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          text: anyText,
          type: fc.oneof(
            fc.constantFrom(
              null,
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              'multipart/form-data; boundary=b',
              'multipart/form-data; boundary=',
              'text/plain',
              'application/json',
            ),
            headerValue,
          ),
        }),
      },
    );

  it('POST /login with arbitrary fields', async () => {
    // The owner's own e-mail comes only with the right password, so that failures never
    // throttle it (after five from one address, that address is) and some attempts sign in.
    const credentials = fc
      .tuple(
        fc.constantFrom(owner.email, owner.email.toUpperCase(), ` ${owner.email} `),
        fc.array(fc.tuple(fc.constantFrom('_csrf', 'remember', 'email[]'), anyText), {
          maxLength: 2,
        }),
      )
      .map(([email, extra]): [string, string][] => [
        ...extra,
        ['email', email],
        ['password', OWNER_PASSWORD],
      ]);
    const wrong = paramsArb({
      email: fc.oneof(
        fc.constantFrom('', 'nobody@example.com', 'a@b', '@', 'A'.repeat(300)),
        anyText,
      ),
      password: fc.oneof(fc.constantFrom('', 'wrong password', OWNER_PASSWORD), anyText),
      _csrf: anyText,
    });
    const fields = fc.oneof(credentials, wrong, wrong);
    let signedInCount = 0;
    await fc.assert(
      fc.asyncProperty(
        formBody(fields),
        fc.ipV4(),
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(undefined) },
          fc.constantFrom(null, 'https://evil.example'),
        ),
        async (body, ip, origin) => {
          const before = await state();
          const res = await page('POST', '/login', { body, ip, origin });
          expect(isClientOrSuccess(res.status), `${res.status} ${res.text.slice(0, 500)}`).toBe(
            true,
          );
          const after = await state();
          expect({ ...after, sessions: [], throttles: [] }).toEqual({
            ...before,
            sessions: [],
            throttles: [],
          });
          if (res.status === 303 && res.location === '/websites') {
            signedInCount += 1;
            const added = after.sessions.filter(
              (s) => !before.sessions.some((b) => b.token_hash === s.token_hash),
            );
            expect(added).toMatchObject([{ owner_id: owner.id }]);
          } else {
            // Not signed in: no session, no cookie.
            expect(after.sessions).toEqual(before.sessions);
            expect(res.headers.getSetCookie()).toEqual([]);
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(signedInCount).toBeGreaterThan(0);
  });

  it('POST /stats/{domain}/password with arbitrary fields', async () => {
    const fields = paramsArb({
      password: fc.oneof(fc.constant(SITE_PASSWORD), anyText),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: fc.constant(PROTECTED) }, domainSegment),
        formBody(fields),
        fc.ipV4(),
        async (domain, body, ip) => {
          const before = await state();
          const res = await page('POST', `/stats/${domain}/password`, { body, ip });
          expect(isClientOrSuccess(res.status), `${res.status} ${res.text.slice(0, 500)}`).toBe(
            true,
          );
          const after = await state();
          expect({ ...after, throttles: [] }).toEqual({ ...before, throttles: [] });
          if (res.status !== 303) expect(res.headers.getSetCookie()).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
