/**
 * What the Worker logs when something fails: enough to debug (the event, the method and
 * path, the error's message, cause and stack) and no secret — no client IP address, API
 * key, password, session token or cookie, owner's e-mail address, nor the values a failing
 * query was given (drizzle appends them to its error message). Failures are injected in
 * D1 (test/support/d1-faults.ts) with driver messages that quote the values they were given,
 * the worst case; the log must hold up even then.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../../src/lib/crypto.ts';
import { describeError, redact } from '../../../src/lib/log.ts';
import { sendReports } from '../../../src/reports/send.ts';
import { call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { type Browser, csrfFrom, newBrowser } from '../../support/browser-session.ts';
import { runCron } from '../../support/cron.ts';
import { exceptAuth, type Fault, injectD1Failure } from '../../support/d1-faults.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { injectLogFailure } from '../../support/log-faults.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const IPV4 = '203.0.113.77';
const IPV6 = '2001:db8::77';
const WRONG_PASSWORD = 'correct horse battery staple 77';
const NEW_PASSWORD = 'a brand new password 77';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
type Level = 'error' | 'warn' | 'log' | 'info' | 'debug';
const LEVELS: Level[] = ['error', 'warn', 'log', 'info', 'debug'];

let owner: Owner;
let site: Awaited<ReturnType<typeof makeWebsite>>;
let logs: { level: Level; args: unknown[] }[] = [];
let fault: Fault | undefined;

beforeAll(async () => {
  owner = await makeOwner('logging');
  site = await makeWebsite(owner.key, { email: '1' });
});

beforeEach(() => {
  logs = [];
  for (const level of LEVELS) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logs.push({ level, args });
    });
  }
});

afterEach(() => {
  fault?.restore();
  fault = undefined;
  vi.restoreAllMocks();
});

/** Everything logged, serialised deeply: errors with their message, stack, cause and fields. */
function serialise(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return String(v);
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return '[circular]';
    seen.add(v);
    if (v instanceof Error) {
      return { ...v, name: v.name, message: v.message, stack: v.stack, cause: v.cause };
    }
    if (v instanceof Request) return { url: v.url, headers: [...v.headers] };
    if (v instanceof Headers || v instanceof Map) return [...v];
    return v;
  });
}
const logged = () => serialise(logs);

/** The secrets of the owner and of the requests below, and telling fragments of them. */
async function secrets(extra: Record<string, string> = {}) {
  const key = owner.key;
  return {
    'client IPv4': IPV4,
    'client IPv6': IPV6,
    'client IPv6, expanded': '2001:0db8:0000',
    'API key': key,
    'API key without its prefix': key.slice(3),
    'API key, its first 12 characters after sl_': `sl_${key.slice(3, 15)}`,
    'API key hash': await sha256Hex(key),
    'owner password': OWNER_PASSWORD,
    'owner e-mail': owner.email,
    'owner e-mail, local part': owner.email.split('@')[0] as string,
    ...extra,
  };
}

/** The names of the secrets found in the log (case-insensitive). */
function leaked(found: Record<string, string>): string[] {
  const text = logged().toLowerCase();
  return Object.entries(found)
    .filter(([, secret]) => secret !== '' && text.includes(secret.toLowerCase()))
    .map(([name]) => name);
}

type Entry = {
  event: string;
  method?: string;
  path?: string;
  error: { name: string; message: string; stack?: string; cause?: { message: string } };
} & Record<string, unknown>;

/** The one structured error entry logged for `event`. */
function entry(event: string): Entry {
  const entries = logs
    .filter((l) => l.level === 'error')
    .flatMap((l) => l.args)
    .filter((a): a is Entry => typeof a === 'object' && a !== null && (a as Entry).event === event);
  expect(entries, `one "${event}" entry in ${logged()}`).toHaveLength(1);
  return entries[0] as Entry;
}

/** The whole error chain of an entry as text: messages, causes and stacks. */
const errorText = (e: Entry) => serialise(e.error);

/** A driver message that quotes every value bound to the statement, and the client's IP. */
const quoting =
  (...also: string[]) =>
  (_sql: string, params: unknown[]) =>
    `D1_ERROR: UNIQUE constraint failed (${[...params.map(String), ...also].join(', ')}): SQLITE_CONSTRAINT`;

describe('a hit its event log could not store', () => {
  it.each([IPV4, IPV6])('from %s logs where and why, not who', async (ip) => {
    // A storage error that quotes what it was given, the client's address among it.
    const logFault = injectLogFailure({
      methods: ['record', 'stage'],
      message: `SQLITE_CONSTRAINT: insert failed for ${ip} (client=${ip}, ${owner.email})`,
    });
    const res = await sendHit(
      { page: `https://${site.domain}/pricing?ref=${encodeURIComponent(owner.email)}` },
      {
        ip,
        ua: CHROME_WINDOWS,
        headers: { 'x-forwarded-for': ip, cookie: `sl_session=${owner.key.slice(3)}` },
      },
    );
    logFault.restore();
    expect(res.status).toBe(503);
    const e = entry('hit not stored');
    expect(e).toMatchObject({ method: 'POST', path: '/api/event' });
    // The storage's message, with the address and the e-mail it quoted replaced.
    expect(errorText(e)).toContain('SQLITE_CONSTRAINT');
    expect(errorText(e)).toContain('client=[ip]');
    expect(leaked(await secrets({ 'User-Agent': 'Chrome/131' }))).toEqual([]);
  });
});

