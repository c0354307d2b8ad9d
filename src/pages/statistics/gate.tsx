/**
 * The statistics pages' gate: the website or shared link an address opens, the password form
 * and its cookie, the readers' rate limit, and the view an address asks for. Who may read
 * what is decided in src/websites/stats-access.ts.
 */
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import type { StatsPassword } from '../../accounts/throttle.ts';
import { createDb, type Database } from '../../db/client.ts';
import type { GoalRow, WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { ApiError } from '../../lib/errors.ts';
import { clientAddressKey } from '../../lib/ip.ts';
import { RETRY_AFTER_SECONDS, withinReadLimits } from '../../lib/rate-limit.ts';
import { resolveRange } from '../../lib/time/dates.ts';
import { namesGoal } from '../../query/parse/goal-filters.ts';
import { SEGMENT_FILTER } from '../../query/parse/v1.ts';
import { filterParam, parseV1Filters } from '../../query/parse/v1-filters.ts';
import { segmentFilter, withSavedSegments } from '../../query/parse/v2/saved-segments.ts';
import { matchedFilters } from '../../query/present/filter-values.ts';
import { firstDateOf, isGoalFilter, websiteNumbers } from '../../query/present/numbers.ts';
import {
  guessStatsPassword,
  linkCookieName,
  linkToken,
  linkUnlocked,
  PASSWORD_COOKIE_SECONDS,
  siteCookieName,
  siteToken,
  statsAccess,
  websiteByDomain,
} from '../../websites/stats-access.ts';
import { embedThemeIn, Field, render } from '../layout/layout.tsx';
import {
  heldLink,
  linkCookieOptions,
  type Mount,
  mountOf,
  notFound,
} from '../sharing/link-access.tsx';
import type { View } from './view.tsx';

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

/**
 * The website a shared link opens (docs/ARCHITECTURE.md, "Sharing"), for a browser that holds
 * the link (../sharing/link-access.tsx); a link with a password asks for it once (then a cookie
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
  const { link, site, segment } = held;
  // A link limited to a segment shows it or nothing: one whose filters no longer parse opens
  // nothing (src/sharing/links.ts finds no link whose segment is gone or not a site one).
  const limited = segment ? segmentFilter(segment) : null;
  if (segment && !limited) throw notFound();
  const base = `/${mount}/${link.id}`;
  if (!(await linkUnlocked(db, link, getCookie(c, linkCookieName(link)))))
    return passwordPage(c, site, undefined, 200, `${base}/password`);
  c.set('statsBase', base);
  if (segment && limited) c.set('linkSegment', segment);
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
    const site = await websiteByDomain(db, c.req.param('domain') ?? '');
    if (!site) throw notFound();
    const owner = c.get('owner');
    const access = await statsAccess(db, owner, site, getCookie(c, siteCookieName(site)));
    if (access === 'hidden') throw notFound();
    if (access === 'password') return passwordPage(c, site);
    if (owner && typeof access === 'object') {
      team = true;
      c.set('teamReader', { id: owner.id, admin: access.role !== 'viewer' });
    }
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

/** A guess at a password (src/websites/stats-access.ts); a right one sets the cookie. */
async function checkPassword(c: Context<AppEnv>, db: Database, g: Guarded): Promise<Response> {
  const guess = (await c.req.parseBody()).password;
  const result = await guessStatsPassword(db, g.password, clientAddressKey(c), g.hash, guess);
  if (!result.ok && result.retryAfter) {
    c.header('Retry-After', String(result.retryAfter));
    return passwordPage(c, g.site, 'Too many attempts. Try again later.', 429, g.action);
  }
  if (!result.ok) return passwordPage(c, g.site, 'The password is incorrect.', 422, g.action);
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
          name: linkCookieName(link),
          value: () => linkToken(db, link),
          options: linkCookieOptions(mount, link.id, PASSWORD_COOKIE_SECONDS),
        },
      });
    }
    const site = await websiteByDomain(db, c.req.param('domain'));
    if (site?.privacy !== 2 || !site.passwordHash) throw notFound();
    return checkPassword(c, db, {
      site,
      password: { kind: 'site', id: site.id },
      hash: site.passwordHash,
      action: `/stats/${site.domain}/password`,
      home: `/stats/${site.domain}`,
      cookie: {
        name: siteCookieName(site),
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
  const parsed = parseV1Filters(new URL(c.req.url).searchParams, { anyOf: true });
  const refused = Object.keys(parsed.errors);
  // A shared link limited to a segment adds it, whatever the address says (the reader cannot
  // remove it); a segment the reader does not see is said it could not be used.
  const linked = c.get('linkSegment');
  // The link's segment parsed when the link was opened (sharedSite): it parses.
  const limited = linked ? segmentFilter(linked) : null;
  // Only the website's owner and members use saved segments; a link's is its own, read with
  // the link (sharedSite), and no address removes or replaces it.
  const reader = c.get('teamReader');
  const usable = parsed.filters.filter((f) => f.dimension !== SEGMENT_FILTER || reader);
  for (const f of parsed.filters) if (!usable.includes(f) && !limited) refused.push(filterParam(f));
  const read = await withSavedSegments(db, site.id, reader?.id ?? 0, usable);
  for (const f of read.unknown) refused.push(filterParam(f));
  // A goal filter names one of the website's goals, or it is said it could not be used.
  let filters = limited ? [limited, ...read.filters] : read.filters;
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
  const range = resolveRange(query, site.timezone, Date.now(), first);
  // Values typed as people read them find what is stored; those that match nothing say so.
  const unfiltered = websiteNumbers(c.env, db, site.id, [], []).source;
  const matched = await matchedFilters(unfiltered, range, filters);
  const theme = embedThemeIn(c);
  return {
    view: {
      range,
      filters: matched.map((m) => m.filter),
      base: c.get('statsBase') ?? `/stats/${site.domain}`,
      ...(limited ? { locked: limited.value } : {}),
      timeZone: site.timezone,
      unmatched: matched.flatMap((m) => m.unmatched.map((v) => `${filterParam(m.filter)}=${v}`)),
      ...(theme ? { theme } : {}),
    },
    refused,
    ...(goals ? { goals } : {}),
  };
}
