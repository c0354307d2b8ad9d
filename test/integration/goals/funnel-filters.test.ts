/**
 * A funnel under filters and saved segments (docs/GUIDE.md, "Funnels and journeys"), on hits
 * sent to `/api/event`: API v1 and the funnel's page answer the visitors the filters and the
 * segment keep; the page shows them as the overview does (chips, the filter menu, the
 * segments) and the links between it and the overview keep them; a segment of another website
 * is a 422 in the API and left out, said so, on the page — as on the statistics page.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, errorOf, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';
import { type Browser, newBrowser, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { linkNamed, params, rowsOf, unescapeHtml } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { openSharedLink } from '../../support/tokens.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
let funnelId: number;
/** The website's segment of phones, and another website's. */
let phones: number;
let foreign: number;
let browser: Browser;
const DAY = '2026-07-08';
const range = `range=custom&from=${DAY}&to=${DAY}`;
const HN = 'https://news.ycombinator.com/item?id=1';
const FROM_HN = `filter[referrer]=${encodeURIComponent('news.ycombinator.com')}`;
const PHONES = [['is', 'visit:device', ['Mobile']]];

type Visit = [who: number, time: string, what: { page: string; event?: string }];

beforeAll(async () => {
  owner = await makeOwner('funnel-filters');
  site = await makeWebsite(owner.key, { domain: 'funnel-filters.example.com', privacy: '1' });
  // 0 and 1 (computers) complete the funnel, 0 from Hacker News; 2 (a phone, from Hacker
  // News) reaches its second step, 3 (a phone) its first; 4 (a computer, from Hacker News)
  // signs up without the funnel's pages: a goal would count it, the funnel does not.
  const visits: Visit[] = [
    [0, '10:00:00', { page: '/pricing' }],
    [0, '10:01:00', { page: '/signup' }],
    [0, '10:02:00', { page: '/signup', event: 'Signup' }],
    [1, '10:00:00', { page: '/pricing' }],
    [1, '10:01:00', { page: '/signup' }],
    [1, '10:02:00', { page: '/signup', event: 'Signup' }],
    [2, '10:00:00', { page: '/pricing' }],
    [2, '10:01:00', { page: '/signup' }],
    [3, '10:00:00', { page: '/pricing' }],
    [4, '10:00:00', { page: '/blog' }],
    [4, '10:01:00', { page: '/blog', event: 'Signup' }],
  ];
  const first = new Set<number>();
  for (const [who, time, what] of visits) {
    freezeAt(`${DAY}T${time}Z`);
    const page = `https://${site.domain}${what.page}`;
    const referrer = [0, 2, 4].includes(who) && !first.has(who) ? { referrer: HN } : {};
    first.add(who);
    const res = await sendHit(
      what.event ? { page, event: { name: what.event } } : { page, ...referrer },
      { ip: `192.0.2.${who + 1}`, ua: who === 2 || who === 3 ? SAFARI_IPHONE : CHROME_WINDOWS },
    );
    expect(res.status, res.text).toBe(202);
  }
  vi.useRealTimers();
  const post = async (websiteId: number, path: string, json: unknown) => {
    const res = await call(`/api/v1/websites/${websiteId}${path}`, {
      method: 'POST',
      key: owner.key,
      body: { json },
    });
    expect(res.status, res.text).toBe(201);
    return Number(oneOf(res).data.id);
  };
  funnelId = await post(site.id, '/funnels', {
    name: 'Sign-up',
    steps: [{ page: '/pricing' }, { page: '/signup' }, { event: 'Signup' }],
  });
  phones = await post(site.id, '/segments', { name: 'Phones', type: 'site', filters: PHONES });
  const other = await makeWebsite(owner.key, { domain: 'funnel-filters-other.example.com' });
  foreign = await post(other.id, '/segments', { name: 'Elsewhere', type: 'site', filters: PHONES });
  browser = await signedIn(owner);
});

afterAll(() => {
  vi.useRealTimers();
});

/** The API's visitors per step under `filters` (an address's query). */
async function apiSteps(filters: string) {
  const res = await call(
    `/api/v1/stats/${site.id}/funnels/${funnelId}?from=${DAY}&to=${DAY}&${filters}`,
    { key: owner.key },
  );
  expect(res.status, res.text).toBe(200);
  return (res.json as { data: { steps: { visitors: number }[] } }).data.steps.map(
    (s) => s.visitors,
  );
}

const funnelPath = () => `/stats/${site.domain}/funnels/${funnelId}`;

/** The funnel's page under `filters`, and its visitors per step as shown. */
async function pageSteps(filters: string, b = browser, path = funnelPath()) {
  const page = await b.get(`${path}?${range}&${filters}`);
  expect(page.status, page.text).toBe(200);
  return { text: page.text, visitors: rowsOf(page.text).map((r) => Number(r.count)) };
}

/** Every filter (and its value) an address names. */
const filtersOf = (url: URL | undefined) =>
  Object.fromEntries(Object.entries(params(url)).filter(([k]) => k.startsWith('filter[')));