describe('a rate limiter that fails', () => {
  it('lets the hit through and logs which limiter failed, not the client', async () => {
    vi.spyOn(env.RATE_LIMIT_EVENTS as RateLimit, 'limit').mockRejectedValue(
      new Error(`rate limiter unavailable for ${IPV4} (sl_${owner.key.slice(3)})`),
    );
    const res = await sendHit(
      { page: `https://${site.domain}/` },
      { ip: IPV4, ua: CHROME_WINDOWS },
    );
    expect(res.status).toBe(202);
    const e = entry('rate limiter failed');
    expect(e).toMatchObject({
      limiter: 'RATE_LIMIT_EVENTS',
      error: { message: 'rate limiter unavailable for [ip] (sl_[key])' },
    });
    expect(leaked(await secrets())).toEqual([]);
  });
});

describe('an unhandled error on an authenticated API request', () => {
  it('logs the method, the path without its query string and the driver message', async () => {
    fault = injectD1Failure({ matches: exceptAuth, message: quoting() });
    const res = await call(
      `/api/v1/websites?search=x&api_key=${owner.key}&email=${encodeURIComponent(owner.email)}`,
      { key: owner.key, headers: { 'cf-connecting-ip': IPV4 } },
    );
    expect(res.status).toBe(500);
    const e = entry('unhandled error');
    expect(e).toMatchObject({ method: 'GET', path: '/api/v1/websites' });
    // The driver's own message, and no list of the values the query was given.
    expect(errorText(e)).toContain('SQLITE_CONSTRAINT');
    expect(errorText(e)).not.toContain('params:');
    expect(leaked(await secrets())).toEqual([]);
  });

  it('never logs the IP addresses a new website excludes, which its insert was given', async () => {
    // The insert runs in a batch, whose error D1 reports on its own (no drizzle wrapping):
    // the injected message quotes every bound value, as a constraint error would.
    fault = injectD1Failure({
      matches: (sql) => /^\s*insert into "websites"/i.test(sql),
      message: quoting(),
    });
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key: owner.key,
      body: {
        form: {
          domain: `log-${crypto.randomUUID().slice(0, 8)}.example.com`,
          exclude_ips: `${IPV4}\n${IPV6}\n198.51.100.0/24`,
        },
      },
    });
    expect(res.status).toBe(500);
    const e = entry('unhandled error');
    expect(e).toMatchObject({ method: 'POST', path: '/api/v1/websites' });
    expect(errorText(e)).toContain('D1_ERROR: UNIQUE constraint failed');
    expect(fault.failed.length).toBe(1);
    expect(leaked(await secrets({ 'excluded network': '198.51.100.0' }))).toEqual([]);
  });
});

describe('a failing login', () => {
  it('logs neither the e-mail, the password nor the client address', async () => {
    const b = newBrowser({ ip: IPV4 });
    await b.get('/login');
    // The owner lookup by e-mail fails; drizzle's message would carry the e-mail.
    fault = injectD1Failure({
      matches: (sql) => /from "owners" where "owners"."email"/.test(sql),
      message: quoting(),
    });
    const res = await b.post('/login', { email: owner.email, password: WRONG_PASSWORD });
    expect(res.status).toBe(500);
    const e = entry('unhandled error');
    expect(e).toMatchObject({ method: 'POST', path: '/login' });
    // The failing query (its SQL, never its values) and the driver's own message.
    expect(e.error.message).toMatch(/^Failed query: select .* from "owners" where/);
    expect(e.error.cause?.message).toContain('SQLITE_CONSTRAINT');
    expect(e.error.stack).toMatch(/\n\s+at /);
    expect(errorText(e)).not.toContain('params:');
    expect(leaked(await secrets({ 'password tried': WRONG_PASSWORD }))).toEqual([]);
  });
});

