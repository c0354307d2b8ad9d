/**
 * Imports through API v1 (docs/ARCHITECTURE.md, "Imported history"): Plausible's CSVs one by
 * one and zipped, GoatCounter's and Umami's events; the numbers every reader shows; all or
 * nothing on a malformed file (a 422 naming file, line and column); a period imported again
 * replacing the last; overlaps with the website's own events; deletion; another owner's ids.
 */
import fc from 'fast-check';
import { gzipSync, strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reportData, textOf } from '../../../src/reports/content.ts';
import { type Answer, call, db, makeOwner, makeWebsite, ORIGIN } from '../../support/api.ts';
import { type Browser, csrfFrom, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await makeOwner('imports'));
  ({ key: otherKey } = await makeOwner('imports-other'));
});

afterAll(() => {
  vi.useRealTimers();
});

let sites = 0;
const newSite = async () =>
  makeWebsite(key, { domain: `imports-${++sites}.example.com`, privacy: '0' });

const csv = (rows: (string | number)[][]) => `${rows.map((r) => r.join(',')).join('\n')}\n`;

const VISITORS = csv([
  ['"date"', '"visitors"', '"pageviews"', '"bounces"', '"visits"', '"visit_duration"'],
  ['"2023-02-09"', 119, 304, 77, 134, 21070],
  ['"2023-02-10"', 10, 20, 5, 12, 600],
]);
const PAGES = csv([
  ['date', 'hostname', 'page', 'visits', 'visitors', 'pageviews'],
  ['2023-02-09', 'example.com', '/', 100, 90, 250],
  ['2023-02-09', 'example.com', '/pricing', 30, 28, 54],
  ['2023-02-10', 'example.com', '/', 12, 10, 20],
]);
const SOURCES = csv([
  [
    'date',
    'source',
    'referrer',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'utm_term',
    'pageviews',
    'visitors',
    'visits',
    'visit_duration',
    'bounces',
  ],
  [
    '2023-02-09',
    'Hacker News',
    'news.ycombinator.com/item?id=1',
    '',
    '',
    '',
    '',
    '',
    40,
    20,
    25,
    100,
    3,
  ],
  ['2023-02-09', 'Newsletter', '', 'newsletter', 'email', 'spring', '', '', 10, 5, 6, 50, 1],
]);
const LOCATIONS = csv([
  [
    'date',
    'country',
    'region',
    'city',
    'visitors',
    'visits',
    'visit_duration',
    'bounces',
    'pageviews',
  ],
  ['2023-02-09', 'EE', 'EE-37', 588409, 50, 60, 100, 10, 120],
  ['2023-02-09', 'EE', 'EE-79', 0, 9, 9, 10, 1, 20],
  ['2023-02-09', 'US', '', 0, 60, 65, 100, 10, 164],
]);
const BROWSERS = csv([
  [
    'date',
    'browser',
    'browser_version',
    'visitors',
    'visits',
    'visit_duration',
    'bounces',
    'pageviews',
  ],
  ['2023-02-09', 'Microsoft Edge', '120', 19, 20, 0, 0, 30],
  ['2023-02-09', 'Chrome', '119', 100, 114, 0, 0, 274],
]);

const post = (siteId: number, query: string, raw: BodyInit, type: string, k = key) =>
  call(`/api/v1/websites/${siteId}/imports?${query}`, {
    method: 'POST',
    key: k,
    body: { raw, type },
  });

const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)])), { level: 0 });

const stat = async (siteId: number, name: string, range = 'from=2023-02-01&to=2023-02-28') => {
  const res = await call(`/api/v1/stats/${siteId}?name=${name}&${range}&per_page=100`, { key });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(
    (res.json.data as { value: string; count: number }[]).map((r) => [r.value, r.count]),
  );
};

/** A website's rows in one of the imports' tables. */
const rowsOf = async (table: 'imports' | 'imported_stats', siteId: number) =>
  (
    await db()
      .$client.prepare(`SELECT count(*) AS n FROM ${table} WHERE website_id = ?`)
      .bind(siteId)
      .first<{ n: number }>()
  )?.n;

