/**
 * A change of the statistics page made in place (htmx's request, `HX-Request: true`) is answered
 * figures first (docs/ARCHITECTURE.md, "The statistics page"): the same view as a page loaded
 * whole, but what takes another pass of the website's log — the figures' changes under
 * filters, the compared points and the panels' changes, the top pages' engagement — is a
 * neutral mark (`data-later`) that the page's script fills by asking for the whole view. Never
 * a change of 0% in the meantime; a page loaded whole has no mark.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { panel, panelRows, totalCard } from '../../support/html.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** The overview for the day with `query`, loaded whole or changed in place. */
async function overview(domain: string, query: string, inPlace: boolean) {
  const res = await call(`/stats/${domain}?range=custom&from=${DAY}&to=${DAY}&${query}`, {
    headers: inPlace ? { 'HX-Request': 'true' } : {},
  });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.text;
}

/** A card's figure and its hint, the hint's mark or change as written. */
function card(html: string, title: string) {
  const m = html.match(
    new RegExp(
      `<h2>(?:<a [^>]*>)?${title}(?:</a>)?</h2>\\s*<p class="big">([^<]*)</p>\\s*<p class="hint[^"]*"( data-later="")?>([\\s\\S]*?)</p>`,
    ),
  );
  if (!m) throw new Error(`no totals card ${title}`);
  const text = (m[3] ?? '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return { value: m[1], later: m[2] !== undefined, text };
}

const FIGURES = ['Visitors', 'Visits', 'Page views', 'Views per visit', 'Bounce rate'];

/** The pages panel's time-on-page and scroll cells, as written. */
const engagementCells = (html: string) =>
  [
    ...(html.match(/id="panel-page"[\s\S]*?<\/table>/)?.[0] ?? '').matchAll(
      /<td class="num engaged"( data-later="")?>([\s\S]*?)<\/td>/g,
    ),
  ].map((m) => (m[1] ? 'later' : (m[2] ?? '').trim()));

describe('a change made in place', () => {
  it('answers a filtered view figures first, its changes and engagement marked to follow', async () => {
    const s = await threeVisitors({ privacy: '0' });
    const filter = 'filter[browser]=Chrome';
    const whole = await overview(s.domain, filter, false);
    const quick = await overview(s.domain, filter, true);
    expect(whole).not.toContain('data-later');
    for (const title of FIGURES) {
      const [full, first] = [card(whole, title), card(quick, title)];
      // The same figure, at once; its change follows, never a 0% meanwhile.
      expect(first.value, title).toBe(full.value);
      expect(full.later).toBe(false);
      expect(first.later, title).toBe(true);
      expect(first.text, title).toMatch(/^… change being read vs /);
      expect(first.text).not.toMatch(/%/);
    }
    // The panels' rows follow too (more groupings of the log): each tab shown a neutral mark.
    expect(panelRows(whole, 'page').length).toBeGreaterThan(0);
    expect(panelRows(quick, 'page')).toEqual([]);
    for (const tab of ['page', 'referrer', 'country', 'browser', 'event'])
      expect(quick, tab).toMatch(
        new RegExp(`id="panel-${tab}"[^>]*>\\s*<p class="hint rows-later" data-later="">`),
      );
    expect(engagementCells(whole).length).toBeGreaterThan(0);
    expect(engagementCells(whole)).not.toContain('later');
  });

  it('keeps the changes of an unfiltered view (the roll-ups): the engagement follows', async () => {
    const s = await threeVisitors({ privacy: '0' });
    const whole = await overview(s.domain, '', false);
    const quick = await overview(s.domain, '', true);
    for (const title of FIGURES) expect(card(quick, title)).toEqual(card(whole, title));
    expect(panelRows(quick, 'page')).toEqual(panelRows(whole, 'page'));
    expect(engagementCells(quick)).toEqual(engagementCells(whole).map(() => 'later'));
    // The custom events by name are a pass of the log: they follow.
    expect(whole).not.toContain('rows-later');
    expect(quick).toMatch(/id="panel-event"[^>]*>\s*<p class="hint rows-later" data-later="">/);
  });

  it('marks the compared points and the panels’ changes when comparing', async () => {
    const s = await threeVisitors({ privacy: '0' });
    const query = 'compare=previous';
    const whole = await overview(s.domain, query, false);
    const quick = await overview(s.domain, query, true);
    const caption = (html: string) => html.match(/<figcaption>([\s\S]*?)<\/figcaption>/)?.[1] ?? '';
    expect(caption(whole)).not.toContain('data-later');
    expect(caption(quick)).toContain('data-later');
    // The key names the compared dates either way.
    const dates = caption(whole).match(/([A-Z][a-z]{2} \d{1,2}[^<]*?) (?:\(dotted\)|has no)/)?.[1];
    expect(dates).toBeDefined();
    expect(caption(quick)).toContain(dates as string);
    const changes = (html: string) =>
      [...html.matchAll(/<td class="num change"( data-later="")?>/g)].map(
        (m) => m[1] !== undefined,
      );
    expect(changes(whole).length).toBeGreaterThan(0);
    expect(changes(whole)).not.toContain(true);
    expect(changes(quick)).toEqual(changes(whole).map(() => true));
    expect(quick).not.toMatch(/polyline[^>]*class="[^"]*previous/);
  });

  it('marks a conversion’s changes, never a rate compared with 0%', async () => {
    const s = await threeVisitors({ privacy: '0' });
    const whole = await overview(s.domain, 'filter[event]=signup', false);
    const quick = await overview(s.domain, 'filter[event]=signup', true);
    expect(totalCard(whole, 'Conversion rate').value).toBe(card(quick, 'Conversion rate').value);
    for (const title of ['Unique conversions', 'Total conversions', 'Conversion rate']) {
      expect(card(quick, title).later, title).toBe(true);
      expect(card(quick, title).text).not.toMatch(/%/);
    }
  });
});

/** A tab's panel asked alone, as the page's script loads a tab (`Sightline-Part`). */
async function panelAlone(domain: string, query: string, name: string) {
  const res = await call(`/stats/${domain}?range=custom&from=${DAY}&to=${DAY}&${query}`, {
    headers: { 'HX-Request': 'true', 'Sightline-Part': `panel-${name}` },
  });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.text;
}

describe('a tab loaded in place', () => {
  it("is answered with its panel alone: the rows, shares and links of the whole view's", async () => {
    const s = await threeVisitors({ privacy: '0' });
    for (const [query, name] of [
      ['sources=channel', 'channel'],
      ['devices=os', 'os'],
      ['filter[browser]=Chrome&pages=landing_page', 'landing_page'],
      ['compare=previous&sources=source', 'source'],
    ] as const) {
      const whole = await overview(s.domain, query, false);
      const alone = await panelAlone(s.domain, query, name);
      // Nothing else of the page: no figures, no chart, no other panel.
      expect(alone.startsWith(`<div id="panel-${name}"`), alone.slice(0, 200)).toBe(true);
      expect(alone).not.toContain('class="totals"');
      expect(alone).not.toContain('<figure');
      expect(alone).not.toContain('data-load');
      expect(alone).not.toContain('data-later');
      expect(panel(alone, name), name).toBe(panel(whole, name));
      expect(panelRows(alone, name).length, name).toBeGreaterThan(0);
    }
  });

  it('is the whole view for a part that is no tab of the panels', async () => {
    const s = await threeVisitors({ privacy: '0' });
    for (const part of ['panel-event', 'panel-nothing', 'totals', ''])
      expect(await panelAlone(s.domain, 'sources=channel', part.replace(/^panel-/, ''))).toContain(
        '<section class="totals"',
      );
  });
});
