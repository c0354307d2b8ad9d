/**
 * An import can never break a website's reads (docs/ARCHITECTURE.md, "Imported history"):
 * dates in Plausible's file names and in every format's rows are the API's dates (1970-01-01
 * to 9998-12-31, in the website's time zone); counts are bounded per row and per (statistic,
 * date, value); texts are cleaned or refused as a hit's are; and any number of imports reads
 * through one statement.
 */
import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { beginImport, commitImport, writeImported } from '../../../src/imports/store.ts';
import { addDays } from '../../../src/lib/time/dates.ts';
import { importedSegments } from '../../../src/rollups/imported.ts';
import { queryStats } from '../../../src/rollups/sums.ts';
import { type Answer, call, db, makeOwner, makeWebsite } from '../../support/api.ts';

let key: string;

beforeAll(async () => {
  ({ key } = await makeOwner('import-bounds'));
});

let sites = 0;
const newSite = async (fields: Record<string, string> = {}) =>
  makeWebsite(key, { domain: `import-bounds-${++sites}.example.com`, privacy: '0', ...fields });

const post = (siteId: number, query: string, raw: BodyInit, type = 'text/csv') =>
  call(`/api/v1/websites/${siteId}/imports?${query}`, { method: 'POST', key, body: { raw, type } });

const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)])), { level: 0 });

const rowsOf = async (table: 'imports' | 'imported_stats', siteId: number) =>
  (
    await db()
      .$client.prepare(`SELECT count(*) AS n FROM ${table} WHERE website_id = ?`)
      .bind(siteId)
      .first<{ n: number }>()
  )?.n;

const stat = async (siteId: number, name: string, range: string) => {
  const res = await call(`/api/v1/stats/${siteId}?name=${name}&${range}&per_page=100`, { key });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(
    (res.json.data as { value: string; count: number }[]).map((r) => [r.value, r.count]),
  );
};

/**
 * Every read of a website answers: API v1 (a statistic, the summary), v2 and the page over a
 * range (200), and v2 and the page over all its dates (never a 5xx: a website's dates may
 * span more than the 3,660 days a question may ask for).
 */
async function readsAnswer(site: { id: number; domain: string }, [from, to]: [string, string]) {
  const range = `from=${from}&to=${to}`;
  const v2 = (date_range: unknown) =>
    call('/api/v2/query', {
      method: 'POST',
      key,
      body: {
        json: { site_id: site.domain, metrics: ['visitors', 'pageviews', 'events'], date_range },
      },
    });
  const reads: Answer[] = [
    await call(`/api/v1/stats/${site.id}?name=page&${range}`, { key }),
    await call(`/api/v1/stats/${site.id}?name=visitors&${range}`, { key }),
    await call(`/api/v1/stats/${site.id}/summary?${range}`, { key }),
    await v2([from, to]),
    await call(`/stats/${site.domain}?${range}`),
  ];
  for (const res of reads) expect(res.status, res.text.slice(0, 300)).toBe(200);
  for (const res of [await v2('all'), await call(`/stats/${site.domain}?range=all`)])
    expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
}

describe("dates in Plausible's file names", () => {
  it.each([
    ['imported_visitors_20240345_20240399.csv', 'date,visitors\n'],
    ['imported_pages_00000000_99999999.csv', 'date,page,pageviews\n'],
    ['imported_pages_19691231_20240101.csv', 'date,page,pageviews\n'],
    ['imported_pages_20240101_99990101.csv', 'date,page,pageviews\n'],
  ])('%s is a 422 naming the file, and the website reads on', async (name, text) => {
    const site = await newSite();
    for (const res of [
      await post(site.id, `source=plausible&file_name=${name}`, text),
      await post(site.id, 'source=plausible', zip({ [name]: text }), 'application/zip'),
    ]) {
      expect(res.status, res.text).toBe(422);
      expect(res.json.message).toMatch(
        new RegExp(`^${name}: its name's dates must be real dates from 1970-01-01 to 9998-12-31`),
      );
      expect(Object.keys((res.json as { errors: object }).errors)).toEqual([name]);
    }
    expect(await rowsOf('imports', site.id)).toBe(0);
    await readsAnswer(site, ['2024-01-01', '2024-12-31']);
  });
});

