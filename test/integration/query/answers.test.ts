/**
 * Every answer, byte for byte, on fixed traffic: API v1's statistics (each one, filtered and
 * not), the summary, funnels and journeys, the Stats API v2, the statistics pages, their full
 * views, CSVs and suggestions, and the OpenAPI document, kept in a snapshot
 * (`__snapshots__/answers.test.ts.snap`). A change of code that is meant to change no answer
 * (a restructuring) leaves it as it is; one that changes answers shows each in the snapshot's
 * diff, to be read and then written with `npx vitest run -u test/integration/query/answers.test.ts`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import { LOG_LISTINGS } from '../../../src/query/parse/v1.ts';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const BERLIN = { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' };
const AUSTIN = { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX' };
const DOMAIN = 'answers.example.com';
const DAYS = ['2026-06-08', '2026-06-09', '2026-06-10'];
const RANGE = `from=${DAYS[0]}&to=${DAYS[2]}`;
const PAGE_RANGE = `range=custom&${RANGE}`;

let key: string;
let siteId: number;
let funnelId: number;

/** A visitor's visit: its pages, in order, each seen a while, then maybe an event. */
type Visit = {
  day: number;
  minute: number;
  ip: string;
  ua: string;
  cf: Record<string, unknown>;
  referrer?: string;
  pages: string[];
  event?: {
    name: string;
    props?: Record<string, string>;
    revenue?: { amount: number; currency: string };
  };
};

/** Fixed traffic: twelve visits over three days, of several sources, places and devices. */
function visits(): Visit[] {
  const out: Visit[] = [];
  const referrers = [
    'https://www.google.com/search?q=sightline',
    'https://news.ycombinator.com/item?id=1',
    undefined,
    'https://example.org/blog',
  ];
  const paths = [
    ['/', '/pricing', '/signup'],
    ['/blog/first-post?utm_source=newsletter&utm_medium=email', '/'],
    ['/docs/getting-started', '/docs/api'],
    ['/pricing'],
  ];
  for (let i = 0; i < 12; i++)
    out.push({
      day: i % 3,
      minute: 10 + i * 3,
      ip: `198.51.100.${40 + i}`,
      ua: [CHROME_WINDOWS, SAFARI_IPHONE, FIREFOX_LINUX][i % 3] as string,
      cf: i % 2 ? BERLIN : AUSTIN,
      ...(referrers[i % 4] ? { referrer: referrers[i % 4] } : {}),
      pages: paths[i % 4] as string[],
      ...(i % 4 === 0
        ? {
            event: {
              name: 'purchase',
              props: { plan: i % 8 ? 'pro' : 'free' },
              revenue: { amount: 49 + i, currency: 'USD' },
            },
          }
        : i % 5 === 0
          ? { event: { name: 'Signup', props: { plan: 'free' } } }
          : {}),
    });
  return out;
}

beforeAll(async () => {
  freezeAt(`${DAYS[0]}T09:00:00Z`);
  ({ key } = await makeOwner('answers'));
  siteId = (await makeWebsite(key, { domain: DOMAIN, privacy: '0' })).id;
  for (const v of visits()) {
    let at = Date.parse(`${DAYS[v.day]}T10:${String(v.minute).padStart(2, '0')}:00Z`);
    for (const [n, path] of v.pages.entries()) {
      freezeAt(at);
      const page = `https://${DOMAIN}${path}`;
      const viewed = await sendHit(
        { page, ...(n === 0 && v.referrer ? { referrer: v.referrer } : {}) },
        { ip: v.ip, ua: v.ua, cf: v.cf },
      );
      expect(viewed.status).toBe(202);
      at += 40_000;
      freezeAt(at);
      await sendHit(
        { page, engagement: { ms: 30_000 + n * 1_000, scroll: 50 + n * 10 } },
        {
          ip: v.ip,
          ua: v.ua,
          cf: v.cf,
        },
      );
      at += 5_000;
    }
    if (v.event) {
      freezeAt(at);
      const { name, props, revenue } = v.event;
      const sent = await sendHit(
        {
          page: `https://${DOMAIN}${v.pages.at(-1)}`,
          event: { name },
          ...(props ? { props } : {}),
          ...(revenue ? { revenue } : {}),
        },
        { ip: v.ip, ua: v.ua, cf: v.cf },
      );
      expect(sent.status).toBe(202);
    }
  }
  freezeAt(`${DAYS[2]}T18:00:00Z`);
  const api = (path: string, json: unknown) =>
    call(`/api/v1/websites/${siteId}${path}`, { method: 'POST', key, body: { json } });
  for (const goal of [
    { page: '/pricing' },
    { event: 'purchase', currency: 'USD' },
    { page: '/docs/**', display_name: 'Read the docs' },
  ])
    expect((await api('/goals', goal)).status).toBe(201);
  const funnel = await api('/funnels', {
    name: 'Sign up',
    steps: [{ page: '/' }, { page: '/pricing' }, { page: '/signup' }],
  });
  funnelId = (funnel.json as { data: { id: number } }).data.id;
  expect(
    (
      await api('/segments', {
        name: 'Phones',
        type: 'site',
        filters: [['is', 'visit:device', ['Mobile']]],
      })
    ).status,
  ).toBe(201);
});