const errorsOf = (res: Answer) => (res.json as { errors: Record<string, string[]> }).errors;

describe("Plausible's export", () => {
  it('imports a zip of its tables, and every statistic it carries shows', async () => {
    const site = await newSite();
    const body = zip({
      'imported_visitors_20230209_20230210.csv': VISITORS,
      'imported_pages_20230209_20230210.csv': PAGES,
      'imported_sources_20230209_20230210.csv': SOURCES,
      'imported_locations_20230209_20230210.csv': LOCATIONS,
      'imported_browsers_20230209_20230210.csv': BROWSERS,
    });
    const res = await post(site.id, 'source=plausible', body, 'application/zip');
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({
      source: 'plausible',
      from: '2023-02-09',
      to: '2023-02-10',
      rows: 12,
    });
    expect(await stat(site.id, 'visitors')).toEqual({ '2023-02-09': 119, '2023-02-10': 10 });
    expect(await stat(site.id, 'page')).toEqual({ '/': 270, '/pricing': 54 });
    expect(await stat(site.id, 'referrer')).toEqual({ 'news.ycombinator.com': 25 });
    expect(await stat(site.id, 'campaign')).toEqual({ spring: 6 });
    expect(await stat(site.id, 'country')).toEqual({ 'EE:Estonia': 59, 'US:United States': 60 });
    expect(await stat(site.id, 'browser')).toEqual({ Edge: 19, Chrome: 100 });
    // What the import does not carry is absent, not zero.
    expect(await stat(site.id, 'language')).toEqual({});
    const summary = await call(`/api/v1/stats/${site.id}/summary?from=2023-02-09&to=2023-02-10`, {
      key,
    });
    expect(summary.json.data).toMatchObject({ visitors: 129, pageviews: 324, visits: 146 });
    // One day only: the range is a range of the imported rows too.
    expect(await stat(site.id, 'visitors', 'from=2023-02-10&to=2023-02-10')).toEqual({
      '2023-02-10': 10,
    });
  });

  it('imports a lone CSV named by file_name, and lists and deletes it', async () => {
    const site = await newSite();
    const res = await post(
      site.id,
      'source=plausible&file_name=imported_pages_20230209_20230210.csv',
      PAGES,
      'text/csv',
    );
    expect(res.status, res.text).toBe(201);
    const id = (res.json.data as { id: number }).id;
    const list = await call(`/api/v1/websites/${site.id}/imports`, { key });
    expect(list.status).toBe(200);
    expect((list.json.data as { id: number }[]).map((i) => i.id)).toEqual([id]);
    expect(await stat(site.id, 'page')).toEqual({ '/': 270, '/pricing': 54 });
    // Another owner sees neither the list nor the import.
    expect((await call(`/api/v1/websites/${site.id}/imports`, { key: otherKey })).status).toBe(404);
    const theirs = await call(`/api/v1/websites/${site.id}/imports/${id}`, {
      method: 'DELETE',
      key: otherKey,
    });
    expect(theirs.status).toBe(404);
    const gone = await call(`/api/v1/websites/${site.id}/imports/${id}`, { method: 'DELETE', key });
    expect(gone.status, gone.text).toBe(200);
    expect(await stat(site.id, 'page')).toEqual({});
    expect(await rowsOf('imported_stats', site.id)).toBe(0);
    expect(
      (await call(`/api/v1/websites/${site.id}/imports/${id}`, { method: 'DELETE', key })).status,
    ).toBe(404);
  });

  it('importing the same period again replaces it', async () => {
    const site = await newSite();
    const name = 'file_name=imported_pages_20230209_20230210.csv';
    expect((await post(site.id, `source=plausible&${name}`, PAGES, 'text/csv')).status).toBe(201);
    expect((await post(site.id, `source=plausible&${name}`, PAGES, 'text/csv')).status).toBe(201);
    expect(await stat(site.id, 'page')).toEqual({ '/': 270, '/pricing': 54 });
    const list = await call(`/api/v1/websites/${site.id}/imports`, { key });
    expect(list.json.data as unknown[]).toHaveLength(1);
    // A newer import of one of the dates wins for that date; the older one keeps the other.
    const one = csv([
      ['date', 'page', 'pageviews'],
      ['2023-02-10', '/', 7],
    ]);
    const res = await post(
      site.id,
      'source=plausible&file_name=pages_20230210_20230210.csv',
      one,
      'text/csv',
    );
    expect(res.status, res.text).toBe(201);
    expect(await stat(site.id, 'page')).toEqual({ '/': 257, '/pricing': 54 });
    // Another table of the same dates, uploaded on its own, replaces nothing but its own.
    const visitors = await post(
      site.id,
      'source=plausible&file_name=imported_visitors_20230209_20230210.csv',
      VISITORS,
      'text/csv',
    );
    expect(visitors.status, visitors.text).toBe(201);
    expect(await stat(site.id, 'page')).toEqual({ '/': 257, '/pricing': 54 });
    expect(await stat(site.id, 'visitors')).toEqual({ '2023-02-09': 119, '2023-02-10': 10 });
  });

  it('a malformed file is a 422 naming file, line and column, and imports nothing', async () => {
    const site = await newSite();
    const bad = PAGES.replace('54', 'many');
    const body = zip({
      'imported_visitors_20230209_20230210.csv': VISITORS,
      'imported_pages_20230209_20230210.csv': bad,
    });
    const res = await post(site.id, 'source=plausible', body, 'application/zip');
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toBe(
      'imported_pages_20230209_20230210.csv, line 3, column "pageviews": not a whole number: "many"',
    );
    expect(Object.keys(errorsOf(res))).toEqual(['imported_pages_20230209_20230210.csv']);
    expect(await stat(site.id, 'visitors')).toEqual({});
    expect(await rowsOf('imported_stats', site.id)).toBe(0);
    expect(await rowsOf('imports', site.id)).toBe(0);
  });

  it.each([
    ['a file name of no table', { 'notes.csv': 'a,b\n' }, 'notes.csv: not a file of Plausible'],
    [
      'a bad date',
      { 'visitors_20230209_20230210.csv': 'date,visitors\n2023-02-31,4\n' },
      'visitors_20230209_20230210.csv, line 2, column "date": not a date',
    ],
    [
      'a missing column',
      { 'pages_20230209_20230210.csv': 'date,pageviews\n2023-02-09,4\n' },
      'pages_20230209_20230210.csv, line 1, column "page": the header has no such column',
    ],
    [
      'an unclosed quote',
      { 'pages_20230209_20230210.csv': 'date,page,pageviews\n2023-02-09,"/a,4\n' },
      'pages_20230209_20230210.csv, line 2: a quoted cell that never ends',
    ],
  ])('%s is a 422 saying where', async (_, files, message) => {
    const site = await newSite();
    const res = await post(site.id, 'source=plausible', zip(files), 'application/zip');
    expect(res.status, res.text).toBe(422);
    expect(res.json.message as string).toContain(message);
  });

  it('refuses what is not a zip, gzip or CSV, and a bad source', async () => {
    const site = await newSite();
    expect((await post(site.id, 'source=plausible', '{}', 'application/json')).status).toBe(415);
    const res = await post(site.id, 'source=matomo', PAGES, 'text/csv');
    expect(res.status).toBe(422);
    expect(Object.keys(errorsOf(res))).toEqual(['source']);
    const damaged = await post(site.id, 'source=plausible', 'not a zip', 'application/zip');
    expect(damaged.status, damaged.text).toBe(422);
  });
});

