/**
 * Plausible's and Umami's payloads through the Worker's real `fetch`: they count exactly as
 * the native payload does, and are dropped for the same reasons (docs/ARCHITECTURE.md).
 */
import { exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, snapshot } from '../../support/api.ts';
import { AUSTIN, CHROME_WINDOWS, type HitOptions, rollups, sendHit } from '../../support/hits.ts';
import { freezeAt, site, statRows } from '../../support/ingest-fixtures.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const NOW = '2025-04-08T15:42:10Z';
const DATE = '2025-04-08';
const HOUR = '15';

afterEach(() => {
  vi.useRealTimers();
});

/** Posts an Umami payload to `POST /api/send`, as Umami's tracker does. */
async function sendUmami(body: unknown, options: HitOptions = {}) {
  const res = await exports.default.fetch(
    new Request('https://sightline.test/api/send', {
      method: 'POST',
      headers: {
        'content-type': options.contentType ?? 'application/json',
        'user-agent': options.ua ?? CHROME_WINDOWS,
        'cf-connecting-ip': options.ip ?? '198.51.100.23',
        ...options.headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      cf: options.cf ?? AUSTIN,
    } as RequestInit),
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    dropReason: res.headers.get('x-drop-reason'),
    contentType: res.headers.get('content-type'),
    headers: res.headers,
    text,
    json,
  };
}

const umami = (payload: Record<string, unknown>) => ({ type: 'event', payload });

/** The roll-ups of a visitor's first page view (Chrome on Windows, from Austin) at NOW. */
function firstPageView(page: string, extra: Record<string, Record<string, number>> = {}) {
  return {
    pageviews: { [DATE]: 1 },
    pageviews_hours: { [HOUR]: 1 },
    page: { [page]: 1 },
    visitors: { [DATE]: 1 },
    visitors_hours: { [HOUR]: 1 },
    browser: { Chrome: 1 },
    os: { Windows: 1 },
    device: { desktop: 1 },
    country: { 'US:United States': 1 },
    continent: { 'NA:North America': 1 },
    city: { 'US:Austin, TX': 1 },
    landing_page: { [page]: 1 },
    visits: { [DATE]: 1 },
    visits_hours: { [HOUR]: 1 },
    bounces: { [DATE]: 1 },
    exit_page: { [page]: 1 },
    ...extra,
  };
}

describe('Plausible on POST /api/event', () => {
  it('counts a page view exactly like the native hit with the same page and referrer', async () => {
    const plausible = await site('pl-view');
    const native = await site('native-view');
    freezeAt(NOW);
    const path = '/pricing?utm_campaign=spring';
    const referrer = 'https://www.google.com/search?q=x';
    const p = await sendHit(
      {
        n: 'pageview',
        u: `https://${plausible.domain}${path}`,
        d: plausible.domain,
        r: referrer,
        w: 1440,
      },
      { contentType: 'text/plain' },
    );
    const n = await sendHit({ page: `https://${native.domain}${path}`, referrer });
    expect([p.status, p.dropReason, p.text]).toEqual([202, null, '']);
    expect([n.status, n.dropReason]).toEqual([202, null]);
    // The campaign tag is the visit's campaign, not part of the page.
    const expected = firstPageView('/pricing', {
      referrer: { 'www.google.com': 1 },
      campaign: { spring: 1 },
    });
    expect(await rollups(native.id)).toEqual(expected);
    expect(await rollups(plausible.id)).toEqual(await rollups(native.id));
  });

  it('counts long keys sent as JSON, and finds the site by the page host without `d`', async () => {
    const s = await site('pl-long');
    freezeAt(NOW);
    const long = await sendHit(
      { name: 'pageview', url: `https://${s.domain}/a`, domain: s.domain, referrer: null },
      { contentType: 'application/json' },
    );
    const noDomain = await sendHit({ n: 'pageview', u: `https://www.${s.domain}/b`, r: null });
    expect([long.status, long.dropReason, noDomain.status, noDomain.dropReason]).toEqual([
      202,
      null,
      202,
      null,
    ]);
    const stats = await rollups(s.id);
    expect(stats.pageviews).toEqual({ [DATE]: 2 });
    expect(stats.page).toEqual({ '/a': 1, '/b': 1 });
  });

  it('counts a custom event with revenue as name:amount:currency, without a page view', async () => {
    const s = await site('pl-revenue');
    const res = await sendHit({
      n: 'Purchase',
      u: `https://${s.domain}/checkout`,
      d: s.domain,
      r: null,
      $: { amount: '19.99', currency: 'EUR' },
    });
    expect([res.status, res.dropReason]).toEqual([202, null]);
    expect(await rollups(s.id)).toEqual({ event: { 'Purchase:19.99:EUR': 1 } });
  });

  it('counts event names with ":" under the look-alike U+A789, with props as value/unit', async () => {
    const s = await site('pl-colon');
    const a = await sendHit({ n: 'Outbound Link: Click', u: `https://${s.domain}/`, d: s.domain });
    const b = await sendHit({
      n: 'Weight',
      u: `https://${s.domain}/`,
      d: s.domain,
      p: JSON.stringify({ value: 5, unit: 'kg' }),
    });
    expect([a.status, a.dropReason, b.status, b.dropReason]).toEqual([202, null, 202, null]);
    expect(await rollups(s.id)).toEqual({
      event: { 'Outbound Link\uA789 Click': 1, 'Weight:5:kg': 1 },
    });
    // API v1's filter may write the name with ":", as goals and v2 may.
    const today = new Date().toISOString().slice(0, 10);
    const summary = (filter: string) =>
      call(
        `/api/v1/stats/${s.id}/summary?from=${today}&to=${today}&filter[event]=${encodeURIComponent(filter)}`,
        { key: s.key },
      );
    for (const written of ['Outbound Link\uA789 Click', 'Outbound Link: Click']) {
      const res = await summary(written);
      expect(res.status).toBe(200);
      expect((res.json as { data: { events: number } }).data.events, written).toBe(1);
    }
    const weight = await summary('Weight:5:kg');
    expect((weight.json as { data: { events: number } }).data.events).toBe(1);
  });

  it('answers an engagement of no page view with 202 no_page_view and stores nothing', async () => {
    const s = await site('pl-engagement');
    const before = await snapshot('stats');
    const res = await sendHit({
      n: 'engagement',
      u: `https://${s.domain}/`,
      d: s.domain,
      r: null,
      sd: 80,
      e: 12_000,
    });
    expect({ status: res.status, reason: res.dropReason, body: res.text }).toEqual({
      status: 202,
      reason: 'no_page_view',
      body: '',
    });
    expect(await snapshot('stats')).toEqual(before);
    expect(await statRows(s.id)).toBe(0);
  });

  it('counts a hit once on each of two sites listed in `d`', async () => {
    const parent = await site('pl-multi');
    const child = await site('pl-multi-child', { domain: `shop.${parent.domain}` });
    freezeAt(NOW);
    const res = await sendHit({
      n: 'pageview',
      u: `https://${child.domain}/cart`,
      d: `${child.domain}, ${parent.domain}`,
      r: null,
    });
    expect([res.status, res.dropReason]).toEqual([202, null]);
    expect(await rollups(child.id)).toEqual(firstPageView('/cart'));
    expect(await rollups(parent.id)).toEqual(firstPageView('/cart'));
  });

  it('counts a page view once on a site that `d` lists twice (as X and www.X)', async () => {
    const s = await site('pl-dup');
    freezeAt(NOW);
    const res = await sendHit({
      n: 'pageview',
      u: `https://${s.domain}/`,
      d: `${s.domain}, www.${s.domain}`,
    });
    expect([res.status, res.dropReason]).toEqual([202, null]);
    // One page view is one page view: naming the same website twice must not count it twice.
    expect(await rollups(s.id)).toEqual(firstPageView('/'));
  });

  it('applies the host rule to each domain in `d`: a page on A is not counted for unrelated B', async () => {
    const a = await site('pl-multi-a');
    const b = await site('pl-multi-b');
    const res = await sendHit({
      n: 'pageview',
      u: `https://${a.domain}/`,
      d: `${a.domain},${b.domain}`,
    });
    // One of the hits was stored, so the request reports no drop.
    expect([res.status, res.dropReason]).toEqual([202, null]);
    expect((await rollups(a.id)).pageviews).toBeDefined();
    expect(await statRows(b.id)).toBe(0);
  });

  it('rejects a Plausible body with a blank name with 400', async () => {
    const s = await site('pl-invalid');
    const res = await sendHit({ n: ' ', u: `https://${s.domain}/` });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ status: 400 });
    expect(await statRows(s.id)).toBe(0);
  });
});

