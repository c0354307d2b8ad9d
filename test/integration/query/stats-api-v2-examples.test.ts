/**
 * Every example request of Plausible's Stats API v2 documentation (shared in
 * docs/ARCHITECTURE.md, "Stats API v2"), sent to Sightline over six visitors whose every
 * figure is worked out by hand below: the answers have Plausible's shape, and Sightline's
 * numbers. The two examples that need goals answer 400, saying so.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { advance, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

const DAY = '2026-03-10';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15';
const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const TALLINN = { country: 'EE', continent: 'EU', city: 'Tallinn', regionCode: '37' };
const SAO_PAULO = { country: 'BR', continent: 'SA', city: 'São Paulo', regionCode: 'SP' };
const BERLIN = { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' };
const SAN_FRANCISCO = { country: 'US', continent: 'NA', city: 'San Francisco', regionCode: 'CA' };

let s: Awaited<ReturnType<typeof site>>;

/**
 * Six visitors on `DAY`, a visit each:
 * 1. Firefox on Linux, Tallinn, from Google: /docs, /pricing two minutes later;
 * 2. Safari on a Mac, Tallinn: /blog tagged utm_campaign=Referral, utm_source=partner,
 *    utm_medium=referral (a bounce);
 * 3. Chrome on Windows, São Paulo, from DuckDuckGo: / (a bounce);
 * 4. Safari on a Mac, Berlin: /pricing tagged twitter / social / launch, then the custom
 *    event Signup (a bounce: one page view);
 * 5. Chrome on Linux, San Francisco: /docs/intro tagged google / cpc, /docs/api 3 minutes later;
 * 6. Chrome on Windows, from nowhere known: /blog (a bounce).
 * In all: 6 visitors, 8 page views, 9 events.
 */
beforeAll(async () => {
  s = await site('v2-examples');
  const hit = async (
    n: number,
    ua: string,
    cf: Record<string, unknown>,
    path: string,
    extra: Record<string, unknown> = {},
  ) => {
    const r = await sendHit(
      { page: `https://${s.domain}${path}`, ...extra },
      { ip: `203.0.113.${n}`, ua, cf },
    );
    expect(r.status, r.text).toBe(202);
  };
  freezeAt(`${DAY}T10:00:00Z`);
  await hit(1, FIREFOX_LINUX, TALLINN, '/docs', { referrer: 'https://www.google.com/' });
  await hit(
    2,
    SAFARI_MAC,
    TALLINN,
    '/blog?utm_campaign=Referral&utm_source=partner&utm_medium=referral',
  );
  await hit(3, CHROME_WINDOWS, SAO_PAULO, '/', { referrer: 'https://duckduckgo.com/' });
  await hit(
    4,
    SAFARI_MAC,
    BERLIN,
    '/pricing?utm_source=twitter&utm_medium=social&utm_campaign=launch',
  );
  await hit(5, CHROME_LINUX, SAN_FRANCISCO, '/docs/intro?utm_source=google&utm_medium=cpc');
  await hit(6, CHROME_WINDOWS, {}, '/blog');
  advance(MINUTE);
  await hit(
    4,
    SAFARI_MAC,
    BERLIN,
    '/pricing?utm_source=twitter&utm_medium=social&utm_campaign=launch',
    {
      event: 'Signup',
    },
  );
  advance(MINUTE);
  await hit(1, FIREFOX_LINUX, TALLINN, '/pricing');
  advance(MINUTE);
  await hit(5, CHROME_LINUX, SAN_FRANCISCO, '/docs/api');
  // The examples ask of "the last 7 days": two days later, they hold `DAY`.
  vi.setSystemTime(new Date('2026-03-12T12:00:00Z'));
});

async function ask(request: Record<string, unknown>) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key: s.key,
    body: { json: { ...request, site_id: s.domain } },
  });
  return res;
}

const SEVEN_DAYS = ['2026-03-05T00:00:00+00:00', '2026-03-11T23:59:59+00:00'];