it('an import of such dates made before they were checked counts for nothing, and reads answer', async () => {
  const site = await newSite();
  await db()
    .$client.prepare(
      `INSERT INTO imports (website_id, source, from_date, to_date, rows, statistics, status, created_at)
      VALUES (?1, 'plausible', '2024-03-45', '2024-03-99', 1, 'page', 'complete', 0),
        (?1, 'plausible', '0000-00-00', '9999-99-99', 1, 'visitors', 'complete', 0)`,
    )
    .bind(site.id)
    .run();
  await readsAnswer(site, ['2024-01-01', '2024-12-31']);
});

describe("rows' dates, in the website's time zone", () => {
  // Kiritimati was 10 hours 40 minutes behind UTC in 1970 and is 14 hours ahead now.
  const timezone = 'Pacific/Kiritimati';
  const UMAMI = 'session_id,created_at,url_path,event_type';

  it.each([
    ['1970-01-01 00:00:00', '1969-12-31'],
    ['9998-12-31 23:00:00', '9999-01-01'],
  ])("Umami's %s (%s there) is a 422 naming line and column", async (time, local) => {
    const site = await newSite({ timezone });
    const text = `${UMAMI}\na,2024-05-01 10:00:00,/x,1\nb,${time},/y,1\n`;
    const res = await post(site.id, 'source=umami', text);
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toBe(
      `upload.csv, line 3, column "created_at": "${time}" is ${local} in the website's time zone (${timezone}): dates are from 1970-01-01 to 9998-12-31`,
    );
    expect(await rowsOf('imported_stats', site.id)).toBe(0);
    await readsAnswer(site, ['2024-05-01', '2024-05-31']);
  });

  it("GoatCounter's, too", async () => {
    const site = await newSite({ timezone });
    const header =
      '2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date';
    const text = `${header}\n/a,A,false,,Chrome 86,Linux,s1,0,,,"1920,0,1",EE,true,9998-12-31T12:00:00Z\n`;
    const res = await post(site.id, 'source=goatcounter', text);
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toMatch(/^upload\.csv, line 2, column "Date": .* is 9999-01-01 /);
  });

  it('the first and last dates Sightline takes are imported', async () => {
    const site = await newSite({ timezone: 'UTC' });
    const text = `${UMAMI}\na,1970-01-01 00:00:00,/x,1\nb,9998-12-31 23:59:59,/y,1\n`;
    const res = await post(site.id, 'source=umami', text);
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ from: '1970-01-01', to: '9998-12-31' });
    expect(await stat(site.id, 'page', 'from=9998-12-01&to=9998-12-31')).toEqual({ '/y': 1 });
    await readsAnswer(site, ['1970-01-01', '1970-12-31']);
    await readsAnswer(site, ['9998-01-01', '9998-12-31']);
  });
});

