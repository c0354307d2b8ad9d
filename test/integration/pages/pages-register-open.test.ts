/**
 * Sign-up with `REGISTRATION=open`: one answer whether or not the address already has an
 * account, so the form cannot be used to learn which e-mail addresses are registered.
 */
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import { makeOwner, ORIGIN, snapshot } from '../../support/api.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const app = createApp();
const open = { ...env, REGISTRATION: 'open' };

async function post(path: string, fields: Record<string, string>) {
  const res = await app.fetch(
    new Request(`${ORIGIN}${path}`, {
      method: 'POST',
      headers: {
        origin: ORIGIN,
        'content-type': 'application/x-www-form-urlencoded',
        'cf-connecting-ip': `198.18.9.${Math.floor(Math.random() * 250) + 1}`,
      },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    }),
    open,
  );
  return {
    status: res.status,
    location: res.headers.get('location'),
    text: await res.text(),
    cookies: res.headers.getSetCookie(),
  };
}

it('answers a taken and a free e-mail alike, and creates only the new account', async () => {
  const existing = await makeOwner('open-registration');
  const owners = await snapshot('owners');
  const taken = await post('/register', { email: existing.email, password: 'some other password' });
  const free = await post('/register', {
    email: 'brand-new@example.com',
    password: 'a new password',
  });
  for (const res of [taken, free]) {
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?registered=1');
    expect(res.text).toBe('');
    expect(res.cookies).toEqual([]);
  }
  const after = (await snapshot('owners')) as { email: string }[];
  expect(after).toHaveLength(owners.length + 1);
  expect(after.map((o) => o.email)).toContain('brand-new@example.com');
  // The existing owner's password is untouched: they still sign in with it.
  const login = await post('/login', { email: existing.email, password: OWNER_PASSWORD });
  expect([login.status, login.location]).toEqual([303, '/websites']);
  // The new owner signs in with the password chosen.
  const first = await post('/login', {
    email: 'brand-new@example.com',
    password: 'a new password',
  });
  expect([first.status, first.location]).toEqual([303, '/websites']);
});

it('still names invalid input, which says nothing about existing accounts', async () => {
  const res = await post('/register', { email: 'not an address', password: 'short' });
  expect(res.status).toBe(422);
  expect(res.text).toContain('The email field must be a valid email address.');
  expect(res.text).toContain('The password field must be at least 8 characters.');
});

it('the login page after sign-up says what to do, in either case', async () => {
  const res = await app.fetch(new Request(`${ORIGIN}/login?registered=1`), open);
  const html = await res.text();
  expect(html).toContain('Sign in with your e-mail address and password.');
});