/** An answer as text: its status, content type and body (JSON re-indented for a readable diff). */
async function answerOf(path: string, init: Parameters<typeof call>[1] = {}) {
  const res = await call(path, init);
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? JSON.stringify(res.json, null, 1) : res.text;
  return `${res.status} ${type}\n${body}`;
}

const v1 = (query: string) => answerOf(`/api/v1/stats/${siteId}${query}`, { key });

describe('API v1', () => {
  it('answers every statistic and listing as before, filtered and not', async () => {
    const names = [...STAT_NAMES, ...Object.keys(LOG_LISTINGS)];
    const out: Record<string, string> = {};
    for (const name of names) {
      out[name] = await v1(`?name=${name}&${RANGE}&per_page=25`);
      out[`${name} under a filter`] = await v1(
        `?name=${name}&${RANGE}&per_page=25&filter[browser][not]=Safari`,
      );
    }
    expect(out).toMatchSnapshot();
  });

  it('answers the summary, goals, funnels, journeys and websites as before', async () => {
    expect({
      summary: await v1(`/summary?${RANGE}`),
      compared: await v1(`/summary?${RANGE}&compare=year`),
      filtered: await v1(`/summary?${RANGE}&filter[country]=DE`),
      goals: await v1(`?name=goal&${RANGE}`),
      funnel: await v1(`/funnels/${funnelId}?${RANGE}`),
      journeys: await v1(`/journeys?page=/&direction=next&steps=2&${RANGE}`),
      website: await answerOf(`/api/v1/websites/${siteId}`, { key }),
      openapi: await answerOf('/api/v1/openapi.json'),
    }).toMatchSnapshot();
  });
});

describe('the Stats API v2', () => {
  it('answers as before', async () => {
    const v2 = (json: Record<string, unknown>) =>
      answerOf('/api/v2/query', {
        method: 'POST',
        key,
        body: { json: { site_id: DOMAIN, date_range: [DAYS[0], DAYS[2]], ...json } },
      });
    expect({
      aggregate: await v2({
        metrics: [
          'visitors',
          'visits',
          'pageviews',
          'bounce_rate',
          'visit_duration',
          'views_per_visit',
        ],
      }),
      pages: await v2({
        metrics: ['visitors', 'pageviews', 'time_on_page', 'scroll_depth'],
        dimensions: ['event:page'],
      }),
      sources: await v2({ metrics: ['visitors'], dimensions: ['visit:source', 'visit:channel'] }),
      countries: await v2({
        metrics: ['visitors', 'percentage'],
        dimensions: ['visit:country'],
        filters: [['is_not', 'visit:browser', ['Safari']]],
      }),
      series: await v2({ metrics: ['visitors', 'pageviews'], dimensions: ['time:day'] }),
      goals: await v2({
        metrics: ['visitors', 'events', 'conversion_rate', 'total_revenue'],
        dimensions: ['event:goal'],
      }),
      props: await v2({ metrics: ['visitors', 'events'], dimensions: ['event:props:plan'] }),
      compared: await v2({
        metrics: ['visitors'],
        include: { comparisons: { mode: 'previous_period' } },
      }),
      matches: await v2({
        metrics: ['visitors'],
        filters: [['matches', 'event:page', ['^/docs/']]],
      }),
    }).toMatchSnapshot();
  });
});

describe('the statistics pages', () => {
  it('render as before: the overview, its filters and comparisons, full views, CSVs, flows', async () => {
    const page = (path: string) => answerOf(`/stats/${DOMAIN}${path}`);
    const out: Record<string, string> = {
      overview: await page(`?${PAGE_RANGE}`),
      filtered: await page(
        `?${PAGE_RANGE}&filter[country]=DE:Germany&filter[page][contains]=/docs`,
      ),
      compared: await page(`?${PAGE_RANGE}&compare=year`),
      goal: await page(`?${PAGE_RANGE}&filter[goal]=Visit+/pricing`),
      channels: await page(`?${PAGE_RANGE}&sources=channel`),
      today: await page('?range=today'),
      funnel: await page(`/funnels/${funnelId}?${PAGE_RANGE}`),
      journeys: await page(`/journeys?${PAGE_RANGE}`),
    };
    for (const name of [
      'page',
      'referrer',
      'country',
      'browser',
      'event',
      'landing_page',
      'channel',
    ])
      for (const [kind, path] of [
        ['full view', `/${name}?${PAGE_RANGE}`],
        ['CSV', `/${name}.csv?${PAGE_RANGE}`],
        ['suggestions', `/${name}.json?${PAGE_RANGE}&search=e`],
      ])
        out[`${name} ${kind}`] = await page(path as string);
    expect(out).toMatchSnapshot();
  });
});
