/** Edge cases of the counting model and the hit contract (docs/ARCHITECTURE.md): concurrency, hosts, bounds, events. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite, snapshot } from '../../support/api.ts';
import { rollups, sendHit } from '../../support/hits.ts';
import { freezeAt, site, statRows } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

describe('concurrent page views of one new visitor', () => {
  it('count every page view but the visitor and the visit once', async () => {
    const s = await site('concurrent');
    freezeAt('2026-02-03T08:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sendHit(
          { page: `https://${s.domain}/p${i}`, referrer: 'https://www.bing.com/' },
          { ip: '198.51.100.200' },
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2026-02-03': 6 });
    expect(r.visitors).toEqual({ '2026-02-03': 1 });
    expect(r.browser).toEqual({ Chrome: 1 });
    // All arrived from the same site: the first starts the visit, the others continue it.
    expect(Object.values(r.landing_page ?? {}).reduce((a, b) => a + b, 0)).toBe(1);
    expect(r.referrer).toEqual({ 'www.bing.com': 1 });
  });

  it('without an external referrer, only one of them is a landing page', async () => {
    const s = await site('concurrent-plain');
    freezeAt('2026-02-03T08:30:00Z');
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sendHit({ page: `https://${s.domain}/p${i}` }, { ip: '198.51.100.201' }),
      ),
    );
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2026-02-03': 6 });
    expect(r.visitors).toEqual({ '2026-02-03': 1 });
    expect(Object.values(r.landing_page ?? {})).toEqual([1]);
  });
});

describe('page and host forms', () => {
  it('bounds page and landing_page to 255 characters', async () => {
    const s = await site('long-page');
    const path = `/${'a'.repeat(300)}`;
    expect((await sendHit({ page: `https://${s.domain}${path}` })).status).toBe(202);
    const r = await rollups(s.id);
    expect(Object.keys(r.page ?? {})).toEqual([path.slice(0, 255)]);
    expect(Object.keys(r.landing_page ?? {})).toEqual([path.slice(0, 255)]);
  });

  it('ignores the fragment, the port, upper case and a trailing dot of the page host', async () => {
    const s = await site('forms');
    const upper = s.domain.toUpperCase();
    for (const page of [
      `https://${s.domain}/a#section`,
      `https://${upper}:8443/a`,
      `https://${s.domain}./a`,
    ]) {
      const res = await sendHit({ page });
      expect({ page, status: res.status, reason: res.dropReason }).toEqual({
        page,
        status: 202,
        reason: null,
      });
    }
    expect((await rollups(s.id)).page).toEqual({ '/a': 3 });
  });

  it('normalises the `domain` field like the website domain', async () => {
    const s = await site('field');
    for (const domain of [s.domain.toUpperCase(), `www.${s.domain}`, `https://${s.domain}/`]) {
      const res = await sendHit({ page: `https://${s.domain}/`, domain });
      expect({ domain, status: res.status, reason: res.dropReason }).toEqual({
        domain,
        status: 202,
        reason: null,
      });
    }
    expect(Object.values((await rollups(s.id)).pageviews ?? {})).toEqual([3]);
  });

  it('counts hits for websites whose domain is an IP literal', async () => {
    const v4 = await site('v4', { domain: '192.0.2.10' });
    const v6 = await site('v6', { domain: '[2001:db8::10]' });
    expect((await sendHit({ page: 'http://192.0.2.10/x' })).dropReason).toBeNull();
    expect((await sendHit({ page: 'http://[2001:db8:0::10]:8080/y' })).dropReason).toBeNull();
    expect((await rollups(v4.id)).page).toEqual({ '/x': 1 });
    expect((await rollups(v6.id)).page).toEqual({ '/y': 1 });
  });
});

describe('language', () => {
  it('falls back to Accept-Language when the hit carries none', async () => {
    const s = await site('accept-language');
    await sendHit(
      { page: `https://${s.domain}/` },
      { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' } },
    );
    expect((await rollups(s.id)).language).toEqual({ de: 1 });
  });
});

describe('drops apply to events as to page views', () => {
  it('drops events from bots, excluded addresses and DNT', async () => {
    const s = await site('event-drops', { exclude_ips: '203.0.113.0/24' });
    const body = { page: `https://${s.domain}/`, event: 'signup' };
    expect((await sendHit(body, { ua: GOOGLEBOT })).dropReason).toBe('bot');
    expect((await sendHit(body, { ip: '203.0.113.9' })).dropReason).toBe('excluded_ip');
    expect((await sendHit({ ...body, dnt: true }, { headers: { dnt: '1' } })).dropReason).toBe(
      'dnt',
    );
    expect(
      (await sendHit({ ...body, page: 'https://elsewhere.example.net/', domain: s.domain }))
        .dropReason,
    ).toBe('host_mismatch');
    expect(await statRows(s.id)).toBe(0);
  });

  it('drops a hit with an empty User-Agent as a bot', async () => {
    const s = await site('empty-ua');
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua: '' });
    expect(res.dropReason).toBe('bot');
    expect(await statRows(s.id)).toBe(0);
  });
});

describe('deleted websites', () => {
  it('drops hits for a deleted website as unknown_site and stores nothing', async () => {
    const owner = await makeOwner('deleter');
    const s = await makeWebsite(owner.key, {
      domain: `gone-${crypto.randomUUID().slice(0, 8)}.example.com`,
    });
    expect((await sendHit({ page: `https://${s.domain}/` })).status).toBe(202);
    const del = await call(`/api/v1/websites/${s.id}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    const before = await snapshot('stats');
    const res = await sendHit({ page: `https://${s.domain}/` });
    expect(res.status).toBe(202);
    expect(res.dropReason).toBe('unknown_site');
    expect(await snapshot('stats')).toEqual(before);
  });
});
