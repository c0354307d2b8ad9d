/**
 * Saved segments (docs/ARCHITECTURE.md, "Segments"): kept through the API — site segments by
 * the owner and admins, personal ones by any reader for themselves — used in the Stats API v2
 * (`["is", "segment", [id]]`), API v1 and the statistics page (`filter[segment]=<id>`) as
 * their filters would be, saved from the statistics page's filters, and a shared link limited
 * to one, which no address gets past.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  call,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  oneOf,
  websiteApi,
} from '../../support/api.ts';
import { csrfFrom, newBrowser, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, SAFARI_IPHONE, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { openSharedLink } from '../../support/tokens.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;
let owner: Owner;
let viewer: Owner;
let site: { id: number; domain: string };
const DAY = '2026-06-02';
const range = `range=custom&from=${DAY}&to=${DAY}`;
const HN = 'https://news.ycombinator.com/item?id=1';

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('segments-owner');
  viewer = await makeOwner('segments-viewer');
  site = await makeWebsite(owner.key, { domain: 'segments.example.com', privacy: '1' });
  await addMember(box, owner.key, site.id, viewer, 'viewer');
  freezeAt(`${DAY}T10:00:00Z`);
  // Two visitors from Hacker News (/, /pricing; /), one direct on a phone (/pricing, /docs).
  const hit = (page: string, ip: string, ua: string, referrer?: string) =>
    sendHit(
      { page: `https://${site.domain}${page}`, ...(referrer ? { referrer } : {}) },
      { ip, ua },
    );
  for (const [page, ip, ua, referrer] of [
    ['/', '203.0.113.1', CHROME_WINDOWS, HN],
    ['/pricing', '203.0.113.1', CHROME_WINDOWS],
    ['/', '203.0.113.2', CHROME_WINDOWS, HN],
    ['/pricing', '203.0.113.3', SAFARI_IPHONE],
    ['/docs', '203.0.113.3', SAFARI_IPHONE],
  ] as const)
    expect((await hit(page, ip, ua, referrer)).status).toBe(202);
  vi.useRealTimers();
});
afterAll(() => box.close());

const api = websiteApi(() => site.id);

const FROM_HN = [['is', 'visit:source', ['Hacker News']]];

async function v2(key: string, filters: unknown[], metrics = ['visitors', 'pageviews']) {
  return call('/api/v2/query', {
    method: 'POST',
    key,
    body: { json: { site_id: site.domain, date_range: [DAY, DAY], metrics, filters } },
  });
}

describe('the API', () => {
  it('keeps site segments for its owner and admins, personal ones for whoever makes them', async () => {
    const made = await api('/segments', owner.key, 'POST', {
      name: 'From HN',
      type: 'site',
      filters: FROM_HN,
    });
    expect(made.status, made.text).toBe(201);
    expect(oneOf(made).data).toMatchObject({ name: 'From HN', type: 'site', filters: FROM_HN });
    const siteId = Number(oneOf(made).data.id);
    // A viewer keeps personal segments, not everyone's.
    const denied = await api('/segments', viewer.key, 'POST', {
      name: 'Mine for all',
      type: 'site',
      filters: FROM_HN,
    });
    expect(denied.status).toBe(403);
    const mine = await api('/segments', viewer.key, 'POST', {
      name: 'Phones',
      type: 'personal',
      filters: [['is', 'visit:device', ['Mobile']]],
    });
    expect(mine.status, mine.text).toBe(201);
    const mineId = Number(oneOf(mine).data.id);
    // Each sees the site segment and their own.
    const names = async (key: string) =>
      listOf<{ name: string }>(await api('/segments', key)).data.map((s) => s.name);
    expect(await names(viewer.key)).toEqual(['From HN', 'Phones']);
    expect(await names(owner.key)).toEqual(['From HN']);
    // Another's personal segment is not there for the owner either; a viewer cannot change a
    // site segment.
    expect((await api(`/segments/${mineId}`, owner.key)).status).toBe(404);
    expect((await api(`/segments/${mineId}`, owner.key, 'DELETE')).status).toBe(404);
    expect((await api(`/segments/${siteId}`, viewer.key, 'PATCH', { name: 'x' })).status).toBe(403);
    const renamed = await api(`/segments/${mineId}`, viewer.key, 'PATCH', { name: 'On phones' });
    expect(oneOf(renamed).data).toMatchObject({ name: 'On phones', type: 'personal' });
    // Strangers: the 404 of a missing website.
    const stranger = await makeOwner('segments-stranger');
    expect((await api('/segments', stranger.key)).status).toBe(404);
  });

  it('names every bad field, and refuses filters the Stats API v2 would refuse', async () => {
    const bad = await api('/segments', owner.key, 'POST', { name: '', type: 'team', filters: [] });
    expect(bad.status).toBe(422);
    expect(Object.keys(errorOf(bad).errors).sort()).toEqual(['filters', 'name', 'type']);
    for (const filters of [
      [['is', 'visit:nothing', ['x']]],
      [['is', 'segment', [1]]],
      [['has_done', ['has_done', ['is', 'event:name', ['x']]]]],
      'visit:source',
    ]) {
      const res = await api('/segments', owner.key, 'POST', { name: 'n', type: 'site', filters });
      expect(res.status, JSON.stringify(filters)).toBe(422);
      expect(errorOf(res).errors.filters, JSON.stringify(filters)).toBeDefined();
    }
  });
});

describe('a segment in a question', () => {
  let hn: number;
  beforeAll(async () => {
    const made = await api('/segments', owner.key, 'POST', {
      name: 'HN readers',
      type: 'site',
      filters: FROM_HN,
    });
    hn = Number(oneOf(made).data.id);
  });

  it('answers the Stats API v2 as its filters do, and echoes them', async () => {
    const plain = await v2(owner.key, FROM_HN);
    const saved = await v2(owner.key, [['is', 'segment', [hn]]]);
    expect(saved.status, saved.text).toBe(200);
    expect((saved.json as { results: unknown }).results).toEqual(
      (plain.json as { results: unknown }).results,
    );
    expect((saved.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [2, 3] },
    ]);
    expect((saved.json as { query: { filters: unknown } }).query.filters).toEqual(FROM_HN);
    // With another filter, and inside a tree.
    const both = await v2(owner.key, [
      ['is', 'segment', [hn]],
      ['is', 'event:page', ['/pricing']],
    ]);
    expect((both.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [1, 1] },
    ]);
    const not = await v2(owner.key, [['not', ['is', 'segment', [hn]]]]);
    expect((not.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [1, 2] },
    ]);
  });

  it("is Plausible's 400 when it is unknown, another's or another website's", async () => {
    const others = await makeWebsite(owner.key, { domain: 'segments-other.example.com' });
    const foreign = await call(`/api/v1/websites/${others.id}/segments`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'Elsewhere', type: 'site', filters: FROM_HN } },
    });
    const personal = await api('/segments', viewer.key, 'POST', {
      name: 'Viewer only',
      type: 'personal',
      filters: FROM_HN,
    });
    for (const id of [999_999, Number(oneOf(foreign).data.id), Number(oneOf(personal).data.id)]) {
      const res = await v2(owner.key, [['is', 'segment', [id]]]);
      expect(res.status, String(id)).toBe(400);
      expect((res.json as { error: string }).error).toBe(
        "Invalid filters. Some segments don't exist or aren't accessible.",
      );
    }
    expect(
      (await v2(viewer.key, [['is', 'segment', [Number(oneOf(personal).data.id)]]])).status,
    ).toBe(200);
  });

  it('filters API v1 as its filters do; an unknown one is a 422 naming it', async () => {
    const page = (filter: string) =>
      call(`/api/v1/stats/${site.id}?name=page&from=${DAY}&to=${DAY}&${filter}`, {
        key: owner.key,
      });
    const saved = await page(`filter[segment]=${hn}`);
    expect(saved.status, saved.text).toBe(200);
    expect(listOf(saved).data).toEqual([
      { value: '/', count: 2 },
      { value: '/pricing', count: 1 },
    ]);
    const unknown = await page('filter[segment]=999999');
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown).errors['filter[segment]']).toBeDefined();
  });

  it('shows on the statistics page as one chip, and is saved from its filters', async () => {
    const browser = await signedIn(owner);
    const shown = await browser.get(`/stats/${site.domain}?${range}&filter[segment]=${hn}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<strong>HN readers</strong>: Source is Hacker News');
    expect(shown.text).toContain('<summary>Segments</summary>');
    // Saved from the page: the segment and a page filter become one segment.
    const saved = await browser.post(`/stats/${site.domain}/segments`, {
      _csrf: csrfFrom(shown.text),
      range: 'custom',
      from: DAY,
      to: DAY,
      'filter[segment]': String(hn),
      'filter[page]': '/pricing',
      name: 'HN on pricing',
      type: 'site',
    });
    expect(saved.status, saved.text).toBe(303);
    const location = saved.headers.get('location') ?? '';
    const id = /filter%5Bsegment%5D=(\d+)/.exec(location)?.[1];
    expect(id).toBeDefined();
    const segment = oneOf(await api(`/segments/${id}`, owner.key)).data;
    expect(segment).toMatchObject({
      name: 'HN on pricing',
      type: 'site',
      filters: [...FROM_HN, ['is', 'sl:page', ['/pricing']]],
    });
    const res = await v2(owner.key, [['is', 'segment', [Number(id)]]]);
    expect((res.json as { results: unknown[] }).results).toEqual([
      { dimensions: [], metrics: [1, 1] },
    ]);
    // Deleted from the menu: the view it was on, without it.
    const page = await browser.get(`/stats/${site.domain}?${range}&filter[segment]=${id}`);
    expect(page.text).toContain(`/segments/${id}/delete`);
    const deleted = await browser.post(
      `/stats/${site.domain}/segments/${id}/delete?${range}&filter[segment]=${id}`,
      { _csrf: csrfFrom(page.text) },
    );
    expect([deleted.status, deleted.headers.get('location')]).toEqual([
      303,
      `/stats/${site.domain}?${range}`,
    ]);
    expect((await api(`/segments/${id}`, owner.key)).status).toBe(404);
    // A reader who is not a member does not use segments.
    const anonymous = await newBrowser().get(`/stats/${site.domain}?filter[segment]=${hn}`);
    expect(anonymous.status).toBe(404);
  });
});

describe('a shared link limited to a segment', () => {
  it('shows its numbers alone, whatever the address says, and goes with the segment', async () => {
    const made = await api('/segments', owner.key, 'POST', {
      name: 'Phones only',
      type: 'site',
      filters: [['is', 'visit:device', ['Mobile']]],
    });
    const phones = Number(oneOf(made).data.id);
    const personal = await api('/segments', owner.key, 'POST', {
      name: 'Mine',
      type: 'personal',
      filters: FROM_HN,
    });
    const refused = await api('/shared-links', owner.key, 'POST', {
      name: 'Client',
      segment_id: Number(oneOf(personal).data.id),
    });
    expect(refused.status).toBe(422);
    expect(errorOf(refused).errors.segment_id).toBeDefined();
    const link = await api('/shared-links', owner.key, 'POST', {
      name: 'Phones',
      segment_id: phones,
    });
    expect(link.status, link.text).toBe(201);
    expect(oneOf(link).data).toMatchObject({ segment_id: phones });
    const url = String(oneOf(link).data.url);
    const opened = await openSharedLink(newBrowser(), url, `?${range}&chart=pageviews`);
    expect(opened.status).toBe(200);
    // The chip has no remove link; the numbers are the phone's page views (/pricing, /docs).
    expect(opened.text).toContain('<strong>Phones only</strong>: Device is Mobile');
    expect(opened.text).not.toContain('Remove segment');
    const base = opened.path.split('?')[0];
    const browser = newBrowser();
    await openSharedLink(browser, url);
    const pages = async (query: string) => {
      const csv = await browser.get(`${base}/page.csv?${query}`);
      expect(csv.status, query).toBe(200);
      return csv.text.trim().split('\n').slice(1).sort();
    };
    const phonePages = await pages(range);
    expect(phonePages.map((line) => line.split(',')[0])).toEqual(['/docs', '/pricing']);
    // Edited addresses: the segment stays.
    for (const query of [
      `${range}&filter[segment]=${phones + 1000}`,
      `${range}&filter[segment][not]=${phones}`,
    ]) {
      const page = await browser.get(`${base}?${query}`);
      expect(page.status, query).toBe(200);
      expect(page.text, query).toContain('<strong>Phones only</strong>: Device is Mobile');
      expect(await pages(query), query).toEqual(phonePages);
    }
    expect(await pages(`${range}&filter[device]=desktop`)).toEqual([]);
    // Nor the visitors of the last minutes, which are every visitor's.
    expect(opened.text).not.toContain('data-live');
    expect((await browser.get(`${base}/live.json`)).status).toBe(404);
    // Deleting the segment revokes the link.
    expect((await api(`/segments/${phones}`, owner.key, 'DELETE')).status).toBe(200);
    expect((await browser.get(`${base}?${range}`)).status).toBe(404);
  });
});