describe("the website's own events", () => {
  it('an import over dates with its own events is a 409, unless its own win', async () => {
    const site = await newSite();
    freezeAt('2023-02-10T12:00:00Z');
    const hit = await sendHit(
      { page: `https://${site.domain}/own` },
      { ip: '192.0.2.7', ua: CHROME_WINDOWS },
    );
    expect(hit.status).toBe(202);
    vi.useRealTimers();
    const name = 'file_name=imported_pages_20230209_20230210.csv';
    const refused = await post(site.id, `source=plausible&${name}`, PAGES, 'text/csv');
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.message as string).toContain('2023-02-10');
    const res = await post(site.id, `source=plausible&${name}&overlap=own_wins`, PAGES, 'text/csv');
    expect(res.status, res.text).toBe(201);
    expect(await stat(site.id, 'page', 'from=2023-02-09&to=2023-02-09')).toEqual({
      '/': 250,
      '/pricing': 54,
    });
    // Its own counts win on 2023-02-10: one page view of /own, none imported.
    expect(await stat(site.id, 'page', 'from=2023-02-10&to=2023-02-10')).toEqual({ '/own': 1 });
  });
});

describe('API v2', () => {
  it('includes imported history unless include.imports is false, and says so', async () => {
    const site = await newSite();
    const name = 'file_name=imported_visitors_20230209_20230210.csv';
    expect((await post(site.id, `source=plausible&${name}`, VISITORS, 'text/csv')).status).toBe(
      201,
    );
    const query = (body: Record<string, unknown>) =>
      call('/api/v2/query', {
        method: 'POST',
        key,
        body: {
          json: {
            site_id: site.domain,
            metrics: ['visitors', 'pageviews'],
            date_range: ['2023-02-09', '2023-02-10'],
            ...body,
          },
        },
      });
    const included = await query({});
    expect(included.json.results).toEqual([{ metrics: [129, 324], dimensions: [] }]);
    expect(included.json.meta).toEqual({ imports_included: true });
    const excluded = await query({ include: { imports: false } });
    expect(excluded.json.results).toEqual([{ metrics: [0, 0], dimensions: [] }]);
    expect(excluded.json.meta).toEqual({});
    const filtered = await query({ filters: [['is', 'visit:country', ['EE']]] });
    expect(filtered.json.meta).toMatchObject({
      imports_included: false,
      imports_skip_reason: 'unsupported_query',
    });
  });
});

