/** The counting model (docs/ARCHITECTURE.md): visitors (daily, per website) and visits (30-minute gap, external referrer). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHROME_WINDOWS, rollups, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { advance, datedRows, freezeAt, MINUTE, site } from '../../support/ingest-fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

const IP = '198.51.100.40';

describe('visitors and visits', () => {
  it('counts page views, one visitor, and a new visit after 30 minutes or an external referrer', async () => {
    const s = await site('visits');
    const url = (path: string) => `https://${s.domain}${path}`;
    const hit = (path: string, referrer?: string) =>
      sendHit({ page: url(path), referrer, screen_resolution: '1280x800' }, { ip: IP });

    freezeAt('2025-05-14T10:00:00Z');
    expect((await hit('/')).status).toBe(202);

    // Same IP and UA, 10 minutes later: same visitor, same visit.
    advance(10 * MINUTE);
    expect((await hit('/about')).status).toBe(202);
    let r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-14': 2 });
    expect(r.pageviews_hours).toEqual({ '10': 2 });
    expect(r.page).toEqual({ '/': 1, '/about': 1 });
    expect(r.visitors).toEqual({ '2025-05-14': 1 });
    expect(r.visitors_hours).toEqual({ '10': 1 });
    expect(r.landing_page).toEqual({ '/': 1 });

    // 31 minutes without a page view: a new visit of the same visitor.
    advance(31 * MINUTE);
    expect((await hit('/pricing')).status).toBe(202);
    r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-14': 3 });
    expect(r.landing_page).toEqual({ '/': 1, '/pricing': 1 });
    expect(r.visitors).toEqual({ '2025-05-14': 1 });
    expect(r.visitors_hours).toEqual({ '10': 1 });
    expect(r.browser).toEqual({ Chrome: 1 });
    expect(r.os).toEqual({ Windows: 1 });
    expect(r.device).toEqual({ desktop: 1 });
    expect(r.resolution).toEqual({ '1280x800': 1 });
    expect(r.referrer).toBeUndefined();

    // One minute later, arriving from another site: a new visit with its referrer.
    advance(MINUTE);
    expect((await hit('/blog', 'https://news.ycombinator.com/item?id=1')).status).toBe(202);
    r = await rollups(s.id);
    expect(r.landing_page).toEqual({ '/': 1, '/pricing': 1, '/blog': 1 });
    expect(r.referrer).toEqual({ 'news.ycombinator.com': 1 });
    expect(r.visitors).toEqual({ '2025-05-14': 1 });

    // Internal referrers (the site itself, www., a subdomain) are navigation: no new visit.
    advance(MINUTE);
    expect((await hit('/blog/1', url('/blog'))).status).toBe(202);
    expect((await hit('/blog/2', `https://www.${s.domain}/blog/1`)).status).toBe(202);
    expect((await hit('/blog/3', `https://docs.${s.domain}/intro`)).status).toBe(202);
    r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-14': 7 });
    expect(r.landing_page).toEqual({ '/': 1, '/pricing': 1, '/blog': 1 });
    expect(r.referrer).toEqual({ 'news.ycombinator.com': 1 });
    expect(r.visitors).toEqual({ '2025-05-14': 1 });
    expect(r.pageviews_hours).toEqual({ '10': 7 });
  });

  it('an internal referrer after a 30-minute gap starts a visit without a referrer row', async () => {
    const s = await site('gap-internal');
    freezeAt('2025-05-14T12:00:00Z');
    await sendHit({ page: `https://${s.domain}/a` }, { ip: IP });
    advance(45 * MINUTE);
    const res = await sendHit(
      { page: `https://${s.domain}/b`, referrer: `https://${s.domain}/a` },
      { ip: IP },
    );
    expect(res.status).toBe(202);
    const r = await rollups(s.id);
    expect(r.landing_page).toEqual({ '/a': 1, '/b': 1 });
    expect(r.referrer).toBeUndefined();
    expect(r.visitors).toEqual({ '2025-05-14': 1 });
  });

  it('a look-alike referrer host is external', async () => {
    const s = await site('lookalike');
    freezeAt('2025-05-14T12:30:00Z');
    await sendHit({ page: `https://${s.domain}/a` }, { ip: IP });
    advance(MINUTE);
    await sendHit(
      { page: `https://${s.domain}/b`, referrer: `https://evil${s.domain}/x` },
      { ip: IP },
    );
    const r = await rollups(s.id);
    expect(r.referrer).toEqual({ [`evil${s.domain}`]: 1 });
    expect(r.landing_page).toEqual({ '/a': 1, '/b': 1 });
  });

  it('campaign is counted on the first page view of a visit only', async () => {
    const s = await site('campaign');
    freezeAt('2025-05-14T13:00:00Z');
    await sendHit({ page: `https://${s.domain}/?utm_campaign=spring` }, { ip: IP });
    advance(MINUTE);
    await sendHit({ page: `https://${s.domain}/?utm_campaign=spring` }, { ip: IP });
    advance(40 * MINUTE);
    await sendHit({ page: `https://${s.domain}/?utm_campaign=spring` }, { ip: IP });
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-14': 3 });
    expect(r.campaign).toEqual({ spring: 2 });
    expect(r.landing_page).toEqual({ '/': 2 });
  });

  it('a different User-Agent or a different IP is a different visitor', async () => {
    const s = await site('visitors');
    freezeAt('2025-05-14T14:00:00Z');
    const page = `https://${s.domain}/`;
    await sendHit({ page }, { ip: IP, ua: CHROME_WINDOWS });
    await sendHit({ page }, { ip: IP, ua: CHROME_WINDOWS });
    await sendHit({ page }, { ip: IP, ua: SAFARI_IPHONE });
    await sendHit({ page }, { ip: '198.51.100.41', ua: CHROME_WINDOWS });
    await sendHit({ page }, { ip: '2001:db8::41', ua: CHROME_WINDOWS });
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-14': 5 });
    expect(r.visitors).toEqual({ '2025-05-14': 4 });
    expect(r.landing_page).toEqual({ '/': 4 });
    expect(r.browser).toEqual({ Chrome: 3, Safari: 1 });
    expect(r.device).toEqual({ desktop: 3, mobile: 1 });
  });

  it('the same visitor on two websites is a visitor of each', async () => {
    const a = await site('two-sites-a');
    const b = await site('two-sites-b');
    freezeAt('2025-05-14T15:00:00Z');
    await sendHit({ page: `https://${a.domain}/` }, { ip: IP });
    advance(MINUTE);
    await sendHit({ page: `https://${b.domain}/` }, { ip: IP });
    expect((await rollups(a.id)).visitors).toEqual({ '2025-05-14': 1 });
    expect((await rollups(b.id)).visitors).toEqual({ '2025-05-14': 1 });
    expect((await rollups(b.id)).landing_page).toEqual({ '/': 1 });
  });
});

describe('local dates and hours', () => {
  // 23:50 and 00:10 in New York (EDT, UTC-4) on the night of 2025-05-14 → 15.
  const BEFORE_MIDNIGHT = '2025-05-15T03:50:00Z';
  const AFTER_MIDNIGHT = '2025-05-15T04:10:00Z';

  it('counts across local midnight on two local dates, the visitor once on each', async () => {
    const s = await site('new-york', { timezone: 'America/New_York' });
    freezeAt(BEFORE_MIDNIGHT);
    expect((await sendHit({ page: `https://${s.domain}/late` }, { ip: IP })).status).toBe(202);
    freezeAt(AFTER_MIDNIGHT);
    expect((await sendHit({ page: `https://${s.domain}/early` }, { ip: IP })).status).toBe(202);

    expect(await rollups(s.id, '2025-05-14')).toMatchObject({
      pageviews: { '2025-05-14': 1 },
      pageviews_hours: { '23': 1 },
      visitors: { '2025-05-14': 1 },
      visitors_hours: { '23': 1 },
      page: { '/late': 1 },
      landing_page: { '/late': 1 },
    });
    expect(await rollups(s.id, '2025-05-15')).toMatchObject({
      pageviews: { '2025-05-15': 1 },
      pageviews_hours: { '00': 1 },
      visitors: { '2025-05-15': 1 },
      visitors_hours: { '00': 1 },
      page: { '/early': 1 },
      landing_page: { '/early': 1 },
      browser: { Chrome: 1 },
    });
    const rows = await datedRows(s.id);
    const dates = new Set(Object.keys(rows).map((k) => k.split('|')[0]));
    expect([...dates].sort()).toEqual(['2025-05-14', '2025-05-15']);
    expect(rows['2025-05-14|browser|Chrome']).toBe(1);
    expect(rows['2025-05-15|browser|Chrome']).toBe(1);
  });

  it('the same instants on a UTC website fall on one date, with UTC hours', async () => {
    const s = await site('utc');
    freezeAt(BEFORE_MIDNIGHT);
    await sendHit({ page: `https://${s.domain}/late` }, { ip: IP });
    freezeAt(AFTER_MIDNIGHT);
    await sendHit({ page: `https://${s.domain}/early` }, { ip: IP });
    const r = await rollups(s.id);
    expect(r.pageviews).toEqual({ '2025-05-15': 2 });
    expect(r.pageviews_hours).toEqual({ '03': 1, '04': 1 });
    expect(r.visitors).toEqual({ '2025-05-15': 1 });
    expect(r.visitors_hours).toEqual({ '03': 1 });
    expect(r.landing_page).toEqual({ '/late': 1 });
    const dates = new Set(Object.keys(await datedRows(s.id)).map((k) => k.split('|')[0]));
    expect([...dates]).toEqual(['2025-05-15']);
  });

  it('uses local hours of half-hour zones and winter offsets', async () => {
    const kolkata = await site('kolkata', { timezone: 'Asia/Kolkata' });
    const ny = await site('ny-winter', { timezone: 'America/New_York' });
    // 18:45 UTC = 00:15 the next day in Kolkata (UTC+5:30); 13:45 in New York (EST, UTC-5).
    freezeAt('2025-01-10T18:45:00Z');
    await sendHit({ page: `https://${kolkata.domain}/` }, { ip: IP });
    await sendHit({ page: `https://${ny.domain}/` }, { ip: IP });
    expect((await rollups(kolkata.id)).pageviews).toEqual({ '2025-01-11': 1 });
    expect((await rollups(kolkata.id)).pageviews_hours).toEqual({ '00': 1 });
    expect((await rollups(ny.id)).pageviews).toEqual({ '2025-01-10': 1 });
    expect((await rollups(ny.id)).pageviews_hours).toEqual({ '13': 1 });
    expect((await rollups(ny.id)).visitors_hours).toEqual({ '13': 1 });
  });

  it('an event is counted on the local date', async () => {
    const s = await site('event-date', { timezone: 'America/New_York' });
    freezeAt(BEFORE_MIDNIGHT);
    await sendHit({ page: `https://${s.domain}/`, event: 'late' }, { ip: IP });
    expect(await datedRows(s.id)).toEqual({ '2025-05-14|event|late': 1 });
  });
});

describe('the referrer that started a visit', () => {
  it('continues the visit when the same site refers again (a reload), starts one for another site', async () => {
    const { site, freezeAt, advance, MINUTE } = await import('../../support/ingest-fixtures.ts');
    const { rollups, sendHit } = await import('../../support/hits.ts');
    const s = await site('reload');
    freezeAt('2026-05-04T09:00:00Z');
    const google = 'https://www.google.com/';
    await sendHit({ page: `https://${s.domain}/a`, referrer: google }, { ip: '198.51.100.77' });
    advance(2 * MINUTE);
    await sendHit({ page: `https://${s.domain}/a`, referrer: google }, { ip: '198.51.100.77' });
    advance(2 * MINUTE);
    await sendHit(
      { page: `https://${s.domain}/b`, referrer: `https://${s.domain}/a` },
      { ip: '198.51.100.77' },
    );
    let r = await rollups(s.id);
    expect(r.landing_page).toEqual({ '/a': 1 });
    expect(r.referrer).toEqual({ 'www.google.com': 1 });
    advance(2 * MINUTE);
    await sendHit(
      { page: `https://${s.domain}/c`, referrer: 'https://news.ycombinator.com/' },
      { ip: '198.51.100.77' },
    );
    advance(2 * MINUTE);
    await sendHit({ page: `https://${s.domain}/c`, referrer: google }, { ip: '198.51.100.77' });
    r = await rollups(s.id);
    expect(r.landing_page).toEqual({ '/a': 1, '/c': 2 });
    expect(r.referrer).toEqual({ 'www.google.com': 2, 'news.ycombinator.com': 1 });
    expect(r.visitors).toEqual({ '2026-05-04': 1 });
  });
});
