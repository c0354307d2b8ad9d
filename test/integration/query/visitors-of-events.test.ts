/**
 * Visitors grouped by what only custom events carry — their name, their properties — count the
 * visitors who sent them, whether or not another metric is asked along (the log once left
 * custom events out of a grouping that asked for visitors alone: every visitor read `(none)`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';

let key: string;
let domain: string;

beforeAll(async () => {
  const owner = await makeOwner('visitors-of-events');
  key = owner.key;
  domain = (
    await makeWebsite(key, { domain: `events-${crypto.randomUUID().slice(0, 6)}.example.com` })
  ).domain;
  for (const [i, plan] of ['free', 'pro', 'free'].entries()) {
    const ip = `203.0.113.${i + 1}`;
    await sendHit({ name: 'pageview', url: `https://${domain}/` }, { ip });
    await sendHit({ name: 'signup', url: `https://${domain}/`, props: { plan } }, { ip });
  }
  await sendHit({ name: 'pageview', url: `https://${domain}/` }, { ip: '203.0.113.9' });
});

async function rows(metrics: string[], dimension: string) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key,
    body: { json: { site_id: domain, metrics, date_range: 'day', dimensions: [dimension] } },
  });
  return (res.json as { results: { dimensions: string[]; metrics: number[] }[] }).results.map(
    (r) => [r.dimensions[0], r.metrics[0]],
  );
}

describe('visitors by a dimension of custom events', () => {
  it.each([[['visitors']], [['visitors', 'events']]])(
    'by event:props, asking %j',
    async (metrics) => {
      expect(await rows(metrics, 'event:props:plan')).toEqual([
        ['(none)', 4],
        ['free', 2],
        ['pro', 1],
      ]);
    },
  );

  it.each([[['visitors']], [['visitors', 'pageviews']]])(
    'by event:name, asking %j',
    async (metrics) => {
      expect(await rows(metrics, 'event:name')).toEqual([
        ['pageview', 4],
        ['signup', 3],
      ]);
    },
  );
});