describe("GoatCounter's export", () => {
  const HEADER =
    '2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date';
  const rows = [
    '/a,A,false,,Chrome 86,Windows 10,s1,0,news.ycombinator.com/x,h,"1920,0,1",US-TX,true,2023-02-09T10:00:00Z',
    '/b,B,false,,Chrome 86,Windows 10,s1,0,,,"1920,0,1",US-TX,false,2023-02-09T10:05:00Z',
    'signup,,true,,Chrome 86,Windows 10,s1,0,,,"1920,0,1",US-TX,false,2023-02-09T10:06:00Z',
    '/a,A,false,,Firefox 120,Linux,s2,0,,,"390,0,3",EE,true,2023-02-09T11:00:00Z',
    '/a,A,false,,Firefox 120,Linux,s3,1,,,"390,0,3",EE,true,2023-02-09T11:00:00Z',
  ];

  it('counts its page views, visitors, visits and events (gzipped)', async () => {
    const site = await newSite();
    const body = gzipSync(strToU8(`${HEADER}\n${rows.join('\n')}\n`));
    const res = await post(
      site.id,
      'source=goatcounter&file_name=goatcounter-export-x.csv.gz',
      body,
      'application/gzip',
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ from: '2023-02-09', to: '2023-02-09', rows: 5 });
    expect(await stat(site.id, 'page')).toEqual({ '/a': 2, '/b': 1 });
    expect(await stat(site.id, 'visitors')).toEqual({ '2023-02-09': 2 });
    expect(await stat(site.id, 'bounces')).toEqual({ '2023-02-09': 1 });
    expect(await stat(site.id, 'visit_duration')).toEqual({ '2023-02-09': 300 });
    expect(await stat(site.id, 'event')).toEqual({ signup: 1 });
    expect(await stat(site.id, 'referrer')).toEqual({ 'news.ycombinator.com': 1 });
    expect(await stat(site.id, 'device')).toEqual({ desktop: 1, mobile: 1 });
    expect(await stat(site.id, 'pageviews_hours')).toMatchObject({ '10': 2, '11': 1 });
  });

  it('refuses another version of the format, naming it', async () => {
    const site = await newSite();
    const res = await post(site.id, 'source=goatcounter', `1Path,Title\n/a,A\n`, 'text/csv');
    expect(res.status).toBe(422);
    expect(res.json.message as string).toContain('line 1, column "2Path"');
    const short = await post(site.id, 'source=goatcounter', `${HEADER}\n/a,A,false\n`, 'text/csv');
    expect(short.json.message).toBe('upload.csv, line 2: 3 columns, expected 14');
  });
});