describe('a funnel under filters and a segment', () => {
  // Unfiltered: 4 took /pricing, 3 then /signup, 2 then signed up.
  // The segment's id is known once it is made.
  const cases: [string, () => string, number[]][] = [
    ['nothing', () => '', [4, 3, 2]],
    ['a filter', () => FROM_HN, [2, 2, 1]],
    ['a segment', () => `filter[segment]=${phones}`, [2, 1, 0]],
    ['a segment and a filter', () => `filter[segment]=${phones}&${FROM_HN}`, [1, 1, 0]],
  ];

  it.each(cases)('answers the API under %s', async (_, filters, visitors) => {
    expect(await apiSteps(filters())).toEqual(visitors);
  });

  it.each(cases)("answers the funnel's page under %s", async (_, filters, visitors) => {
    expect((await pageSteps(filters())).visitors).toEqual(visitors);
  });

  it("refuses another website's segment: a 422 in the API, left out on the page", async () => {
    const res = await call(
      `/api/v1/stats/${site.id}/funnels/${funnelId}?from=${DAY}&to=${DAY}&filter[segment]=${foreign}`,
      { key: owner.key },
    );
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual(['filter[segment]']);
    const page = await pageSteps(`filter[segment]=${foreign}`);
    expect(page.visitors).toEqual([4, 3, 2]);
    expect(page.text).toContain('could not be used and are left out: filter[segment]');
    expect(page.text).not.toContain('Elsewhere');
  });

  it("leaves a segment out for a shared link's reader, as the statistics page does", async () => {
    const made = await call(`/api/v1/websites/${site.id}/shared-links`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'Funnel' } },
    });
    const reader = newBrowser();
    const opened = await openSharedLink(reader, String(oneOf(made).data.url));
    const base = opened.path.split('?')[0];
    const page = await pageSteps(
      `filter[segment]=${phones}`,
      reader,
      `${base}/funnels/${funnelId}`,
    );
    expect(page.visitors).toEqual([4, 3, 2]);
    expect(page.text).toContain('could not be used and are left out: filter[segment]');
    expect((await pageSteps(FROM_HN, reader, `${base}/funnels/${funnelId}`)).visitors).toEqual([
      2, 2, 1,
    ]);
  });
});

describe("the funnel's page", () => {
  it('shows the filters as chips, with the filter menu and the segments', async () => {
    const { text } = await pageSteps(`filter[segment]=${phones}&${FROM_HN}`);
    const chips = [...text.matchAll(/<li class="chip[^"]*">([\s\S]*?)<\/li>/g)].map((m) =>
      unescapeHtml((m[1] ?? '').replace(/<[^>]*>/g, '')),
    );
    expect(chips).toEqual([
      expect.stringContaining('Phones'),
      expect.stringContaining('news.ycombinator.com'),
    ]);
    expect(text).toContain('<summary>Add a filter</summary>');
    expect(text).toContain(`<form method="get" action="${funnelPath()}" class="actions"`);
    expect(text).toContain('<summary>Segments</summary>');
    // A segment of the menu applies to the funnel.
    expect(linkNamed(text, 'Phones')?.pathname).toBe(funnelPath());
    // How it counts, against a goal.
    expect(unescapeHtml(text)).toContain('A goal counts everyone who converted');
  });

  it("turns the filter menu's answer into the filter's address", async () => {
    const res = await browser.get(
      `${funnelPath()}?${range}&filter[segment]=${phones}&add_filter=page&add_operator=is&add_value=/signup`,
    );
    expect(res.status).toBe(303);
    const to = new URL(res.location ?? '', 'https://x.test');
    expect(to.pathname).toBe(funnelPath());
    expect(filtersOf(to)).toEqual({ 'filter[segment]': String(phones), 'filter[page]': '/signup' });
    expect(params(to)).toMatchObject({ range: 'custom', from: DAY, to: DAY });
  });

  it('keeps the filters and the segment between the overview and the funnel', async () => {
    const filters = {
      'filter[segment]': String(phones),
      'filter[referrer]': 'news.ycombinator.com',
    };
    const overview = await browser.get(
      `/stats/${site.domain}?${range}&filter[segment]=${phones}&${FROM_HN}`,
    );
    expect(overview.status).toBe(200);
    const toFunnel = linkNamed(overview.text, 'Sign-up');
    expect(toFunnel?.pathname).toBe(funnelPath());
    expect(filtersOf(toFunnel)).toEqual(filters);
    const funnel = await browser.get(`${toFunnel?.pathname}${toFunnel?.search}`);
    expect(rowsOf(funnel.text).map((r) => Number(r.count))).toEqual([1, 1, 0]);
    const back = linkNamed(funnel.text, `← ${site.domain}`);
    expect(back?.pathname).toBe(`/stats/${site.domain}`);
    expect(filtersOf(back)).toEqual(filters);
  });
});
