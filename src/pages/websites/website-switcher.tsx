/**
 * One click between what belongs together: on a website's statistics page, a link to its
 * settings (for its owner and admins) and a menu of the person's other websites; on its
 * settings pages, a link to its statistics and the same menu. Only for a signed-in person reading as themselves — never on
 * a shared link's pages, which show one website and nothing of who made them.
 */
import type { Context } from 'hono';
import type { Database } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { listWebsites, type Role } from '../../websites/queries.ts';

/** Websites the menu lists at most (the websites page lists every one). */
const LISTED = 50;

type Listed = { id: number; domain: string; role: Role | null };

/** Where a website of the menu opens: its statistics, or (`settings`, when the role allows) its settings. */
const hrefOf = (site: Listed, to: 'stats' | 'settings') =>
  to === 'settings' && site.role !== null && site.role !== 'viewer'
    ? `/websites/${site.id}`
    : `/stats/${site.domain}`;

/**
 * The menu of the person's websites besides `current`, and the link across (to settings or
 * statistics); from statistics, another website's open with the same `kept` parameters (the
 * range and the filters that mean the same on every website).
 */
export async function websiteLinks(
  db: Database,
  person: { id: number; admin: boolean },
  current: WebsiteRow,
  on: 'stats' | 'settings',
  kept: [string, string][] = [],
) {
  const query = kept.length > 0 ? `?${new URLSearchParams(kept)}` : '';
  const linkOf = (site: Listed) => {
    const href = hrefOf(site, on);
    return href.startsWith('/stats/') ? `${href}${query}` : href;
  };
  const { rows } = await listWebsites(db, person.id, {
    sortBy: 'domain',
    sort: 'asc',
    limit: LISTED + 1,
    offset: 0,
  });
  const others = rows.filter((site) => site.id !== current.id).slice(0, LISTED);
  return (
    <nav class="website-links" aria-label="Websites">
      {on === 'stats' && person.admin ? <a href={`/websites/${current.id}`}>Settings</a> : null}
      {on === 'settings' ? <a href={`/stats/${current.domain}`}>Statistics</a> : null}
      {others.length > 0 ? (
        <details class="switcher">
          <summary>Other websites</summary>
          <ul>
            {others.map((site) => (
              <li>
                <a href={linkOf(site)}>{site.domain}</a>
              </li>
            ))}
            <li>
              <a href="/websites">All websites</a>
            </li>
          </ul>
        </details>
      ) : null}
    </nav>
  );
}

/** The stats page's links for its reader: only a signed-in person reading as themselves. */
export function statsReader(c: Context<AppEnv>) {
  const reader = c.get('teamReader');
  return reader && !c.get('statsBase') ? reader : undefined;
}
