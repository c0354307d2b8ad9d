/**
 * Following the links that carry a secret (a shared link, an invitation) the way a browser
 * does, whatever form the link has.
 */
import type { Browser, PageResponse } from './browser-session.ts';

/** Opens a shared link's statistics (`query` appended) in `browser`. */
export async function openSharedLink(
  browser: Browser,
  url: string,
  query = '',
): Promise<PageResponse> {
  const { pathname } = new URL(url);
  return browser.get(`${pathname}${query ? `?${query}` : ''}`);
}

/** Accepts an invitation with a password (the invited login's, or a new one's). */
export async function openInvitation(
  browser: Browser,
  url: string,
  password: string,
): Promise<PageResponse> {
  return browser.post(new URL(url).pathname, { password });
}
