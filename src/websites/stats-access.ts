/**
 * Who may read a website's statistics page (docs/ARCHITECTURE.md, The HTTP contract): the
 * policy, apart from the pages that render it (src/pages/statistics/gate.tsx). Public websites
 * are open to anyone; private ones only to their owner and members (everyone else gets the
 * same 404 as for a missing site, and no figure leaks); password-protected ones ask for the
 * password once and then trust a per-site cookie signed with the server secret over the
 * site's password hash, so changing the password revokes every such cookie. A shared link
 * with a password works the same way, signed over the link and its hash.
 */
import { eq } from 'drizzle-orm';
import { verifyPassword } from '../accounts/password.ts';
import {
  consumeStatsPasswordAttempt,
  type StatsPassword,
  statsPasswordSucceeded,
} from '../accounts/throttle.ts';
import type { Database } from '../db/client.ts';
import { type WebsiteRow, websites } from '../db/schema.ts';
import { hmacHex, serverSecret } from '../db/secrets.ts';
import type { SharedLinkRow } from '../db/sharing-schema.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { normalizeDomain } from './domain.ts';
import { type Role, websiteAccess } from './queries.ts';

/** How long a right password is remembered. */
export const PASSWORD_COOKIE_SECONDS = 30 * 24 * 3600;

/** The cookie that remembers a website's password. */
export const siteCookieName = (site: WebsiteRow) => `sl_site_${site.id}`;
/** The cookie that remembers a shared link's password. */
export const linkCookieName = (link: SharedLinkRow) => `sl_link_${link.id}`;

/** The value of a website's password cookie: it changes when the password does. */
export async function siteToken(db: Database, site: WebsiteRow): Promise<string> {
  return hmacHex(
    await serverSecret(db, 'stats-cookie'),
    `${site.id}\u0000${site.passwordHash ?? ''}`,
  );
}

/** The value of a shared link's password cookie. */
export async function linkToken(db: Database, link: SharedLinkRow): Promise<string> {
  return hmacHex(
    await serverSecret(db, 'stats-cookie'),
    `link\u0000${link.id}\u0000${link.passwordHash ?? ''}`,
  );
}

/**
 * `{role}`: the person is the website's owner or a member of it, with that role; `granted`:
 * anyone may read it (public, or the right password cookie); `password`: the form; `hidden`:
 * a 404.
 */
export type StatsAccess = { role: Role } | 'granted' | 'hidden' | 'password';

/** The access of a person (or nobody) holding `cookie` (the site's password cookie, if any). */
export async function statsAccess(
  db: Database,
  person: { id: number } | null | undefined,
  site: WebsiteRow,
  cookie: string | undefined,
): Promise<StatsAccess> {
  // The owner is on the row already; a member's role is one more read.
  if (person?.id === site.ownerId) return { role: 'owner' };
  const member = person ? await websiteAccess(db, person.id, site.id) : undefined;
  if (member) return { role: member.role };
  if (site.privacy === 0) return 'granted';
  if (site.privacy === 2 && site.passwordHash)
    return cookie && timingSafeEqual(cookie, await siteToken(db, site)) ? 'granted' : 'password';
  return 'hidden';
}

/** Whether a shared link opens for a browser holding `cookie`: always without a password. */
export async function linkUnlocked(
  db: Database,
  link: SharedLinkRow,
  cookie: string | undefined,
): Promise<boolean> {
  if (!link.passwordHash) return true;
  return !!cookie && timingSafeEqual(cookie, await linkToken(db, link));
}

/** The website of a domain as a visitor typed it, if there is one. */
export async function websiteByDomain(db: Database, raw: string): Promise<WebsiteRow | undefined> {
  const normalized = normalizeDomain(raw);
  if (!normalized.ok) return undefined;
  return db.select().from(websites).where(eq(websites.domain, normalized.domain)).get();
}

/**
 * A guess at a password (a website's or a shared link's): counted per address and password
 * before anything is hashed, so a refused guess costs no PBKDF2. `retryAfter` seconds when
 * the throttle refused it.
 */
export async function guessStatsPassword(
  db: Database,
  password: StatsPassword,
  address: string,
  hash: string,
  guess: unknown,
): Promise<{ ok: true } | { ok: false; retryAfter?: number }> {
  const wait = await consumeStatsPasswordAttempt(db, password, address);
  if (wait > 0) return { ok: false, retryAfter: wait };
  if (typeof guess !== 'string' || !(await verifyPassword(guess, hash))) return { ok: false };
  await statsPasswordSucceeded(db, password, address);
  return { ok: true };
}
