/**
 * Saved segments on the pages (docs/ARCHITECTURE.md, "Segments"): on the statistics page a
 * segment's chip names it and what it holds (a shared link's locked chip too) and its delete
 * asks first; on the settings' segments page the person sees the segments the API lists for
 * them, each in words with who sees it, and changes one in place — its name, its filters row by row,
 * who sees it — or deletes it, through the API's checks, messages and roles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOwner, makeWebsite, oneOf, websiteApi } from '../../support/api.ts';
import { type Browser, csrfFrom, escapeHtml, signedIn } from '../../support/browser-session.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { openSharedLink } from '../../support/tokens.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;
let owner: Owner;
let viewer: Owner;
let stranger: Owner;
let site: { id: number; domain: string };
let owners: Browser;
const range = 'range=custom&from=2026-06-01&to=2026-06-02';
const api = websiteApi(() => site.id);

const GERMAN_BLOG = [
  ['is', 'sl:country', ['DE:Germany']],
  ['contains', 'sl:page', ['/blog'], { case_sensitive: false }],
];
const PHONES = [['is', 'visit:device', ['Mobile']]];

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('segment-pages-owner');
  viewer = await makeOwner('segment-pages-viewer');
  stranger = await makeOwner('segment-pages-stranger');
  site = await makeWebsite(owner.key, { domain: 'segment-pages.example.com' });
  await addMember(box, owner.key, site.id, viewer, 'viewer');
  owners = await signedIn(owner);
});
afterAll(() => box.close());

/** A segment made through the API by the person of `key`; its id. */
async function saved(key: string, name: string, type: 'site' | 'personal', filters: unknown[]) {
  const made = await api('/segments', key, 'POST', { name, type, filters });
  expect(made.status, made.text).toBe(201);
  return Number(oneOf(made).data.id);
}

const segment = async (id: number, key = owner.key) =>
  oneOf(await api(`/segments/${id}`, key)).data;

/** The settings' segments page of the website. */
const pageOf = () => `/websites/${site.id}/segments`;

/** A shared link limited to a segment, made through the API by the owner. */
async function sharedLink(name: string, segmentId: number) {
  const made = await api('/shared-links', owner.key, 'POST', { name, segment_id: segmentId });
  expect(made.status, made.text).toBe(201);
  return oneOf(made).data as { id: number; url: string };
}

/** A segment's form as sent: its name, who sees it, rows of `[dimension, operator, value]`. */
function form(
  csrf: string,
  name: string,
  type: string,
  rows: [string, string, string][],
  more: Record<string, string | string[]> = {},
) {
  return {
    _csrf: csrf,
    name,
    type,
    'filter_dim[]': rows.map((r) => r[0]),
    'filter_prop[]': rows.map(() => ''),
    'filter_op[]': rows.map((r) => r[1]),
    'filter_value[]': rows.map((r) => r[2]),
    ...more,
  };
}