describe("Umami's events", () => {
  const HEADER =
    'website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,country,region,city,url_path,url_query,utm_source,utm_medium,utm_campaign,utm_content,utm_term,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,created_at';
  const row = (o: Record<string, string>) =>
    HEADER.split(',')
      .map((c) => o[c] ?? '\\N')
      .join(',');
  const base = {
    website_id: 'w',
    browser: 'edge-chromium',
    os: 'Mac OS',
    device: 'laptop',
    screen: '1440x900',
    language: 'de-DE',
    country: 'DE',
  };

  it("counts a website_event CSV in the website's time zone", async () => {
    const site = await makeWebsite(key, {
      domain: `imports-${++sites}.example.com`,
      privacy: '0',
      timezone: 'Europe/Berlin',
    });
    const text = [
      HEADER,
      row({
        ...base,
        session_id: 'a',
        visit_id: 'v1',
        url_path: '/x',
        event_type: '1',
        referrer_domain: 'google.com',
        utm_campaign: 'fall',
        created_at: '2023-02-08 23:30:00',
      }),
      row({
        ...base,
        session_id: 'a',
        visit_id: 'v1',
        url_path: '/y',
        event_type: '1',
        created_at: '2023-02-08 23:31:40',
      }),
      row({
        ...base,
        session_id: 'a',
        visit_id: 'v1',
        url_path: '/y',
        event_type: '2',
        event_name: 'Outbound Link: Click',
        created_at: '2023-02-08 23:32:00',
      }),
      row({
        ...base,
        session_id: 'b',
        visit_id: 'v2',
        url_path: '/x',
        event_type: '5',
        created_at: '2023-02-09 08:00:00',
      }),
    ].join('\n');
    const res = await post(
      site.id,
      'source=umami',
      zip({ 'website_event.csv': text, 'event_data.csv': 'x\n' }),
      'application/zip',
    );
    expect(res.status, res.text).toBe(201);
    // 23:30 UTC is 00:30 in Berlin: the next local date.
    expect(res.json.data).toMatchObject({ from: '2023-02-09', to: '2023-02-09' });
    expect(await stat(site.id, 'page')).toEqual({ '/x': 1, '/y': 1 });
    expect(await stat(site.id, 'visit_duration')).toEqual({ '2023-02-09': 100 });
    expect(await stat(site.id, 'browser')).toEqual({ Edge: 1 });
    expect(await stat(site.id, 'os')).toEqual({ macOS: 1 });
    expect(await stat(site.id, 'language')).toEqual({ de: 1 });
    expect(await stat(site.id, 'resolution')).toEqual({ '1440x900': 1 });
    expect(await stat(site.id, 'landing_page')).toEqual({ '/x': 1 });
    expect(await stat(site.id, 'exit_page')).toEqual({ '/y': 1 });
    expect(await stat(site.id, 'campaign')).toEqual({ fall: 1 });
    expect(Object.keys(await stat(site.id, 'event'))).toHaveLength(1);
  });

  it('names the column of a bad time', async () => {
    const site = await newSite();
    const text = `${HEADER}\n${row({ ...base, session_id: 'a', url_path: '/x', event_type: '1', created_at: 'yesterday' })}\n`;
    const res = await post(site.id, 'source=umami', text, 'text/csv');
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'upload.csv, line 2, column "created_at": not a time: "yesterday"',
    );
  });
});

