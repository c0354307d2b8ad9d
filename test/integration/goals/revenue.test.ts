/**
 * Revenue (docs/ARCHITECTURE.md, "Goals"): a custom event's `{amount, currency}` from
 * Sightline's, Plausible's and Umami's payloads, counted by the event goal of its name in the
 * goal's currency (an event in another currency is a conversion, its revenue not), as
 * Plausible's Stats API v2 gives it: `{value, currency, short, long}`.
 */
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

const DAY = '2026-08-03';
let s: Awaited<ReturnType<typeof site>>;

/**
 * Five visitors, each a page view then an event: Purchase 29.90 EUR (Sightline's payload),
 * Purchase 10 USD, Purchase "20.10" EUR (Plausible's `$`), Purchase 5 EUR (Umami's data),
 * Donate 3 USD. Goals: Purchase in EUR, Donate in USD, Signup without revenue.
 */
beforeAll(async () => {
  s = await site('revenue');
  freezeAt(`${DAY}T10:00:00Z`);
  const page = `https://${s.domain}/shop`;
  const ok = async (body: unknown, ip: string) => {
    const res = await sendHit(body, { ip });
    expect(res.status, res.text).toBe(202);
  };
  const buyer = async (n: number, event: Record<string, unknown>) => {
    await ok({ page }, `198.51.100.${n}`);
    await ok(event, `198.51.100.${n}`);
  };
  await buyer(1, { page, event: 'Purchase', revenue: { amount: 29.9, currency: 'eur' } });
  await buyer(2, { page, event: 'Purchase', revenue: { amount: 10, currency: 'USD' } });
  await buyer(3, { n: 'Purchase', u: page, d: s.domain, $: { amount: '20.10', currency: 'EUR' } });
  await ok({ page }, '198.51.100.4');
  const umami = await exports.default.fetch(
    new Request('https://sightline.test/api/send', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': CHROME_WINDOWS,
        'cf-connecting-ip': '198.51.100.4',
      },
      body: JSON.stringify({
        type: 'event',
        payload: {
          website: String(s.id),
          hostname: s.domain,
          url: '/shop',
          name: 'Purchase',
          data: { revenue: 5, currency: 'EUR' },
        },
      }),
    }),
  );
  expect(umami.status).toBe(200);
  await buyer(5, { page, event: 'Donate', revenue: { amount: 3, currency: 'USD' } });
  vi.useRealTimers();
  for (const goal of [
    { event: 'Purchase', currency: 'EUR' },
    { event: 'Donate', currency: 'USD' },
    { event: 'Signup' },
  ]) {
    const res = await call(`/api/v1/websites/${s.id}/goals`, {
      method: 'POST',
      key: s.key,
      body: { json: goal },
    });
    expect(res.status).toBe(201);
  }
});

async function v2(body: Record<string, unknown>) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key: s.key,
    body: { json: { site_id: s.domain, date_range: [DAY, DAY], ...body } },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { results: { metrics: unknown[]; dimensions: string[] }[]; meta: unknown };
}

const eur = (value: number, short: string, long: string) => ({
  value,
  currency: 'EUR',
  short,
  long,
});

describe('revenue in the Stats API v2', () => {
  it("sums and averages each revenue goal's revenue in its currency", async () => {
    expect(
      (
        await v2({
          metrics: ['visitors', 'total_revenue', 'average_revenue'],
          dimensions: ['event:goal'],
        })
      ).results,
    ).toEqual([
      // Four purchases; the one in dollars is a conversion without revenue in euros.
      {
        dimensions: ['Purchase'],
        metrics: [4, eur(55, '€55', '€55.00'), eur(18.33, '€18.3', '€18.33')],
      },
      {
        dimensions: ['Donate'],
        metrics: [
          1,
          { value: 3, currency: 'USD', short: '$3', long: '$3.00' },
          { value: 3, currency: 'USD', short: '$3', long: '$3.00' },
        ],
      },
    ]);
  });

  it('counts under a goal filter in its currency, or says why not', async () => {
    expect(
      await v2({ metrics: ['total_revenue'], filters: [['is', 'event:goal', ['Purchase']]] }),
    ).toMatchObject({ results: [{ metrics: [eur(55, '€55', '€55.00')] }] });
    expect(
      await v2({
        metrics: ['total_revenue'],
        filters: [['is', 'event:goal', ['Purchase', 'Donate']]],
      }),
    ).toMatchObject({
      results: [{ metrics: [null] }],
      meta: { metric_warnings: { total_revenue: { code: 'no_single_revenue_currency' } } },
    });
    expect(
      await v2({ metrics: ['average_revenue'], filters: [['is', 'event:goal', ['Signup']]] }),
    ).toMatchObject({
      results: [{ metrics: [null] }],
      meta: { metric_warnings: { average_revenue: { code: 'no_revenue_goals_matching' } } },
    });
  });

  it('asks for a goal with revenue metrics', async () => {
    const res = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: { json: { site_id: s.domain, date_range: [DAY, DAY], metrics: ['total_revenue'] } },
    });
    expect(res.json).toEqual({
      error: 'Metric `total_revenue` can only be queried with event:goal filters or dimensions.',
    });
  });
});