describe('the statistics page', () => {
  it("names a segment and what it holds on its chip, a shared link's locked chip too", async () => {
    // Saved from the page's own filters.
    const shown = await owners.get(
      `/stats/${site.domain}?${range}&filter[country]=DE:Germany&filter[page][contains]=/blog`,
    );
    const made = await owners.post(`/stats/${site.domain}/segments`, {
      _csrf: csrfFrom(shown.text),
      range: 'custom',
      from: '2026-06-01',
      to: '2026-06-02',
      'filter[country]': 'DE:Germany',
      'filter[page][contains]': '/blog',
      name: 'German blog readers',
      type: 'site',
    });
    expect(made.status, made.text).toBe(303);
    const id = Number(/filter%5Bsegment%5D=(\d+)/.exec(made.location ?? '')?.[1]);
    expect((await segment(id)).filters).toEqual(GERMAN_BLOG);
    const words = 'German blog readers: Country is Germany · Page contains /blog';
    const page = await owners.get(`/stats/${site.domain}?${range}&filter[segment]=${id}`);
    expect(page.status).toBe(200);
    // On one line, cut when long: the whole in its title, and focusable to read it whole.
    expect(page.text).toContain(
      `<span class="truncate segment-words" title="${escapeHtml(words)}" tabindex="0"><strong>German blog readers</strong>: Country is Germany · Page contains /blog</span>`,
    );
    expect(page.text).toContain('<span class="sr-only">Remove segment German blog readers</span>');
    expect(page.text).not.toContain('Segment is');
    // A segment made through the API says its filters as near as words go.
    const phones = await saved(owner.key, 'Phones', 'site', [
      ...PHONES,
      ['has_done', ['is', 'event:name', ['Signup']]],
    ]);
    const fromApi = await owners.get(`/stats/${site.domain}?${range}&filter[segment]=${phones}`);
    expect(fromApi.text).toContain(
      '<strong>Phones</strong>: Device is Mobile · has done Event is Signup</span>',
    );
    // A shared link limited to the segment: the same words, and no way to remove it.
    const link = await sharedLink('Client', id);
    const opened = await openSharedLink(owners, link.url, `?${range}`);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain(`title="${escapeHtml(words)}"`);
    expect(opened.text).toContain('<strong>German blog readers</strong>: Country is Germany');
    expect(opened.text).not.toContain('Remove segment');
  });

  it('asks before it deletes a segment', async () => {
    const id = await saved(owner.key, 'Ask first', 'personal', PHONES);
    const page = await owners.get(`/stats/${site.domain}?${range}&filter[segment]=${id}`);
    const action = `/stats/${site.domain}/segments/${id}/delete?`;
    // Every form that deletes it is inside a disclosure that opens on its button.
    const at = page.text.indexOf(`action="${action}`);
    expect(at).toBeGreaterThan(-1);
    expect(page.text.indexOf(`action="${action}`, at + 1)).toBe(-1);
    const before = page.text.slice(page.text.lastIndexOf('<details', at), at);
    expect(before).toMatch(
      /^<details class="confirm"><summary>Delete…<span class="sr-only"> the segment Ask first<\/span><\/summary><form method="post" $/,
    );
    expect(page.text.slice(at)).toMatch(
      /^[^>]*><input type="hidden" name="_csrf" value="[^"]+"\/><button type="submit" class="danger">Delete the segment Ask first<\/button><\/form><\/details>/,
    );
  });
});