describe('the settings page', () => {
  /** Posts the upload form as a browser does: multipart, with the session and its token. */
  const upload = async (b: Browser, siteId: number, fields: Record<string, string>, file: File) => {
    const page = await b.get(`/websites/${siteId}`);
    const form = new FormData();
    form.append('_csrf', csrfFrom(page.text));
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', file);
    const { exports } = await import('cloudflare:workers');
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/websites/${siteId}/imports`, {
        method: 'POST',
        body: form,
        redirect: 'manual',
        headers: {
          origin: ORIGIN,
          'cf-connecting-ip': b.ip,
          cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      }),
    );
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  };

  it('uploads, lists, notes on the statistics page, and deletes an import', async () => {
    const owner = await makeOwner('imports-page');
    const site = await makeWebsite(owner.key, { domain: `imports-${++sites}.example.com` });
    const b = await signedIn(owner);
    const file = new File([PAGES], 'imported_pages_20230209_20230210.csv', { type: 'text/csv' });
    const done = await upload(b, site.id, { source: 'plausible' }, file);
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe(`/websites/${site.id}/imports?import=added`);
    const settings = await b.get(done.location as string);
    expect(settings.text).toContain('Import added.');
    expect(settings.text).toContain('2023-02-09 to 2023-02-10');
    expect(settings.text).toContain(`/websites/${site.id}/export?format=plausible`);
    const stats = await b.get(`/stats/${site.domain}?range=custom&from=2023-02-01&to=2023-02-28`);
    expect(stats.text).toContain('This range includes imported history from Plausible');
    expect(stats.text).toContain('/pricing');
    const filtered = await b.get(
      `/stats/${site.domain}?range=custom&from=2023-02-01&to=2023-02-28&filter[page]=/`,
    );
    expect(filtered.text).toContain('left out here: filters apply');
    const id = /\/imports\/(\d+)\/delete/.exec(settings.text)?.[1];
    const gone = await b.post(`/websites/${site.id}/imports/${id}/delete`, {
      _csrf: csrfFrom(settings.text),
    });
    expect([gone.status, gone.location]).toEqual([
      303,
      `/websites/${site.id}/imports?import=deleted`,
    ]);
    expect((await b.get(`/websites/${site.id}/imports`)).text).toContain('No imports yet.');
  });

  it('shows a malformed file’s error by the form, and imports nothing', async () => {
    const owner = await makeOwner('imports-page-bad');
    const site = await makeWebsite(owner.key, { domain: `imports-${++sites}.example.com` });
    const b = await signedIn(owner);
    const file = new File([PAGES.replace('54', 'x')], 'pages_20230209_20230210.csv', {
      type: 'text/csv',
    });
    const res = await upload(b, site.id, { source: 'plausible' }, file);
    expect(res.status).toBe(422);
    expect(res.text).toContain('pages_20230209_20230210.csv, line 3, column &quot;pageviews&quot;');
    expect(res.text).toContain('No imports yet.');
  });

  it('downloads the exports', async () => {
    const owner = await makeOwner('imports-page-export');
    const site = await makeWebsite(owner.key, { domain: `imports-${++sites}.example.com` });
    const b = await signedIn(owner);
    const zip = await b.get(`/websites/${site.id}/export?format=plausible`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const events = await b.get(`/websites/${site.id}/export?format=events&as=csv`);
    expect(events.status).toBe(200);
    expect(events.text.startsWith('id,time,date,hour,kind')).toBe(true);
    expect((await b.get(`/websites/${site.id}/export?format=pdf`)).status).toBe(404);
  });
});

describe('overlapping imports, at random', () => {
  /** A date of February 2023 (1–28). */
  const day = (d: number) => `2023-02-${String(d).padStart(2, '0')}`;

  it('each date counts the newest import that covers it, and a deleted import stops counting', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc
            .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 28 }))
            .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
          { minLength: 1, maxLength: 4 },
        ),
        fc.nat(),
        async (ranges, pick) => {
          const site = await newSite();
          // Import k gives every date of its range the count 100 k + the day.
          const ids: number[] = [];
          for (const [k, [from, to]] of ranges.entries()) {
            const rows = [['date', 'visitors']];
            for (let d = from; d <= to; d++) rows.push([day(d), String(100 * (k + 1) + d)]);
            const res = await post(
              site.id,
              `source=plausible&file_name=visitors_${day(from).replaceAll('-', '')}_${day(to).replaceAll('-', '')}.csv`,
              csv(rows),
              'text/csv',
            );
            expect(res.status, res.text).toBe(201);
            ids.push((res.json.data as { id: number }).id);
          }
          // Each date: the newest import covering it.
          const expected: Record<string, number> = {};
          for (let d = 1; d <= 28; d++) {
            for (let k = ranges.length - 1; k >= 0; k--) {
              const [from, to] = ranges[k] as readonly [number, number];
              if (d < from || d > to) continue;
              expected[day(d)] = 100 * (k + 1) + d;
              break;
            }
          }
          expect(await stat(site.id, 'visitors')).toEqual(expected);
          // Deleting a listed import: its dates count the next newest still listed, or nothing
          // (an import that a newer one covered whole was deleted when that one came).
          const listed = await call(`/api/v1/websites/${site.id}/imports?per_page=100`, { key });
          const listedIds = (listed.json.data as { id: number }[]).map((i) => i.id);
          const victim = listedIds[pick % listedIds.length] as number;
          const res = await call(`/api/v1/websites/${site.id}/imports/${victim}`, {
            method: 'DELETE',
            key,
          });
          expect(res.status).toBe(200);
          const gone = new Set([ids.indexOf(victim)]);
          // Imports deleted when a newer one covered them whole do not come back.
          const after: Record<string, number> = {};
          for (let d = 1; d <= 28; d++) {
            for (let k = ranges.length - 1; k >= 0; k--) {
              const [from, to] = ranges[k] as readonly [number, number];
              // The deleted import's dates fall back to the next newest that covers them.
              if (d < from || d > to || !listedIds.includes(ids[k] as number) || gone.has(k))
                continue;
              after[day(d)] = 100 * (k + 1) + d;
              break;
            }
          }
          expect(await stat(site.id, 'visitors')).toEqual(after);
        },
      ),
      { numRuns: 12, seed: 34 },
    );
  });
});

describe('conversion rates', () => {
  it("divide Sightline's own converting visitors by its own visitors, not the imported", async () => {
    const site = await newSite();
    const goal = await call(`/api/v1/websites/${site.id}/goals`, {
      method: 'POST',
      key,
      body: { json: { event: 'Signup' } },
    });
    expect(goal.status).toBe(201);
    freezeAt('2023-02-10T12:00:00Z');
    for (const [who, event] of [
      [1, true],
      [2, false],
    ] as const) {
      const page = `https://${site.domain}/`;
      const ip = `192.0.2.${who}`;
      expect((await sendHit({ page }, { ip, ua: CHROME_WINDOWS })).status).toBe(202);
      if (event)
        expect(
          (await sendHit({ page, event: { name: 'Signup' } }, { ip, ua: CHROME_WINDOWS })).status,
        ).toBe(202);
    }
    vi.useRealTimers();
    // A hundred imported visitors the day before, who could not have converted as far as
    // Sightline knows.
    const visitors = csv([
      ['date', 'visitors'],
      ['2023-02-09', 100],
    ]);
    const res = await post(
      site.id,
      'source=plausible&file_name=visitors_20230209_20230209.csv',
      visitors,
      'text/csv',
    );
    expect(res.status, res.text).toBe(201);
    const page = await call(`/stats/${site.domain}?range=custom&from=2023-02-09&to=2023-02-10`, {
      key,
    });
    expect(page.text).toContain('<td class="num">50%</td>');
    const filtered = await call(
      `/stats/${site.domain}?range=custom&from=2023-02-09&to=2023-02-10&filter[goal]=Signup`,
      { key },
    );
    expect(filtered.text).toContain('<p class="big">50%</p>');
  });
});

