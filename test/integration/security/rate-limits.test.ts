/**
 * Rate limits (docs/SECURITY.md): the app runs here with every limiter replaced by the tight
 * TEST_RATE_LIMIT_TIGHT binding (3 requests per key and minute, a real rate-limiting binding
 * from vitest.config.ts), so the fourth request of a key is the first one over the limit.
 * Each test uses its own client IPs or keys: the limiter's counts outlive a test.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import type { Env } from '../../../src/env.ts';
import { makeOwner, makeWebsite, ORIGIN, snapshot } from '../../support/api.ts';
import { CHROME_WINDOWS, rollups } from '../../support/hits.ts';
import { statRows } from '../../support/ingest-fixtures.ts';

const app = createApp();
const tight = env.TEST_RATE_LIMIT_TIGHT;
const limitedEnv: Env = {
  ...env,
  RATE_LIMIT_EVENTS: tight,
  RATE_LIMIT_API: tight,
  RATE_LIMIT_FORMS: tight,
  RATE_LIMIT_READS: tight,
  RATE_LIMIT_PUBLIC_READS: tight,
  RATE_LIMIT_WEBSITE_READS: tight,
};

/**
 * The limiter counts in windows of the wall clock's minutes, so a test whose requests straddle
 * the turn of a minute starts counting afresh half-way, however quickly it runs. Such a test
 * runs again (its addresses, keys and websites are new each run) until one run begins and
 * ends in the same minute; a failure within one window is a failure.
 */
function itInOneWindow(name: string, test: () => Promise<void>) {
  it(name, async () => {
    const minute = () => Math.floor(Date.now() / 60_000);
    for (let run = 1; ; run++) {
      const started = minute();
      try {
        await test();
        return;
      } catch (error) {
        if (minute() === started || run === 5) throw error;
      }
    }
  });
}

let ipSeq = 0;
const nextIp = () => {
  ipSeq += 1;
  return `203.0.113.${ipSeq}`;
};

async function send(path: string, init: RequestInit & { ip?: string }, bindings: Env = limitedEnv) {
  const headers = new Headers(init.headers);
  if (init.ip) headers.set('cf-connecting-ip', init.ip);
  const res = await app.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), bindings);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const hit = (ip: string, page: string) =>
  send('/api/event', {
    method: 'POST',
    ip,
    headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
    body: JSON.stringify({ page }),
  });