describe("the settings' segments page", () => {
  it('lists the segments the person sees, in words, with who sees each', async () => {
    const everyone = await saved(owner.key, 'Everyone’s', 'site', GERMAN_BLOG);
    const mine = await saved(owner.key, 'Mine', 'personal', PHONES);
    const theirs = await saved(viewer.key, 'The viewer’s own', 'personal', PHONES);
    const page = await owners.get(pageOf());
    expect(page.status, page.text).toBe(200);
    const row = (name: string) =>
      page.text.slice(page.text.indexOf(`<td>${escapeHtml(name)}</td>`));
    expect(row('Everyone’s')).toMatch(
      /^<td>Everyone’s<\/td><td data-label="Filters">Country is Germany · Page contains \/blog<\/td><td data-label="Who sees it">Everyone with access to the site<\/td>/,
    );
    expect(row('Mine')).toMatch(
      /^<td>Mine<\/td><td data-label="Filters">Device is Mobile<\/td><td data-label="Who sees it">Only me<\/td>/,
    );
    expect(page.text).not.toContain('The viewer’s own');
    // Each the owner may change: an Edit that opens its form in place, a delete that asks.
    for (const id of [everyone, mine]) {
      expect(page.text).toContain(`action="/websites/${site.id}/segments/${id}"`);
      expect(page.text).toContain(`action="/websites/${site.id}/segments/${id}/delete"`);
    }
    expect(page.text).not.toContain(`/segments/${theirs}`);
    // The form shows each filter of the page's as a row, and an empty row to add one.
    const edit = page.text.slice(
      page.text.indexOf(`action="/websites/${site.id}/segments/${everyone}"`),
    );
    expect(edit).toContain('<option value="country" selected="">Country</option>');
    expect(edit).toContain('name="filter_value[]" value="DE:Germany"');
    expect(edit).toContain('<option value="contains" selected="">contains</option>');
    expect(edit).toContain('name="filter_value[]" value="/blog"');
    expect(edit).toContain('Add a filter:');
  });

  it('changes a segment’s name, filters and who sees it in place', async () => {
    const id = await saved(owner.key, 'To change', 'site', [...GERMAN_BLOG, ...PHONES]);
    const page = await owners.get(pageOf());
    const csrf = csrfFrom(page.text);
    // The filter the page does not write is kept as it is, said in words.
    expect(page.text).toContain(
      'name="filter_kept[]" value="[&quot;is&quot;,&quot;visit:device&quot;,[&quot;Mobile&quot;]]"',
    );
    const res = await owners.post(
      `/websites/${site.id}/segments/${id}`,
      form(
        csrf,
        'German readers',
        'personal',
        [
          ['country', 'is', 'DE:Germany'],
          ['page', 'contains', '/blog'],
          ['country', 'is', 'AT:Austria'],
          ['browser', 'not', 'Safari'],
        ],
        { 'filter_kept[]': JSON.stringify(PHONES[0]), 'filter_remove[]': '1' },
      ),
    );
    expect([res.status, res.location], res.text).toEqual([
      303,
      `/websites/${site.id}/segments?segment=saved`,
    ]);
    // Two rows of one dimension with "is": any of their values, as on the statistics page.
    expect(await segment(id)).toMatchObject({
      name: 'German readers',
      type: 'personal',
      filters: [
        ...PHONES,
        ['is', 'sl:country', ['DE:Germany', 'AT:Austria']],
        ['is_not', 'sl:browser', ['Safari']],
      ],
    });
    // For everyone again, the kept filter removed and a custom property added.
    const again = await owners.post(
      `/websites/${site.id}/segments/${id}`,
      form(csrf, 'German readers', 'site', [['country', 'is', 'DE:Germany']], {
        'filter_dim[]': ['country', 'property'],
        'filter_prop[]': ['', 'plan'],
        'filter_op[]': ['is', 'is'],
        'filter_value[]': ['DE:Germany', 'pro'],
        'filter_kept[]': JSON.stringify(PHONES[0]),
        'filter_kept_remove[]': '0',
      }),
    );
    expect(again.status, again.text).toBe(303);
    expect((await segment(id)).filters).toEqual([
      ['is', 'sl:country', ['DE:Germany']],
      ['is', 'sl:props:plan', ['pro']],
    ]);
    expect((await segment(id)).type).toBe('site');
  });

  it('says what is wrong next to the field, with a 422, the form open as sent', async () => {
    const id = await saved(owner.key, 'Checked', 'site', GERMAN_BLOG);
    const csrf = csrfFrom((await owners.get(pageOf())).text);
    const post = (fields: Record<string, string | string[]>) =>
      owners.post(`/websites/${site.id}/segments/${id}`, fields);
    const bad = await post(
      form(csrf, '', 'site', [
        ['country', 'is', 'DE:Germany'],
        ['nothing', 'is', 'x'],
        ['page', 'is', 'p'.repeat(256)],
      ]),
    );
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('<p class="error">The name field is required.</p>');
    expect(bad.text).toContain('<p class="error">Choose one of the dimensions listed.</p>');
    expect(bad.text).toContain(
      '<p class="error">The filter[page] filter must be a value of 1 to 255 characters.</p>',
    );
    expect(bad.text).toContain('<details class="segment-edit" open="">');
    expect(bad.text).toContain('name="filter_value[]" value="x"');
    // The rows said wrong are not also said to leave no filter.
    expect(bad.text).not.toContain('The filters must be a list');
    // Filters the Stats API v2 refuses, and none at all: the API's own messages.
    const refused = await post(
      form(csrf, 'Checked', 'site', [], {
        'filter_kept[]': JSON.stringify(['is', 'visit:nothing', ['x']]),
      }),
    );
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<p class="error">Invalid filter');
    const unreadable = await post(
      form(csrf, 'Checked', 'site', [['page', 'is', '/']], { 'filter_kept[]': '[not JSON' }),
    );
    expect(unreadable.status).toBe(422);
    expect(unreadable.text).toContain('A filter of the form could not be read');
    const none = await post(
      form(csrf, 'Checked', 'site', [['page', 'is', '/']], { 'filter_remove[]': '0' }),
    );
    expect(none.status).toBe(422);
    expect(none.text).toContain(
      'The filters must be a list of at least one filter of the Stats API v2.',
    );
    expect(await segment(id)).toMatchObject({ name: 'Checked', filters: GERMAN_BLOG });
  });

  it('keeps a segment a shared link shows for everyone: a 422 naming the link', async () => {
    const id = await saved(owner.key, 'Linked', 'site', PHONES);
    const { id: linkId } = await sharedLink('Agency', id);
    const page = await owners.get(pageOf());
    // Its delete says the link goes with it.
    expect(page.text).toContain('The shared links limited to it go with it: Agency.');
    const res = await owners.post(
      `/websites/${site.id}/segments/${id}`,
      form(csrfFrom(page.text), 'Linked', 'personal', [], {
        'filter_kept[]': JSON.stringify(PHONES[0]),
      }),
    );
    expect(res.status).toBe(422);
    expect(res.text).toContain(
      `The segment stays for everyone while shared links show it: Agency (${linkId}). Revoke them first.`,
    );
    expect((await segment(id)).type).toBe('site');
  });

  it("is the 404 of another owner's website or segment; a viewer changes only their own", async () => {
    const id = await saved(owner.key, 'Site wide', 'site', PHONES);
    const csrf = csrfFrom((await owners.get(pageOf())).text);
    const fields = form(csrf, 'Renamed', 'site', [['page', 'is', '/']]);
    const elsewhere = await makeWebsite(stranger.key, { domain: 'segment-pages-2.example.com' });
    const theirs = Number(
      oneOf(
        await websiteApi(() => elsewhere.id)('/segments', stranger.key, 'POST', {
          name: 'Theirs',
          type: 'site',
          filters: PHONES,
        }),
      ).data.id,
    );
    for (const path of [
      `/websites/${elsewhere.id}/segments/${theirs}`,
      `/websites/${site.id}/segments/${theirs}`,
      `/websites/${site.id}/segments/999999`,
      `/websites/${site.id}/segments/x`,
    ]) {
      expect((await owners.post(path, fields)).status, path).toBe(404);
      expect((await owners.post(`${path}/delete`, { _csrf: csrf })).status, path).toBe(404);
    }
    // A viewer: their own personal segment, not the site's, nor made for everyone.
    const viewers = await signedIn(viewer);
    const own = await saved(viewer.key, 'Viewer’s', 'personal', PHONES);
    const theirCsrf = csrfFrom((await viewers.get('/websites')).text);
    const as = (segmentId: number, type: string) =>
      viewers.post(
        `/websites/${site.id}/segments/${segmentId}`,
        form(theirCsrf, 'By the viewer', type, [['page', 'is', '/']]),
      );
    expect((await as(id, 'site')).status).toBe(403);
    expect((await as(own, 'site')).status).toBe(403);
    expect(
      (await viewers.post(`/websites/${site.id}/segments/${id}/delete`, { _csrf: theirCsrf }))
        .status,
    ).toBe(403);
    expect((await segment(id)).name).toBe('Site wide');
    expect((await as(own, 'personal')).status).toBe(303);
    expect(await segment(own, viewer.key)).toMatchObject({
      name: 'By the viewer',
      type: 'personal',
    });
    // The owner does not see the viewer's personal segment: the 404 of a missing one.
    expect((await owners.post(`/websites/${site.id}/segments/${own}`, fields)).status).toBe(404);
    expect((await api(`/segments/${own}`, owner.key)).status).toBe(404);
  });

  it('deletes a segment', async () => {
    const id = await saved(owner.key, 'Short-lived', 'personal', PHONES);
    const page = await owners.get(pageOf());
    expect(page.text).toContain(
      `<details class="confirm"><summary>Delete…<span class="sr-only"> Short-lived</span></summary><form method="post" action="/websites/${site.id}/segments/${id}/delete">`,
    );
    const res = await owners.post(`/websites/${site.id}/segments/${id}/delete`, {
      _csrf: csrfFrom(page.text),
    });
    expect([res.status, res.location]).toEqual([
      303,
      `/websites/${site.id}/segments?segment=deleted`,
    ]);
    expect((await api(`/segments/${id}`, owner.key)).status).toBe(404);
  });
});
