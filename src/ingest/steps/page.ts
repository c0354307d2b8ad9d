/**
 * The recorded page: path and query of the page URL with the website's excluded query
 * parameters removed (DESIGN §3.1 `exclude_params`), at most 255 characters.
 */
import { listEntries } from '../../websites/line-list.ts';

export const MAX_PAGE = 255;

/** Parameter names from an `exclude_params` text; `*` means all. */
export function excludedParams(text: string): { all: boolean; names: Set<string> } {
  const names = new Set<string>();
  let all = false;
  for (const entry of listEntries(text)) {
    if (entry === '*') all = true;
    else names.add(entry);
  }
  return { all, names };
}

export function pagePath(url: URL, exclude: { all: boolean; names: Set<string> }): string {
  let query = '';
  if (!exclude.all && url.search !== '') {
    // Rebuild from the raw pairs so that kept parameters stay exactly as the page wrote them.
    const kept = url.search
      .slice(1)
      .split('&')
      .filter((pair) => {
        if (pair === '') return false;
        const name = pair.split('=', 1)[0] ?? '';
        let decoded = name;
        try {
          decoded = decodeURIComponent(name.replace(/\+/g, ' '));
        } catch {
          // A malformed escape: compare the raw name.
        }
        return !exclude.names.has(decoded);
      });
    query = kept.length > 0 ? `?${kept.join('&')}` : '';
  }
  return `${url.pathname}${query}`.slice(0, MAX_PAGE);
}

/** `utm_campaign` of the page URL, trimmed and bounded, or null. */
export function campaignOf(url: URL): string | null {
  const value = url.searchParams.get('utm_campaign')?.trim();
  return value ? value.slice(0, MAX_PAGE) : null;
}
