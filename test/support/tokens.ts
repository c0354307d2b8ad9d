/**
 * Following the links that carry a secret (a shared link, an invitation, an unsubscribe
 * link) the way a browser does: the part after `#` is never sent; the page's script copies
 * it into its form's `data-fragment` field and, when the form says `data-auto`, submits it
 * (docs/ARCHITECTURE.md, "Secrets out of addresses"). Redirects are followed. `sent` lists
 * every path and query a browser sent — what a request log would show.
 */
import {
  type Browser,
  newBrowser,
  type PageResponse,
  type RequestOptions,
} from './browser-session.ts';

/** A browser that records the path and query of every request it sends. */
export function recordingBrowser(ip?: string): Browser & { sent: string[] } {
  const inner = newBrowser(ip === undefined ? {} : { ip });
  const sent: string[] = [];
  return {
    sent,
    cookies: inner.cookies,
    ip: inner.ip,
    get(path: string, options?: RequestOptions) {
      sent.push(path);
      return inner.get(path, options);
    },
    post(path: string, fields: Record<string, string | string[]>, options?: RequestOptions) {
      sent.push(path);
      return inner.post(path, fields, options);
    },
  };
}

/** The form of a page that takes a secret from the address's fragment, if any. */
export function fragmentForm(
  html: string,
): { action: string; field: string; auto: boolean } | undefined {
  const form = /<form([^>]*)>([\s\S]*?)<\/form>/g;
  for (const [, attributes = '', body = ''] of html.matchAll(form)) {
    const input = /<input[^>]*data-fragment[^>]*>/.exec(body)?.[0];
    if (!input) continue;
    return {
      action: (/action="([^"]*)"/.exec(attributes)?.[1] ?? '').replaceAll('&amp;', '&'),
      field: /name="([^"]+)"/.exec(input)?.[1] ?? '',
      auto: attributes.includes('data-auto'),
    };
  }
  return undefined;
}

/** A page and the path (with query) it was answered for. */
export type Visited = PageResponse & { path: string };

/** The path and query of an address (as a `Location` may give it, relative or absolute). */
const pathOf = (location: string) => {
  const url = new URL(location, 'https://sightline.invalid');
  return `${url.pathname}${url.search}`;
};

/** Follows redirects from `res`, the answer for `path` (GET), at most five. */
async function followRedirects(
  browser: Browser,
  path: string,
  res: PageResponse,
): Promise<Visited> {
  let current: Visited = { ...res, path };
  for (let i = 0; i < 5 && current.location && current.status >= 300 && current.status < 400; i++) {
    const next = pathOf(current.location);
    current = { ...(await browser.get(next)), path: next };
  }
  return current;
}

/**
 * Opens `url` as a browser would: the request without its fragment, then — when the page
 * takes the fragment and submits itself — its form posted with the fragment; redirects
 * followed.
 */
export async function visit(browser: Browser, url: string): Promise<Visited> {
  const { hash } = new URL(url);
  const first = pathOf(url);
  const page = await followRedirects(browser, first, await browser.get(first));
  const form = fragmentForm(page.text);
  if (!form?.auto || !hash) return page;
  const code = decodeURIComponent(hash.slice(1));
  return followRedirects(
    browser,
    form.action,
    await browser.post(form.action, { [form.field]: code }),
  );
}

/** Opens a shared link's statistics (`query` added to the address the link opens at). */
export async function openSharedLink(browser: Browser, url: string, query = ''): Promise<Visited> {
  const opened = await visit(browser, url);
  if (!query || opened.status !== 200) return opened;
  const path = `${opened.path.split('?')[0]}?${query}`;
  return { ...(await browser.get(path)), path };
}

/** Accepts an invitation with a password (the invited login's, or a new one's). */
export async function openInvitation(
  browser: Browser,
  url: string,
  password: string,
): Promise<PageResponse> {
  const page = await visit(browser, url);
  if (page.status !== 200) return page;
  const action = /<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(page.text);
  const code = /name="code" value="([^"]*)"/.exec(action?.[2] ?? '')?.[1] ?? '';
  return browser.post(action?.[1] ?? '', { code, accept: '1', password });
}
