/** The counting model (docs/ARCHITECTURE.md): what one page view and one custom event write, statistic by statistic. */
import { exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AUSTIN, CHROME_WINDOWS, rollups, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { advance, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('statistics of one hit', () => {
  it('a first page view writes exactly the 20 page-view statistics', async () => {
    const s = await site('all-stats');
    freezeAt('2025-04-08T15:42:10Z');
    const res = await sendHit(
      {
        page: `https://${s.domain}/pricing?utm_campaign=spring`,
        referrer: 'https://www.google.com/search?q=x',
        screen_resolution: '1920x1080',
        language: 'en-US',
      },
      { ua: CHROME_WINDOWS, cf: AUSTIN, ip: '198.51.100.10' },
    );
    expect(res.status).toBe(202);
    expect(res.dropReason).toBeNull();
    expect(await rollups(s.id)).toEqual({
      pageviews: { '2025-04-08': 1 },
      pageviews_hours: { '15': 1 },
      page: { '/pricing': 1 },
      visitors: { '2025-04-08': 1 },
      visitors_hours: { '15': 1 },
      browser: { Chrome: 1 },
      os: { Windows: 1 },
      device: { desktop: 1 },
      country: { 'US:United States': 1 },
      continent: { 'NA:North America': 1 },
      city: { 'US:Austin, TX': 1 },
      language: { en: 1 },
      resolution: { '1920x1080': 1 },
      landing_page: { '/pricing': 1 },
      referrer: { 'www.google.com': 1 },
      campaign: { spring: 1 },
      visits: { '2025-04-08': 1 },
      visits_hours: { '15': 1 },
      bounces: { '2025-04-08': 1 },
      exit_page: { '/pricing': 1 },
    });
    // Every row is on the website-local date of the hit.
    expect(await rollups(s.id, '2025-04-08')).toEqual(await rollups(s.id));

    // A custom event adds `event` and nothing else (the visit stays a bounce).
    advance(MINUTE);
    const event = await sendHit(
      {
        page: `https://${s.domain}/pricing?utm_campaign=spring`,
        event: { name: 'signup', value: 10, unit: 'usd' },
      },
      { ua: CHROME_WINDOWS, cf: AUSTIN, ip: '198.51.100.10' },
    );
    expect(event.status).toBe(202);
    expect(event.dropReason).toBeNull();
    expect(await rollups(s.id)).toEqual({
      pageviews: { '2025-04-08': 1 },
      pageviews_hours: { '15': 1 },
      page: { '/pricing': 1 },
      visitors: { '2025-04-08': 1 },
      visitors_hours: { '15': 1 },
      browser: { Chrome: 1 },
      os: { Windows: 1 },
      device: { desktop: 1 },
      country: { 'US:United States': 1 },
      continent: { 'NA:North America': 1 },
      city: { 'US:Austin, TX': 1 },
      language: { en: 1 },
      resolution: { '1920x1080': 1 },
      landing_page: { '/pricing': 1 },
      referrer: { 'www.google.com': 1 },
      campaign: { spring: 1 },
      visits: { '2025-04-08': 1 },
      visits_hours: { '15': 1 },
      bounces: { '2025-04-08': 1 },
      exit_page: { '/pricing': 1 },
      event: { 'signup:10:usd': 1 },
    });
  });

  it('an event sent as a string is counted by name; events never count page views', async () => {
    const s = await site('event-string');
    freezeAt('2025-04-08T09:00:00Z');
    const page = `https://${s.domain}/files`;
    expect((await sendHit({ page, event: 'download' })).status).toBe(202);
    expect((await sendHit({ page, event: 'download' })).status).toBe(202);
    expect(
      (await sendHit({ page, event: { name: 'signup', value: 10, unit: 'usd' } })).status,
    ).toBe(202);
    expect((await sendHit({ page, event: 'signup:10:usd' })).status).toBe(202);
    expect(await rollups(s.id)).toEqual({
      event: { download: 2, 'signup:10:usd': 2 },
    });
  });

  it('a page view without referrer, campaign, language, resolution or geo writes only what it has', async () => {
    const s = await site('sparse');
    freezeAt('2025-04-08T09:05:00Z');
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua: SAFARI_IPHONE, cf: {} });
    expect(res.status).toBe(202);
    expect(await rollups(s.id)).toEqual({
      pageviews: { '2025-04-08': 1 },
      pageviews_hours: { '09': 1 },
      page: { '/': 1 },
      visitors: { '2025-04-08': 1 },
      visitors_hours: { '09': 1 },
      browser: { Safari: 1 },
      os: { iOS: 1 },
      device: { mobile: 1 },
      landing_page: { '/': 1 },
      visits: { '2025-04-08': 1 },
      visits_hours: { '09': 1 },
      bounces: { '2025-04-08': 1 },
      exit_page: { '/': 1 },
    });
  });

  it('removes excluded query parameters from page and landing_page', async () => {
    const s = await site('params', { exclude_params: 'fbclid' });
    freezeAt('2025-04-08T09:10:00Z');
    const res = await sendHit({ page: `https://${s.domain}/post?id=7&fbclid=abc` });
    expect(res.status).toBe(202);
    const r = await rollups(s.id);
    expect(r.page).toEqual({ '/post?id=7': 1 });
    expect(r.landing_page).toEqual({ '/post?id=7': 1 });
  });
});

describe('pages as people read them', () => {
  it('stores and shows a percent-encoded UTF-8 path decoded, on the API and the page', async () => {
    const s = await site('readable', { privacy: '0' });
    freezeAt('2025-04-08T09:10:00Z');
    const res = await sendHit({
      page: `https://${s.domain}/%C3%BAst%C3%AD-nad-labem?m%C4%9Bsto=1`,
    });
    expect(res.status).toBe(202);
    const r = await rollups(s.id);
    expect(r.page).toEqual({ '/ústí-nad-labem?město=1': 1 });
    expect(r.landing_page).toEqual({ '/ústí-nad-labem?město=1': 1 });

    const page = await exports.default.fetch(
      `https://sightline.test/stats/${s.domain}/page?range=custom&from=2025-04-08&to=2025-04-08`,
    );
    const html = await page.text();
    expect(html).toContain('>/ústí-nad-labem?město=1</a>');
  });

  it('keeps escapes that would change the path, control characters and invalid UTF-8', async () => {
    const s = await site('escapes');
    freezeAt('2025-04-08T09:10:00Z');
    for (const path of ['/a%2Fb', '/a/b', '/x%00y', '/%C3%28', '/%E2%80%AEevil'])
      expect((await sendHit({ page: `https://${s.domain}${path}` })).status).toBe(202);
    expect(Object.keys((await rollups(s.id)).page ?? {}).sort()).toEqual(
      ['/%C3%28', '/%E2%80%AEevil', '/a%2Fb', '/a/b', '/x%00y'].sort(),
    );
  });
});
