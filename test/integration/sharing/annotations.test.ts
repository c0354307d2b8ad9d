/**
 * Annotations (docs/ARCHITECTURE.md, "Annotations"): dated notes kept through the API by a
 * website's owner and admins and seen by every reader — on the chart (a mark whose text shows
 * on hover and keyboard focus), listed under it, in the CSV of the dates and in the e-mail
 * reports of their period — shared links included; written from the statistics page too.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reportData, textOf } from '../../../src/reports/content.ts';
import {
  call,
  db,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  oneOf,
  websiteApi,
} from '../../support/api.ts';
import { csrfFrom, newBrowser, signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { openSharedLink } from '../../support/tokens.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;
let owner: Owner;
let viewer: Owner;
let site: { id: number; domain: string };
const range = 'range=custom&from=2026-07-01&to=2026-07-07';

beforeAll(async () => {
  box = mailbox();
  owner = await makeOwner('notes-owner');
  viewer = await makeOwner('notes-viewer');
  site = await makeWebsite(owner.key, { domain: 'notes.example.com', privacy: '1' });
  await addMember(box, owner.key, site.id, viewer, 'viewer');
  for (const day of ['2026-07-02', '2026-07-03']) {
    freezeAt(`${day}T10:00:00Z`);
    expect((await sendHit({ page: `https://${site.domain}/` })).status).toBe(202);
  }
  vi.useRealTimers();
});
afterAll(() => box.close());

const api = websiteApi(() => site.id);

describe('the API', () => {
  it('keeps annotations for the owner and admins, shows them to every reader', async () => {
    const made = await api('/annotations', owner.key, 'POST', {
      date: '2026-07-02',
      text: 'Launched pricing v2',
    });
    expect(made.status, made.text).toBe(201);
    expect(oneOf(made).data).toMatchObject({
      date: '2026-07-02',
      end_date: null,
      text: 'Launched pricing v2',
    });
    const id = Number(oneOf(made).data.id);
    expect(
      (await api('/annotations', viewer.key, 'POST', { date: '2026-07-03', text: 'x' })).status,
    ).toBe(403);
    const period = await api('/annotations', owner.key, 'POST', {
      date: '2026-06-28',
      end_date: '2026-07-04',
      text: 'Summer sale',
    });
    expect(period.status).toBe(201);
    await api('/annotations', owner.key, 'POST', { date: '2026-08-10', text: 'Later' });
    const listed = await api('/annotations?from=2026-07-01&to=2026-07-07', viewer.key);
    expect(listOf<{ text: string }>(listed).data.map((a) => a.text)).toEqual([
      'Summer sale',
      'Launched pricing v2',
    ]);
    expect(listOf(await api('/annotations', viewer.key)).data).toHaveLength(3);
    const changed = await api(`/annotations/${id}`, owner.key, 'PATCH', { text: 'Pricing v2' });
    expect(oneOf(changed).data).toMatchObject({ text: 'Pricing v2', date: '2026-07-02' });
    expect((await api(`/annotations/${id}`, viewer.key, 'DELETE')).status).toBe(403);
    const stranger = await makeOwner('notes-stranger');
    expect((await api('/annotations', stranger.key)).status).toBe(404);
  });

  it('names every bad field', async () => {
    const bad = await api('/annotations', owner.key, 'POST', {
      date: '2026-02-30',
      end_date: 'soon',
      text: '',
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(errorOf(bad).errors).sort()).toEqual(['date', 'end_date', 'text']);
    const backwards = await api('/annotations', owner.key, 'POST', {
      date: '2026-07-05',
      end_date: '2026-07-01',
      text: 'x',
    });
    expect(errorOf(backwards).errors.end_date).toEqual(['The end_date must be the date or later.']);
    expect((await api('/annotations?from=2026-07-01', owner.key)).status).toBe(422);
    expect((await api('/annotations/999999', owner.key, 'DELETE')).status).toBe(404);
  });
});

describe('the statistics page', () => {
  it('marks them on the chart, lists them, and puts them in the CSV of their dates', async () => {
    const browser = await signedIn(viewer);
    const page = await browser.get(`/stats/${site.domain}?${range}`);
    expect(page.status).toBe(200);
    // A mark each on the chart, focusable, its text named for assistive technology.
    expect(page.text).toMatch(
      /<g class="note" tabindex="0" role="img" aria-labelledby="note\d">[\s\S]*?2026-07-02: Pricing v2<\/text>/,
    );
    expect(page.text).toContain('2026-06-28 – 2026-07-04: Summer sale');
    expect(page.text).toMatch(/<h2 id="annotations-title">Annotations<\/h2>/);
    expect(page.text).not.toContain('Later');
    // A viewer has no form; the points of the chart say their dates.
    expect(page.text).not.toContain('class="annotate"');
    expect(page.text).toContain('data-date="2026-07-02"');
    const csv = await browser.get(`/stats/${site.domain}/visitors.csv?${range}`);
    expect(csv.text.split(/\r?\n/)[0]).toBe('date,visitors,annotations');
    expect(csv.text).toContain('2026-07-02,1,Summer sale | Pricing v2');
    expect(csv.text).toContain('2026-07-03,1,Summer sale');
  });

  it('are written by the owner from the page, and seen through a shared link', async () => {
    const browser = await signedIn(owner);
    const page = await browser.get(`/stats/${site.domain}?${range}`);
    expect(page.text).toContain('class="annotate"');
    const added = await browser.post(`/stats/${site.domain}/annotations`, {
      _csrf: csrfFrom(page.text),
      range: 'custom',
      from: '2026-07-01',
      to: '2026-07-07',
      date: '2026-07-05',
      end_date: '',
      text: 'Newsletter sent',
    });
    expect(added.status, added.text).toBe(303);
    expect(added.headers.get('location')).toBe(
      `/stats/${site.domain}?range=custom&from=2026-07-01&to=2026-07-07#annotations-title`,
    );
    const link = await call(`/api/v1/websites/${site.id}/shared-links`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'Public' } },
    });
    const shared = await openSharedLink(newBrowser(), String(oneOf(link).data.url), `?${range}`);
    expect(shared.text).toContain('2026-07-05: Newsletter sent');
    expect(shared.text).not.toContain('class="annotate"');
    // Someone else's form post: no CSRF token, nothing written.
    const forged = await newBrowser().post(`/stats/${site.domain}/annotations`, {
      date: '2026-07-06',
      text: 'forged',
    });
    expect(forged.status).toBe(404);
  });

  it('are in the e-mail report of their period', async () => {
    const links = { statsUrl: 'https://sightline.test/stats/x', unsubscribeUrl: 'https://u' };
    const period = {
      interval: 'weekly' as const,
      from: '2026-06-29',
      to: '2026-07-05',
      key: 'weekly:2026-06-29',
    };
    const text = textOf(await reportData(db(), site, period, links));
    expect(text).toContain('Annotations:');
    expect(text).toContain('2026-06-28 to 2026-07-04: Summer sale');
    expect(text).toContain('2026-07-05: Newsletter sent');
    expect(text).not.toContain('Later');
  });
});