describe("the examples of Plausible's Stats API v2 documentation", () => {
  it('Ex 1: a simple aggregate', async () => {
    const res = await ask({ metrics: ['visitors', 'events'], date_range: '7d' });
    expect(res.json).toEqual({
      results: [{ metrics: [6, 9], dimensions: [] }],
      meta: {},
      query: {
        site_id: s.domain,
        metrics: ['visitors', 'events'],
        date_range: SEVEN_DAYS,
        filters: [],
        dimensions: [],
        order_by: [['visitors', 'desc']],
        include: {},
        pagination: { offset: 0, limit: 10000 },
      },
    });
  });

  it('Ex 2: a custom date range', async () => {
    const res = await ask({ metrics: ['visitors'], date_range: ['2026-03-01', '2026-03-10'] });
    expect(res.json).toMatchObject({
      results: [{ metrics: [6], dimensions: [] }],
      query: { date_range: ['2026-03-01T00:00:00+00:00', '2026-03-10T23:59:59+00:00'] },
    });
  });

  it('Ex 3: countries and cities, those unknown left out', async () => {
    const res = await ask({
      metrics: ['visitors', 'pageviews', 'bounce_rate'],
      date_range: '7d',
      filters: [['is_not', 'visit:country_name', ['']]],
      dimensions: ['visit:country_name', 'visit:city_name'],
    });
    expect((res.json as { results: unknown }).results).toEqual([
      { metrics: [2, 3, 50], dimensions: ['Estonia', 'Tallinn'] },
      { metrics: [1, 1, 100], dimensions: ['Brazil', 'São Paulo'] },
      { metrics: [1, 1, 100], dimensions: ['Germany', 'Berlin'] },
      { metrics: [1, 2, 0], dimensions: ['United States', 'San Francisco'] },
    ]);
  });

  it('Ex 4: contains, with or and not', async () => {
    const res = await ask({
      metrics: ['visitors'],
      date_range: '7d',
      filters: [
        ['contains', 'event:page', ['/docs', '/pricing']],
        [
          'or',
          [
            ['not', ['is', 'visit:utm_campaign', ['Referral']]],
            ['is', 'visit:country_name', ['Estonia', 'United States of America']],
          ],
        ],
      ],
    });
    // Visitors 1, 4 and 5 viewed such pages; none of their visits is the Referral campaign's.
    expect((res.json as { results: unknown }).results).toEqual([{ metrics: [3], dimensions: [] }]);
  });

  it('Ex 5: a filter in any case', async () => {
    const res = await ask({
      metrics: ['visitors'],
      date_range: '7d',
      filters: [['contains', 'event:page', ['BLOG'], { case_sensitive: false }]],
    });
    expect((res.json as { results: unknown }).results).toEqual([{ metrics: [2], dimensions: [] }]);
  });

  it('Ex 6: a time series by day, of two systems', async () => {
    const res = await ask({
      metrics: ['visitors', 'events'],
      date_range: '7d',
      filters: [['is', 'visit:os', ['GNU/Linux', 'Mac']]],
      dimensions: ['time:day'],
    });
    expect(res.json).toMatchObject({
      results: [{ metrics: [4, 7], dimensions: [DAY] }],
      query: {
        order_by: [
          ['time:day', 'asc'],
          ['visitors', 'desc'],
        ],
      },
    });
  });

  it('Ex 7: UTM medium and source, paged, with the rows in all', async () => {
    const res = await ask({
      metrics: ['visitors', 'events', 'pageviews'],
      date_range: '7d',
      dimensions: ['visit:utm_medium', 'visit:utm_source'],
      include: { total_rows: true },
      pagination: { limit: 3, offset: 1 },
    });
    expect(res.json).toMatchObject({
      results: [
        { metrics: [1, 2, 2], dimensions: ['cpc', 'google'] },
        { metrics: [1, 1, 1], dimensions: ['referral', 'partner'] },
        { metrics: [1, 2, 1], dimensions: ['social', 'twitter'] },
      ],
      meta: { total_rows: 4 },
      query: { include: { total_rows: true }, pagination: { offset: 1, limit: 3 } },
    });
  });

  it('Ex 8: imported data asked for, and none to include', async () => {
    const res = await ask({
      metrics: ['visitors'],
      date_range: 'all',
      dimensions: ['visit:source'],
      filters: [['is', 'visit:country_name', ['Estonia']]],
      include: { imports: true },
    });
    expect(res.json).toMatchObject({
      results: [
        { metrics: [1], dimensions: ['Google'] },
        { metrics: [1], dimensions: ['partner'] },
      ],
      meta: { imports_included: false, imports_skip_reason: 'no_imported_data' },
      query: { date_range: [`${DAY}T00:00:00+00:00`, '2026-03-12T23:59:59+00:00'] },
    });
  });

  it('Ex 9 and 10: goals answer once they are configured (revenue in one currency or none)', async () => {
    const ex9 = {
      metrics: ['total_revenue'],
      date_range: 'all',
      filters: [['is', 'event:goal', ['PurchaseUSD', 'PurchaseEUR']]],
    };
    const revenue = await ask(ex9);
    expect(revenue.status).toBe(400);
    expect((revenue.json as { error: string }).error).toContain(
      'The goal `PurchaseUSD` is not configured',
    );
    for (const [event, currency] of [
      ['PurchaseUSD', 'USD'],
      ['PurchaseEUR', 'EUR'],
    ])
      expect(
        (
          await call(`/api/v1/websites/${s.id}/goals`, {
            method: 'POST',
            key: s.key,
            body: { json: { event, currency } },
          })
        ).status,
      ).toBe(201);
    // Plausible's answer: two currencies, so no revenue, and the warning that says why.
    expect((await ask(ex9)).json).toMatchObject({
      results: [{ metrics: [null], dimensions: [] }],
      meta: {
        metric_warnings: {
          total_revenue: {
            code: 'no_single_revenue_currency',
            warning:
              'Revenue metrics are null as there are multiple currencies for the selected event:goals.',
          },
        },
      },
    });
    const question = {
      metrics: ['visitors'],
      date_range: 'all',
      filters: [
        ['is', 'event:goal', ['Signup']],
        ['has_done', ['is', 'event:page', ['/pricing']]],
      ],
    };
    const unconfigured = await ask(question);
    expect(unconfigured.status).toBe(400);
    expect((unconfigured.json as { error: string }).error).toContain(
      'The goal `Signup` is not configured for this site.',
    );
    const goal = await call(`/api/v1/websites/${s.id}/goals`, {
      method: 'POST',
      key: s.key,
      body: { json: { event: 'Signup' } },
    });
    expect(goal.status).toBe(201);
    // Visitor 4 signed up in a visit that saw /pricing (tagged: the tags are the visit's
    // source and campaign, not part of the page), so `is` finds it as `contains` does.
    expect((await ask(question)).json).toMatchObject({
      results: [{ metrics: [1], dimensions: [] }],
    });
    const contains = {
      ...question,
      filters: [question.filters[0], ['has_done', ['contains', 'event:page', ['/pricing']]]],
    };
    expect((await ask(contains)).json).toMatchObject({
      results: [{ metrics: [1], dimensions: [] }],
    });
  });
});
