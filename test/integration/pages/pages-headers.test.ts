/**
 * What every dashboard page must carry: strict security headers, no inline scripts or styles
 * (the Content-Security-Policy would block them), its own cache-friendly assets, and a label
 * for every form field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeOwner, makeWebsite } from '../../support/api.ts';
import {
  attr,
  type Browser,
  csrfFrom,
  newBrowser,
  type PageResponse,
  signedIn,
  tags,
} from '../../support/browser-session.ts';

let siteId: number;
const pages = new Map<string, PageResponse>();

/** Every kind of page, by name (`:id` is an existing website of the signed-in owner). */
const PAGES = [
  '/login',
  '/register',
  'POST /login (422)',
  '/websites',
  '/websites?deleted=x.example.com',
  '/websites/new',
  '/websites/:id',
  '/websites/:id/goals',
  '/websites/:id/funnels',
  '/websites/:id/segments',
  '/websites/:id/alerts',
  '/websites/:id/sharing',
  '/websites/:id/members',
  '/websites/:id/imports',
  '/websites/:id/storage',
  '/websites/:id/danger',
  '/websites/:id/delete',
  '/websites/999999',
  '/account',
  'POST /websites (422)',
  'POST /account/password (422)',
] as const;

beforeAll(async () => {
  const owner = await makeOwner('headers');
  siteId = (await makeWebsite(owner.key)).id;
  const anonymous = newBrowser();
  pages.set('/login', await anonymous.get('/login'));
  pages.set('/register', await anonymous.get('/register'));
  pages.set(
    'POST /login (422)',
    await anonymous.post('/login', { email: owner.email, password: 'wrong password' }),
  );
  const b: Browser = await signedIn(owner);
  for (const name of PAGES) {
    if (!name.startsWith('/websites') && name !== '/account') continue;
    pages.set(name, await b.get(name.replace(':id', String(siteId))));
  }
  const token = csrfFrom(pages.get('/account')?.text ?? '');
  pages.set(
    'POST /websites (422)',
    await b.post('/websites', { _csrf: token, domain: 'exa mple.com', timezone: 'Mars/Base' }),
  );
  pages.set(
    'POST /account/password (422)',
    await b.post('/account/password', { _csrf: token, current_password: 'nope' }),
  );
});

