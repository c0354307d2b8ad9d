/**
 * A shared link's embed in a theme (docs/GUIDE.md, "Sharing"): `?theme=light|dark` fixes the
 * colours of every page of the embed — `data-theme` on the page's root, which the stylesheet's
 * palettes follow — and its links and forms keep it; any other value is the reader's own mode,
 * and only embeds take it. The settings page shows a new link's embed code with the script
 * that makes the frame as tall as its content, in each theme.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embedCode } from '../../../src/sharing/embed-code.ts';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { csrfFrom, escapeHtml, newBrowser, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { hrefs } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { visit } from '../../support/tokens.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
let link: { id: number; url: string; embed_url: string };
const DAY = '2026-05-11';
const range = `range=custom&from=${DAY}&to=${DAY}`;

/** The page's root element's start tag. */
const root = (html: string) => /<html[^>]*>/.exec(html)?.[0];

beforeAll(async () => {
  owner = await makeOwner('embed-theme');
  site = await makeWebsite(owner.key, { domain: 'embed-theme.example.com', privacy: '1' });
  freezeAt(`${DAY}T10:00:00Z`);
  for (const page of ['/', '/pricing'])
    expect(
      (await sendHit({ page: `https://${site.domain}${page}` }, { ua: CHROME_WINDOWS })).status,
    ).toBe(202);
  vi.useRealTimers();
  const made = await call(`/api/v1/websites/${site.id}/shared-links`, {
    method: 'POST',
    key: owner.key,
    body: { json: { name: 'Board' } },
  });
  expect(made.status, made.text).toBe(201);
  link = (made.json as { data: typeof link }).data;
});

afterAll(() => {
  vi.useRealTimers();
});

describe('an embed in a theme', () => {
  it('opens in the theme asked for, before the # or after the token', async () => {
    const before = await visit(
      newBrowser(),
      link.embed_url.replace('/embed#', '/embed?theme=dark#'),
    );
    expect(before.status).toBe(200);
    expect(before.path).toBe(`/embed/${link.id}?theme=dark`);
    expect(root(before.text)).toBe('<html lang="en" data-theme="dark">');
    const after = await visit(newBrowser(), `${link.embed_url}?theme=light`);
    expect(after.path).toBe(`/embed/${link.id}?theme=light`);
    expect(root(after.text)).toBe('<html lang="en" data-theme="light">');
    // The page that sends the token on is in the theme too.
    const opener = await newBrowser().get('/embed?theme=dark');
    expect(root(opener.text)).toBe('<html lang="en" data-theme="dark">');
  });

  it('keeps the theme in its links and forms', async () => {
    const b = newBrowser();
    await visit(b, link.embed_url);
    const page = await b.get(`/embed/${link.id}?${range}&theme=dark`);
    expect(page.status).toBe(200);
    const own = hrefs(page.text).filter((h) => h.startsWith(`/embed/${link.id}`));
    expect(own.length).toBeGreaterThan(10);
    for (const href of own)
      expect(new URL(href, 'https://x.test').searchParams.get('theme')).toBe('dark');
    // The filter menu's and the date menu's forms carry it.
    expect(page.text).toContain('<input type="hidden" name="theme" value="dark"/>');
    // A full view is themed as the overview is.
    const full = await b.get(`/embed/${link.id}/page?${range}&theme=dark`);
    expect(root(full.text)).toBe('<html lang="en" data-theme="dark">');
  });

  it("follows the reader's own mode for auto, a value it does not know, or none", async () => {
    const b = newBrowser();
    await visit(b, link.embed_url);
    for (const query of ['theme=auto', 'theme=purple', 'theme=', '']) {
      const page = await b.get(`/embed/${link.id}?${range}&${query}`);
      expect(page.status, query).toBe(200);
      expect(root(page.text), query).toBe('<html lang="en">');
      expect(
        hrefs(page.text).some((h) => h.includes('theme=')),
        query,
      ).toBe(false);
    }
  });

  it('is for embeds only: a shared link and the statistics page follow the reader', async () => {
    const b = newBrowser();
    const shared = await visit(b, link.url);
    const page = await b.get(`${shared.path.split('?')[0]}?${range}&theme=dark`);
    expect(page.status).toBe(200);
    expect(root(page.text)).toBe('<html lang="en">');
    const owned = await (await signedIn(owner)).get(`/stats/${site.domain}?${range}&theme=dark`);
    expect(root(owned.text)).toBe('<html lang="en">');
  });
});

describe("the settings page's embed code", () => {
  it('shows the frame with its height script, and a choice of theme', async () => {
    const b = await signedIn(owner);
    const made = await b.post(`/websites/${site.id}/shared-links`, {
      _csrf: csrfFrom((await b.get('/websites')).text),
      name: 'Embedded',
    });
    expect(made.status, made.text).toBe(200);
    const embedUrl = /http:\/\/localhost:8787\/embed#[A-Za-z0-9_-]{43}/.exec(made.text)?.[0] ?? '';
    expect(embedUrl).not.toBe('');
    // The default theme's code, which the copy button copies.
    expect(made.text).toContain(
      `<pre id="shared-link-embed">${escapeHtml(embedCode(embedUrl))}</pre>`,
    );
    expect(embedCode(embedUrl)).toContain('event.origin !== "http://localhost:8787"');
    // The choice, shown by the page's script, holds each theme's code.
    expect(made.text).toMatch(/<label hidden="" data-embed-theme="shared-link-embed">/);
    for (const theme of ['light', 'dark'] as const)
      expect(made.text).toContain(`<option value="${escapeHtml(embedCode(embedUrl, theme))}">`);
    expect(made.text).toContain('<code>?theme=dark</code>');
  });
});