describe('the event endpoint', () => {
  let a: { id: number; domain: string };
  let b: { id: number; domain: string };
  beforeAll(async () => {
    const owner = await makeOwner();
    a = await makeWebsite(owner.key);
    b = await makeWebsite(owner.key);
  });

  itInOneWindow(
    'answers 429 with Retry-After past the limit of one IP and website, and stores nothing',
    async () => {
      const ip = nextIp();
      // A website of its own: a run that straddled a minute's turn leaves its hits behind.
      const site = await makeWebsite((await makeOwner()).key);
      for (let i = 0; i < 3; i++)
        expect((await hit(ip, `https://${site.domain}/`)).status).toBe(202);
      const before = await snapshot('stats');
      const limited = await hit(ip, `https://${site.domain}/`);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(JSON.parse(limited.text)).toEqual({
        message: 'Too many requests. Try again later.',
        status: 429,
      });
      // CORS still lets the tracker read the answer.
      expect(limited.headers.get('access-control-allow-origin')).toBe('*');
      expect(await snapshot('stats')).toEqual(before);
      expect(Object.values((await rollups(site.id)).pageviews ?? {})).toEqual([3]);
    },
  );

  itInOneWindow(
    "drops bots and foreign pages before the limit: they never spend a website's budget",
    async () => {
      const ip = nextIp();
      const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
      for (let i = 0; i < 5; i++) {
        const bot = await send('/api/event', {
          method: 'POST',
          ip,
          headers: { 'content-type': 'text/plain', 'user-agent': googlebot },
          body: JSON.stringify({ page: `https://${a.domain}/`, domain: a.domain }),
        });
        expect(bot.headers.get('x-drop-reason')).toBe('bot');
        const foreign = await send('/api/event', {
          method: 'POST',
          ip,
          headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
          body: JSON.stringify({ page: 'https://elsewhere.example/', domain: a.domain }),
        });
        expect(foreign.headers.get('x-drop-reason')).toBe('host_mismatch');
      }
      // Ten drops from this address; its three hits of the minute are all there.
      for (let i = 0; i < 3; i++) expect((await hit(ip, `https://${a.domain}/`)).status).toBe(202);
      expect((await hit(ip, `https://${a.domain}/`)).status).toBe(429);
    },
  );

  itInOneWindow('counts each website and each IP on its own', async () => {
    const ip = nextIp();
    for (let i = 0; i < 3; i++) await hit(ip, `https://${a.domain}/`);
    expect((await hit(ip, `https://${a.domain}/`)).status).toBe(429);
    // The same address on another website, and another address on the same website.
    expect((await hit(ip, `https://${b.domain}/`)).status).toBe(202);
    expect((await hit(nextIp(), `https://${a.domain}/`)).status).toBe(202);
  });

  itInOneWindow(
    'counts subdomains of a website as that website (no way around by varying the host)',
    async () => {
      const ip = nextIp();
      for (let i = 0; i < 3; i++)
        expect((await hit(ip, `https://s${i}.${a.domain}/`)).status).toBe(202);
      expect((await hit(ip, `https://s9.${a.domain}/`)).status).toBe(429);
    },
  );

  itInOneWindow('limits Umami-style hits on /api/send the same way', async () => {
    const ip = nextIp();
    const umami = () =>
      send('/api/send', {
        method: 'POST',
        ip,
        headers: { 'content-type': 'application/json', 'user-agent': CHROME_WINDOWS },
        body: JSON.stringify({
          type: 'event',
          payload: { website: String(b.id), hostname: b.domain, url: '/x' },
        }),
      });
    for (let i = 0; i < 3; i++) expect((await umami()).status).toBe(200);
    const limited = await umami();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
  });

  itInOneWindow(
    'a hit naming several websites, one of them over its limit: 429 and nothing stored',
    async () => {
      const ip = nextIp();
      // A website and one of its subdomain's (a page of the second is on both), of its own:
      // a run that straddled a minute's turn leaves its hits behind.
      const owner = await makeOwner();
      const parent = await makeWebsite(owner.key);
      const child = await makeWebsite(owner.key, { domain: `shop.${parent.domain}` });
      for (let i = 0; i < 3; i++)
        expect((await hit(ip, `https://${child.domain}/`)).status).toBe(202);
      const before = await snapshot('stats');
      const both = await send('/api/event', {
        method: 'POST',
        ip,
        headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
        body: JSON.stringify({
          n: 'pageview',
          u: `https://${child.domain}/`,
          d: `${parent.domain},${child.domain}`,
        }),
      });
      expect(both.status).toBe(429);
      expect(await snapshot('stats')).toEqual(before);
      // Nothing on either: the parent has no row, the child only its three earlier hits.
      expect(await statRows(parent.id)).toBe(0);
      const views = Object.values((await rollups(child.id)).pageviews ?? {});
      expect(views.reduce((a, b) => a + b, 0)).toBe(3);
    },
  );

  itInOneWindow('does not limit hits when the binding is not configured', async () => {
    const ip = nextIp();
    const { RATE_LIMIT_EVENTS: _, ...unlimited } = limitedEnv;
    for (let i = 0; i < 6; i++) {
      const res = await send(
        '/api/event',
        {
          method: 'POST',
          ip,
          headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
          body: JSON.stringify({ page: `https://${b.domain}/` }),
        },
        unlimited as Env,
      );
      expect(res.status).toBe(202);
    }
  });
});

describe('the API', () => {
  itInOneWindow(
    'answers 429 with Retry-After past the limit of one key; other keys go on',
    async () => {
      const one = await makeOwner();
      const other = await makeOwner();
      const get = (key: string) =>
        send('/api/v1/websites', { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3; i++) expect((await get(one.key)).status).toBe(200);
      const limited = await get(one.key);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(JSON.parse(limited.text)).toEqual({
        message: 'Too many requests. Try again later.',
        status: 429,
      });
      expect((await get(other.key)).status).toBe(200);
    },
  );

  itInOneWindow('a limited write changes nothing', async () => {
    const owner = await makeOwner();
    const list = () =>
      send('/api/v1/websites', { headers: { authorization: `Bearer ${owner.key}` } });
    for (let i = 0; i < 3; i++) await list();
    const before = await snapshot('websites');
    const res = await send('/api/v1/websites', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'domain=limited.example.com',
    });
    expect(res.status).toBe(429);
    expect(await snapshot('websites')).toEqual(before);
  });
});