describe.each(PAGES)('%s', (name) => {
  const page = () => pages.get(name) as PageResponse;

  it('is an HTML page', () => {
    expect(page().headers.get('content-type')).toMatch(/^text\/html;\s*charset=utf-8$/i);
    expect(page().text).toMatch(/<html lang="en">/);
  });

  it('has a strict Content-Security-Policy and the other security headers', () => {
    const csp = page().headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([directive = '', ...sources]) => [directive, sources]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page().headers.get('x-content-type-options')).toBe('nosniff');
    expect(page().headers.get('referrer-policy')).toBe('same-origin');
    expect(page().headers.get('cache-control')).toBe('private, no-store');
  });

  it('has no inline scripts, styles or event handlers', () => {
    const html = page().text;
    for (const [, attributes, content] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(content).toBe('');
      expect(attributes).toMatch(/\bsrc="\/assets\/app\.[0-9a-f]{12}\.js"/);
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it('labels every form field', () => {
    const html = page().text;
    const labelled = new Set(tags(html, 'label').map((t) => attr(t, 'for')));
    const fields = html.matchAll(/<(input|select|textarea)\b[^>]*>/g);
    let count = 0;
    for (const field of fields) {
      const tag = field[0];
      if (['hidden', 'submit', 'button'].includes(attr(tag, 'type') ?? '')) continue;
      count += 1;
      const before = html.slice(0, field.index);
      const wrapped = before.lastIndexOf('<label') > before.lastIndexOf('</label>');
      const id = attr(tag, 'id');
      expect(wrapped || (id !== undefined && labelled.has(id)), tag).toBe(true);
      if (id !== undefined) expect(html.split(`id="${id}"`).length - 1, tag).toBe(1);
    }
    // Every label's `for` points at a field that exists.
    for (const target of labelled) {
      if (target !== undefined)
        expect(html, target).toMatch(
          new RegExp(`<(input|select|textarea)\\b[^>]*\\sid="${target}"`),
        );
    }
    // The settings form (its path-only box too); the goal form (kind, event, page, name,
    // currency, scroll); the funnel builder (name, 8 steps of a kind and a value, the steps as
    // text); the alerts' form (e-mail, kind, threshold, hours, every hours) and the reports'
    // (e-mail, interval); a shared link's (name, password, segment); an invitation's (e-mail,
    // role); an import's (source, file, and its note) and the events' export (format, from, to);
    // the website's switches include the data-centre rule.
    if (name === '/websites/new') expect(count).toBe(10);
    const settings: Record<string, number> = {
      '/websites/:id': 10,
      '/websites/:id/goals': 6,
      '/websites/:id/funnels': 18,
      '/websites/:id/alerts': 7,
      '/websites/:id/sharing': 2,
      '/websites/:id/members': 2,
      '/websites/:id/imports': 6,
    };
    if (settings[name] !== undefined) expect(count).toBe(settings[name]);
    if (name === '/account') expect(count).toBe(3);
  });
});

describe('every page', () => {
  it('starts with <!DOCTYPE html>, so browsers do not render it in quirks mode', () => {
    const without = PAGES.filter(
      (name) => !/^<!doctype html>/i.test(pages.get(name)?.text.trimStart() ?? ''),
    );
    expect(without).toEqual([]);
  });
});

describe('status of the pages', () => {
  it('answer as expected', () => {
    expect(siteId).toBeGreaterThan(0);
    const statuses = Object.fromEntries([...pages].map(([name, res]) => [name, res.status]));
    expect(statuses).toEqual({
      '/login': 200,
      '/register': 403,
      'POST /login (422)': 422,
      '/websites': 200,
      '/websites?deleted=x.example.com': 200,
      '/websites/new': 200,
      '/websites/:id': 200,
      '/websites/:id/goals': 200,
      '/websites/:id/funnels': 200,
      '/websites/:id/segments': 200,
      '/websites/:id/alerts': 200,
      '/websites/:id/sharing': 200,
      '/websites/:id/members': 200,
      '/websites/:id/imports': 200,
      '/websites/:id/storage': 200,
      '/websites/:id/danger': 200,
      '/websites/:id/delete': 200,
      '/websites/999999': 404,
      '/account': 200,
      'POST /websites (422)': 422,
      'POST /account/password (422)': 422,
    });
  });
});

describe('the assets the pages use', () => {
  it('answer 200 with long immutable caching and the right content types', async () => {
    const html = pages.get('/websites')?.text ?? '';
    const css = tags(html, 'link')
      .filter((t) => attr(t, 'rel') === 'stylesheet')
      .map((t) => attr(t, 'href'));
    const js = tags(html, 'script').map((t) => attr(t, 'src'));
    expect(css).toEqual([expect.stringMatching(/^\/assets\/app\.[0-9a-f]{12}\.css$/)]);
    expect(js).toEqual([expect.stringMatching(/^\/assets\/app\.[0-9a-f]{12}\.js$/)]);
    // Every page uses the same ones.
    for (const page of pages.values()) {
      expect(page.text).toContain(`href="${css[0]}"`);
      expect(page.text).toContain(`src="${js[0]}"`);
    }
    for (const [url, type] of [
      [css[0], /^text\/css(;\s*charset=utf-8)?$/i],
      [js[0], /^(text|application)\/javascript(;\s*charset=utf-8)?$/i],
    ] as const) {
      const res = await newBrowser().get(url as string);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toMatch(type);
      const cache = res.headers.get('cache-control') ?? '';
      expect(cache).toContain('immutable');
      expect(Number(cache.match(/max-age=(\d+)/)?.[1])).toBeGreaterThanOrEqual(31_536_000);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.text.length).toBeGreaterThan(0);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it('the URLs change with the content (hash of the file)', async () => {
    const html = pages.get('/login')?.text ?? '';
    const href = tags(html, 'link')
      .filter((t) => attr(t, 'rel') === 'stylesheet')
      .map((t) => attr(t, 'href'))[0] as string;
    const body = (await newBrowser().get(href)).text;
    const digest = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)),
    );
    const hex = Array.from(digest, (x) => x.toString(16).padStart(2, '0')).join('');
    expect(href).toBe(`/assets/app.${hex.slice(0, 12)}.css`);
  });
});
