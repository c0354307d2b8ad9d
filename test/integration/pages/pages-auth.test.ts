/** Logging in and out of the dashboard, sessions, and the throttling of password guesses. */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSession, SESSION_TTL_MS } from '../../../src/http/sessions.ts';
import { db, makeOwner, snapshot } from '../../support/api.ts';
import {
  CROSS_SITE_ORIGIN,
  csrfFrom,
  login,
  newBrowser,
  signedIn,
} from '../../support/browser-session.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const GENERIC = 'These credentials do not match our records.';
const countSessions = async () =>
  (await env.DB.prepare('SELECT count(*) AS n FROM sessions').first<{ n: number }>())?.n ?? 0;

let owner: Awaited<ReturnType<typeof makeOwner>>;
beforeAll(async () => {
  owner = await makeOwner('auth');
});

describe('signed out', () => {
  it('/ redirects to /login; signed in it redirects to /websites', async () => {
    const res = await newBrowser().get('/');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login');
    const b = await signedIn(owner);
    const home = await b.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/websites');
  });

  it('/register is closed (403) because an owner exists', async () => {
    const b = newBrowser();
    expect((await b.get('/register')).status).toBe(403);
    const before = await snapshot('owners');
    const res = await b.post('/register', {
      email: 'newcomer@example.com',
      password: OWNER_PASSWORD,
    });
    expect(res.status).toBe(403);
    expect(await snapshot('owners')).toEqual(before);
  });
});