describe('a page request with a session cookie', () => {
  let b: Browser;
  let session: Record<string, string>;
  beforeAll(async () => {
    b = newBrowser({ ip: IPV6 });
    const form = await b.get('/login');
    expect(form.status).toBe(200);
    expect((await b.post('/login', { email: owner.email, password: OWNER_PASSWORD })).status).toBe(
      303,
    );
    const token = b.cookies.get('sl_session') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    session = {
      'session token': token,
      'session token hash': await sha256Hex(token),
      'CSRF token': csrfFrom((await b.get('/account')).text),
    };
  });

  it('logs the page, not the session, when its query fails', async () => {
    fault = injectD1Failure({ matches: exceptAuth, message: quoting() });
    const res = await b.get(`/websites/${site.id}?token=${session['session token']}`);
    expect(res.status).toBe(500);
    const e = entry('unhandled error');
    expect(e).toMatchObject({ method: 'GET', path: `/websites/${site.id}` });
    expect(leaked(await secrets(session))).toEqual([]);
  });

  it('logs no trace of the token when the session lookup itself fails', async () => {
    fault = injectD1Failure({ message: quoting() });
    const res = await b.get('/account');
    expect(res.status).toBe(500);
    expect(entry('unhandled error')).toMatchObject({ method: 'GET', path: '/account' });
    expect(leaked(await secrets(session))).toEqual([]);
  });

  it('logs no password when changing it fails', async () => {
    fault = injectD1Failure({
      matches: (sql) => /^\s*update "owners"/i.test(sql),
      message: quoting(),
    });
    const res = await b.post('/account/password', {
      _csrf: session['CSRF token'] as string,
      current_password: OWNER_PASSWORD,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(res.status).toBe(500);
    expect(entry('unhandled error')).toMatchObject({ method: 'POST', path: '/account/password' });
    const hash = /pbkdf2-sha256\$\d+\$[^$]+\$([A-Za-z0-9_-]+)/.exec(logged())?.[1];
    expect(hash, 'the new password hash').toBeUndefined();
    expect(leaked(await secrets({ ...session, 'new password': NEW_PASSWORD }))).toEqual([]);
  });
});

describe('a report that could not be sent', () => {
  const MONDAY = Date.parse('2027-03-08T10:00:00Z');

  it('logs the website and period, not the recipient', async () => {
    const run = await sendReports(
      db(),
      {
        async send({ to }) {
          throw new Error(`destination address is not a verified address: ${to}`);
        },
      },
      { from: 'reports@sightline.test', publicUrl: 'https://sightline.test', interval: 'weekly' },
      MONDAY,
    );
    expect(run.failed).toBeGreaterThan(0);
    const e = logs
      .flatMap((l) => l.args)
      .find((a) => (a as Entry).event === 'report not sent' && (a as Entry).websiteId === site.id);
    expect(e).toMatchObject({
      websiteId: site.id,
      period: 'weekly:2027-03-01',
      error: { message: 'destination address is not a verified address: [email]' },
    });
    expect(leaked(await secrets())).toEqual([]);
  });

  it('from the cron, through the send_email binding, logs no recipient either', async () => {
    const failing = {
      async send(message: { to: string }) {
        throw new Error(`email to ${message.to} rejected`);
      },
    } as unknown as SendEmail;
    await runCron(MONDAY + 7 * 86_400_000, { ...env, EMAIL: failing });
    const events = logs.flatMap((l) => l.args).map((a) => (a as Entry)?.event ?? a);
    expect(events).toContain('report not sent');
    expect(events.some((e) => typeof e === 'string' && e.startsWith('reports: failed=1'))).toBe(
      true,
    );
    expect(leaked(await secrets())).toEqual([]);
  });
});

describe('redaction', () => {
  it.each([
    [`key ${'sl_'}abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ1 used`, 'key sl_[key] used'],
    ['from 203.0.113.77, 10.0.0.1/8', 'from [ip], [ip]/8'],
    ['ip=2001:db8::77 and ::1 and ::ffff:192.0.2.1', 'ip=[ip] and [ip] and [ip]'],
    ['full 2001:0db8:0000:0000:0000:ff00:0042:8329', 'full [ip]'],
    ['to Jane.Doe+x@mail.example.co.uk', 'to [email]'],
    [`hash ${'ab'.repeat(32)}`, 'hash [token]'],
    ['token Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg-_1', 'token [token]'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('keeps what is needed to debug', () => {
    for (const text of [
      '    at queryStats (src/rollups/sums.ts:88:17)',
      'at 2026-11-22T09:30:00.000Z, 10:20:30',
      'D1_ERROR: no such table: stats: SQLITE_ERROR',
      'select "id" from "websites" where "websites"."domain" = ?',
      'cookie sl_session, sl_site_12',
      'POST /stats/example.com/password',
      'version 1.2.3',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("drops a drizzle error's bound values from its message and stack, keeps its cause", () => {
    const cause = new Error('D1_ERROR: no such table: owners: SQLITE_ERROR');
    const err = Object.assign(
      new Error(`Failed query: select * from "owners" where "email" = ?\nparams: ${owner.email}`),
      { query: 'select * from "owners" where "email" = ?', params: [owner.email], cause },
    );
    const described = describeError(err);
    expect(described.message).toBe('Failed query: select * from "owners" where "email" = ?');
    expect(described.stack).toMatch(/^Error: Failed query: select \* from "owners"[^\n]*\n\s+at /);
    expect(described.cause?.message).toBe(cause.message);
    expect(serialise(described)).not.toContain('params');
    expect(serialise(described)).not.toContain(owner.email);
  });
});