describe('counts', () => {
  const PAGES = 'imported_pages_20240101_20240131.csv';
  const pages = (rows: [string, string, number | string][]) =>
    `date,page,pageviews\n${rows.map((r) => r.join(',')).join('\n')}\n`;

  it.each([
    ['a count past a trillion', 1_000_000_000_001],
    ['the largest count a row could hold', 999_999_999_999_999],
  ])('%s in a row is a 422 naming line and column', async (_, count) => {
    const site = await newSite();
    const text = pages([
      ['2024-01-01', '/a', 5],
      ['2024-01-01', '/b', count],
    ]);
    const res = await post(site.id, `source=plausible&file_name=${PAGES}`, text);
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toBe(
      `${PAGES}, line 3, column "pageviews": ${count} is more than 1,000,000,000,000, more than any website's day holds`,
    );
    expect(await rowsOf('imported_stats', site.id)).toBe(0);
  });

  it('rows of one date and value that add up past a trillion are a 422 naming the line', async () => {
    const site = await newSite();
    // 5,000 rows of 999,999,999,999: each within the bound, their sum far beyond D1's integers.
    const rows = Array.from(
      { length: 5_000 },
      () => ['2024-01-02', '/same', 999_999_999_999] as [string, string, number],
    );
    const res = await post(site.id, `source=plausible&file_name=${PAGES}`, pages(rows));
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toBe(
      `${PAGES}, line 3: the counts of page "/same" on 2024-01-02 add up to more than 1,000,000,000,000, more than any website's day holds`,
    );
    expect(await rowsOf('imported_stats', site.id)).toBe(0);
    await readsAnswer(site, ['2024-01-01', '2024-01-31']);
  });

  it('the same, written in two pieces, is refused by the write that crosses the bound', async () => {
    const site = await newSite();
    const id = await beginImport(db(), site.id, 'plausible');
    const row = ['page', '2024-01-03', '/same', 600_000_000_000] as [
      string,
      string,
      string,
      number,
    ];
    expect(await writeImported(db(), site.id, id, [row])).toBe(1);
    await expect(writeImported(db(), site.id, id, [row])).rejects.toThrow(
      'the counts of one statistic, date and value add up to more than 1,000,000,000,000',
    );
    const stored = await db()
      .$client.prepare('SELECT count FROM imported_stats WHERE import_id = ?')
      .bind(id)
      .all<{ count: number }>();
    expect(stored.results).toEqual([{ count: 600_000_000_000 }]);
  });

  it('counts at the bound read exactly, and sums across values never fail', async () => {
    const site = await newSite();
    const text = pages([
      ['2024-01-01', '/a', 1_000_000_000_000],
      ['2024-01-02', '/a', 1_000_000_000_000],
      ['2024-01-02', '/b', 1_000_000_000_000],
    ]);
    const res = await post(site.id, `source=plausible&file_name=${PAGES}`, text);
    expect(res.status, res.text).toBe(201);
    expect(await stat(site.id, 'page', 'from=2024-01-01&to=2024-01-31')).toEqual({
      '/a': 2_000_000_000_000,
      '/b': 1_000_000_000_000,
    });
    // Custom events are summed across their names (the summary's events). Rows no import can
    // write (each past the bound) show that such a sum is never D1's integer overflow.
    const events = await post(
      site.id,
      'source=plausible&file_name=imported_custom_events_20240101_20240131.csv',
      'date,name,events\n2024-01-05,Signup,1\n',
    );
    expect(events.status, events.text).toBe(201);
    const importId = (events.json.data as { id: number }).id;
    await db()
      .$client.prepare(
        `INSERT INTO imported_stats (website_id, name, date, value, import_id, count)
        SELECT ?1, 'event', '2024-01-05', 'e' || value, ?2, 4000000000000000000 FROM json_each('[1,2,3]')`,
      )
      .bind(site.id, importId)
      .run();
    await readsAnswer(site, ['2024-01-01', '2024-01-31']);
  });
});

describe('texts with control characters', () => {
  it('pages keep them as a hit would (line breaks dropped, others escaped), other texts as spaces', async () => {
    const site = await newSite();
    const body = zip({
      'imported_pages_20240101_20240131.csv':
        'date,page,pageviews\n2024-01-01,"/a\r\nb",3\n2024-01-01,/x\ty,2\n2024-01-01,/c\u0001d\u007fe\u0085,1\n',
      'imported_sources_20240101_20240131.csv':
        'date,referrer,utm_campaign,visits\n2024-01-01,"news.example\n.com",spr\u0000\u0001ing,4\n',
      'imported_browsers_20240101_20240131.csv':
        'date,browser,visitors\n2024-01-01,"Fire\r\nfox\t",5\n',
    });
    const res = await post(site.id, 'source=plausible', body, 'application/zip');
    expect(res.status, res.text).toBe(201);
    const range = 'from=2024-01-01&to=2024-01-31';
    expect(await stat(site.id, 'page', range)).toEqual({
      '/ab': 3,
      '/xy': 2,
      '/c%01d%7Fe%C2%85': 1,
    });
    expect(await stat(site.id, 'referrer', range)).toEqual({ 'news.example .com': 4 });
    expect(await stat(site.id, 'campaign', range)).toEqual({ 'spr ing': 4 });
    expect(await stat(site.id, 'browser', range)).toEqual({ 'Fire fox': 5 });
  });

  it("Umami's pages too; an event name with one is a 422, as a hit's is", async () => {
    const site = await newSite();
    const header = 'session_id,created_at,url_path,url_query,event_type,event_name';
    const ok = await post(
      site.id,
      'source=umami',
      `${header}\na,2024-02-01 10:00:00,"/p\n1",q=\u0002,1,\n`,
    );
    expect(ok.status, ok.text).toBe(201);
    expect(await stat(site.id, 'page', 'from=2024-02-01&to=2024-02-01')).toEqual({
      '/p1?q=%02': 1,
    });
    const bad = await post(
      site.id,
      'source=umami',
      `${header}\na,2024-02-02 10:00:00,/p,,2,"Sign\nup"\n`,
    );
    expect(bad.status, bad.text).toBe(422);
    expect(bad.json.message).toBe(
      'upload.csv, line 2, column "event_name": an event name with a control character (a line break, a tab…), which a hit may not have either: "Sign\\nup"',
    );
  });

  it("Plausible's and GoatCounter's event names too", async () => {
    const site = await newSite();
    const plausible = await post(
      site.id,
      'source=plausible&file_name=imported_custom_events_20240101_20240131.csv',
      'date,name,events\n2024-01-01,Signup,1\n2024-01-01,"Sign\tup",1\n',
    );
    expect(plausible.status, plausible.text).toBe(422);
    expect(plausible.json.message).toMatch(
      /^imported_custom_events_20240101_20240131\.csv, line 3, column "name": an event name with a control character/,
    );
    const header =
      '2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date';
    const goat = await post(
      site.id,
      'source=goatcounter',
      `${header}\n"sign\rup",,true,,Chrome 86,Linux,s1,0,,,"1920,0,1",EE,true,2024-01-01T12:00:00Z\n`,
    );
    expect(goat.status, goat.text).toBe(422);
    expect(goat.json.message).toMatch(/^upload\.csv, line 2, column "2Path": an event name/);
  });
});