describe("readers of a website's statistics", () => {
  const page = (path: string, ip: string) => send(path, { method: 'GET', ip });

  itInOneWindow(
    'an anonymous reader: its pages, full views and CSV count together; the fourth is a 429 page',
    async () => {
      const owner = await makeOwner();
      const site = await makeWebsite(owner.key, { privacy: '0' });
      const ip = nextIp();
      for (const path of ['', '/page', '/page.csv'])
        expect((await page(`/stats/${site.domain}${path}`, ip)).status, path).toBe(200);
      const limited = await page(`/stats/${site.domain}`, ip);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(limited.headers.get('content-type')).toContain('text/html');
      expect(limited.text).toContain('Try again in a minute');
      // The owner, through the API, has a budget of their own.
      const api = () =>
        send(`/api/v1/stats/${site.id}?name=page&from=2026-01-01&to=2026-01-02`, {
          method: 'GET',
          ip,
          headers: { authorization: `Bearer ${owner.key}` },
        });
      for (let i = 0; i < 3; i++) expect((await api()).status).toBe(200);
      const apiLimited = await api();
      expect(apiLimited.status).toBe(429);
      expect(JSON.parse(apiLimited.text)).toMatchObject({ status: 429 });
    },
  );

  itInOneWindow(
    "anonymous readers from many addresses together: the website's budget, not the owner's",
    async () => {
      const owner = await makeOwner();
      const site = await makeWebsite(owner.key, { privacy: '0' });
      for (let i = 0; i < 3; i++)
        expect((await page(`/stats/${site.domain}`, nextIp())).status).toBe(200);
      expect((await page(`/stats/${site.domain}`, nextIp())).status).toBe(429);
      const ownerRead = await send(
        `/api/v1/stats/${site.id}/summary?from=2026-01-01&to=2026-01-02`,
        { method: 'GET', ip: nextIp(), headers: { authorization: `Bearer ${owner.key}` } },
      );
      expect(ownerRead.status).toBe(200);
    },
  );
});

describe('the password forms', () => {
  const post = (path: string, ip: string, body: string) =>
    send(path, {
      method: 'POST',
      ip,
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });

  itInOneWindow(
    'log-in: the fourth submission from one IP is a 429 page with Retry-After',
    async () => {
      const owner = await makeOwner();
      const ip = nextIp();
      const body = `email=${encodeURIComponent(owner.email)}&password=wrong+password`;
      for (let i = 0; i < 3; i++) expect((await post('/login', ip, body)).status).toBe(422);
      const limited = await post('/login', ip, body);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
      expect(limited.text).toContain('Too many requests');
      // Another address may still log in.
      const ok = await post(
        '/login',
        nextIp(),
        `email=${encodeURIComponent(owner.email)}&password=a+long+enough+password`,
      );
      expect(ok.status).toBe(303);
    },
  );

  itInOneWindow(
    'a statistics password form: limited per IP, the right password does not get through',
    async () => {
      const owner = await makeOwner();
      const site = await makeWebsite(owner.key, { privacy: '2', password: 'site secret 123' });
      const ip = nextIp();
      const path = `/stats/${site.domain}/password`;
      for (let i = 0; i < 3; i++) expect((await post(path, ip, 'password=nope')).status).toBe(422);
      const limited = await post(path, ip, 'password=site+secret+123');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(limited.headers.get('set-cookie')).toBeNull();
    },
  );

  itInOneWindow('showing a form is not counted, only sending it', async () => {
    const ip = nextIp();
    for (let i = 0; i < 6; i++) expect((await send('/login', { ip })).status).toBe(200);
  });
});

