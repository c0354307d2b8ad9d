/**
 * `GET /api/v1/stats/{id}` over roll-ups written by the real pipeline (hits sent through the
 * Worker's fetch at frozen instants).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  call,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  ORIGIN,
  UNAUTHENTICATED,
} from '../../support/api.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const EDGE = `${CHROME_WINDOWS} Edg/131.0.0.0`;

let key: string;
let siteId: number;
const domain = 'stats.example.com';

async function hitAt(
  instant: string,
  page: string,
  options: { ua?: string; ip?: string; referrer?: string } = {},
) {
  vi.setSystemTime(new Date(instant));
  const res = await sendHit(
    {
      page: `https://${domain}${page}`,
      referrer: options.referrer ?? null,
      screen_resolution: '1920x1080',
    },
    { ua: options.ua, ip: options.ip },
  );
  if (res.status !== 202 || res.dropReason)
    throw new Error(`hit not stored: ${res.status} ${res.dropReason}`);
}

const stats = (query: string, k: string | null = key) =>
  call(`/api/v1/stats/${siteId}?${query}`, { key: k });

beforeAll(async () => {
  ({ key } = await makeOwner('stats'));
  siteId = (await makeWebsite(key, { domain })).id;
  vi.useFakeTimers({ toFake: ['Date'] });
  // Browsers on 2026-01-15: Chrome 3 visitors, Firefox 2, Safari 2, Edge 1 (ties: value order).
  const visitors: [string, string][] = [
    [CHROME_WINDOWS, '203.0.113.1'],
    [CHROME_WINDOWS, '203.0.113.2'],
    [CHROME_WINDOWS, '203.0.113.3'],
    [FIREFOX, '203.0.113.4'],
    [FIREFOX, '203.0.113.5'],
    [SAFARI_IPHONE, '203.0.113.6'],
    [SAFARI_IPHONE, '203.0.113.7'],
    [EDGE, '203.0.113.8'],
  ];
  for (const [i, [ua, ip]] of visitors.entries()) {
    await hitAt(`2026-01-15T10:${String(i).padStart(2, '0')}:00Z`, '/', { ua, ip });
  }
  // Page views across a year and a month boundary.
  await hitAt('2025-12-30T12:00:00Z', '/old');
  await hitAt('2025-12-31T23:30:00Z', '/old');
  await hitAt('2026-01-01T00:30:00Z', '/new-year');
  await hitAt('2026-01-31T12:00:00Z', '/january');
  await hitAt('2026-02-01T12:00:00Z', '/february');
  // Thirty distinct pages on one day, for paging; searchable names with % and _.
  for (let i = 1; i <= 30; i++)
    await hitAt(
      `2026-03-10T08:${String(i).padStart(2, '0')}:00Z`,
      `/p/${String(i).padStart(2, '0')}`,
    );
  await hitAt('2026-03-10T09:00:00Z', '/deal/100%25_off');
  await hitAt('2026-03-10T09:01:00Z', '/deal/100x-off');
  await hitAt('2026-03-10T09:02:00Z', '/deal/a_b');
  await hitAt('2026-03-10T09:03:00Z', '/deal/axb');
  // Letters outside ASCII, in upper and lower case, on 2026-06-15.
  await hitAt('2026-06-15T09:00:00Z', '/%C3%BAst%C3%AD-nad-labem');
  await hitAt('2026-06-15T09:01:00Z', '/%C3%9AST%C3%8D-NAD-LABEM/kontakt');
  await hitAt('2026-06-15T09:02:00Z', '/%CE%A3%CE%BF%CF%86%CE%AF%CE%B1');
  await hitAt('2026-06-15T09:03:00Z', '/stra%C3%9Fe');
  await hitAt('2026-06-15T09:04:00Z', '/100%_%C3%A9t%C3%A9');
  // Referrers, campaigns, languages and events on 2026-04-01.
  vi.setSystemTime(new Date('2026-04-01T10:00:00Z'));
  for (const [i, body] of [
    {
      page: `https://${domain}/?utm_campaign=spring`,
      referrer: 'https://www.google.com/',
      language: 'de-DE',
    },
    {
      page: `https://${domain}/blog`,
      referrer: 'https://news.ycombinator.com/item?id=1',
      language: 'en-US',
    },
    { page: `https://${domain}/`, referrer: 'https://www.google.com/search', language: 'de' },
    { page: `https://${domain}/`, event: { name: 'signup' } },
    { page: `https://${domain}/`, event: { name: 'purchase', value: 49, unit: 'usd' } },
    { page: `https://${domain}/`, event: 'signup' },
  ].entries()) {
    const res = await sendHit(body, { ip: `192.0.2.${i + 1}` });
    if (res.status !== 202 || res.dropReason)
      throw new Error(`hit not stored: ${res.status} ${res.dropReason}`);
  }
  vi.useRealTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('GET /api/v1/stats/{id}', () => {
  it('answers a dimension as a flat paginator, count desc with ties by value', async () => {
    const res = await stats('name=browser&from=2026-01-15&to=2026-01-15');
    expect(res.status).toBe(200);
    const url = (page: number) =>
      `${ORIGIN}/api/v1/stats/${siteId}?name=browser&from=2026-01-15&to=2026-01-15&page=${page}`;
    expect(res.json).toEqual({
      current_page: 1,
      data: [
        { value: 'Chrome', count: 3 },
        { value: 'Firefox', count: 2 },
        { value: 'Safari', count: 2 },
        { value: 'Edge', count: 1 },
      ],
      first_page_url: url(1),
      from: 1,
      last_page: 1,
      last_page_url: url(1),
      next_page_url: null,
      path: `${ORIGIN}/api/v1/stats/${siteId}`,
      per_page: 25,
      prev_page_url: null,
      to: 4,
      total: 4,
      status: 200,
    });
    expect(Object.keys(res.json)).toEqual([
      'current_page',
      'data',
      'first_page_url',
      'from',
      'last_page',
      'last_page_url',
      'next_page_url',
      'path',
      'per_page',
      'prev_page_url',
      'to',
      'total',
      'status',
    ]);
  });

  it('answers a time series across a year and a month boundary', async () => {
    const res = await stats('name=pageviews&from=2025-12-31&to=2026-02-01&sort_by=value&sort=asc');
    expect(res.json.data).toEqual([
      { value: '2025-12-31', count: 1 },
      { value: '2026-01-01', count: 1 },
      { value: '2026-01-15', count: 8 },
      { value: '2026-01-31', count: 1 },
      { value: '2026-02-01', count: 1 },
    ]);
    const december = await stats('name=pageviews&from=2025-12-01&to=2025-12-31&sort_by=value');
    expect(december.json.data).toEqual([
      { value: '2025-12-31', count: 1 },
      { value: '2025-12-30', count: 1 },
    ]);
    const hours = await stats(
      'name=pageviews_hours&from=2025-12-30&to=2026-01-01&sort_by=value&sort=asc',
    );
    expect(hours.json.data).toEqual([
      { value: '00', count: 1 },
      { value: '12', count: 1 },
      { value: '23', count: 1 },
    ]);
  });

  it('serves every statistic the pipeline records', async () => {
    const expected: Record<string, { value: string; count: number }[]> = {
      visitors: [{ value: '2026-01-15', count: 8 }],
      visitors_hours: [{ value: '10', count: 8 }],
      page: [{ value: '/', count: 8 }],
      landing_page: [{ value: '/', count: 8 }],
      os: [
        { value: 'Windows', count: 4 },
        { value: 'Linux', count: 2 },
        { value: 'iOS', count: 2 },
      ],
      device: [
        { value: 'desktop', count: 6 },
        { value: 'mobile', count: 2 },
      ],
      country: [{ value: 'US:United States', count: 8 }],
      continent: [{ value: 'NA:North America', count: 8 }],
      city: [{ value: 'US:Austin, TX', count: 8 }],
      resolution: [{ value: '1920x1080', count: 8 }],
      referrer: [],
      campaign: [],
      language: [],
      event: [],
    };
    for (const [name, data] of Object.entries(expected)) {
      const res = await stats(`name=${name}&from=2026-01-15&to=2026-01-15`);
      expect(res.status, name).toBe(200);
      expect(res.json.data, name).toEqual(data);
    }
  });

  it('serves referrers, campaigns, languages and events', async () => {
    const on = (name: string) => stats(`name=${name}&from=2026-04-01&to=2026-04-01`);
    expect((await on('referrer')).json.data).toEqual([
      { value: 'www.google.com', count: 2 },
      { value: 'news.ycombinator.com', count: 1 },
    ]);
    expect((await on('campaign')).json.data).toEqual([{ value: 'spring', count: 1 }]);
    expect((await on('language')).json.data).toEqual([
      { value: 'de', count: 2 },
      { value: 'en', count: 1 },
    ]);
    expect((await on('event')).json.data).toEqual([
      { value: 'signup', count: 2 },
      { value: 'purchase:49:usd', count: 1 },
    ]);
    expect((await on('landing_page')).json.data).toEqual([
      // The campaign tag is the visit's campaign, not part of the page.
      { value: '/', count: 2 },
      { value: '/blog', count: 1 },
    ]);
  });

  it('pages to the last page and past it, keeping the other parameters', async () => {
    const q =
      'name=page&from=2026-03-10&to=2026-03-10&search=/p/&sort_by=value&sort=asc&per_page=10';
    const first = await stats(q);
    expect(first.json).toMatchObject({ current_page: 1, from: 1, to: 10, total: 30, last_page: 3 });
    expect(listOf(first).data[0]).toEqual({ value: '/p/01', count: 1 });
    expect(listOf(first).next_page_url).toBe(
      `${ORIGIN}/api/v1/stats/${siteId}?${q.replace('/p/', '%2Fp%2F')}&page=2`,
    );
    const last = await stats(`${q}&page=3`);
    expect(last.json).toMatchObject({
      current_page: 3,
      from: 21,
      to: 30,
      total: 30,
      next_page_url: null,
    });
    expect(listOf<{ value: string }>(last).data.map((r) => r.value)).toEqual(
      Array.from({ length: 10 }, (_, i) => `/p/${21 + i}`),
    );
    expect(listOf(last).prev_page_url).toContain('page=2');
    const past = await stats(`${q}&page=4`);
    expect(past.json).toMatchObject({
      current_page: 4,
      data: [],
      from: null,
      to: null,
      total: 30,
      last_page: 3,
    });
    expect(listOf(past).prev_page_url).toContain('page=3');
  });

  it('sorts by count or value in both directions', async () => {
    const base = 'name=browser&from=2026-01-15&to=2026-01-15';
    const values = async (q: string) =>
      listOf<{ value: string }>(await stats(`${base}&${q}`)).data.map((r) => r.value);
    expect(await values('sort_by=count&sort=asc')).toEqual(['Edge', 'Firefox', 'Safari', 'Chrome']);
    expect(await values('sort_by=value&sort=asc')).toEqual(['Chrome', 'Edge', 'Firefox', 'Safari']);
    expect(await values('sort_by=value&sort=desc')).toEqual([
      'Safari',
      'Firefox',
      'Edge',
      'Chrome',
    ]);
  });

  it('searches case-insensitively with % and _ taken literally', async () => {
    const search = async (term: string, by = 'value') =>
      listOf<{ value: string }>(
        await stats(
          `name=page&from=2026-03-10&to=2026-03-10&search_by=${by}&search=${encodeURIComponent(term)}&sort_by=value&sort=asc`,
        ),
      ).data.map((r) => r.value);
    expect(await search('100%')).toEqual(['/deal/100%25_off']);
    expect(await search('a_b')).toEqual(['/deal/a_b']);
    expect(await search('_off', 'url')).toEqual(['/deal/100%25_off']);
    expect(await search('/DEAL/AX')).toEqual(['/deal/axb']);
    expect(await search('nothing')).toEqual([]);
    const browsers = await stats('name=browser&from=2026-01-15&to=2026-01-15&search=CHROME');
    expect(browsers.json.data).toEqual([{ value: 'Chrome', count: 3 }]);
  });

  it('folds the case of every letter, not only ASCII, still taking % and _ literally', async () => {
    const search = async (term: string) =>
      listOf<{ value: string }>(
        await stats(
          `name=page&from=2026-06-15&to=2026-06-15&search=${encodeURIComponent(term)}&sort_by=value&sort=asc`,
        ),
      ).data.map((r) => r.value);
    const both = ['/ÚSTÍ-NAD-LABEM/kontakt', '/ústí-nad-labem'];
    expect(await search('ÚSTÍ')).toEqual(both);
    expect(await search('ústí')).toEqual(both);
    expect(await search('Ústí-Nad')).toEqual(both);
    expect(await search('σοφία')).toEqual(['/Σοφία']);
    expect(await search('ΣΟΦΊΑ')).toEqual(['/Σοφία']);
    expect(await search('STRAßE')).toEqual(['/straße']);
    expect(await search('%_ÉTÉ')).toEqual(['/100%_été']);
    expect(await search('_é')).toEqual(['/100%_été']);
    expect(await search('x_ÉTÉ')).toEqual([]);
  });

  it('answers a search of 40 different letters outside ASCII, in both cases', async () => {
    const letters: string[] = [];
    for (let c = 0xc0; letters.length < 40; c++) {
      const ch = String.fromCodePoint(c);
      const [lower, upper] = [ch.toLowerCase(), ch.toUpperCase()];
      if (lower !== upper && lower.length === 1 && upper.length === 1)
        letters.push(c % 2 ? upper : lower);
    }
    const res = await stats(
      `name=page&from=2026-06-15&to=2026-06-15&search=${encodeURIComponent(letters.join(''))}`,
    );
    expect([res.status, res.json.data]).toEqual([200, []]);
  });

  it('refuses a search with more different letters outside ASCII than it can fold', async () => {
    // 41 Cyrillic letters, each with a capital.
    const letters = Array.from({ length: 41 }, (_, i) => String.fromCodePoint(0x430 + i)).join('');
    const res = await stats(
      `name=page&from=2026-06-15&to=2026-06-15&search=${encodeURIComponent(letters)}`,
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).errors).toEqual({
      search: ['The search field must not contain more than 40 different letters outside ASCII.'],
    });
  });

  it.each([
    [
      '',
      {
        name: 'The name field is required.',
        from: 'The from field is required.',
        to: 'The to field is required.',
      },
    ],
    ['name=sessions&from=2026-01-01&to=2026-01-02', { name: 'The selected name is invalid.' }],
    [
      'name=browser&from=2024-02-30&to=2024-03-01',
      { from: 'The from field must be a valid date in the format YYYY-MM-DD.' },
    ],
    [
      'name=browser&from=2026-01-01&to=26-01-02',
      { to: 'The to field must be a valid date in the format YYYY-MM-DD.' },
    ],
    [
      'name=browser&from=2026-02-01&to=2026-01-31',
      { to: 'The to field must be a date after or equal to from.' },
    ],
    [
      'name=browser&from=2026-01-01&to=2026-01-02&per_page=30',
      { per_page: 'The per page field must be 10, 25, 50 or 100.' },
    ],
    [
      'name=browser&from=2026-01-01&to=2026-01-02&page=0',
      { page: 'The page field must be an integer of at least 1.' },
    ],
    [
      'name=browser&from=2026-01-01&to=2026-01-02&sort_by=visitors',
      { sort_by: 'The selected sort by is invalid.' },
    ],
    [
      'name=browser&from=2026-01-01&to=2026-01-02&sort=random',
      { sort: 'The selected sort is invalid.' },
    ],
    [
      'name=browser&from=2026-01-01&to=2026-01-02&search_by=domain',
      { search_by: 'The selected search by is invalid.' },
    ],
  ])('rejects ?%s with a 422 naming every bad field', async (query, errors) => {
    const res = await stats(query);
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: Object.values(errors)[0],
      errors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]])),
      status: 422,
    });
  });

  it("answers another owner's website and a missing one with the same 404", async () => {
    const other = await makeOwner('other');
    const q = 'name=browser&from=2026-01-15&to=2026-01-15';
    const theirs = await call(`/api/v1/stats/${siteId}?${q}`, { key: other.key });
    const missing = await call(`/api/v1/stats/999999?${q}`, { key: other.key });
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual(NOT_FOUND);
    expect(theirs.text).toBe(missing.text);
    // Even with invalid parameters nothing about the website is revealed.
    expect((await call(`/api/v1/stats/${siteId}?name=nope`, { key: other.key })).json).toEqual(
      NOT_FOUND,
    );
    expect((await stats(q, null)).json).toEqual(UNAUTHENTICATED);
  });
});
