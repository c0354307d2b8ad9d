/**
 * `/stats/{domain}`: the statistics page (docs/ARCHITECTURE.md, The HTTP contract), driven through the Worker's real
 * `fetch` over roll-ups written by the real pipeline (hits sent with a frozen clock).
 *
 * 1. Access: public, private (owner only; everyone else the very same 404 as a missing site)
 *    and password-protected (form, per-site signed cookie revoked by a password change,
 *    throttled guesses).
 * 2. Content: totals and their change, realtime visitors, panels, ranges in the URL, hourly
 *    and zero-filled daily series, the full view's search, sort and pagination.
 * 3. Safety: hostile tracked values escaped, http(s) links only, CSV formula neutralising,
 *    the Content-Security-Policy.
 * 4. Weight: an overview of 90 days of traffic, with its assets, stays well under 100 KB gzipped.
 */
import { exports } from 'cloudflare:workers';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite, ORIGIN } from '../../support/api.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import {
  barsOf,
  chartRows,
  hrefs,
  linkNamed,
  panel,
  panelRows,
  params,
  realtimeOf,
  rowsOf,
  sharesOf,
  totalsOf,
  unescapeHtml,
} from '../../support/html.ts';
import { freezeAt, MINUTE } from '../../support/ingest-fixtures.ts';

const PASSWORD = 'a long enough password';
/** "Now" for the whole file: a Tuesday, noon UTC. */
const NOW = '2026-03-10T12:00:00Z';

