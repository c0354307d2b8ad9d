/**
 * A shared link limited to a segment never shows more than its segment (docs/SECURITY.md):
 * while the segment cannot be applied — made personal behind the API's back, deleted, or its
 * filters no longer parsing — every address under the link, shared or embedded, is the 404 of
 * a link that opens nothing; and the API refuses to make a segment that links use personal.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, errorOf, makeOwner, makeWebsite, oneOf, websiteApi } from '../../support/api.ts';
import { type Browser, newBrowser } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { openSharedLink } from '../../support/tokens.ts';

let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
let funnel: number;
const DAY = '2026-06-03';
const range = `range=custom&from=${DAY}&to=${DAY}`;
const api = websiteApi(() => site.id);

beforeAll(async () => {
  owner = await makeOwner('segment-links');
  site = await makeWebsite(owner.key, { domain: 'segment-links.example.com', privacy: '1' });
  freezeAt(`${DAY}T10:00:00Z`);
  for (const [page, ip, ua] of [
    ['/desk', '203.0.113.1', CHROME_WINDOWS],
    ['/phone', '203.0.113.3', SAFARI_IPHONE],
  ] as const)
    expect((await sendHit({ page: `https://${site.domain}${page}` }, { ip, ua })).status).toBe(202);
  vi.useRealTimers();
  const made = await call(`/api/v1/websites/${site.id}/funnels`, {
    method: 'POST',
    key: owner.key,
    body: { json: { name: 'Two', steps: [{ page: '/phone' }, { page: '/desk' }] } },
  });
  funnel = Number(oneOf(made).data.id);
});

/** Every address under a link that shows numbers: pages, full views, CSVs, JSON, flows. */
const ROUTES = () => [
  `?${range}`,
  `/page?${range}`,
  `/page.csv?${range}`,
  `/country.csv?${range}`,
  `/page.json?${range}&search=%2F`,
  `/funnels/${funnel}?${range}`,
  `/funnels/${funnel}.csv?${range}`,
  `/journeys?${range}`,
  `/journeys.csv?${range}`,
];

/** A phones-only site segment and a link limited to it, opened as a share and as an embed. */
async function limitedLink() {
  const made = await api('/segments', owner.key, 'POST', {
    name: 'Phones',
    type: 'site',
    filters: [['is', 'visit:device', ['Mobile']]],
  });
  expect(made.status, made.text).toBe(201);
  const segment = Number(oneOf(made).data.id);
  const link = await api('/shared-links', owner.key, 'POST', {
    name: 'Phones',
    segment_id: segment,
  });
  expect(link.status, link.text).toBe(201);
  const data = oneOf(link).data as { id: number; url: string; embed_url: string };
  const opened: { browser: Browser; base: string }[] = [];
  for (const url of [data.url, data.embed_url]) {
    const browser = newBrowser();
    const page = await openSharedLink(browser, url);
    expect(page.status).toBe(200);
    opened.push({ browser, base: page.path.split('?')[0] ?? '' });
  }
  return { segment, link: data.id, opened };
}

/** The status of every route under each opened link, and what the page CSV lists. */
async function statuses(opened: { browser: Browser; base: string }[]) {
  const out: Record<string, number> = {};
  for (const { browser, base } of opened)
    for (const route of ROUTES())
      out[`${base}${route}`] = (await browser.get(`${base}${route}`)).status;
  return out;
}

const allAre = (seen: Record<string, number>, status: number) =>
  expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, status])));

describe('a link limited to a segment', () => {
  it('shows its segment alone while it applies', async () => {
    const { opened } = await limitedLink();
    allAre(await statuses(opened), 200);
    const first = opened[0] as { browser: Browser; base: string };
    const csv = await first.browser.get(`${first.base}/page.csv?${range}`);
    expect(csv.text).toContain('/phone');
    expect(csv.text).not.toContain('/desk');
  });

  it('keeps its segment for everyone: made personal through the API is a 422 naming the link', async () => {
    const { segment, link, opened } = await limitedLink();
    const res = await api(`/segments/${segment}`, owner.key, 'PATCH', { type: 'personal' });
    expect(res.status, res.text).toBe(422);
    expect(errorOf(res).errors.type?.[0]).toContain(`Phones (${link})`);
    expect(oneOf(await api(`/segments/${segment}`, owner.key)).data.type).toBe('site');
    allAre(await statuses(opened), 200);
  });

  it('opens nothing once its segment is personal (written before this check existed)', async () => {
    const { segment, opened } = await limitedLink();
    await env.DB.prepare("UPDATE segments SET type = 'personal' WHERE id = ?").bind(segment).run();
    allAre(await statuses(opened), 404);
  });

  it('opens nothing once its segment is of another website', async () => {
    const { segment, opened } = await limitedLink();
    const other = await makeWebsite(owner.key, { domain: 'segment-links-2.example.com' });
    await env.DB.prepare('UPDATE segments SET website_id = ? WHERE id = ?')
      .bind(other.id, segment)
      .run();
    allAre(await statuses(opened), 404);
  });

  it('opens nothing once its segment no longer parses', async () => {
    const { segment, opened } = await limitedLink();
    await env.DB.prepare('UPDATE segments SET filters = ? WHERE id = ?')
      .bind(JSON.stringify([['is', 'visit:no_such_dimension', ['x']]]), segment)
      .run();
    allAre(await statuses(opened), 404);
  });

  it('opens nothing once its segment is deleted', async () => {
    const { segment, opened } = await limitedLink();
    expect((await api(`/segments/${segment}`, owner.key, 'DELETE')).status).toBe(200);
    allAre(await statuses(opened), 404);
  });
});
