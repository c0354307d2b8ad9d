/**
 * A tiny browser for the dashboard pages: keeps the cookies the Worker sets, sends form posts
 * the way a browser does (form-urlencoded, with `Origin`), never follows redirects, and
 * presents itself from its own client IP (`CF-Connecting-IP`), so that login throttling per IP
 * in one test does not spill into the next.
 */
import { exports } from 'cloudflare:workers';
import { ORIGIN } from './api.ts';
import { OWNER_PASSWORD } from './owner-password.ts';

/** The password `makeOwner()` gives every owner. */
export const CROSS_SITE_ORIGIN = 'https://evil.example';

export type PageResponse = {
  status: number;
  headers: Headers;
  text: string;
  /** The `Location` header of a redirect (null otherwise). */
  location: string | null;
};

export type RequestOptions = {
  /** `Origin` of a POST; defaults to the Worker's own origin, null sends none. */
  origin?: string | null;
  headers?: Record<string, string>;
};

export type Browser = {
  /** The cookie jar: name → value (every cookie of this app is `Path=/`). */
  cookies: Map<string, string>;
  /** The client IP the Worker sees. */
  ip: string;
  get(path: string, options?: RequestOptions): Promise<PageResponse>;
  post(
    path: string,
    fields: Record<string, string | string[]>,
    options?: RequestOptions,
  ): Promise<PageResponse>;
};

let browserSeq = 0;

/** A fresh IP per browser: 198.18.0.0/15 is reserved for benchmarking, never a real client. */
function nextIp(): string {
  browserSeq += 1;
  return `198.18.${Math.floor(browserSeq / 250) % 256}.${(browserSeq % 250) + 1}`;
}

/** Applies one `Set-Cookie` header to the jar (Max-Age=0 or a past Expires deletes). */
function storeCookie(jar: Map<string, string>, header: string): void {
  const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  if (eq <= 0) return;
  const name = pair.slice(0, eq);
  const value = pair.slice(eq + 1);
  const expired = attributes.some((attribute) => {
    const [key = '', val = ''] = attribute.split('=', 2);
    if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
    if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now();
    return false;
  });
  if (expired || value === '') jar.delete(name);
  else jar.set(name, value);
}

export function newBrowser({ ip = nextIp() }: { ip?: string } = {}): Browser {
  const cookies = new Map<string, string>();

  const send = async (path: string, init: RequestInit & { headers: Record<string, string> }) => {
    init.headers['cf-connecting-ip'] = ip;
    if (cookies.size > 0) {
      init.headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}${path}`, { ...init, redirect: 'manual' }),
    );
    for (const header of res.headers.getSetCookie()) storeCookie(cookies, header);
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
  };

  return {
    cookies,
    ip,
    get: (path, options = {}) =>
      send(path, { method: 'GET', headers: { accept: 'text/html', ...options.headers } }),
    post: (path, fields, options = {}) => {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) {
        for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
      }
      const headers: Record<string, string> = {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      };
      const origin = options.origin === undefined ? ORIGIN : options.origin;
      if (origin !== null) headers.origin = origin;
      return send(path, {
        method: 'POST',
        headers: { ...headers, ...options.headers },
        body: body.toString(),
      });
    },
  };
}

/** The value of the page's hidden `_csrf` input (the first one); throws when there is none. */
export function csrfFrom(html: string): string {
  const input = html.match(/<input\b[^>]*\bname="_csrf"[^>]*>/)?.[0];
  const value = input?.match(/\bvalue="([^"]*)"/)?.[1];
  if (!value) throw new Error('no _csrf token on the page');
  return value;
}

/** Signs in through the login form; throws unless the Worker answers 303 to /websites. */
export async function login(b: Browser, email: string, password: string): Promise<PageResponse> {
  const form = await b.get('/login');
  if (form.status !== 200) throw new Error(`GET /login answered ${form.status}`);
  const res = await b.post('/login', { email, password });
  if (res.status !== 303 || res.location !== '/websites') {
    throw new Error(`login failed: ${res.status} ${res.location ?? ''}`);
  }
  return res;
}

/** A browser signed in as `owner` (made by `makeOwner()`). */
export async function signedIn(owner: { email: string }, password = OWNER_PASSWORD) {
  const b = newBrowser();
  await login(b, owner.email, password);
  return b;
}

/** Text as Hono's JSX writes it into HTML. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** The inner HTML of `<label for="id">…</label>` (a field, its hint and its error message). */
export function labelFor(html: string, id: string): string | undefined {
  // The label's own attributes may follow (`data-shown-if`).
  const start = html.search(new RegExp(`<label for="${id}"[ >]`));
  if (start === -1) return undefined;
  const end = html.indexOf('</label>', start);
  return html.slice(start, end === -1 ? undefined : end);
}

/** Every start tag `<name …>` of the page. */
export function tags(html: string, name: string): string[] {
  return html.match(new RegExp(`<${name}\\b[^>]*>`, 'g')) ?? [];
}

/** The value of one attribute of a start tag (undefined when absent, '' for a bare one). */
export function attr(tag: string, name: string): string | undefined {
  const m = tag.match(new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s/>])`));
  return m ? (m[1] ?? '') : undefined;
}