beforeAll(() => freezeAt(NOW));
afterAll(() => {
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------
// A small browser: keeps cookies with their Path (RFC 6265 path-match), never follows
// redirects, posts forms with the page's Origin, and has its own client IP.
// ---------------------------------------------------------------------------------------

type Page = {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
};

type StoredCookie = { name: string; value: string; path: string };

function parseSetCookie(header: string) {
  const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const attribute of rest) {
    const i = attribute.indexOf('=');
    attributes.set(
      (i < 0 ? attribute : attribute.slice(0, i)).toLowerCase(),
      i < 0 ? '' : attribute.slice(i + 1),
    );
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

let clientSeq = 0;

class Client {
  readonly ip: string;
  readonly jar: StoredCookie[] = [];

  constructor(ip?: string) {
    clientSeq += 1;
    this.ip = ip ?? `198.19.${77 + Math.floor(clientSeq / 250)}.${(clientSeq % 250) + 1}`;
  }

  cookie(name: string): StoredCookie | undefined {
    return this.jar.find((c) => c.name === name);
  }

  /** Puts a cookie into the jar by hand (to replay or forge one). */
  setCookie(name: string, value: string, path: string): void {
    const i = this.jar.findIndex((c) => c.name === name && c.path === path);
    if (i >= 0) this.jar.splice(i, 1);
    this.jar.push({ name, value, path });
  }

  private store(header: string, requestPath: string): void {
    const { name, value, attributes } = parseSetCookie(header);
    if (!name) return;
    const path =
      attributes.get('path') ?? (requestPath.slice(0, requestPath.lastIndexOf('/')) || '/');
    const maxAge = attributes.get('max-age');
    const i = this.jar.findIndex((c) => c.name === name && c.path === path);
    if (i >= 0) this.jar.splice(i, 1);
    if (value === '' || (maxAge !== undefined && Number(maxAge) <= 0)) return;
    this.jar.push({ name, value, path });
  }

  async send(path: string, init: RequestInit & { headers: Record<string, string> }) {
    const url = new URL(path, ORIGIN);
    init.headers['cf-connecting-ip'] = this.ip;
    const cookies = this.jar.filter((c) => pathMatches(url.pathname, c.path));
    if (cookies.length > 0)
      init.headers.cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await exports.default.fetch(new Request(url, { ...init, redirect: 'manual' }));
    const setCookies = res.headers.getSetCookie();
    for (const header of setCookies) this.store(header, url.pathname);
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
      setCookies,
    } satisfies Page;
  }

  get(path: string): Promise<Page> {
    return this.send(path, { method: 'GET', headers: { accept: 'text/html' } });
  }

  post(path: string, fields: Record<string, string>): Promise<Page> {
    return this.send(path, {
      method: 'POST',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        origin: ORIGIN,
      },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** A client signed in through the real login form. */
async function signedIn(owner: { email: string }): Promise<Client> {
  const client = new Client();
  const res = await client.post('/login', { email: owner.email, password: PASSWORD });
  if (res.status !== 303 || !client.cookie('sl_session'))
    throw new Error(`login failed: ${res.status}`);
  return client;
}

// ---------------------------------------------------------------------------------------
// Reading the HTML.
// ---------------------------------------------------------------------------------------

/** The date control's dates and their time zone: "Mar 4–10 (UTC)". */
const rangeHint = (html: string) => {
  const dates = html.match(/<span class="dates">([^<]*)<\/span>/)?.[1];
  const zone = html.match(/<p class="hint zone">Dates and hours in ([^<]*)<\/p>/)?.[1];
  return dates && zone ? `${unescapeHtml(dates)} (${zone})` : undefined;
};

/** The text of the page's range notice (invalid dates in the URL), or null. */
const notice = (html: string) =>
  html.match(/<p class="notice range-notice" role="alert">([^<]*)<\/p>/)?.[1] ?? null;

/** The `aria-current` link of the range navigation. */
/** Whether a figure's title in the totals is a link. */
const totalsLink = (html: string, title: string) =>
  new RegExp(`<h2><a [^>]*>${title}</a></h2>`).test(html);

const currentRange = (html: string) =>
  unescapeHtml(
    html.match(/<nav class="ranges"[\s\S]*?<a href="([^"]*)" aria-current="page"[^>]*>/)?.[1] ?? '',
  ) || undefined;

/** The overview's groups of tabs, in order: each tab's statistic and label. */
const GROUP_TABS: [string, [string, string][]][] = [
  [
    'Sources',
    [
      ['referrer', 'Referrers'],
      ['channel', 'Channels'],
      ['source', 'Sources'],
      ['utm_medium', 'UTM medium'],
      ['utm_source', 'UTM source'],
      ['campaign', 'UTM campaign'],
      ['utm_term', 'UTM term'],
      ['utm_content', 'UTM content'],
    ],
  ],
  [
    'Pages',
    [
      ['page', 'Top pages'],
      ['landing_page', 'Landing pages'],
      ['exit_page', 'Exit pages'],
    ],
  ],
  [
    'Locations',
    [
      ['country', 'Countries'],
      ['city', 'Cities'],
      ['continent', 'Continents'],
    ],
  ],
  [
    'Devices',
    [
      ['browser', 'Browsers'],
      ['os', 'Systems'],
      ['device', 'Device types'],
      ['resolution', 'Screen sizes'],
      ['language', 'Languages'],
    ],
  ],
];
const PANEL_TITLES: [string, string][] = [
  ...GROUP_TABS.flatMap(([, tabs]) => tabs),
  ['event', 'Events'],
];
/**
 * The tabs whose visitors the roll-ups do not hold: read only while shown (`sources=channel`),
 * each group's first tab by default.
 */
const LOG_TABS = [
  'channel',
  'source',
  'utm_medium',
  'utm_source',
  'campaign',
  'utm_term',
  'utm_content',
  'landing_page',
  'exit_page',
];
/** The group (its address's parameter) of each tab. */
const GROUP_OF: Record<string, string> = {
  landing_page: 'pages',
  exit_page: 'pages',
};
/** The panels every overview reads. */
const READ_PANELS = PANEL_TITLES.filter(([name]) => !LOG_TABS.includes(name));

// ---------------------------------------------------------------------------------------
// Traffic.
// ---------------------------------------------------------------------------------------

type HitSpec = {
  at: string | number;
  page: string;
  ip?: string;
  ua?: string;
  referrer?: string | null;
  resolution?: string;
  language?: string;
  cf?: Record<string, unknown>;
  event?: unknown;
};

/** Sends one hit at an instant (then the clock goes back to NOW); throws unless stored. */
async function hit(domain: string, spec: HitSpec) {
  vi.setSystemTime(new Date(spec.at));
  try {
    const body: Record<string, unknown> = {
      page: spec.page.startsWith('http') ? spec.page : `https://${domain}${spec.page}`,
      referrer: spec.referrer ?? null,
      screen_resolution: spec.resolution ?? '1920x1080',
    };
    if (spec.language) body.language = spec.language;
    if (spec.event !== undefined) body.event = spec.event;
    const res = await sendHit(body, {
      ip: spec.ip ?? '203.0.113.250',
      ua: spec.ua ?? CHROME_WINDOWS,
      ...(spec.cf ? { cf: spec.cf } : {}),
    });
    if (res.status !== 202 || res.dropReason)
      throw new Error(`hit not stored: ${res.status} ${res.dropReason} ${res.text}`);
  } finally {
    vi.setSystemTime(new Date(NOW));
  }
}

const statsUrl = (domain: string, rest = '') => `/stats/${domain}${rest}`;

// =======================================================================================
// 1. Access rules
// =======================================================================================

describe('access', () => {
  let owner: Awaited<ReturnType<typeof makeOwner>>;
  let other: Awaited<ReturnType<typeof makeOwner>>;
  let ownerClient: Client;
  let otherClient: Client;
  const PUBLIC = 'public-site.example.com';
  const PRIVATE = 'private-site.example.com';
  const MISSING = 'missing-site.example.com';
  const SITE_PASSWORD = 'the site password';

  /** A password-protected site with one tracked secret page; a new domain per call. */
  async function protectedSite(label: string, password = SITE_PASSWORD) {
    const domain = `${label}-${crypto.randomUUID().slice(0, 6)}.example.com`;
    const site = await makeWebsite(owner.key, { domain, privacy: '2', password });
    await hit(domain, { at: NOW, page: `/${label}-secret-page`, ip: '203.0.113.60' });
    return { id: site.id, domain, secret: `${label}-secret-page` };
  }

  beforeAll(async () => {
    owner = await makeOwner('stats-owner');
    other = await makeOwner('stats-other');
    await makeWebsite(owner.key, { domain: PUBLIC, privacy: '0' });
    await makeWebsite(owner.key, { domain: PRIVATE, privacy: '1' });
    for (const domain of [PUBLIC, PRIVATE]) {
      for (let i = 1; i <= 13; i++) {
        await hit(domain, {
          at: Date.parse(NOW) - i * MINUTE,
          page: i === 1 ? '/secret-launch-plan' : `/p${i}`,
          ip: `203.0.113.${i}`,
        });
      }
      // A second visitor, so the page is in the top 10 of its panel (by visitors).
      await hit(domain, { at: NOW, page: '/secret-launch-plan', ip: '203.0.113.99' });
    }
    ownerClient = await signedIn(owner);
    otherClient = await signedIn(other);
  });

  describe('privacy 0 (public)', () => {
    it('shows the figures to anyone, signed in or not', async () => {
      for (const client of [new Client(), otherClient, ownerClient]) {
        const res = await client.get(statsUrl(PUBLIC));
        expect(res.status).toBe(200);
        expect(totalsOf(res.text).visitors.value).toBe('14');
        expect(res.text).toContain('/secret-launch-plan');
        const full = await client.get(statsUrl(PUBLIC, '/page'));
        expect(full.status).toBe(200);
        expect(full.text).toContain('/secret-launch-plan');
        const csv = await client.get(statsUrl(PUBLIC, '/page.csv'));
        expect(csv.status).toBe(200);
        expect(csv.text).toContain('/secret-launch-plan,2');
      }
    });

    it('has no password endpoint: POST …/password is the not-found page', async () => {
      const client = new Client();
      const res = await client.post(statsUrl(PUBLIC, '/password'), { password: 'x' });
      const missing = await client.post(statsUrl(MISSING, '/password'), { password: 'x' });
      expect(res.status).toBe(404);
      expect(res.text).toBe(missing.text);
      expect(res.setCookies).toEqual([]);
    });
  });

  describe('privacy 1 (private)', () => {
    it('shows the owner everything', async () => {
      const res = await ownerClient.get(statsUrl(PRIVATE));
      expect(res.status).toBe(200);
      expect(totalsOf(res.text).visitors.value).toBe('14');
      expect(res.text).toContain('/secret-launch-plan');
      const full = await ownerClient.get(statsUrl(PRIVATE, '/page'));
      expect(full.status).toBe(200);
      expect(full.text).toContain('/secret-launch-plan');
      const csv = await ownerClient.get(statsUrl(PRIVATE, '/page.csv'));
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.text).toContain('/secret-launch-plan,2');
    });

    const requests: [string, (c: Client, domain: string) => Promise<Page>][] = [
      ['GET overview', (c, d) => c.get(statsUrl(d))],
      ['GET overview with a range', (c, d) => c.get(statsUrl(d, '?range=today'))],
      ['GET full view', (c, d) => c.get(statsUrl(d, '/page'))],
      ['GET full view with search', (c, d) => c.get(statsUrl(d, '/page?search=secret'))],
      ['GET CSV', (c, d) => c.get(statsUrl(d, '/page.csv'))],
      ['GET visitors CSV', (c, d) => c.get(statsUrl(d, '/visitors.csv'))],
      ['POST password', (c, d) => c.post(statsUrl(d, '/password'), { password: PASSWORD })],
    ];

    for (const who of ['anonymous', 'another signed-in owner'] as const) {
      it.each(requests)(`${who}: %s is the same 404 as for a missing site`, async (_, send) => {
        const client = who === 'anonymous' ? new Client() : otherClient;
        const res = await send(client, PRIVATE);
        const missing = await send(client, MISSING);
        expect(missing.status).toBe(404);
        expect(res.status).toBe(404);
        expect(res.text).toBe(missing.text);
        const headers = (page: Page) => [...page.headers].filter(([name]) => name !== 'date');
        expect(headers(res)).toEqual(headers(missing));
        expect(res.headers.get('content-disposition')).toBeNull();
        expect(res.setCookies).toEqual([]);
        expect(res.text).not.toContain('secret-launch-plan');
        expect(res.text).not.toContain(PRIVATE);
        expect(res.text).not.toContain('class="big"');
        for (const [, value] of res.headers) expect(value).not.toContain('secret');
      });
    }

    it('another spelling of the domain opens nothing more', async () => {
      const client = new Client();
      const missing = await client.get(statsUrl(MISSING));
      for (const spelling of ['PRIVATE-SITE.EXAMPLE.COM', 'www.private-site.example.com']) {
        const res = await client.get(statsUrl(spelling));
        expect(res.status).toBe(404);
        expect(res.text).toBe(missing.text);
      }
    });

    it('a password set before the site became private opens nothing', async () => {
      const site = await protectedSite('was-protected');
      const client = new Client();
      expect(
        (await client.post(statsUrl(site.domain, '/password'), { password: SITE_PASSWORD })).status,
      ).toBe(303);
      expect((await client.get(statsUrl(site.domain))).text).toContain(site.secret);
      const put = await call(`/api/v1/websites/${site.id}`, {
        method: 'PUT',
        key: owner.key,
        body: { json: { privacy: 1 } },
      });
      expect(put.status).toBe(200);
      const missing = await client.get(statsUrl(MISSING));
      for (const path of ['', '/page', '/page.csv']) {
        const res = await client.get(statsUrl(site.domain, path));
        expect(res.status).toBe(404);
        expect(res.text).toBe(missing.text);
      }
      const again = await client.post(statsUrl(site.domain, '/password'), {
        password: SITE_PASSWORD,
      });
      expect(again.status).toBe(404);
      expect(again.setCookies).toEqual([]);
    });
  });

  describe('privacy 2 (password)', () => {
    it('shows anonymous visitors the password form and no figures', async () => {
      const site = await protectedSite('form');
      const client = new Client();
      for (const path of ['', '/page', '/page.csv', '?range=today']) {
        const res = await client.get(statsUrl(site.domain, path));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-disposition')).toBeNull();
        expect(res.text).toContain(`action="/stats/${site.domain}/password"`);
        expect(res.text).toMatch(/<input[^>]*name="password"[^>]*type="password"/);
        expect(res.text).not.toContain(site.secret);
        expect(res.text).not.toContain('class="big"');
        expect(res.text).not.toContain('in the last 5');
        expect(res.text).not.toContain('panel-');
      }
    });

    it('shows its owner the figures without asking', async () => {
      const site = await protectedSite('owner-view');
      const res = await ownerClient.get(statsUrl(site.domain));
      expect(res.status).toBe(200);
      expect(res.text).toContain(site.secret);
      expect(totalsOf(res.text).visitors.value).toBe('1');
    });

    it('answers a wrong password with 422 and no cookie', async () => {
      const site = await protectedSite('wrong');
      const client = new Client();
      const attempts: Record<string, string>[] = [
        { password: 'not the password' },
        { password: '' },
        {},
      ];
      for (const fields of attempts) {
        const res = await client.post(statsUrl(site.domain, '/password'), fields);
        expect(res.status).toBe(422);
        expect(res.setCookies).toEqual([]);
        expect(res.text).toContain('The password is incorrect.');
        expect(res.text).not.toContain(site.secret);
        expect(res.text).not.toContain('class="big"');
      }
      expect(client.jar).toEqual([]);
      expect((await client.get(statsUrl(site.domain))).text).not.toContain(site.secret);
    });

    it('grants the overview, the full view and the CSV with the right password', async () => {
      const site = await protectedSite('right');
      const client = new Client();
      const res = await client.post(statsUrl(site.domain, '/password'), {
        password: SITE_PASSWORD,
      });
      expect(res.status).toBe(303);
      expect(res.location).toBe(`/stats/${site.domain}`);
      expect(res.setCookies).toHaveLength(1);
      const cookie = parseSetCookie(res.setCookies[0] ?? '');
      expect(cookie.name).toBe(`sl_site_${site.id}`);
      expect(cookie.value.length).toBeGreaterThanOrEqual(32);
      expect(cookie.value).not.toContain(SITE_PASSWORD);
      expect(cookie.attributes.has('httponly')).toBe(true);
      expect(cookie.attributes.has('secure')).toBe(true);
      expect(cookie.attributes.get('samesite')?.toLowerCase()).toBe('lax');
      expect(cookie.attributes.get('path')).toBe(`/stats/${site.domain}`);
      expect(cookie.attributes.has('domain')).toBe(false);

      const overview = await client.get(statsUrl(site.domain));
      expect(overview.status).toBe(200);
      // Figures behind a password are never kept by a shared cache.
      expect(overview.headers.get('cache-control')).toBe('private, no-store');
      expect(overview.text).toContain(site.secret);
      expect(totalsOf(overview.text).pageviews.value).toBe('1');
      const full = await client.get(statsUrl(site.domain, '/page?range=today'));
      expect(full.status).toBe(200);
      expect(rowsOf(full.text).map((r) => r.value)).toEqual([`/${site.secret}`]);
      const csv = await client.get(statsUrl(site.domain, '/page.csv?range=today'));
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('cache-control')).toBe('private, no-store');
      expect(csv.text).toBe(
        `page,visitors,page_views,bounce_rate,time_on_page,scroll_depth\r\n/${site.secret},1,1,100,0,\r\n`,
      );
    });

    it('does not open another site with the cookie of one site', async () => {
      const a = await protectedSite('site-a');
      const b = await protectedSite('site-b', 'another site password');
      const client = new Client();
      await client.post(statsUrl(a.domain, '/password'), { password: SITE_PASSWORD });
      const token = client.cookie(`sl_site_${a.id}`)?.value ?? '';
      expect(token).not.toBe('');
      expect((await client.get(statsUrl(a.domain))).text).toContain(a.secret);

      // As a browser keeps it: the cookie is not even sent to site B.
      const plain = await client.get(statsUrl(b.domain));
      expect(plain.status).toBe(200);
      expect(plain.text).not.toContain(b.secret);
      expect(plain.text).toContain(`action="/stats/${b.domain}/password"`);

      // Replayed by hand under either name and path: still the password form.
      const forger = new Client();
      forger.setCookie(`sl_site_${b.id}`, token, `/stats/${b.domain}`);
      forger.setCookie(`sl_site_${a.id}`, token, '/');
      for (const path of ['', '/page', '/page.csv']) {
        const res = await forger.get(statsUrl(b.domain, path));
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(b.secret);
        expect(res.text).toContain(`action="/stats/${b.domain}/password"`);
      }
      // A made-up token opens nothing either.
      const guesser = new Client();
      guesser.setCookie(`sl_site_${b.id}`, '0'.repeat(token.length), `/stats/${b.domain}`);
      expect((await guesser.get(statsUrl(b.domain))).text).not.toContain(b.secret);
    });

    it('revokes the cookie when the owner changes the password', async () => {
      const site = await protectedSite('rotate');
      const client = new Client();
      await client.post(statsUrl(site.domain, '/password'), { password: SITE_PASSWORD });
      expect((await client.get(statsUrl(site.domain))).text).toContain(site.secret);

      const put = await call(`/api/v1/websites/${site.id}`, {
        method: 'PUT',
        key: owner.key,
        body: { json: { password: 'a brand new site password' } },
      });
      expect(put.status).toBe(200);
      expect(client.cookie(`sl_site_${site.id}`)).toBeDefined();
      for (const path of ['', '/page', '/page.csv']) {
        const res = await client.get(statsUrl(site.domain, path));
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(site.secret);
        expect(res.text).toContain(`action="/stats/${site.domain}/password"`);
      }
      const old = await client.post(statsUrl(site.domain, '/password'), {
        password: SITE_PASSWORD,
      });
      expect(old.status).toBe(422);
      const fresh = await client.post(statsUrl(site.domain, '/password'), {
        password: 'a brand new site password',
      });
      expect(fresh.status).toBe(303);
      expect((await client.get(statsUrl(site.domain))).text).toContain(site.secret);
    });

    it('refuses the 6th attempt after 5 wrong passwords with 429 and Retry-After', async () => {
      const site = await protectedSite('throttle');
      const client = new Client();
      for (let i = 0; i < 5; i++) {
        const res = await client.post(statsUrl(site.domain, '/password'), {
          password: `wrong guess ${i}`,
        });
        expect(res.status).toBe(422);
      }
      // Even the right password is refused now.
      const res = await client.post(statsUrl(site.domain, '/password'), {
        password: SITE_PASSWORD,
      });
      expect(res.status).toBe(429);
      const retry = Number(res.headers.get('retry-after'));
      expect(Number.isInteger(retry)).toBe(true);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(15 * 60);
      expect(res.setCookies).toEqual([]);
      expect(res.text).not.toContain(site.secret);
      expect((await client.get(statsUrl(site.domain))).text).not.toContain(site.secret);
    });

    it('counts the addresses of one IPv6 /64 as one: 20 guesses from 20 of them', async () => {
      const site = await protectedSite('v6-network');
      const statuses: number[] = [];
      for (let i = 1; i <= 20; i++) {
        const guesser = new Client(`2001:db8:5:6:${i.toString(16)}::${i}`);
        const res = await guesser.post(statsUrl(site.domain, '/password'), {
          password: `wrong guess ${i}`,
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 5)).toEqual([422, 422, 422, 422, 422]);
      expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
      // Another network is not affected.
      const other = new Client('2001:db8:5:7::1');
      expect(
        (await other.post(statsUrl(site.domain, '/password'), { password: SITE_PASSWORD })).status,
      ).toBe(303);
    });

    it('from many addresses: never locks out an address without failures; under attack, one guess per address, before any hashing', async () => {
      const site = await protectedSite('many-networks');
      const derive = vi.spyOn(crypto.subtle, 'deriveBits');
      const guessers = Array.from(
        { length: 40 },
        (_, i) => new Client(`203.0.${100 + Math.floor(i / 200)}.${i + 1}`),
      );
      const statuses: number[] = [];
      for (const [i, guesser] of guessers.entries()) {
        const res = await guesser.post(statsUrl(site.domain, '/password'), {
          password: `wrong guess ${i}`,
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual(Array(40).fill(422));
      expect(derive).toHaveBeenCalledTimes(40);
      // Past 30 failures the password is under attack: an address that failed gets no
      // further guess while its window lasts, and a refused guess costs no hash.
      const again = await guessers[0]?.post(statsUrl(site.domain, '/password'), {
        password: SITE_PASSWORD,
      });
      expect(again?.status).toBe(429);
      expect(Number(again?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(derive).toHaveBeenCalledTimes(40);
      derive.mockRestore();
      // An address without failures is never refused because of the others.
      const fresh = new Client('192.0.2.200');
      const res = await fresh.post(statsUrl(site.domain, '/password'), { password: SITE_PASSWORD });
      expect(res.status).toBe(303);
      expect((await ownerClient.get(statsUrl(site.domain))).text).toContain(site.secret);
    });
  });
});

// =======================================================================================
// 2. Content
// =======================================================================================

describe('content', () => {
  const D = 'content.example.com';
  const US = { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX' };
  const DE = { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' };

  beforeAll(async () => {
    const { key } = await makeOwner('content');
    await makeWebsite(key, { domain: D, privacy: '0' });
    // 2026-03-01: 1 visitor, 1 page view (the period before the last 7 days).
    await hit(D, { at: '2026-03-01T09:00:00Z', page: '/', ip: '203.0.113.1', cf: US });
    // 2026-03-09 (yesterday): 2 visitors, 2 page views.
    await hit(D, { at: '2026-03-09T10:00:00Z', page: '/a', ip: '203.0.113.2', cf: US });
    await hit(D, { at: '2026-03-09T15:00:00Z', page: '/b', ip: '203.0.113.3', cf: US });
    // 2026-03-10 (today): 4 visitors, 5 page views.
    await hit(D, {
      at: '2026-03-10T08:15:00Z',
      page: '/',
      ip: '203.0.113.4',
      referrer: 'https://news.example.net/story?id=1',
      cf: US,
    });
    await hit(D, {
      at: '2026-03-10T08:20:00Z',
      page: '/pricing',
      ip: '203.0.113.4',
      referrer: `https://${D}/`,
      cf: US,
    });
    // Ten minutes before now: not a realtime visitor.
    await hit(D, {
      at: '2026-03-10T11:50:00Z',
      page: '/blog?utm_campaign=spring',
      ip: '203.0.113.5',
      cf: US,
    });
    await hit(D, {
      at: '2026-03-10T11:57:00Z',
      page: '/pricing',
      ip: '203.0.113.6',
      ua: SAFARI_IPHONE,
      language: 'de-DE',
      resolution: '390x844',
      cf: DE,
    });
    await hit(D, { at: NOW, page: '/', ip: '203.0.113.7', cf: US });
    await hit(D, { at: NOW, page: '/', ip: '203.0.113.7', cf: US, event: { name: 'signup' } });
  });

  beforeEach(() => {
    vi.setSystemTime(new Date(NOW));
  });

  const get = (rest = '') => new Client().get(statsUrl(D, rest));

  it('shows totals and their change vs the compared value and dates', async () => {
    const cases: [string, string, string, string, string][] = [
      // query, visitors, change, page views, change
      // Today (NOW 12:00) against yesterday's same hours: 1 visitor and 1 page view by noon.
      [
        '?range=today',
        '4',
        '+300% vs 1 on Mar 9, 00:00–12:00, better',
        '5',
        '+400% vs 1 on Mar 9, 00:00–12:00, better',
      ],
      [
        '?range=yesterday',
        '2',
        'none on Mar 8 to compare with',
        '2',
        'none on Mar 8 to compare with',
      ],
      [
        '?range=7d',
        '6',
        '+500% vs 1 on Feb 25 – Mar 3, better',
        '7',
        '+600% vs 1 on Feb 25 – Mar 3, better',
      ],
      [
        '',
        '7',
        'none on Jan 10 – Feb 8 to compare with',
        '8',
        'none on Jan 10 – Feb 8 to compare with',
      ],
      [
        '?range=custom&from=2026-03-02&to=2026-03-02',
        '0',
        '-100% vs 1 on Mar 1, worse',
        '0',
        '-100% vs 1 on Mar 1, worse',
      ],
      [
        '?range=custom&from=2026-01-01&to=2026-01-31',
        '0',
        '±0% vs 0 on Dec 1–31, 2025',
        '0',
        '±0% vs 0 on Dec 1–31, 2025',
      ],
    ];
    for (const [query, visitors, visitorsChange, pageviews, pageviewsChange] of cases) {
      const res = await get(query);
      expect(res.status, query).toBe(200);
      expect(totalsOf(res.text), query).toEqual({
        visitors: { value: visitors, change: visitorsChange },
        pageviews: { value: pageviews, change: pageviewsChange },
      });
    }
  });

  it('counts realtime visitors of the last 5 minutes only', async () => {
    // 11:57 and 12:00 count; 11:50 (ten minutes ago) and 08:20 do not.
    expect(realtimeOf((await get()).text)).toBe('2 visitors');
    vi.setSystemTime(Date.parse(NOW) + 3 * MINUTE);
    expect(realtimeOf((await get()).text)).toBe('1 visitor');
    vi.setSystemTime(Date.parse(NOW) + 6 * MINUTE);
    expect(realtimeOf((await get()).text)).toBe('0 visitors');
  });

  it('refreshes the realtime figure from live.json (asked for by the page every 30 s)', async () => {
    vi.setSystemTime(Date.parse(NOW));
    const page = await get();
    expect(page.text).toContain(`data-live="/stats/${D}/live.json"`);
    const live = await new Client().get(statsUrl(D, '/live.json'));
    expect([live.status, JSON.parse(live.text)]).toEqual([200, { visitors: 2, formatted: '2' }]);
    vi.setSystemTime(Date.parse(NOW) + 3 * MINUTE);
    const later = await new Client().get(statsUrl(D, '/live.json'));
    expect(JSON.parse(later.text)).toEqual({ visitors: 1, formatted: '1' });
    // A missing website: the 404 of the statistics pages.
    expect((await new Client().get(statsUrl('missing.example.com', '/live.json'))).status).toBe(
      404,
    );
  });

  it('compares with the previous period on asking, dotted, and lists the shortcuts', async () => {
    const plain = await get('?range=7d');
    expect(plain.text).not.toContain('polyline class="pageviews previous"');
    const toggle = linkNamed(plain.text, 'With the period before');
    expect(params(toggle)).toEqual({ range: '7d', compare: 'previous' });
    const compared = await get(`?${toggle?.searchParams.toString()}`);
    // Both lines of the period before, dotted, and its values in the chart's table.
    // Two lines, in each of the chart's two drawings (wide, and a phone's).
    expect(compared.text.match(/<polyline class="(visitors|pageviews) previous"/g)).toHaveLength(4);
    // The key names both ranges; the table says which dates it compares with.
    expect(compared.text).toContain('<span class="hint">Mar 4–10 (solid)</span>');
    expect(compared.text).toContain('<span class="key previous">Feb 25 – Mar 3 (dotted)</span>');
    expect(compared.text).toContain('<th scope="col">Compared (Feb 25 – Mar 3)</th>');
    expect(params(linkNamed(compared.text, 'Stop comparing'))).toEqual({ range: '7d' });
    // The page's other links keep comparing.
    expect(params(linkNamed(compared.text, 'Last 30 days'))).toEqual({
      range: '30d',
      compare: 'previous',
    });
    // The shortcuts: a key per range on its link, X to compare, listed in the `?` dialog.
    expect(plain.text).toMatch(/data-key="w" aria-keyshortcuts="W">Last 7 days <kbd>W<\/kbd><\/a>/);
    expect(plain.text).toContain('<dt><kbd>X</kbd></dt><dd>Compare with the previous period');
    const full = await new Client().get(statsUrl(D, '/page?range=7d'));
    expect(full.text).toContain('<dialog id="shortcuts"');
    expect(full.text).not.toContain('<kbd>X</kbd>');
  });

  it('shows every panel with its title and top values', async () => {
    const res = await get('?range=today');
    // Groups of tabs: each tab a link that chooses it, its panel shown; the first by default.
    for (const [group, tabs] of GROUP_TABS) {
      expect(res.text).toContain(`>${group}</h2><div class="tabs" role="tablist"`);
      tabs.forEach(([name, label], i) => {
        const tab = res.text.match(
          new RegExp(
            `<a href="([^"]*)" hx-boost="false" role="tab" id="tab-${name}" aria-controls="panel-${name}" aria-selected="(true|false)">${label}</a>`,
          ),
        );
        expect(tab?.[2], name).toBe(i === 0 ? 'true' : 'false');
        const href = new URL(unescapeHtml(tab?.[1] ?? ''), ORIGIN);
        const groupId = href.hash.slice(1);
        expect(params(href)).toEqual(
          i === 0 ? { range: 'today' } : { range: 'today', [groupId]: name },
        );
        expect(res.text).toContain(
          `<div id="panel-${name}" role="tabpanel" aria-labelledby="tab-${name}"${i === 0 ? '' : ' hidden=""'}${LOG_TABS.includes(name) ? ' data-load=""' : ''}>`,
        );
      });
    }
    expect(res.text).toContain('<h2 id="group-events">Goals and events</h2>');
    for (const [name] of READ_PANELS) {
      const section = panel(res.text, name);
      expect(section).toContain(`href="/stats/${D}/${name}?range=today"`);
      expect(section).toContain(`href="/stats/${D}/${name}.csv?range=today"`);
    }
    // A log's listing is read when its tab is shown; until then its panel is its tab's link.
    for (const name of LOG_TABS) {
      expect(res.text).toContain(
        `<div id="panel-${name}" role="tabpanel" aria-labelledby="tab-${name}" hidden="" data-load="">`,
      );
      const shown = await get(`?range=today&${GROUP_OF[name] ?? 'sources'}=${name}`);
      expect(panel(shown.text, name)).toContain(`href="/stats/${D}/${name}?range=today"`);
      expect(shown.text).toContain(
        `<div id="panel-${name}" role="tabpanel" aria-labelledby="tab-${name}">`,
      );
    }
    const order = PANEL_TITLES.map(([name]) => res.text.indexOf(`id="panel-${name}"`));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    // Choosing a tab by its link shows its panel, and the range's links keep the choice.
    const chosen = await get('?range=today&devices=os');
    expect(chosen.text).toContain('aria-controls="panel-os" aria-selected="true"');
    expect(chosen.text).toContain(
      '<div id="panel-browser" role="tabpanel" aria-labelledby="tab-browser" hidden="">',
    );
    expect(chosen.text).toContain('<div id="panel-os" role="tabpanel" aria-labelledby="tab-os">');
    expect(params(linkNamed(chosen.text, 'Last 7 days'))).toEqual({ range: '7d', devices: 'os' });
    // A tab that is no tab of the group is the default.
    expect((await get('?range=today&devices=page')).text).toContain(
      'aria-controls="panel-browser" aria-selected="true"',
    );
    // Every panel counts visitors: shares of the range's 4.
    expect(sharesOf(panel(res.text, 'page'))).toEqual(['50%', '50%', '25%']);
    expect(barsOf(panel(res.text, 'page'))).toEqual(['100.0', '100.0', '50.0']);

    expect(panelRows(res.text, 'page')).toEqual([
      { value: '/', count: '2', href: `https://${D}/` },
      { value: '/pricing', count: '2', href: `https://${D}/pricing` },
      // The campaign tag is the visit's campaign, not part of the page.
      { value: '/blog', count: '1', href: `https://${D}/blog` },
    ]);
    const shownTab = async (tab: string) => (await get(`?range=today&${tab}`)).text;
    const landing = await shownTab('pages=landing_page');
    expect(panelRows(landing, 'landing_page').map((r) => [r.value, r.count])).toEqual([
      ['/', '2'],
      ['/blog', '1'],
      ['/pricing', '1'],
    ]);
    expect(panelRows(res.text, 'referrer')).toEqual([
      { value: 'news.example.net', count: '1', href: 'https://news.example.net/' },
    ]);
    expect(panelRows(await shownTab('sources=campaign'), 'campaign')).toEqual([
      { value: 'spring', count: '1', href: null },
    ]);
    expect(panelRows(res.text, 'country')).toEqual([
      { value: 'United States', count: '3', href: null },
      { value: 'Germany', count: '1', href: null },
    ]);
    expect(panelRows(res.text, 'continent').map((r) => [r.value, r.count])).toEqual([
      ['North America', '3'],
      ['Europe', '1'],
    ]);
    expect(panelRows(res.text, 'city').map((r) => [r.value, r.count])).toEqual([
      ['Austin, TX', '3'],
      ['Berlin, BE', '1'],
    ]);
    expect(panelRows(res.text, 'language').map((r) => [r.value, r.count])).toEqual([['de', '1']]);
    expect(panelRows(res.text, 'browser')[0]).toEqual({ value: 'Chrome', count: '3', href: null });
    expect(panelRows(res.text, 'os')[0]).toEqual({ value: 'Windows', count: '3', href: null });
    expect(panelRows(res.text, 'device').map((r) => [r.value, r.count])).toEqual([
      ['desktop', '3'],
      ['mobile', '1'],
    ]);
    expect(panelRows(res.text, 'resolution').map((r) => [r.value, r.count])).toEqual([
      ['1920x1080', '3'],
      ['390x844', '1'],
    ]);
    expect(panelRows(res.text, 'event')).toEqual([{ value: 'signup', count: '1', href: null }]);
  });

  it('shows no notice for a valid range', async () => {
    for (const query of ['', '?range=7d', '?range=custom&from=2026-03-01&to=2026-03-09'])
      expect(notice((await get(query)).text)).toBeNull();
  });

  it('says so when a range has no data', async () => {
    const res = await get('?range=custom&from=2026-01-01&to=2026-01-31');
    // Every panel read says so; the events' tab in its own words.
    expect(res.text.match(/No data for this range\./g)).toHaveLength(READ_PANELS.length - 1);
    expect(res.text).toContain('No custom event in this range.');
  });

  it('keeps the range in every link', async () => {
    const res = await get('?range=7d');
    expect(currentRange(res.text)).toBe(`/stats/${D}?range=7d`);
    for (const r of ['today', 'yesterday', '7d', '30d', 'this_month', 'last_month'])
      expect(hrefs(res.text)).toContain(`/stats/${D}?range=${r}`);
    expect(res.text).toContain(
      `<form method="get" action="/stats/${D}" class="custom-range" id="custom-range">`,
    );
    expect(res.text).toMatch(/<input type="date" name="from" value="2026-03-04"/);
    expect(res.text).toMatch(/<input type="date" name="to" value="2026-03-10"/);
    expect(rangeHint(res.text)).toBe('Mar 4–10 (UTC)');

    const custom = await get('?range=custom&from=2026-03-01&to=2026-03-09');
    expect(custom.status).toBe(200);
    expect(rangeHint(custom.text)).toBe('Mar 1–9 (UTC)');
    expect(currentRange(custom.text)).toBeUndefined();
    expect(custom.text).toMatch(/<input type="date" name="from" value="2026-03-01"/);
    expect(custom.text).toMatch(/<input type="date" name="to" value="2026-03-09"/);
    expect(totalsOf(custom.text).visitors.value).toBe('3');
    expect(totalsOf(custom.text).pageviews.value).toBe('3');
    for (const [name] of READ_PANELS) {
      for (const suffix of ['', '.csv']) {
        const link = hrefs(custom.text).find((h) => h.startsWith(`/stats/${D}/${name}${suffix}?`));
        expect(params(new URL(link ?? '/', ORIGIN))).toEqual({
          range: 'custom',
          from: '2026-03-01',
          to: '2026-03-09',
        });
      }
    }
    // Following a panel link keeps the range there too.
    const all = await get('/page?range=custom&from=2026-03-01&to=2026-03-09');
    expect(all.text).toMatch(/<input type="date" name="from" value="2026-03-01"/);
    expect(all.text).toMatch(/<input type="date" name="to" value="2026-03-09"/);
    expect(rowsOf(all.text).map((r) => r.value)).toEqual(['/', '/a', '/b']);
    expect(params(linkNamed(all.text, `← ${D}`))).toEqual({
      range: 'custom',
      from: '2026-03-01',
      to: '2026-03-09',
    });
  });

  it.each([
    ['reversed', '?range=custom&from=2026-03-09&to=2026-03-01'],
    ['not a date', '?range=custom&from=2026-02-30&to=2026-03-01'],
    ['garbage', '?range=custom&from=yesterday&to=%3Cscript%3E'],
    ['half', '?range=custom&from=2026-03-01'],
    ['too long', '?range=custom&from=2000-01-01&to=2026-03-01'],
    ['unknown range', '?range=forever'],
  ])('falls back to the last 30 days for an invalid range (%s)', async (_, query) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    expect(rangeHint(res.text)).toBe('Feb 9 – Mar 10 (UTC)');
    expect(currentRange(res.text)).toBe(`/stats/${D}?range=30d`);
    expect(chartRows(res.text)).toHaveLength(30);
    expect(totalsOf(res.text).visitors.value).toBe('7');
    expect(hrefs(res.text)).toContain(`/stats/${D}/page?range=30d`);
    expect(res.text).not.toContain('<script>');
    // Dates that were given but not valid are said so, visibly, without echoing them.
    if (query.includes('from=') || query.includes('to=')) {
      expect(notice(res.text)).toMatch(/not a valid date range.*last 30 days/i);
      expect(notice(res.text)).not.toMatch(/script|yesterday/);
    }
  });

  it('shows the range of from/to in a typed or shared URL without range=custom', async () => {
    for (const path of ['', '/page']) {
      const res = await get(`${path}?from=2026-03-01&to=2026-03-09`);
      expect(res.status).toBe(200);
      if (path === '') expect(rangeHint(res.text)).toBe('Mar 1–9 (UTC)');
      expect(res.text).toMatch(/<input type="date" name="from" value="2026-03-01"/);
      expect(res.text).toMatch(/<input type="date" name="to" value="2026-03-09"/);
      expect(notice(res.text)).toBeNull();
    }
    const main = await get('?from=2026-03-01&to=2026-03-09');
    expect(totalsOf(main.text).visitors.value).toBe('3');
    const csv = await get('/page.csv?from=2026-03-01&to=2026-03-09');
    expect(csv.headers.get('content-disposition')).toContain('2026-03-01-2026-03-09.csv');
  });

  it.each([
    ['reversed', '?from=2026-03-09&to=2026-03-01'],
    ['not a date', '?from=2026-02-30&to=2026-03-01'],
    ['half', '?from=2026-03-01'],
    ['too long', '?from=2000-01-01&to=2026-03-01'],
  ])('shows the default range with a notice for invalid from/to (%s)', async (_, query) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    expect(rangeHint(res.text)).toBe('Feb 9 – Mar 10 (UTC)');
    expect(notice(res.text)).toMatch(/not a valid date range.*last 30 days/i);
  });

  it("uses the website's time zone for ranges and hours", async () => {
    const { key } = await makeOwner('zone');
    const domain = 'zone.example.com';
    await makeWebsite(key, { domain, privacy: '0', timezone: 'Pacific/Kiritimati' });
    // Noon UTC is 02:00 the next day in Kiritimati (UTC+14).
    await hit(domain, { at: NOW, page: '/', ip: '203.0.113.90' });
    const today = await new Client().get(statsUrl(domain, '?range=today'));
    expect(rangeHint(today.text)).toBe('Mar 11 (Pacific/Kiritimati)');
    expect(totalsOf(today.text).pageviews.value).toBe('1');
    expect(chartRows(today.text).filter(([, , p]) => p > 0)).toEqual([['02', 1, 1]]);
    const week = await new Client().get(statsUrl(domain, '?range=7d'));
    expect(rangeHint(week.text)).toBe('Mar 5–11 (Pacific/Kiritimati)');
  });

  it('charts hours for a one-day range', async () => {
    const cases: [string, Record<string, [number, number]>][] = [
      ['?range=today', { '08': [1, 2], '11': [2, 2], '12': [1, 1] }],
      ['?range=yesterday', { '10': [1, 1], '15': [1, 1] }],
      ['?range=custom&from=2026-03-01&to=2026-03-01', { '09': [1, 1] }],
    ];
    for (const [query, expected] of cases) {
      const rows = chartRows((await get(query)).text);
      // Today (NOW is 12:00 UTC): the hours so far, the one under way included; a past day: 24.
      const hours = query === '?range=today' ? 13 : 24;
      expect(rows.map((r) => r[0])).toEqual(
        Array.from({ length: hours }, (_, h) => String(h).padStart(2, '0')),
      );
      for (const [label, visitors, pageviews] of rows)
        expect([visitors, pageviews], `${query} ${label}`).toEqual(expected[label] ?? [0, 0]);
    }
  });

  it('a figure the chart can draw is a link that charts it, the charted one marked', async () => {
    const page = (await get('?range=7d')).text;
    expect(linkNamed(page, 'Visits')?.search).toBe('?range=7d&chart=visits');
    expect(linkNamed(page, 'Views per visit')).toBeUndefined();
    const charted = (await get('?range=7d&chart=visits')).text;
    expect(charted).toMatch(
      /<div class="card charted"><h2><a [^>]*aria-current="true"[^>]*>Visits<\/a>/,
    );
    expect(charted).toContain('<title id="chart-title">Visits</title>');
    // One day: no hourly bounce rate, so no link.
    expect(totalsLink((await get('?range=today')).text, 'Bounce rate')).toBe(false);
  });

  it('charts zero-filled days for a longer range', async () => {
    const week = chartRows((await get('?range=7d')).text);
    expect(week).toEqual([
      ['2026-03-04', 0, 0],
      ['2026-03-05', 0, 0],
      ['2026-03-06', 0, 0],
      ['2026-03-07', 0, 0],
      ['2026-03-08', 0, 0],
      ['2026-03-09', 2, 2],
      ['2026-03-10', 4, 5],
    ]);
    const custom = chartRows((await get('?range=custom&from=2026-02-27&to=2026-03-02')).text);
    expect(custom).toEqual([
      ['2026-02-27', 0, 0],
      ['2026-02-28', 0, 0],
      ['2026-03-01', 1, 1],
      ['2026-03-02', 0, 0],
    ]);
    const thisMonth = chartRows((await get('?range=this_month')).text);
    expect(thisMonth.map((r) => r[0])).toEqual(
      Array.from({ length: 10 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`),
    );
    const lastMonth = chartRows((await get('?range=last_month')).text);
    expect(lastMonth).toHaveLength(28);
    expect(lastMonth[0]?.[0]).toBe('2026-02-01');
    expect(lastMonth.at(-1)?.[0]).toBe('2026-02-28');
    expect(lastMonth.every(([, v, p]) => v === 0 && p === 0)).toBe(true);
    expect(chartRows((await get()).text)).toHaveLength(30);
  });
});

describe('full view', () => {
  const D = 'full-view.example.com';
  const RANGE = { range: 'custom', from: '2026-02-20', to: '2026-02-20' };
  const q = (extra: Record<string, string>) =>
    `?${new URLSearchParams({ ...RANGE, ...extra }).toString()}`;
  const get = (rest: string) => new Client().get(statsUrl(D, rest));
  const list = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `/list/${String(from + i).padStart(2, '0')}`);

  beforeAll(async () => {
    const { key } = await makeOwner('full');
    await makeWebsite(key, { domain: D, privacy: '0' });
    const pages = [...list(1, 30), '/list/07', '/list/07', '/list/12', '/other'];
    // A visitor each: a page's visitors are its views.
    for (const [i, page] of pages.entries())
      await hit(D, {
        at: Date.parse('2026-02-20T10:00:00Z') + i * MINUTE,
        page,
        ip: `203.0.113.${i}`,
      });
  });

  it('searches, sorts by value and paginates 25 per page, keeping the state in links', async () => {
    const state = { search: 'list', sort_by: 'value', sort: 'asc' };
    const second = await get(`/page${q({ ...state, page: '2' })}`);
    expect(second.status).toBe(200);
    expect(rowsOf(second.text).map((r) => r.value)).toEqual(list(26, 30));
    expect(rowsOf(second.text)[0]?.href).toBe(`https://${D}/list/26`);
    expect(second.text).toContain('Page 2 of 2 (30 values)');
    expect(linkNamed(second.text, 'Next →')).toBeUndefined();
    expect(params(linkNamed(second.text, '← Previous'))).toEqual({
      ...RANGE,
      ...state,
      page: '1',
    });
    expect(linkNamed(second.text, '← Previous')?.pathname).toBe(`/stats/${D}/page`);
    // The search form keeps the range and shows the search.
    expect(second.text).toMatch(/<input id="search" name="search" type="search" value="list"/);
    const form =
      second.text.match(
        /<form method="get" action="[^"]*" class="actions search">[\s\S]*?<\/form>/,
      )?.[0] ?? '';
    expect(form).toContain(`action="/stats/${D}/page"`);
    expect(form).toContain('<input type="hidden" name="range" value="custom"/>');
    expect(form).toContain('<input type="hidden" name="from" value="2026-02-20"/>');
    expect(form).toContain('<input type="hidden" name="to" value="2026-02-20"/>');
    // Sort links keep range and search, restart at page 1, and toggle the current column.
    expect(second.text).toMatch(/<th scope="col" aria-sort="ascending"><a href="[^"]*">Pages<\/a>/);
    expect(params(linkNamed(second.text, 'Pages'))).toEqual({
      ...RANGE,
      search: 'list',
      sort_by: 'value',
      sort: 'desc',
    });
    // A column per metric, each sortable.
    for (const [title, metric] of [
      ['Visitors', 'visitors'],
      ['Page views', 'pageviews'],
      ['Bounce rate', 'bounce_rate'],
      ['Time on page', 'time_on_page'],
      ['Scroll depth', 'scroll_depth'],
    ])
      expect(params(linkNamed(second.text, title as string))).toEqual({
        ...RANGE,
        search: 'list',
        sort_by: metric,
        sort: 'desc',
      });
    // The CSV export keeps the range and the search.
    const exportLink = linkNamed(second.text, 'Export CSV');
    expect(exportLink?.pathname).toBe(`/stats/${D}/page.csv`);
    expect(params(exportLink)).toEqual({ ...RANGE, search: 'list' });

    const first = await get(`/page${q(state)}`);
    expect(rowsOf(first.text).map((r) => r.value)).toEqual(list(1, 25));
    expect(first.text).toContain('Page 1 of 2 (30 values)');
    expect(linkNamed(first.text, '← Previous')).toBeUndefined();
    const next = linkNamed(first.text, 'Next →');
    expect(params(next)).toEqual({ ...RANGE, ...state, page: '2' });
    // Following the link gives the second page.
    const followed = await get(`${next?.pathname.slice(`/stats/${D}`.length)}${next?.search}`);
    expect(followed.text).toBe(second.text);
  });

  it('sorts by count (ties by value) and the other way round', async () => {
    const byCount = await get(`/page${q({ search: 'list' })}`);
    expect(
      rowsOf(byCount.text)
        .slice(0, 4)
        .map((r) => [r.value, r.count]),
    ).toEqual([
      ['/list/07', '3'],
      ['/list/12', '2'],
      ['/list/01', '1'],
      ['/list/02', '1'],
    ]);
    expect(byCount.text).toMatch(/<th scope="col" class="num" aria-sort="descending">/);
    const desc = await get(`/page${q({ search: 'list', sort_by: 'value', sort: 'desc' })}`);
    expect(rowsOf(desc.text)[0]?.value).toBe('/list/30');
    const asc = await get(`/page${q({ sort_by: 'count', sort: 'asc', page: '2' })}`);
    // 31 values: page 2 holds the six with the highest counts, in ascending order.
    expect(rowsOf(asc.text).map((r) => [r.value, r.count])).toEqual([
      ['/list/28', '1'],
      ['/list/29', '1'],
      ['/list/30', '1'],
      ['/other', '1'],
      ['/list/12', '2'],
      ['/list/07', '3'],
    ]);
  });

  it('searches case-insensitively and takes % and _ literally', async () => {
    const upper = await get(`/page${q({ search: 'LIST/0' })}`);
    expect(rowsOf(upper.text).map((r) => r.value)).toEqual([
      '/list/07',
      ...list(1, 9).filter((v) => v !== '/list/07'),
    ]);
    const other = await get(`/page${q({ search: 'other' })}`);
    expect(rowsOf(other.text).map((r) => r.value)).toEqual(['/other']);
    for (const search of ['%', '_', 'nothing-like-this']) {
      const none = await get(`/page${q({ search })}`);
      expect(rowsOf(none.text), search).toEqual([]);
      expect(none.text).toContain('Nothing found.');
    }
  });

  it('exports the search as CSV', async () => {
    const csv = await get(`/page.csv${q({ search: 'list' })}`);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('page,visitors,page_views,bounce_rate,time_on_page,scroll_depth');
    expect(lines.slice(1, 4).map((line) => line.split(',').slice(0, 3).join())).toEqual([
      '/list/07,3,3',
      '/list/12,2,2',
      '/list/01,1,1',
    ]);
    expect(lines).toHaveLength(1 + 30 + 1);
    expect(lines.at(-1)).toBe('');
  });

  it('answers 404 for a name that is not a statistic', async () => {
    const missing = await get('/nonsense');
    expect(missing.status).toBe(404);
    expect((await get('/nonsense.csv')).status).toBe(404);
  });
});

// =======================================================================================
// 3. Safety
// =======================================================================================

describe('safety', () => {
  const D = 'hostile.example.com';
  const SCRIPT_PATH = '/%3Cscript%3Ealert(1)%3C/script%3E';
  const IMG_PATH = '/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E';
  const EVENTS = [
    '<b>x</b>',
    '"><img src=x onerror=alert(1)>',
    '=cmd',
    '+x',
    '-y',
    '@z',
    'a,b"c',
    '=1+2,"3"',
  ];

  beforeAll(async () => {
    const { key } = await makeOwner('hostile');
    await makeWebsite(key, { domain: D, privacy: '0' });
    const pages = [
      SCRIPT_PATH,
      IMG_PATH,
      '/?utm_campaign=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '/landing?utm_campaign=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
    ];
    for (const [i, page] of pages.entries())
      await hit(D, { at: NOW, page, ip: `203.0.113.${100 + i}` });
    await hit(D, {
      at: NOW,
      page: '/from-js',
      ip: '203.0.113.120',
      referrer: 'javascript:alert(1)',
    });
    await hit(D, {
      at: NOW,
      page: '/from-evil',
      ip: '203.0.113.121',
      referrer: 'https://evil.example/x?<script>alert(1)</script>',
    });
    for (const name of EVENTS) await hit(D, { at: NOW, page: '/', event: { name } });
  });

  const HOSTILE = ['<script>alert', '<img src=x', '<b>x</b>', 'onerror=alert(1)>'];
  const views = ['', '/page', '/landing_page', '/campaign', '/referrer', '/event'];

  it.each(views)('escapes hostile values on %s', async (view) => {
    const res = await new Client().get(statsUrl(D, `${view}?range=today`));
    expect(res.status).toBe(200);
    for (const raw of HOSTILE) expect(res.text).not.toContain(raw);
    // No tag carries an event handler or an inline style (the attributes' quoted values, text
    // escaped, left out); every script is an external file.
    const tags = res.text.replace(/="[^"]*"/g, '=""');
    expect(tags).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(tags).not.toMatch(/<[a-z][^>]*\sstyle=/i);
    expect(res.text).not.toMatch(/<style\b/i);
    for (const script of res.text.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? [])
      expect(script).toMatch(/^<script src="\/assets\/[^"]+"[^>]*><\/script>$/);
  });

  it('shows the hostile values as text', async () => {
    const events = await new Client().get(statsUrl(D, '/event?range=today'));
    const values = rowsOf(events.text).map((r) => r.value);
    expect(values.sort()).toEqual([...EVENTS].sort());
    expect(events.text).toContain('&lt;b&gt;x&lt;/b&gt;');
    const campaigns = await new Client().get(statsUrl(D, '/campaign?range=today'));
    expect(rowsOf(campaigns.text).map((r) => r.value)).toEqual([
      '"><img src=x onerror=alert(1)>',
      '<script>alert(1)</script>',
    ]);
    expect(campaigns.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('links only to http(s) pages of the site and referrer hosts', async () => {
    for (const view of views) {
      const res = await new Client().get(statsUrl(D, `${view}?range=today`));
      expect(res.text).not.toMatch(/href="\s*javascript:/i);
      // (and the skip link to the page's content)
      for (const href of hrefs(res.text))
        expect(href, view).toMatch(/^(\/(?!\/)|https:\/\/|#main$)/);
      const external = [
        ...res.text.matchAll(
          /<a href="([^"]*)" rel="noopener noreferrer nofollow" target="_blank"/g,
        ),
      ].map((m) => unescapeHtml(m[1] ?? ''));
      for (const href of external)
        expect(href, view).toMatch(/^https:\/\/(hostile\.example\.com\/|evil\.example\/$)/);
    }
    const pages = await new Client().get(statsUrl(D, '/page?range=today'));
    expect(pages.text).toContain(`href="https://${D}${SCRIPT_PATH}"`);
    expect(pages.text).toContain(`href="https://${D}${IMG_PATH}"`);
    const referrers = await new Client().get(statsUrl(D, '/referrer?range=today'));
    expect(rowsOf(referrers.text)).toEqual([
      { value: 'evil.example', count: '1', href: 'https://evil.example/' },
    ]);
    // Campaigns and events are never links.
    for (const view of ['/campaign', '/event']) {
      const res = await new Client().get(statsUrl(D, `${view}?range=today`));
      expect(rowsOf(res.text).every((r) => r.href === null)).toBe(true);
    }
  });

  it('escapes what the request reflects', async () => {
    const hostileSearch = '"><img src=x onerror=alert(1)>';
    const res = await new Client().get(
      statsUrl(D, `/page?search=${encodeURIComponent(hostileSearch)}&range=today`),
    );
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    for (const href of hrefs(res.text)) expect(href).not.toMatch(/^javascript:/i);
    const scripted = await new Client().get(
      `/stats/${encodeURIComponent('<script>alert(1)</script>')}`,
    );
    expect(scripted.status).toBe(404);
    expect(scripted.text).not.toContain('<script>alert');
  });

  it('neutralises formulas and quotes values in CSV', async () => {
    const res = await new Client().get(statsUrl(D, '/event.csv?range=today'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv\b/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;\s*filename="[^"]+\.csv"$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('event,visitors,events');
    // (Events with no page view of theirs that day: no visitor, as the counting model has it.)
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(1, -1).sort()).toEqual(
      [
        "'=cmd,0,1",
        "'+x,0,1",
        "'-y,0,1",
        "'@z,0,1",
        '"a,b""c",0,1',
        `"'=1+2,""3""",0,1`,
        '<b>x</b>,0,1',
        '"""><img src=x onerror=alert(1)>",0,1',
      ].sort(),
    );
    const firstTwo = (csv: string) => csv.split('\r\n').map((l) => l.split(',').slice(0, 2).join());
    const pages = await new Client().get(statsUrl(D, '/page.csv?range=today'));
    expect(firstTwo(pages.text)).toContain(`${SCRIPT_PATH},1`);
    const campaigns = await new Client().get(statsUrl(D, '/campaign.csv?range=today'));
    expect(firstTwo(campaigns.text)).toContain('<script>alert(1)</script>,1');
  });

  it('sends a Content-Security-Policy without unsafe-inline on every stats page', async () => {
    const owner = await makeOwner('csp');
    const protectedDomain = 'csp-protected.example.com';
    await makeWebsite(owner.key, { domain: protectedDomain, privacy: '2', password: PASSWORD });
    const client = new Client();
    const responses: [string, Page][] = [
      ['overview', await client.get(statsUrl(D))],
      ['full view', await client.get(statsUrl(D, '/page?range=today&search=x&page=2'))],
      ['csv', await client.get(statsUrl(D, '/page.csv'))],
      ['404', await client.get(statsUrl('nowhere.example.com'))],
      ['password form', await client.get(statsUrl(protectedDomain))],
      ['wrong password', await client.post(statsUrl(protectedDomain, '/password'), {})],
    ];
    for (let i = 0; i < 5; i++) await client.post(statsUrl(protectedDomain, '/password'), {});
    responses.push(['throttled', await client.post(statsUrl(protectedDomain, '/password'), {})]);
    expect(responses.map(([name, r]) => [name, r.status])).toEqual([
      ['overview', 200],
      ['full view', 200],
      ['csv', 200],
      ['404', 404],
      ['password form', 200],
      ['wrong password', 422],
      ['throttled', 429],
    ]);
    for (const [name, res] of responses) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, name).toMatch(/default-src 'none'/);
      expect(csp, name).toMatch(/script-src 'self'/);
      expect(csp, name).toMatch(/style-src 'self'/);
      expect(csp, name).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
    }
  });
});

// =======================================================================================
// 4. Weight
// =======================================================================================

/** The size of a text gzipped, as a browser receives it. */
async function gzipBytes(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

describe('weight', () => {
  const D = 'heavy.example.com';
  const UAS = [
    CHROME_WINDOWS,
    SAFARI_IPHONE,
    'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  ];
  const GEO = [
    { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX' },
    { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' },
    { country: 'FR', continent: 'EU', city: 'Lyon', regionCode: 'ARA' },
    { country: 'JP', continent: 'AS', city: 'Osaka', regionCode: '27' },
    { country: 'BR', continent: 'SA', city: 'Recife', regionCode: 'PE' },
    { country: 'AU', continent: 'OC', city: 'Perth', regionCode: 'WA' },
    { country: 'IN', continent: 'AS', city: 'Pune', regionCode: 'MH' },
  ];
  const LANGUAGES = ['en-US', 'de', 'fr-FR', 'ja', 'pt-BR', 'es', 'it'];
  const RESOLUTIONS = ['1920x1080', '390x844', '1440x900', '2560x1440', '360x800', '1366x768'];

  beforeAll(async () => {
    const { key } = await makeOwner('heavy');
    await makeWebsite(key, { domain: D, privacy: '0' });
    const start = Date.parse('2025-12-11T00:00:00Z');
    // 360 hits over 90 days: 60 pages, 15 referrers, 12 campaigns, 20 events.
    for (let i = 0; i < 360; i++) {
      const day = (i * 7) % 90;
      const at = start + day * 86_400_000 + ((i * 37) % 24) * 3_600_000 + (i % 60) * MINUTE;
      const page = `/docs/section-${i % 6}/article-with-a-longer-name-${(i * 11) % 60}${i % 5 === 0 ? `?utm_campaign=campaign-${i % 12}` : ''}`;
      await hit(D, {
        at,
        page,
        ip: `10.${i % 7}.${Math.floor(i / 7) % 250}.${(i % 250) + 1}`,
        ua: UAS[i % UAS.length],
        referrer: i % 3 === 0 ? `https://referrer-${i % 15}.example.net/some/path` : null,
        language: LANGUAGES[i % LANGUAGES.length] ?? 'en',
        resolution: RESOLUTIONS[i % RESOLUTIONS.length] ?? '1920x1080',
        cf: GEO[i % GEO.length] ?? {},
        ...(i % 4 === 0 ? { event: { name: `event-${i % 20}`, value: i % 9 } } : {}),
      });
    }
  });

  it.each([
    ['the last 30 days', ''],
    ['all 90 days', '?range=custom&from=2025-12-11&to=2026-03-10'],
    [
      'all 90 days compared with the 90 before',
      '?range=custom&from=2025-12-11&to=2026-03-10&compare=previous',
    ],
    ['today', '?range=today'],
  ])('keeps the overview of %s with its assets well under 100 KB gzipped', async (_, query) => {
    const client = new Client();
    const res = await client.get(statsUrl(D, query));
    expect(res.status).toBe(200);
    // There is real content on the page.
    expect(panelRows(res.text, 'page').length).toBe(query === '?range=today' ? 2 : 10);
    const days = chartRows(res.text);
    if (query !== '?range=today') {
      if (!query.includes('compare')) expect(days).toHaveLength(query === '' ? 30 : 90);
      expect(days.every(([, , pageviews]) => pageviews > 0)).toBe(true);
    }
    const assets = [
      ...res.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g),
      ...res.text.matchAll(/<script src="([^"]+)"/g),
    ].map((m) => m[1] ?? '');
    // The stylesheet, the page's script and htmx.
    expect(assets).toHaveLength(3);
    let bytes = new TextEncoder().encode(res.text).byteLength;
    let gzipped = await gzipBytes(res.text);
    for (const asset of assets) {
      const file = await client.get(asset);
      expect(file.status, asset).toBe(200);
      bytes += new TextEncoder().encode(file.text).byteLength;
      gzipped += await gzipBytes(file.text);
    }
    // What travels (the Worker's responses are compressed): the budget of the statistics page.
    expect(gzipped).toBeLessThan(100 * 1024);
    // And what a browser parses, a guard against markup that grows with the rows (htmx's 37
    // KB among it, cached for a year once loaded).
    expect(bytes).toBeLessThan(200 * 1024);
  });
});