describe('a thousand imports', () => {
  const FIRST = '2023-01-01';
  const IMPORTS = 1_000;

  it('all read, through the API, v2 and the page, at a cost bounded by their rows', async () => {
    const site = await newSite({ timezone: 'UTC' });
    // A thousand one-line imports of a date each, as the API makes them (its store), fifty
    // at a time.
    const one = async (i: number) => {
      const date = addDays(FIRST, i);
      const id = await beginImport(db(), site.id, 'plausible');
      await writeImported(db(), site.id, id, [
        ['page', date, '/p', 1],
        ['pageviews', date, date, 2],
        ['visitors', date, date, 1],
        ['event', date, `e${i % 3}`, 1],
      ]);
      await commitImport(db(), site.id, id, {
        from: date,
        to: date,
        rows: 1,
        statistics: ['page', 'pageviews', 'visitors', 'event'],
        ownWin: false,
      });
    };
    for (let i = 0; i < IMPORTS; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => one(i + j)));
    // And one more through the API, over the first ten dates. pages.
    const res = await post(
      site.id,
      'source=plausible&file_name=imported_pages_20230101_20230110.csv',
      'date,page,pageviews\n2023-01-01,/q,5\n',
    );
    expect(res.status, res.text).toBe(201);
    const last = addDays(FIRST, IMPORTS - 1);
    const range = `from=${FIRST}&to=${last}`;
    expect(await stat(site.id, 'page', range)).toEqual({ '/p': IMPORTS - 10, '/q': 5 });
    const summary = await call(`/api/v1/stats/${site.id}/summary?${range}`, { key });
    expect(summary.status, summary.text).toBe(200);
    expect(summary.json.data).toMatchObject({ pageviews: 2 * IMPORTS, visitors: IMPORTS });
    await readsAnswer(site, [FIRST, last]);
    const v2 = await call('/api/v2/query', {
      method: 'POST',
      key,
      body: { json: { site_id: site.domain, metrics: ['pageviews', 'events'], date_range: 'all' } },
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.results).toEqual([{ metrics: [2 * IMPORTS, 3 * IMPORTS], dimensions: [] }]);
    // One statement reads them all: its imported rows twice (once more merged in value
    // order), two rows a span it seeks (an import's dates of a statistic), and the groups'.
    const segments = await importedSegments(db(), site.id);
    const spans = segments.filter((s) => s.names.includes('page')).length;
    expect(spans).toBe(IMPORTS - 10 + 1);
    const page = await queryStats(db(), {
      websiteId: site.id,
      through: null,
      name: 'page',
      from: FIRST,
      to: last,
      sortBy: 'count',
      sort: 'desc',
      limit: 10,
      offset: 0,
      imported: segments,
    });
    expect(page.total).toBe(2);
    expect(page.rowsRead).toBeLessThanOrEqual(2 * (IMPORTS + 1) + 2 * spans + 3 * 2 + 2);
  });
});
