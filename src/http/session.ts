/**
 * Sessions and CSRF for the pages. Every page request learns its signed-in owner from the
 * session cookie. State-changing forms are protected twice: the `Origin` check of Hono's
 * `csrf()` (a browser always sends Origin on a cross-site POST) and a per-session token in a
 * hidden field, derived from the session token so that it needs no storage.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { sha256Hex, timingSafeEqual } from '../lib/crypto.ts';
import { formNotVerified } from '../lib/errors.ts';
import { createSession, findSessionOwner, SESSION_COOKIE, SESSION_TTL_MS } from './sessions.ts';

export const loadSession = () =>
  createMiddleware<AppEnv>(async function loadSession(c, next) {
    const token = getCookie(c, SESSION_COOKIE) ?? null;
    const owner = token ? await findSessionOwner(createDb(c.env.DB), token) : null;
    c.set('owner', owner);
    c.set('sessionToken', owner ? token : null);
    await next();
  });

/** Pages for signed-in owners only: everyone else is sent to the login form. */
export const requireOwner = () =>
  createMiddleware<AppEnv>(async function requireOwner(c, next) {
    if (!c.get('owner')) return c.redirect('/login', 303);
    await next();
  });

/** The owner of a page behind `requireOwner()`. */
export function signedInOwner(c: Context<AppEnv>): { id: number; email: string } {
  const owner = c.get('owner');
  if (!owner) throw new Error('signedInOwner() outside requireOwner()');
  return owner;
}

export async function signIn(
  c: Context<AppEnv>,
  owner: { id: number; email: string },
): Promise<void> {
  const token = await createSession(createDb(c.env.DB), owner.id);
  c.set('owner', { id: owner.id, email: owner.email });
  c.set('sessionToken', token);
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: 'Lax',
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true });
}

/** The CSRF token of the current session ('' when signed out). */
export async function csrfToken(c: Context<AppEnv>): Promise<string> {
  const session = c.get('sessionToken');
  return session ? (await sha256Hex(`csrf\u0000${session}`)).slice(0, 32) : '';
}

/** Refuses a form whose per-session token does not match (a 403 page, from the one `onError`). */
export async function requireCsrf(c: Context<AppEnv>): Promise<void> {
  const expected = await csrfToken(c);
  const sent = (await c.req.parseBody())._csrf;
  if (expected === '' || typeof sent !== 'string' || !timingSafeEqual(sent, expected))
    throw formNotVerified();
}

/** The body of a form whose CSRF token checks out (a 403 page otherwise). */
export async function formBody(c: Context<AppEnv>) {
  await requireCsrf(c);
  return c.req.parseBody();
}