describe('Umami on POST /api/send', () => {
  it('answers 200 with a JSON {} and counts a page view named by website id', async () => {
    const s = await site('um-view');
    freezeAt(NOW);
    const res = await sendUmami(
      umami({
        website: String(s.id),
        hostname: s.domain,
        url: '/pricing?plan=pro',
        referrer: 'https://duckduckgo.com/',
        screen: '1920x1080',
        language: 'en-US',
        title: 'Pricing',
      }),
      // Umami's tracker sends its cache token back once it has one.
      { headers: { 'x-umami-cache': 'opaque-token' } },
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.dropReason).toBeNull();
    expect(await rollups(s.id)).toEqual(
      firstPageView('/pricing?plan=pro', {
        language: { en: 1 },
        resolution: { '1920x1080': 1 },
        referrer: { 'duckduckgo.com': 1 },
      }),
    );
  });

  it('counts an event by website id with data.revenue and data.currency', async () => {
    const s = await site('um-revenue');
    const res = await sendUmami(
      umami({
        website: String(s.id),
        hostname: s.domain,
        url: '/checkout',
        name: 'checkout',
        data: { revenue: 49, currency: 'USD' },
      }),
    );
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, null]);
    expect(await rollups(s.id)).toEqual({ event: { 'checkout:49:USD': 1 } });
  });

  it('counts a page view on a website named by its domain', async () => {
    const s = await site('um-domain');
    freezeAt(NOW);
    const res = await sendUmami(umami({ website: s.domain, url: '/about', referrer: '' }));
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, null]);
    expect(await rollups(s.id)).toEqual(firstPageView('/about'));
  });

  it('keeps the path of a page view named by website id without a hostname', async () => {
    const s = await site('um-no-host');
    freezeAt(NOW);
    // @umami/node sends `hostname` only when given one; Umami records `url` as the page path.
    const res = await sendUmami(umami({ website: String(s.id), url: '/pricing?plan=pro' }));
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, null]);
    expect(await rollups(s.id)).toEqual(firstPageView('/pricing?plan=pro'));
  });

  it('counts a server-side event named only by website id on that website', async () => {
    const s = await site('um-server');
    const res = await sendUmami(umami({ website: String(s.id), name: 'signup' }));
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, null]);
    expect(await rollups(s.id)).toEqual({ event: { signup: 1 } });
  });

  it('counts a server-side event named by domain on that website, as by id', async () => {
    const s = await site('um-server-domain');
    // What @umami/node's `umami.track('Signup', { plan: 'pro' })` sends after
    // `init({ websiteId: '<domain>' })`: no url, no hostname.
    const res = await sendUmami(
      umami({ website: s.domain, name: 'Signup', data: { plan: 'pro' }, language: 'en-US' }),
    );
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, null]);
    expect(await rollups(s.id)).toEqual({ event: { Signup: 1 } });
    const upper = await sendUmami(
      umami({ website: `WWW.${s.domain.toUpperCase()}`, name: 'Signup' }),
    );
    expect([upper.status, upper.dropReason]).toEqual([200, null]);
    expect(await rollups(s.id)).toEqual({ event: { Signup: 2 } });
  });

  it('counts a page view named by domain without url or hostname on the root', async () => {
    const s = await site('um-domain-root');
    freezeAt(NOW);
    const res = await sendUmami(umami({ website: s.domain }));
    expect([res.status, res.dropReason]).toEqual([200, null]);
    expect(await rollups(s.id)).toEqual(firstPageView('/'));
  });

  it('drops a server-side event for a domain nobody registered as unknown_site', async () => {
    const res = await sendUmami(
      umami({ website: 'nobody-registered-this.example', name: 'Signup' }),
    );
    expect([res.status, res.dropReason]).toEqual([200, 'unknown_site']);
  });

  it('allows the CORS preflight with content-type and x-umami-cache', async () => {
    const res = await call('/api/send', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-umami-cache',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-umami-cache']));
    expect(res.headers.get('access-control-allow-methods') ?? '').toContain('POST');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers an invalid body with a 400 JSON error and stores nothing', async () => {
    const s = await site('um-invalid');
    const before = await snapshot('stats');
    for (const body of [
      { type: 'event' },
      [umami({ website: String(s.id), hostname: s.domain, url: '/' })],
      '{not json',
      umami({ website: String(s.id), hostname: s.domain, url: '/', screen: 'huge' }),
    ]) {
      const res = await sendUmami(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(res.json).toMatchObject({ status: 400, message: expect.any(String) });
    }
    expect(await snapshot('stats')).toEqual(before);
  });

  it('answers identify with 200 {} not_counted and stores nothing', async () => {
    const s = await site('um-identify');
    const before = await snapshot('stats');
    const res = await sendUmami({
      type: 'identify',
      payload: { website: String(s.id), hostname: s.domain, url: '/', data: { plan: 'pro' } },
    });
    expect([res.status, res.json, res.dropReason]).toEqual([200, {}, 'not_counted']);
    expect(await snapshot('stats')).toEqual(before);
  });
});