describe('what an independent reading of the formats found', () => {
  it('refuses a date that does not exist (2024-02-30), naming its column', async () => {
    const site = await newSite();
    const gc =
      '2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n' +
      '/a,A,false,,Chrome 86,Linux,s1,0,,,"1920,0,1",EE,true,2024-02-30T11:00:00Z\n';
    const res = await post(site.id, 'source=goatcounter', gc, 'text/csv');
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'upload.csv, line 2, column "Date": not a time (RFC 3339): "2024-02-30T11:00:00Z"',
    );
  });

  it('reads a gzip sent as CSV by its first bytes, and a damaged gzip is a 422', async () => {
    const site = await newSite();
    const body = gzipSync(strToU8(PAGES));
    const res = await post(
      site.id,
      'source=plausible&file_name=imported_pages_20230209_20230210.csv',
      body,
      'text/csv',
    );
    expect(res.status, res.text).toBe(201);
    const damaged = await post(
      site.id,
      'source=plausible&file_name=pages_20230209_20230210.csv.gz',
      body.slice(0, 30),
      'application/gzip',
    );
    expect(damaged.status, damaged.text).toBe(422);
    expect(damaged.json.message).toContain('the gzip file is damaged');
    const notZip = await post(site.id, 'source=plausible', PAGES, 'application/zip');
    expect(notZip.json.message).toContain('not a zip file');
    const form = await post(
      site.id,
      'source=plausible',
      PAGES,
      'application/x-www-form-urlencoded',
    );
    expect(form.status).toBe(415);
  });

  it("keeps Umami's query string on the page", async () => {
    const site = await newSite();
    const text =
      'session_id,visit_id,created_at,url_path,url_query,event_type\n' +
      's,v,2023-02-09 10:00:00,/docs,x=1,1\n' +
      's,v,2023-02-09 10:00:05,/docs,,1\n';
    expect((await post(site.id, 'source=umami', text, 'text/csv')).status).toBe(201);
    expect(await stat(site.id, 'page')).toEqual({ '/docs?x=1': 1, '/docs': 1 });
  });

  it('says where a quote was left open', async () => {
    const site = await newSite();
    const text = 'date,page,pageviews\n2023-02-09,"/a,4\n2023-02-10,"/b",5\n';
    const res = await post(
      site.id,
      'source=plausible&file_name=pages_20230209_20230210.csv',
      text,
      'text/csv',
    );
    expect(res.json.message).toBe(
      'pages_20230209_20230210.csv, line 3: a character after the closing quote of a cell opened on line 2 (a quote left open there?)',
    );
  });

  it("exports a website without events of its own as tables Plausible's importer reads", async () => {
    const site = await newSite();
    expect(
      (
        await post(
          site.id,
          'source=plausible&file_name=imported_pages_20230209_20230210.csv',
          PAGES,
          'text/csv',
        )
      ).status,
    ).toBe(201);
    const { exports } = await import('cloudflare:workers');
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/api/v1/websites/${site.id}/export?format=plausible`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    const zip = new Uint8Array(await res.arrayBuffer());
    const copy = await newSite();
    const back = await post(copy.id, 'source=plausible', zip, 'application/zip');
    expect(back.status, back.text).toBe(201);
    expect(await stat(copy.id, 'page')).toEqual({});
  });
});

describe('every reader', () => {
  it("shows imported history in the statistics page's CSV and the e-mail report", async () => {
    const site = await newSite();
    const body = zip({
      'imported_visitors_20230209_20230210.csv': VISITORS,
      'imported_pages_20230209_20230210.csv': PAGES,
    });
    expect((await post(site.id, 'source=plausible', body, 'application/zip')).status).toBe(201);
    const csvFile = await call(
      `/stats/${site.domain}/page.csv?range=custom&from=2023-02-01&to=2023-02-28`,
    );
    expect(csvFile.status).toBe(200);
    // Imported pages count page views (the import's own metric), and the column says so.
    expect(csvFile.text).toBe('page,page_views\r\n/,270\r\n/pricing,54\r\n');
    const report = await reportData(
      db(),
      { id: site.id, domain: site.domain },
      { interval: 'weekly', from: '2023-02-06', to: '2023-02-12', key: '2023-02-06' },
      { statsUrl: 'https://sightline.test/stats', unsubscribeUrl: 'https://sightline.test/u' },
    );
    expect(textOf(report)).toContain('129');
    expect(textOf(report)).toContain('/pricing');
  });
});
