/**
 * Who may read a website's statistics page (docs/ARCHITECTURE.md, The HTTP contract).
 * Public websites are open to anyone; private ones only to their owner and members (everyone else gets
 * the same 404 as for a missing site, and no figure leaks); password-protected ones ask for
 * the password once and then trust a per-site cookie signed with the server secret over the
 * site's password hash, so changing the password revokes every such cookie.
 */
import { eq } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { verifyPassword } from '../accounts/password.ts';
import {
  consumeStatsPasswordAttempt,
  type StatsPassword,
  statsPasswordSucceeded,
} from '../accounts/throttle.ts';
import { createDb, type Database } from '../db/client.ts';
import { type GoalRow, type SharedLinkRow, type WebsiteRow, websites } from '../db/schema.ts';
import { hmacHex, serverSecret } from '../db/secrets.ts';
import type { AppEnv } from '../env.ts';
import { listGoals } from '../goals/goals.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { resolveRange } from '../lib/dates.ts';
import { ApiError } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { RETRY_AFTER_SECONDS, withinReadLimits } from '../lib/rate-limit.ts';
import { filterParam, parseV1Filters } from '../stats/filters.ts';
import { namesGoal } from '../stats/goals.ts';
import { firstDateOf, isGoalFilter } from '../stats/source.ts';
import { normalizeDomain } from '../websites/domain.ts';
import { websiteAccess } from '../websites/queries.ts';
import { Field, render } from './layout.tsx';
import { heldLink, linkCookieOptions, type Mount, mountOf, notFound } from './shared-access.tsx';
import type { View } from './stats-view.tsx';

const cookieName = (site: WebsiteRow) => `sl_site_${site.id}`;

async function siteToken(db: Database, site: WebsiteRow): Promise<string> {
  return hmacHex(
    await serverSecret(db, 'stats-cookie'),
    `${site.id}\u0000${site.passwordHash ?? ''}`,
  );
}

/** `team`: the signed-in person is the website's owner or a member of it. */
type Access = 'team' | 'granted' | 'hidden' | 'password';

async function accessTo(c: Context<AppEnv>, db: Database, site: WebsiteRow): Promise<Access> {
  const person = c.get('owner');
  // The owner is on the row already; a member's role is one more read.
  if (person && (person.id === site.ownerId || (await websiteAccess(db, person.id, site.id))))
    return 'team';
  if (site.privacy === 0) return 'granted';
  if (site.privacy === 2 && site.passwordHash) {
    const cookie = getCookie(c, cookieName(site));
    return cookie && timingSafeEqual(cookie, await siteToken(db, site)) ? 'granted' : 'password';
  }
  return 'hidden';
}

async function findByDomain(db: Database, raw: string): Promise<WebsiteRow | undefined> {
  const normalized = normalizeDomain(raw);
  if (!normalized.ok) return undefined;
  return db.select().from(websites).where(eq(websites.domain, normalized.domain)).get();
}

function passwordPage(
  c: Context<AppEnv>,
  site: WebsiteRow,
  error?: string,
  status: 200 | 422 | 429 = 200,
  action = `/stats/${site.domain}/password`,
) {
  return render(
    c,
    {
      title: site.domain,
      children: (
        <>
          <h1>{site.domain}</h1>
          <form method="post" action={action} class="stack card" novalidate>
            <p>The statistics of this website are protected by a password.</p>
            <Field label="Password" name="password" error={error ? [error] : undefined}>
              <input
                id="password"
                name="password"
                type="password"
                autocomplete="current-password"
                required
              />
            </Field>
            <div class="actions">
              <button type="submit">Show statistics</button>
            </div>
          </form>
        </>
      ),
    },
    status,
  );
}

/** A link's password cookie: signed over the link and its password hash. */
const linkCookie = (link: SharedLinkRow) => `sl_link_${link.id}`;
const linkToken = async (db: Database, link: SharedLinkRow) =>
  hmacHex(
    await serverSecret(db, 'stats-cookie'),
    `link\u0000${link.id}\u0000${link.passwordHash ?? ''}`,
  );

/**
 * The website a shared link opens (docs/ARCHITECTURE.md, "Sharing"), for a browser that holds
 * the link (./shared-access.tsx); a link with a password asks for it once (then a cookie
 * signed over the link and its password). Links start at the link's own address, so its
 * pages link to one another and to nothing else.
 */
async function sharedSite(
  c: Context<AppEnv>,
  db: Database,
  mount: Mount,
): Promise<{ site: WebsiteRow; db: Database } | Response> {
  const held = await heldLink(c, db, mount);
  if (held instanceof Response) return held;
  const { link, site } = held;
  const base = `/${mount}/${link.id}`;
  if (link.passwordHash) {
    const cookie = getCookie(c, linkCookie(link));
    if (!cookie || !timingSafeEqual(cookie, await linkToken(db, link)))
      return passwordPage(c, site, undefined, 200, `${base}/password`);
  }
  c.set('statsBase', base);
  return { site, db };
}

/**
 * The website of the `:domain` in the path when the visitor may read it (or of the shared
 * link's token); else a 404, or the password form (a Response) for a protected website or
 * link without its cookie.
 */
