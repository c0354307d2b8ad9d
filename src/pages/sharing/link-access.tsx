/**
 * A shared link's way in (docs/ARCHITECTURE.md, "Sharing" and "Secrets out of addresses"):
 * the link carries its token after `#` (`/share#{token}`, `/embed#{token}`), which browsers
 * never send; the page there posts it (`POST /share`, `POST /embed`) and gets a cookie signed
 * over the link and its token's hash, and the link's token-free address (`/share/{id}`,
 * `/embed/{id}`). A link in the old form (`/share/{token}…`) is traded the same way on its
 * first request, so its token is in one request at most. Under a link's address without its
 * cookie there is nothing: the 404 of a missing website.
 */

import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { createDb, type Database } from '../../db/client.ts';
import { hmacHex, serverSecret } from '../../db/secrets.ts';
import type { SharedLinkRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { timingSafeEqual } from '../../lib/crypto.ts';
import { ApiError } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { LINK_TOKEN, linkOfId, linkOfToken, type OpenLink } from '../../sharing/links.ts';
import { CODE_FIELD, FragmentForm } from '../layout/fragment-form.tsx';
import { render } from '../layout/layout.tsx';

/** Where a link's statistics are: `/share/…`, or `/embed/…` to be framed. */
export type Mount = 'share' | 'embed';

/**
 * A missing website, a private one, an unknown statistic, a link this browser does not hold:
 * all look exactly alike.
 */
export const notFound = () => new ApiError(404, 'There are no statistics here.');

/** Whether this request came through a shared link, and how. */
export function mountOf(c: Context<AppEnv>): Mount | null {
  const m = /^\/(share|embed)(?:\/|$)/.exec(c.req.path);
  return m ? (m[1] as Mount) : null;
}

/** How long a browser keeps a link it opened (the longest browsers allow): until revoked, in effect. */
const HELD_SECONDS = 400 * 24 * 3600;

/**
 * A cookie of a link's, under its address. An embed is framed by other sites: its cookies are
 * sent there only as `SameSite=None` and, where browsers keep third-party cookies apart
 * (CHIPS), `Partitioned` — kept for the framing site alone.
 */
export const linkCookieOptions = (mount: Mount, id: number, maxAge: number): CookieOptions => ({
  httpOnly: true,
  secure: true,
  path: `/${mount}/${id}`,
  maxAge,
  ...(mount === 'embed' ? { sameSite: 'None', partitioned: true } : { sameSite: 'Lax' }),
});

const heldCookie = (id: number) => `sl_share_${id}`;
const heldValue = async (db: Database, link: SharedLinkRow) =>
  hmacHex(await serverSecret(db, 'stats-cookie'), `share\u0000${link.id}\u0000${link.tokenHash}`);

/**
 * Trades a token for the cookie and sends the browser to the link's token-free address:
 * `rest` of the path and the query kept, `embed=true` (the old way to embed) the embed.
 */
async function trade(
  c: Context<AppEnv>,
  db: Database,
  { link }: OpenLink,
  mount: Mount,
  rest: string,
  params: URLSearchParams,
): Promise<Response> {
  let to = mount;
  if (params.get('embed') === 'true') {
    to = 'embed';
    params.delete('embed');
  }
  setCookie(
    c,
    heldCookie(link.id),
    await heldValue(db, link),
    linkCookieOptions(to, link.id, HELD_SECONDS),
  );
  const query = params.size > 0 ? `?${params}` : '';
  return c.redirect(`/${to}/${link.id}${rest}${query}`, 303);
}

/**
 * The link under `/share/{…}` or `/embed/{…}` when this browser holds it (its cookie), with
 * its website; for a token in the path (the old form), its trade. Else the 404.
 */
export async function heldLink(
  c: Context<AppEnv>,
  db: Database,
  mount: Mount,
): Promise<OpenLink | Response> {
  const segment = c.req.param('domain') ?? '';
  if (LINK_TOKEN.test(segment)) {
    const found = c.req.method === 'GET' ? await linkOfToken(db, segment) : undefined;
    if (!found) throw notFound();
    const url = new URL(c.req.url);
    const rest = url.pathname.slice(`/${mount}/${segment}`.length);
    return trade(c, db, found, mount, rest, url.searchParams);
  }
  const id = parseId(segment);
  const found = id === null ? undefined : await linkOfId(db, id);
  const cookie = id === null ? undefined : getCookie(c, heldCookie(id));
  if (!found || !cookie || !timingSafeEqual(cookie, await heldValue(db, found.link)))
    throw notFound();
  if (mount === 'embed') c.set('embedded', true);
  return found;
}

/** `GET /share`, `GET /embed`: the page that sends the token after `#` on. */
async function opener(c: Context<AppEnv>, mount: Mount) {
  if (mount === 'embed') c.set('embedded', true);
  const { search } = new URL(c.req.url);
  return render(c, {
    title: 'Shared statistics',
    children: (
      <>
        <h1>Shared statistics</h1>
        <FragmentForm
          action={`/${mount}${search}`}
          label="The code of the link (after # in its address)"
          button="Show the statistics"
          auto
        />
      </>
    ),
  });
}

/** `POST /share`, `POST /embed`: the token of the form (parameters may follow it after `?`). */
async function opened(c: Context<AppEnv>, mount: Mount) {
  if (mount === 'embed') c.set('embedded', true);
  const db = createDb(c.env.DB);
  const code = formText((await c.req.parseBody())[CODE_FIELD]).trim();
  const at = code.indexOf('?');
  const found = await linkOfToken(db, at < 0 ? code : code.slice(0, at));
  if (!found) throw notFound();
  const params = new URL(c.req.url).searchParams;
  if (at >= 0) for (const [k, v] of new URLSearchParams(code.slice(at + 1))) params.set(k, v);
  return trade(c, db, found, mount, '', params);
}

/** `/share` and `/embed`: where a link's address leads first. */
export function registerLinkOpeners(pages: Hono<AppEnv>) {
  for (const mount of ['share', 'embed'] as const) {
    pages.get(`/${mount}`, (c) => opener(c, mount));
    pages.post(`/${mount}`, (c) => opened(c, mount));
  }
}
