/**
 * A website's settings area: one short page per subject, each at its own address under
 * `/websites/{id}` (the general page at the website's address itself), and the navigation
 * between them, the same on every page. The forms of a page post to its own address's
 * children and come back to the page (`settingsPath`).
 *
 * @example
 * settingsPath(7, 'goals', 'goal=added') // "/websites/7/goals?goal=added"
 */
import type { FC } from 'hono/jsx';
import type { WebsiteRow } from '../../db/schema.ts';

/** The settings pages, in the navigation's order: their address under the website's, and name. */
export const SETTINGS_PAGES = [
  { path: '', name: 'General' },
  { path: 'goals', name: 'Goals' },
  { path: 'funnels', name: 'Funnels' },
  { path: 'segments', name: 'Segments' },
  { path: 'alerts', name: 'Alerts and reports' },
  { path: 'sharing', name: 'Sharing' },
  { path: 'members', name: 'Members' },
  { path: 'imports', name: 'Imports and exports' },
  { path: 'filtered', name: 'Filtered traffic' },
  { path: 'storage', name: 'Storage' },
  { path: 'danger', name: 'Danger zone' },
] as const;

export type SettingsPage = (typeof SETTINGS_PAGES)[number]['path'];

export const settingsName = (page: SettingsPage): string =>
  SETTINGS_PAGES.find((p) => p.path === page)?.name ?? 'General';

/** A settings page's address, with what was just done there (`goal=added`) for its notice. */
export function settingsPath(websiteId: number, page: SettingsPage, done?: string): string {
  const path = page === '' ? `/websites/${websiteId}` : `/websites/${websiteId}/${page}`;
  return done ? `${path}?${done}` : path;
}

/** The settings' navigation: every page, the one shown marked as current. */
export const SettingsNav: FC<{ site: WebsiteRow; page: SettingsPage }> = ({ site, page }) => (
  <nav class="settings-nav" aria-label="Settings">
    <ul>
      {SETTINGS_PAGES.map((p) => (
        <li>
          <a
            href={settingsPath(site.id, p.path)}
            aria-current={p.path === page ? 'page' : undefined}
          >
            {p.name}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);