export async function readableSite(
  c: Context<AppEnv>,
): Promise<{ site: WebsiteRow; db: Database } | Response> {
  const db = createDb(c.env.DB);
  const mount = mountOf(c);
  let found: { site: WebsiteRow; db: Database } | Response;
  let team = false;
  if (mount) found = await sharedSite(c, db, mount);
  else {
    const site = await findByDomain(db, c.req.param('domain') ?? '');
    if (!site) throw notFound();
    const access = await accessTo(c, db, site);
    if (access === 'hidden') throw notFound();
    if (access === 'password') return passwordPage(c, site);
    team = access === 'team';
    found = { site, db };
  }
  if (found instanceof Response) return found;
  // Readers pay their way: per client address and website, anonymous ones also per website
  // (src/lib/rate-limit.ts); a shared link's readers are anonymous, its owner and members not.
  if (!(await withinReadLimits(c.env, clientAddressKey(c), found.site.id, team)))
    throw new ApiError(
      429,
      'These statistics were asked for too often. Try again in a minute.',
      undefined,
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  return found;
}

/** What a password guards: the website's statistics, or a shared link to them. */
type Guarded = {
  site: WebsiteRow;
  /** Whose guesses are counted together (src/accounts/throttle.ts). */
  password: StatsPassword;
  hash: string;
  /** Where the form posts, and where a right guess goes. */
  action: string;
  home: string;
  cookie: { name: string; value: () => Promise<string>; options: CookieOptions };
};

/** How long a right password is remembered. */
const PASSWORD_COOKIE_SECONDS = 30 * 24 * 3600;

/**
 * A guess at a password (a website's or a shared link's): counted per address and password
 * before anything is hashed, so a refused guess costs no PBKDF2; a right one sets the signed
 * cookie and goes to the statistics.
 */
async function checkPassword(c: Context<AppEnv>, db: Database, g: Guarded): Promise<Response> {
  const address = clientAddressKey(c);
  const wait = await consumeStatsPasswordAttempt(db, g.password, address);
  if (wait > 0) {
    c.header('Retry-After', String(wait));
    return passwordPage(c, g.site, 'Too many attempts. Try again later.', 429, g.action);
  }
  const password = (await c.req.parseBody()).password;
  if (typeof password !== 'string' || !(await verifyPassword(password, g.hash)))
    return passwordPage(c, g.site, 'The password is incorrect.', 422, g.action);
  await statsPasswordSucceeded(db, g.password, address);
  setCookie(c, g.cookie.name, await g.cookie.value(), g.cookie.options);
  return c.redirect(g.home, 303);
}

/**
 * `POST /stats/{domain}/password` (a website's password) and `POST /share/{id}/password`
 * or `POST /embed/{id}/password` (a shared link's): checks a guess and sets the cookie.
 */
export function registerPasswordRoute(pages: Hono<AppEnv>) {
  pages.post('/:domain/password', async (c) => {
    const db = createDb(c.env.DB);
    const mount = mountOf(c);
    if (mount) {
      const held = await heldLink(c, db, mount);
      const hash = held instanceof Response ? null : held.link.passwordHash;
      if (held instanceof Response || !hash) throw notFound();
      const { link, site } = held;
      const base = `/${mount}/${link.id}`;
      return checkPassword(c, db, {
        site,
        password: { kind: 'link', id: link.id },
        hash,
        action: `${base}/password`,
        home: base,
        cookie: {
          name: linkCookie(link),
          value: () => linkToken(db, link),
          options: linkCookieOptions(mount, link.id, PASSWORD_COOKIE_SECONDS),
        },
      });
    }
    const site = await findByDomain(db, c.req.param('domain'));
    if (site?.privacy !== 2 || !site.passwordHash) throw notFound();
    return checkPassword(c, db, {
      site,
      password: { kind: 'site', id: site.id },
      hash: site.passwordHash,
      action: `/stats/${site.domain}/password`,
      home: `/stats/${site.domain}`,
      cookie: {
        name: cookieName(site),
        value: () => siteToken(db, site),
        options: {
          httpOnly: true,
          secure: true,
          sameSite: 'Lax',
          path: `/stats/${site.domain}`,
          maxAge: PASSWORD_COOKIE_SECONDS,
        },
      },
    });
  });
}

/**
 * The view an address asks for, and the filter parameters it named that could not be used
 * (with the website's goals when a goal filter made it read them). "All time" starts at the
 * website's oldest date with data: in the roll-ups once the log has flushed into them, so
 * that a hit not rolled up yet is within it.
 */
export async function viewOf(
  c: Context<AppEnv>,
  site: WebsiteRow,
  db: Database,
): Promise<{ view: View; refused: string[]; goals?: GoalRow[] }> {
  const parsed = parseV1Filters(new URL(c.req.url).searchParams);
  const refused = Object.keys(parsed.errors);
  // A goal filter names one of the website's goals, or it is said it could not be used.
  let filters = parsed.filters;
  let goals: GoalRow[] | undefined;
  if (filters.some(isGoalFilter)) {
    const named = await listGoals(db, site.id);
    goals = named;
    filters = filters.filter((f) => {
      const known =
        !isGoalFilter(f) ||
        named.some((g) =>
          namesGoal(g, { op: f.operator, caseSensitive: f.operator !== 'contains' }, f.value),
        );
      if (!known) refused.push(filterParam(f));
      return known;
    });
  }
  const query = c.req.query();
  const first = query.range === 'all' ? await firstDateOf(c.env, db, site.id) : null;
  return {
    view: {
      range: resolveRange(query, site.timezone, Date.now(), first),
      filters,
      base: c.get('statsBase') ?? `/stats/${site.domain}`,
    },
    refused,
    ...(goals ? { goals } : {}),
  };
}