describe('POST /login', () => {
  it('answers a wrong password with 422, a generic message and no cookie', async () => {
    const b = newBrowser();
    const res = await b.post('/login', { email: owner.email, password: 'not the password' });
    expect(res.status).toBe(422);
    expect(res.text).toContain(GENERIC);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(b.cookies.size).toBe(0);
    // The e-mail is kept in the form, the password is not.
    expect(res.text).toContain(`value="${owner.email}"`);
    expect(res.text).not.toContain('not the password');
  });

  it('does not reveal whether an e-mail is registered', async () => {
    const unknownEmail = `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const wrong = await newBrowser().post('/login', { email: owner.email, password: 'nope nope' });
    const unknown = await newBrowser().post('/login', {
      email: unknownEmail,
      password: 'nope nope',
    });
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain(GENERIC);
    // The whole page is the same apart from the e-mail echoed back into the form.
    expect(unknown.text.replace(unknownEmail, 'E')).toBe(wrong.text.replace(owner.email, 'E'));
    // An empty e-mail gets the same answer too.
    const empty = await newBrowser().post('/login', { email: '', password: 'nope nope' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain(GENERIC);
  });

  it('signs in with the right password: 303 to /websites and a session cookie', async () => {
    const b = newBrowser();
    const res = await b.post('/login', { email: owner.email, password: OWNER_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/websites');
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^sl_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);

    const websites = await b.get('/websites');
    expect(websites.status).toBe(200);
    expect(websites.text).toContain('<h1>Websites</h1>');
    // Signed in, the login page sends the browser on.
    const again = await b.get('/login');
    expect(again.status).toBe(303);
    expect(again.location).toBe('/websites');
  });

  it('treats the e-mail case-insensitively and ignores surrounding space', async () => {
    const b = newBrowser();
    const res = await b.post('/login', {
      email: `  ${owner.email.toUpperCase()} `,
      password: OWNER_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect((await b.get('/websites')).status).toBe(200);
  });

  it('refuses a cross-site login with 403 and sets no cookie', async () => {
    const b = newBrowser();
    const sessions = await countSessions();
    const res = await b.post(
      '/login',
      { email: owner.email, password: OWNER_PASSWORD },
      { origin: CROSS_SITE_ORIGIN },
    );
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await countSessions()).toBe(sessions);
  });
});

describe('sessions', () => {
  it('an unknown, malformed or expired session cookie is treated as signed out', async () => {
    const expired = await createSession(db(), owner.id, Date.now() - SESSION_TTL_MS - 1000);
    for (const value of [
      'A'.repeat(43),
      'not-a-token',
      "' OR 1=1 --",
      expired,
      `${expired.slice(0, -1)}${expired.endsWith('A') ? 'B' : 'A'}`,
    ]) {
      const b = newBrowser();
      b.cookies.set('sl_session', value);
      const res = await b.get('/websites');
      expect(res.status, value).toBe(303);
      expect(res.location).toBe('/login');
    }
  });

  it('POST /logout with the CSRF token ends the session; the old cookie stops working', async () => {
    const b = await signedIn(owner);
    const page = await b.get('/websites');
    const cookie = b.cookies.get('sl_session') as string;
    const res = await b.post('/logout', { _csrf: csrfFrom(page.text) });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login');
    // The browser is told to drop the cookie …
    expect(res.headers.getSetCookie().join('\n')).toMatch(/sl_session=;.*Max-Age=0/i);
    expect(b.cookies.has('sl_session')).toBe(false);
    // … and a copy of it kept elsewhere is useless too.
    const replay = newBrowser();
    replay.cookies.set('sl_session', cookie);
    for (const path of ['/websites', '/account']) {
      const after = await replay.get(path);
      expect(after.status).toBe(303);
      expect(after.location).toBe('/login');
    }
  });

  it('POST /logout without or with a wrong CSRF token is 403 and keeps the session', async () => {
    const b = await signedIn(owner);
    const other = await signedIn(owner);
    const otherToken = csrfFrom((await other.get('/websites')).text);
    const forged: Record<string, string>[] = [
      {},
      { _csrf: '' },
      { _csrf: 'x'.repeat(32) },
      { _csrf: otherToken },
    ];
    for (const fields of forged) {
      const res = await b.post('/logout', fields);
      expect(res.status, JSON.stringify(fields)).toBe(403);
      expect((await b.get('/websites')).status).toBe(200);
    }
  });

  it('a cross-site POST /logout is 403 and keeps the session', async () => {
    const b = await signedIn(owner);
    const token = csrfFrom((await b.get('/websites')).text);
    const res = await b.post('/logout', { _csrf: token }, { origin: CROSS_SITE_ORIGIN });
    expect(res.status).toBe(403);
    expect((await b.get('/websites')).status).toBe(200);
  });

  it('logging out ends only that session', async () => {
    const one = await signedIn(owner);
    const two = await signedIn(owner);
    await one.post('/logout', { _csrf: csrfFrom((await one.get('/websites')).text) });
    expect((await one.get('/websites')).status).toBe(303);
    expect((await two.get('/websites')).status).toBe(200);
  });
});

describe('throttling password guesses', () => {
  const expectThrottled = (res: { status: number; headers: Headers; text: string }) => {
    expect(res.status).toBe(429);
    const retry = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(res.text).toContain('Too many attempts.');
    expect(res.headers.getSetCookie()).toEqual([]);
  };

  it('wrong log-ins from many addresses never lock the owner out of an address without failures', async () => {
    const victim = await makeOwner('victim');
    // Strangers guess the owner's password, each from an address of their own: more than
    // the five failures one address may make, again and again.
    for (let i = 0; i < 8; i++) {
      const res = await newBrowser().post('/login', {
        email: victim.email,
        password: `guess ${i}`,
      });
      expect(res.status, `attempt ${i + 1}`).toBe(422);
    }
    // The owner, from an address that has not failed, signs in with the right password.
    const owner7 = newBrowser();
    const res = await owner7.post('/login', { email: victim.email, password: OWNER_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/websites');
    expect(owner7.cookies.has('sl_session')).toBe(true);
    // Also with another spelling of the e-mail, after more failures.
    for (let i = 0; i < 3; i++) {
      await newBrowser().post('/login', { email: victim.email, password: `again ${i}` });
    }
    await login(newBrowser(), ` ${victim.email.toUpperCase()}`, OWNER_PASSWORD);
  });

  it('five wrong passwords for one e-mail from one address: that address gets 429, even with the right one', async () => {
    const victim = await makeOwner('victim');
    const ip = '198.19.210.1';
    for (let i = 0; i < 5; i++) {
      const res = await newBrowser({ ip }).post('/login', {
        email: victim.email,
        password: `guess ${i}`,
      });
      expect(res.status, `attempt ${i + 1}`).toBe(422);
    }
    expectThrottled(
      await newBrowser({ ip }).post('/login', { email: victim.email, password: OWNER_PASSWORD }),
    );
    // Another spelling of the same e-mail is the same key.
    expectThrottled(
      await newBrowser({ ip }).post('/login', {
        email: ` ${victim.email.toUpperCase()}`,
        password: OWNER_PASSWORD,
      }),
    );
    // The owner signs in from elsewhere; other owners are not affected.
    await login(newBrowser(), victim.email, OWNER_PASSWORD);
    await login(newBrowser(), owner.email, OWNER_PASSWORD);
  });

  it('an IPv6 client is counted by its /64: changing the address within it does not escape', async () => {
    const victim = await makeOwner('victim6');
    // Five guesses for the owner's e-mail, each from another address of one /64 …
    for (let i = 0; i < 5; i++) {
      const res = await newBrowser({ ip: `2001:db8:60:1::${(i + 1).toString(16)}` }).post(
        '/login',
        { email: victim.email, password: `guess ${i}` },
      );
      expect(res.status, `attempt ${i + 1}`).toBe(422);
    }
    expectThrottled(
      await newBrowser({ ip: '2001:db8:60:1:ffff:ffff:ffff:fffe' }).post('/login', {
        email: victim.email,
        password: OWNER_PASSWORD,
      }),
    );
    // … and guesses spread over many e-mails from one /64 (password spraying).
    for (let i = 0; i < 5; i++) {
      const res = await newBrowser({ ip: `2001:db8:60:2:${i + 1}::1` }).post('/login', {
        email: `spray6-${i}@example.com`,
        password: 'password1',
      });
      expect(res.status, `spray ${i + 1}`).toBe(422);
    }
    expectThrottled(
      await newBrowser({ ip: '2001:db8:60:2:abcd::99' }).post('/login', {
        email: owner.email,
        password: OWNER_PASSWORD,
      }),
    );
    // Another /64 is another client.
    await login(newBrowser({ ip: '2001:db8:60:3::1' }), victim.email, OWNER_PASSWORD);
  });

  it('under a spread-out attack an address that failed gets no second guess; a fresh one still signs in', async () => {
    const target = await makeOwner('besieged');
    const first = '198.19.211.1';
    expect(
      (await newBrowser({ ip: first }).post('/login', { email: target.email, password: 'x1' }))
        .status,
    ).toBe(422);
    // Before the attack, one address may fail more than once.
    expect(
      (await newBrowser({ ip: first }).post('/login', { email: target.email, password: 'x2' }))
        .status,
    ).toBe(422);
    // Twenty more failures for the e-mail, each from its own address.
    for (let i = 0; i < 20; i++) {
      const res = await newBrowser().post('/login', {
        email: target.email,
        password: `spread ${i}`,
      });
      expect(res.status, `attempt ${i + 1}`).toBe(422);
    }
    // Now an address with a failure for this e-mail is refused, even with the right password …
    expectThrottled(
      await newBrowser({ ip: first }).post('/login', {
        email: target.email,
        password: OWNER_PASSWORD,
      }),
    );
    const once = '198.19.211.2';
    expect(
      (await newBrowser({ ip: once }).post('/login', { email: target.email, password: 'x3' }))
        .status,
    ).toBe(422);
    expectThrottled(
      await newBrowser({ ip: once }).post('/login', { email: target.email, password: 'x4' }),
    );
    // … while an address without failures signs in.
    await login(newBrowser(), target.email, OWNER_PASSWORD);
  });

  it('holds the limit when the guesses arrive at the same time', async () => {
    const target = await makeOwner('parallel');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        newBrowser({ ip: `2001:db8:61:1::${(i + 1).toString(16)}` }).post('/login', {
          email: target.email,
          password: `parallel guess ${i}`,
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    // Each 422 is a password that was actually checked: no more than five may be, and some are.
    expect(statuses.filter((s) => s === 422).length).toBeLessThanOrEqual(5);
    expect(statuses).toContain(422);
    expect(statuses.filter((s) => s !== 422 && s !== 429)).toEqual([]);
  });

  it('throttles unknown e-mails exactly like registered ones', async () => {
    const email = `ghost-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const ip = '198.19.212.1';
    for (let i = 0; i < 5; i++) {
      const res = await newBrowser({ ip }).post('/login', { email, password: `guess ${i}` });
      expect(res.status).toBe(422);
    }
    expectThrottled(await newBrowser({ ip }).post('/login', { email, password: 'guess 6' }));
  });

  it('after five failures from one IP that IP is refused for every e-mail', async () => {
    const ip = '198.19.200.1';
    for (let i = 0; i < 5; i++) {
      const res = await newBrowser({ ip }).post('/login', {
        email: `spray-${i}@example.com`,
        password: 'password1',
      });
      expect(res.status).toBe(422);
    }
    expectThrottled(
      await newBrowser({ ip }).post('/login', { email: owner.email, password: OWNER_PASSWORD }),
    );
    // The owner can still log in from elsewhere.
    await login(newBrowser(), owner.email, OWNER_PASSWORD);
  });

  it('a successful login clears the failures counted for its e-mail from its address', async () => {
    const member = await makeOwner('member');
    const signedIn = '198.19.220.1';
    const failedOnly = '198.19.220.2';
    const guess = (ip: string | undefined, password: string) =>
      newBrowser(ip ? { ip } : {}).post('/login', { email: member.email, password });
    expect((await guess(signedIn, 'wrong pw')).status).toBe(422);
    expect((await guess(failedOnly, 'wrong pw')).status).toBe(422);
    await login(newBrowser({ ip: signedIn }), member.email, OWNER_PASSWORD);
    // The e-mail comes under attack: twenty failures from other addresses …
    for (let i = 0; i < 20; i++) expect((await guess(undefined, `spread ${i}`)).status).toBe(422);
    // … so an address with a failure for it gets no further guess; the one that signed in
    // since has none left.
    expectThrottled(await guess(failedOnly, 'again'));
    expect((await guess(signedIn, 'again')).status).toBe(422);
  });
});