describe('drops are the same for every format', () => {
  type Format = 'native' | 'plausible' | 'umami';
  /** A page view on `page`, naming the website as each format does. */
  const bodies = (page: string, domain: string, websiteId?: number): Record<Format, unknown> => {
    const url = new URL(page);
    return {
      native: { page, referrer: null, domain },
      plausible: { n: 'pageview', u: page, d: domain, r: null },
      umami: umami({
        website: websiteId === undefined ? domain : String(websiteId),
        hostname: url.hostname,
        url: `${url.pathname}${url.search}`,
      }),
    };
  };

  /** Sends the hit of each format; returns the drop reason of each, checking nothing was stored. */
  async function reasons(byFormat: Record<Format, unknown>, options: HitOptions = {}) {
    const before = await snapshot('stats');
    const out: Record<string, string | null> = {};
    for (const [format, body] of Object.entries(byFormat)) {
      const res =
        format === 'umami' ? await sendUmami(body, options) : await sendHit(body, options);
      expect(res.status, format).toBe(format === 'umami' ? 200 : 202);
      out[format] = res.dropReason;
    }
    expect(await snapshot('stats')).toEqual(before);
    return out;
  }

  const all = (reason: string) => ({ native: reason, plausible: reason, umami: reason });

  it('unknown_site: a site that is not registered (by domain, and for Umami by id)', async () => {
    const page = 'https://not-registered-formats.example.net/';
    expect(await reasons(bodies(page, 'not-registered-formats.example.net'))).toEqual(
      all('unknown_site'),
    );
    const byId = await sendUmami(
      umami({ website: '987654321', hostname: 'not-registered-formats.example.net', url: '/' }),
    );
    expect([byId.status, byId.dropReason]).toEqual([200, 'unknown_site']);
    const serverSide = await sendUmami(umami({ website: '987654321', name: 'signup' }));
    expect([serverSide.status, serverSide.dropReason]).toEqual([200, 'unknown_site']);
  });

  it('bot: a Googlebot User-Agent', async () => {
    const s = await site('drop-bot');
    expect(
      await reasons(bodies(`https://${s.domain}/`, s.domain, s.id), { ua: GOOGLEBOT }),
    ).toEqual(all('bot'));
    expect(await statRows(s.id)).toBe(0);
  });

  it("excluded_ip: a client IP in the site's exclude_ips", async () => {
    const s = await site('drop-ip', { exclude_ips: '203.0.113.0/24' });
    expect(
      await reasons(bodies(`https://${s.domain}/`, s.domain, s.id), { ip: '203.0.113.7' }),
    ).toEqual(all('excluded_ip'));
    expect(await statRows(s.id)).toBe(0);
  });

  it('host_mismatch: a page on another host than the site', async () => {
    const a = await site('drop-host-a');
    const b = await site('drop-host-b');
    expect(await reasons(bodies(`https://${b.domain}/x`, a.domain, a.id))).toEqual(
      all('host_mismatch'),
    );
    expect(await statRows(a.id)).toBe(0);
    expect(await statRows(b.id)).toBe(0);
  });

  it('the same hits are counted once the cause is gone (control)', async () => {
    const s = await site('drop-control', { exclude_ips: '203.0.113.0/24' });
    expect(await statRows(s.id)).toBe(0);
    for (const [format, body] of Object.entries(bodies(`https://${s.domain}/`, s.domain, s.id))) {
      const res = format === 'umami' ? await sendUmami(body) : await sendHit(body);
      expect([format, res.dropReason]).toEqual([format, null]);
    }
    const pageviews = Object.values((await rollups(s.id)).pageviews ?? {});
    expect(pageviews.reduce((x, y) => x + y, 0)).toBe(3);
  });
});

describe("phpAnalytics' tracker payload", () => {
  it('counts the event string name:value:unit as it is', async () => {
    const s = await site('php-event');
    const res = await sendHit({
      page: `https://${s.domain}/checkout`,
      referrer: null,
      screen_resolution: '1920x1080',
      event: 'purchase:20:eur',
    });
    expect([res.status, res.dropReason]).toEqual([202, null]);
    expect(await rollups(s.id)).toEqual({ event: { 'purchase:20:eur': 1 } });
  });
});
