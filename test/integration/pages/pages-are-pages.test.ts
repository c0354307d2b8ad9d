/**
 * A page is its path (and the query parameters the website keeps): campaign tags and ad click
 * ids are counted as sources and campaigns, never as pages; "count the path only" on the
 * settings page drops every query parameter.
 */
import { describe, expect, it } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { csrfFrom, signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';

const today = new Date().toISOString().slice(0, 10);
const RANGE = `from=${today}&to=${today}`;

async function rows(key: string, id: number, name: string) {
  const res = await call(`/api/v1/stats/${id}?name=${name}&${RANGE}`, { key });
  return (res.json as { data: { value: string; count: number }[] }).data.map((r) => [
    r.value,
    r.count,
  ]);
}

describe('pages are pages', () => {
  it('counts a tagged visit on its page, and its tags as source and campaign', async () => {
    const owner = await makeOwner('pages-are-pages');
    const s = await makeWebsite(owner.key, {
      domain: `tags-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    const urls = [
      `https://${s.domain}/`,
      `https://${s.domain}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`,
      `https://${s.domain}/?gclid=abc&fbclid=def`,
      `https://${s.domain}/search?q=shoes&utm_source=newsletter`,
    ];
    for (const [i, url] of urls.entries())
      expect((await sendHit({ name: 'pageview', url }, { ip: `203.0.113.${i + 10}` })).status).toBe(
        202,
      );
    expect(await rows(owner.key, s.id, 'page')).toEqual([
      ['/', 3],
      ['/search?q=shoes', 1],
    ]);
    expect(await rows(owner.key, s.id, 'campaign')).toEqual([['spring', 1]]);
    const v2 = await call('/api/v2/query', {
      method: 'POST',
      key: owner.key,
      body: {
        json: {
          site_id: s.domain,
          metrics: ['visitors'],
          date_range: 'all',
          dimensions: ['visit:utm_source'],
        },
      },
    });
    expect((v2.json as { results: unknown[] }).results).toContainEqual({
      dimensions: ['newsletter'],
      metrics: [2],
    });
  });

  it('counts the path only when the settings say so', async () => {
    const owner = await makeOwner('path-only');
    const s = await makeWebsite(owner.key, {
      domain: `path-only-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    const b = await signedIn(owner);
    const page = await b.get(`/websites/${s.id}`);
    expect(page.text).toContain('Count the path only');
    const saved = await b.post(`/websites/${s.id}`, {
      _csrf: csrfFrom(page.text),
      domain: s.domain,
      privacy: '1',
      timezone: 'UTC',
      exclude_bots: '1',
      path_only: '1',
      exclude_params: 'ignored-when-path-only',
      exclude_ips: '',
    });
    expect(saved.status).toBe(303);
    const site = await call(`/api/v1/websites/${s.id}`, { key: owner.key });
    expect((site.json as { data: { exclude_params: string } }).data.exclude_params).toBe('*');
    // The box shows ticked, the list empty.
    const again = (await b.get(`/websites/${s.id}`)).text;
    expect(again).toMatch(/name="path_only" value="1" checked=""/);
    expect(
      (await sendHit({ name: 'pageview', url: `https://${s.domain}/search?q=shoes` })).status,
    ).toBe(202);
    expect(await rows(owner.key, s.id, 'page')).toEqual([['/search', 1]]);
  });
});