describe('per client address, before any website or key is looked up', () => {
  /** The app's env with only the per-address limiter tight, and a D1 that counts statements. */
  function addressLimited() {
    let statements = 0;
    const db = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === 'prepare')
          return (query: string) => {
            statements += 1;
            return target.prepare(query);
          };
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const bindings: Env = { ...env, DB: db, RATE_LIMIT_ADDRESSES: tight };
    return { bindings, statements: () => statements };
  }

  itInOneWindow(
    'limits hits for websites nobody registered, and the refused ones cost no lookup',
    async () => {
      const { bindings, statements } = addressLimited();
      const ip = nextIp();
      // One Plausible hit naming ten unknown domains costs ten lookups; three are let through.
      const flood = () =>
        send(
          '/api/event',
          {
            method: 'POST',
            ip,
            headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
            body: JSON.stringify({
              n: 'pageview',
              u: 'https://unknown-0.example.net/',
              d: Array.from({ length: 10 }, (_, i) => `unknown-${i}.example.net`).join(','),
            }),
          },
          bindings,
        );
      for (let i = 0; i < 3; i++) {
        const res = await flood();
        expect([res.status, res.headers.get('x-drop-reason')]).toEqual([202, 'unknown_site']);
      }
      const before = statements();
      for (let i = 0; i < 5; i++) {
        const res = await flood();
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBe('60');
      }
      expect(statements()).toBe(before);
    },
  );

  itInOneWindow(
    'limits API requests with random keys, and the refused ones cost no key lookup',
    async () => {
      const { bindings, statements } = addressLimited();
      const ip = nextIp();
      const random = () =>
        send(
          '/api/v1/websites',
          {
            ip,
            headers: {
              authorization: `Bearer sl_${crypto.randomUUID().replace(/-/g, '').padEnd(43, 'x')}`,
            },
          },
          bindings,
        );
      for (let i = 0; i < 3; i++) expect((await random()).status).toBe(401);
      const before = statements();
      for (let i = 0; i < 5; i++) expect((await random()).status).toBe(429);
      expect(statements()).toBe(before);
    },
  );

  itInOneWindow(
    'counts every address of an IPv6 /64 as one, and hits apart from API requests',
    async () => {
      const { bindings } = addressLimited();
      const owner = await makeOwner();
      const site = await makeWebsite(owner.key);
      const fromV6 = (i: number) =>
        send(
          '/api/event',
          {
            method: 'POST',
            ip: `2001:db8:77:${ipSeq}:${i}::1`,
            headers: { 'content-type': 'text/plain', 'user-agent': CHROME_WINDOWS },
            body: JSON.stringify({ page: `https://${site.domain}/` }),
          },
          bindings,
        );
      ipSeq += 1;
      for (let i = 0; i < 3; i++) expect((await fromV6(i)).status).toBe(202);
      expect((await fromV6(9)).status).toBe(429);
      // The same network's API requests have their own count.
      const api = await send(
        '/api/v1/websites',
        { ip: `2001:db8:77:${ipSeq - 1}::5`, headers: { authorization: `Bearer ${owner.key}` } },
        bindings,
      );
      expect(api.status).toBe(200);
    },
  );
});

describe('the per-website hit limit', () => {
  itInOneWindow('counts every address of an IPv6 /64 as one client', async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await hit(`2001:db8:88:1:${i}::${i + 1}`, `https://${site.domain}/`);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
  });
});

describe('invitations', () => {
  itInOneWindow('a website sends at most the forms limit of invitations a minute', async () => {
    const owner = await makeOwner();
    const site = await makeWebsite(owner.key);
    const other = await makeWebsite(owner.key);
    const sent: string[] = [];
    const bindings: Env = {
      ...env,
      RATE_LIMIT_FORMS: tight,
      EMAIL: { send: async (m: { to: string }) => void sent.push(m.to) } as unknown as SendEmail,
    };
    const invite = (id: number, n: number) =>
      send(
        `/api/v1/websites/${id}/members`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            email: `limited-${n}-${crypto.randomUUID()}@example.com`,
            role: 'viewer',
          }),
        },
        bindings,
      );
    const statuses = [];
    for (let n = 0; n < 4; n++) statuses.push((await invite(site.id, n)).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect(sent).toHaveLength(3);
    // Another website has its own count.
    expect((await invite(other.id, 9)).status).toBe(201);
  });
});
