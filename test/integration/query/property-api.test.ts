/**
 * Property-based: no request to API v1 answers 5xx (docs/ARCHITECTURE.md, The HTTP contract). Every validator gets
 * arbitrary values — website fields as form, JSON (any JSON value) and multipart bodies,
 * arbitrary path ids, list and stats query parameters — and a refused request (4xx) leaves
 * the websites, owners and API keys exactly as they were; reads never change anything.
 */
import { exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import {
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  ORIGIN,
  oneOf,
  readResponse,
  snapshots,
} from '../../support/api.ts';
import {
  anyJson,
  anyString,
  anyText,
  dateArb,
  encode,
  headerValue,
  hostArb,
  isClientOrSuccess,
  numericString,
  paramsArb,
  queryString,
  searchTerm,
  usually,
} from '../../support/arbitraries.ts';
import { sendHit } from '../../support/hits.ts';

const MAIN = 'prop-api.example.com';
const FOREIGN = 'prop-api-foreign.example.net';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let me: Owner;
let stranger: Owner;
let mainId: number;
let foreignId: number;

beforeAll(async () => {
  me = await makeOwner('prop-api');
  stranger = await makeOwner('prop-api-stranger');
  mainId = (await makeWebsite(me.key, { domain: MAIN })).id;
  foreignId = (await makeWebsite(stranger.key, { domain: FOREIGN })).id;
  // Some roll-ups for the stats queries to find.
  for (const [i, page] of ['/', '/pricing', '/deal/100%25_off', '/a_b'].entries()) {
    const res = await sendHit(
      { page: `https://${MAIN}${page}`, referrer: 'https://x.example/' },
      {
        ip: `192.0.2.${i + 1}`,
      },
    );
    if (res.status !== 202 || res.dropReason) throw new Error(`hit not stored: ${res.status}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Requests.

type Body =
  | { kind: 'form'; pairs: [string, string][] }
  | { kind: 'multipart'; parts: [string, string, boolean][] }
  | { kind: 'json'; text: string }
  | { kind: 'raw'; text: string; type: string | null }
  | { kind: 'none' };

/** Which credential a request carries. */
type Auth = 'me' | 'stranger' | 'none' | { header: string };

type Req = { method: string; path: string; auth: Auth; body: Body };

const BOUNDARY = '----sightline-property-test';

/**
 * A multipart/form-data body, written by hand: workerd's own FormData refuses some names
 * (one ending with a backslash) that a client elsewhere may well send.
 */
function multipart(parts: [string, string, boolean][]): string {
  // Names are escaped as browsers do (HTML: `"`, CR and LF percent-encoded).
  const quoted = (name: string) =>
    name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const sections = parts.map(
    ([name, value, asFile]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${quoted(name)}"${
        asFile ? '; filename="field.txt"\r\nContent-Type: text/plain' : ''
      }\r\n\r\n${value}\r\n`,
  );
  return `${sections.join('')}--${BOUNDARY}--\r\n`;
}

async function send({ method, path, auth, body }: Req) {
  const headers = new Headers();
  if (auth === 'me') headers.set('authorization', `Bearer ${me.key}`);
  else if (auth === 'stranger') headers.set('authorization', `Bearer ${stranger.key}`);
  else if (auth !== 'none') headers.set('authorization', auth.header);
  let payload: BodyInit | null = null;
  if (body.kind === 'form') {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    payload = new URLSearchParams(body.pairs).toString();
  } else if (body.kind === 'multipart') {
    headers.set('content-type', `multipart/form-data; boundary=${BOUNDARY}`);
    payload = multipart(body.parts);
  } else if (body.kind === 'json') {
    headers.set('content-type', 'application/json');
    payload = body.text;
  } else if (body.kind === 'raw') {
    if (body.type !== null) headers.set('content-type', body.type);
    payload = body.text;
  }
  return readResponse(
    await exports.default.fetch(
      new Request(`${ORIGIN}${path}`, { method, headers, body: payload }),
    ),
  );
}

/** The tables an API request may change, read in one batch. */
const state = () => snapshots('websites', 'owners', 'api_keys', 'website_purges');

/**
 * The property: never 5xx; a 4xx changes nothing and answers the API's error shape (a 422
 * names its fields); a read (`GET`) changes nothing whatever it answers. Returns the
 * response and the state before it, for further checks of a success.
 */
async function checkRequest(req: Req) {
  const before = await state();
  const res = await send(req);
  expect(isClientOrSuccess(res.status), `${res.status} ${res.text}`).toBe(true);
  if (res.status >= 400 || req.method === 'GET') expect(await state()).toEqual(before);
  if (res.status === 422) {
    expect(res.json).toEqual({
      message: expect.any(String),
      errors: expect.any(Object),
      status: 422,
    });
    expect(Object.keys(errorOf(res).errors).length).toBeGreaterThan(0);
  } else if (res.status >= 400 && res.status !== 429) {
    // (A 429 may come from a rate limiter with a body of its own.)
    expect(res.json).toEqual({ message: expect.any(String), status: res.status });
  }
  return { res, before };
}

// ---------------------------------------------------------------------------------------------
// Generators.

const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Auth>('me') },
  { weight: 1, arbitrary: fc.constant<Auth>('stranger') },
  { weight: 1, arbitrary: fc.constant<Auth>('none') },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        headerValue.map((v) => `Bearer ${v}`),
        fc.constantFrom('Bearer', 'Basic dXNlcjpwYXNz', `Bearer sl_${'A'.repeat(43)}`),
        headerValue,
      )
      .map((header): Auth => ({ header })),
  },
);

const flag = fc.oneof(
  fc.constantFrom('0', '1', '2', 0, 1, 2, true, false, ' 1 ', '3', '-1', '1.0', '01', '', null),
  numericString,
);
const lines = (entry: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.array(entry, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r', ',', ' '))
    .map(([entries, sep]) => entries.join(sep));
const ipEntry = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc
    .tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: -1, max: 200 }))
    .map(([ip, bits]) => `${ip}/${bits}`),
  fc.constantFrom('# office', '', ' ', '10.0.0.0/8', '::ffff:1.2.3.4/128', '1.2.3', '1.2.3.4/'),
  anyString,
);
const paramEntry = fc.oneof(
  fc.constantFrom('fbclid', 'utm_source', '*', '# c', '', ' a ', 'a b', 'a=b', 'a[]'),
  anyString,
);
const timezone = fc.oneof(
  fc.constantFrom(
    'UTC',
    'Europe/Berlin',
    'europe/berlin',
    'EUROPE/BERLIN',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'US/Pacific',
    'EST',
    'Etc/GMT+5',
    'Etc/GMT+14',
    '+05:00',
    'Mars/Olympus',
    ' UTC ',
    'UTC/',
    '',
  ),
  anyText,
);
const password = fc.oneof(
  fc.constantFrom('', 'a site password', 'x'.repeat(128), 'x'.repeat(129), '\u{1F642}'.repeat(64)),
  anyText,
);

/**
 * Website fields: each known one (arbitrary values of its kind, or any JSON), and unknown
 * ones; mostly close to what a real client sends, so that many writes succeed.
 */
function websiteFields(domains: fc.Arbitrary<unknown>) {
  const chaotic = fc.record(
    {
      domain: domains,
      privacy: fc.oneof(flag, anyJson),
      password: fc.oneof(password, anyJson),
      email: fc.oneof(flag, anyJson),
      exclude_bots: fc.oneof(flag, anyJson),
      exclude_datacenters: fc.oneof(flag, anyJson),
      exclude_params: fc.oneof(lines(paramEntry), anyJson),
      exclude_ips: fc.oneof(lines(ipEntry), anyJson),
      timezone: fc.oneof(timezone, anyJson),
    },
    { requiredKeys: [] },
  );
  const realistic = fc.record(
    {
      domain: domains,
      privacy: usually(fc.constantFrom('0', '1', 0, 1), flag, 20),
      password: usually(fc.constantFrom('', null), password, 20),
      email: usually(fc.constantFrom('0', '1', true, false), flag, 20),
      exclude_bots: usually(fc.constantFrom('0', '1', 0, 1), flag, 20),
      exclude_datacenters: usually(fc.constantFrom('0', '1', 0, 1), flag, 20),
      exclude_params: usually(fc.constantFrom('', 'fbclid\ngclid', '*'), lines(paramEntry), 20),
      exclude_ips: usually(
        fc.constantFrom('', '10.0.0.0/8\n# office', '2001:db8::/32'),
        lines(ipEntry),
        20,
      ),
      timezone: usually(fc.constantFrom('UTC', 'Europe/Berlin', 'asia/kolkata'), timezone, 20),
    },
    { requiredKeys: ['domain'] },
  );
  const unknown = fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        'id',
        'owner_id',
        'ownerId',
        'password_hash',
        'created_at',
        'updated_at',
        '__proto__',
        'constructor',
        'domain[]',
        'DOMAIN',
      ),
      anyString,
    ),
    anyJson,
    { maxKeys: 3 },
  );
  return fc
    .tuple(fc.oneof({ weight: 2, arbitrary: realistic }, chaotic), unknown)
    .map(([k, u]) => ({ ...u, ...k }) as Record<string, unknown>);
}

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/** Fields written as a form, a multipart body (some parts as files), JSON, or anything else. */
function bodyOf(fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Body> {
  const pairs = fields.map((f) =>
    Object.entries(f).map(([k, v]): [string, string] => [k, asText(v)]),
  );
  return fc.oneof(
    { weight: 3, arbitrary: pairs.map((p): Body => ({ kind: 'form', pairs: p })) },
    {
      weight: 2,
      arbitrary: fc.tuple(pairs, fc.array(fc.boolean(), { maxLength: 12 })).map(
        ([p, files]): Body => ({
          kind: 'multipart',
          parts: p.map(([k, v], i): [string, string, boolean] => [k, v, files[i] === true]),
        }),
      ),
    },
    { weight: 3, arbitrary: fields.map((f): Body => ({ kind: 'json', text: JSON.stringify(f) })) },
    {
      weight: 1,
      arbitrary: anyJson.map((v): Body => ({ kind: 'json', text: JSON.stringify(v) ?? '' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          anyText,
          fc.oneof(
            fc.constantFrom(
              null,
              '',
              'application/json',
              'application/vnd.api+json',
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              'multipart/form-data; boundary=x',
              'text/plain',
              'application/xml',
            ),
            headerValue,
          ),
        )
        .map(([text, type]): Body => ({ kind: 'raw', text, type })),
    },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
  );
}

/** A path segment naming a website: real ids (the caller's, someone else's) and anything else. */
function idSegment(mine: number[], others: number[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...mine.map(String)) },
    { weight: 2, arbitrary: fc.constantFrom(...others.map(String)) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '01',
        '%201',
        '1.0',
        '1e3',
        '0x1',
        '9007199254740991',
        '9007199254740993',
        '9999999999999999',
        '99999999999999999999',
        '%',
        '%zz',
        '%E0%A4%A',
        '..',
        '.',
        '',
        'abc',
        '1%00',
        '1;x',
        '1,2',
        '%2F',
      ),
    },
    { weight: 1, arbitrary: numericString.map(encode) },
    { weight: 2, arbitrary: anyString.map(encode) },
  );
}

// ---------------------------------------------------------------------------------------------
// Properties.

describe('website writes: never 5xx, and a refusal changes nothing', () => {
  it('POST /api/v1/websites with arbitrary fields as form, JSON and multipart', async () => {
    const domains = fc.oneof(
      { weight: 3, arbitrary: fc.domain() },
      { weight: 2, arbitrary: hostArb([MAIN, FOREIGN]) },
      { weight: 1, arbitrary: anyJson },
    );
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyOf(websiteFields(domains)), authArb, async (body, auth) => {
        const { res, before } = await checkRequest({
          method: 'POST',
          path: '/api/v1/websites',
          auth,
          body,
        });
        if (res.status < 400) {
          created += 1;
          expect(res.status).toBe(201);
          // Exactly one new row, the caller's; nothing else changed (unknown fields had no effect).
          const after = await state();
          const added = after.websites.filter(
            (row) => !before.websites.some((old) => old.id === row.id),
          );
          expect(added).toHaveLength(1);
          expect(added[0]).toMatchObject({
            id: oneOf(res).data.id,
            domain: oneOf(res).data.domain,
            owner_id: auth === 'me' ? me.id : stranger.id,
          });
          expect(after.websites.filter((row) => row !== added[0])).toEqual(before.websites);
          expect({ ...after, websites: [] }).toEqual({ ...before, websites: [] });
        }
      }),
      { numRuns: 150 },
    );
    expect(created).toBeGreaterThan(0);
  });

  it('PUT and PATCH /api/v1/websites/{id} with arbitrary ids and fields', async () => {
    const domains = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(MAIN, `https://www.${MAIN.toUpperCase()}/x`) },
      { weight: 2, arbitrary: hostArb([MAIN, FOREIGN]) },
      { weight: 1, arbitrary: anyJson },
    );
    let updated = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('PUT', 'PATCH'),
        idSegment([mainId], [foreignId]),
        bodyOf(websiteFields(domains)),
        authArb,
        async (method, id, body, auth) => {
          const { res, before } = await checkRequest({
            method,
            path: `/api/v1/websites/${id}`,
            auth,
            body,
          });
          if (res.status < 400) {
            updated += 1;
            expect(res.status).toBe(200);
            // Only the caller's own website changed; its id, owner and domain stayed.
            const after = await state();
            const changed = after.websites.find((row) => row.id === oneOf(res).data.id);
            const old = before.websites.find((row) => row.id === oneOf(res).data.id);
            expect(old?.owner_id).toBe(auth === 'me' ? me.id : stranger.id);
            expect(changed).toMatchObject({
              owner_id: old?.owner_id,
              domain: old?.domain,
              created_at: old?.created_at,
            });
            expect(after.websites.filter((row) => row !== changed)).toEqual(
              before.websites.filter((row) => row !== old),
            );
            expect({ ...after, websites: [] }).toEqual({ ...before, websites: [] });
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(updated).toBeGreaterThan(0);
  });

  it('DELETE /api/v1/websites/{id} with arbitrary ids', async () => {
    // Websites of a third owner, so that the other properties keep theirs.
    const owner = await makeOwner('prop-api-delete');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await makeWebsite(owner.key)).id);
    const auth: Auth = { header: `Bearer ${owner.key}` };
    await fc.assert(
      fc.asyncProperty(idSegment(ids, [mainId, foreignId]), async (id) => {
        const { res } = await checkRequest({
          method: 'DELETE',
          path: `/api/v1/websites/${id}`,
          auth,
          body: { kind: 'none' },
        });
        if (res.status < 400) {
          expect(res.json).toEqual({
            id: Number(id),
            object: 'website',
            deleted: true,
            status: 200,
          });
          expect(ids).toContain(Number(id));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('regressions found by the properties', () => {
  // D1 refuses a LIKE pattern over 50 bytes ("LIKE or GLOB pattern too complex"): a search
  // term of 49 characters or more made every list or statistic with rows to match a 500.
  it('searches websites with a term of up to 255 characters', async () => {
    const domain = `a-long-label-to-search-for-in-the-list-of-websites.${MAIN}`;
    await makeWebsite(me.key, { domain });
    const list = async (search: string) => {
      const res = await send({
        method: 'GET',
        path: `/api/v1/websites?${new URLSearchParams({ search })}`,
        auth: 'me',
        body: { kind: 'none' },
      });
      expect(res.status).toBe(200);
      return listOf<{ domain: string }>(res).data.map((w) => w.domain);
    };
    expect(await list(domain.toUpperCase())).toEqual([domain]);
    expect(await list(`${'\\%_ '.repeat(63)}abc`)).toEqual([]);
  });

  it('searches a statistic with a term of up to 255 characters', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const query = (search: string) =>
      `/api/v1/stats/${mainId}?${new URLSearchParams({ name: 'page', from: today, to: today, search })}`;
    const long = await send({
      method: 'GET',
      path: query('/deal/100%_off'.repeat(18)),
      auth: 'me',
      body: { kind: 'none' },
    });
    expect(long.status).toBe(200);
    expect(long.json.data).toEqual([]);
    const found = await send({
      method: 'GET',
      path: query('/DEAL/100%25_OFF'),
      auth: 'me',
      body: { kind: 'none' },
    });
    expect(found.status).toBe(200);
    expect(found.json.data).toEqual([{ value: '/deal/100%25_off', count: 1 }]);
  });
});

describe('reads: never 5xx, and never a change', () => {
  const read = async (path: string, auth: Auth) =>
    (await checkRequest({ method: 'GET', path, auth, body: { kind: 'none' } })).res;

  it('GET /api/v1/websites/{id} with arbitrary ids', async () => {
    await fc.assert(
      fc.asyncProperty(idSegment([mainId], [foreignId]), authArb, async (id, auth) => {
        const res = await read(`/api/v1/websites/${id}`, auth);
        if (res.status < 400) expect(oneOf(res).data.id).toBe(Number(id));
      }),
      { numRuns: 60 },
    );
  });

  it('GET /api/v1/websites with arbitrary query parameters', async () => {
    const params = paramsArb({
      search: fc.oneof(fc.constantFrom('prop', 'EXAMPLE'), searchTerm),
      search_by: fc.constantFrom('domain', 'url', 'value', 'DOMAIN', ''),
      sort_by: fc.constantFrom('id', 'domain', 'value', 'count', ''),
      sort: fc.constantFrom('asc', 'desc', 'ASC', ''),
      per_page: fc.oneof(fc.constantFrom('10', '25', '50', '100', '5', '1000', '0'), numericString),
      page: fc.oneof(
        fc.constantFrom('1', '2', '999999999', '1000000000', '1000000001', '0', '-1', '1.5'),
        numericString,
      ),
    });
    await fc.assert(
      fc.asyncProperty(params, fc.boolean(), authArb, async (pairs, raw, auth) => {
        const res = await read(`/api/v1/websites?${queryString(pairs, raw)}`, auth);
        if (res.status < 400) {
          expect(res.status).toBe(200);
          expect(listOf(res).data.length).toBeLessThanOrEqual(Number(listOf(res).meta.per_page));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('GET /api/v1/stats/{id} with arbitrary ids and query parameters', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const date = dateArb(today);
    const params = paramsArb({
      name: fc.oneof(fc.constantFrom(...STAT_NAMES), fc.constantFrom('PAGE', 'stats', '')),
      from: date,
      to: date,
      search: fc.oneof(fc.constantFrom('pricing', '100%_', '/DEAL'), searchTerm),
      search_by: fc.constantFrom('value', 'url', 'domain', ''),
      sort_by: fc.constantFrom('count', 'value', 'id', ''),
      sort: fc.constantFrom('asc', 'desc', 'DESC', ''),
      per_page: fc.oneof(fc.constantFrom('10', '25', '50', '100', '5', '1000', '0'), numericString),
      page: fc.oneof(
        fc.constantFrom('1', '2', '999999999', '1000000000', '1000000001', '0', '-1', '1.5'),
        numericString,
      ),
    });
    // Half of the time a well-formed query of the caller's website (the statistics the seeded
    // hits recorded, a range around them), so that the query itself runs against rows.
    const wellFormed = fc
      .record(
        {
          name: fc.constantFrom(
            'page',
            'landing_page',
            'referrer',
            'browser',
            'pageviews',
            'event',
          ),
          from: fc.constantFrom('2020-01-01', today),
          to: fc.constantFrom(today, '2099-12-31'),
          search: searchTerm,
          search_by: fc.constantFrom('value', 'url'),
          sort_by: fc.constantFrom('count', 'value'),
          sort: fc.constantFrom('asc', 'desc'),
          per_page: fc.constantFrom('10', '25', '50', '100'),
          page: fc.constantFrom('1', '2'),
        },
        { requiredKeys: ['name', 'from', 'to'] },
      )
      .map((query) => [String(mainId), Object.entries(query) as [string, string][]] as const);
    const anything = fc.tuple(idSegment([mainId], [foreignId]), params);
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(wellFormed, anything),
        fc.boolean(),
        authArb,
        async ([id, pairs], raw, auth) => {
          const res = await read(`/api/v1/stats/${id}?${queryString([...pairs], raw)}`, auth);
          if (res.status < 400) {
            answered += 1;
            expect(res.status).toBe(200);
            expect(listOf(res).data.length).toBeLessThanOrEqual(Number(listOf(res).per_page));
            for (const row of listOf<{ count: number }>(res).data) {
              expect(row).toEqual({ value: expect.any(String), count: expect.any(Number) });
              expect(Number.isInteger(row.count)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(answered).toBeGreaterThan(10);
  });
});
