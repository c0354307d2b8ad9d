/**
 * Filters on the statistics page (src/pages/statistics/overview-page.tsx): the three visitors of
 * test/support/three-visitors.ts, read through the page's HTML and CSV with filters in the
 * address, compared with the answers worked out by hand there; every link of a filtered
 * page keeps its filters; a value links to the page filtered by it; filters the address
 * names but that can't be used are said so; an `event` filter adds the conversion rate.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';
import {
  barsOf,
  chartRows,
  hrefs,
  linkNamed,
  panel,
  panelRows,
  params,
  rowsOf,
  sharesOf,
  totalCard,
  unescapeHtml,
} from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A public website with the three visitors. */
const publicSite = () => threeVisitors({ privacy: '0' });

/** The page at `path` (after `/stats/{domain}`) for the day, with `query` added. */
async function page(domain: string, path: string, query = '') {
  const res = await call(`/stats/${domain}${path}?range=custom&from=${DAY}&to=${DAY}&${query}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.text;
}

const figures = (html: string) =>
  ['Visitors', 'Visits', 'Page views', 'Views per visit', 'Bounce rate', 'Visit duration'].map(
    (title) => totalCard(html, title).value,
  );

const values = (html: string, panel: string) =>
  panelRows(html, panel).map((r) => [r.value, Number(r.count)]);

const chips = (html: string) =>
  [...html.matchAll(/<li class="chip[^"]*"><span>([\s\S]*?)<\/span>/g)].map((m) =>
    unescapeHtml((m[1] ?? '').replace(/<[^>]*>/g, '')),
  );

describe('the overview under filters', () => {
  it('narrows the totals, the chart and every panel to the visit a referrer brought', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '', 'filter[referrer]=www.google.com');
    // Ann's visit: /, then /pricing two minutes later, and her sign-up.
    expect(figures(html)).toEqual(['1', '1', '2', '2.00', '0%', '2m 00s']);
    expect(values(html, 'page')).toEqual([
      ['/', 1],
      ['/pricing', 1],
    ]);
    expect(values(html, 'referrer')).toEqual([['www.google.com', 1]]);
    expect(values(html, 'browser')).toEqual([['Chrome', 1]]);
    // The tabs the roll-ups do not hold by visitors are read when shown.
    const shown = (tab: string) => page(s.domain, '', `filter[referrer]=www.google.com&${tab}`);
    expect(values(await shown('events=event'), 'event')).toEqual([['signup', 1]]);
    expect(values(await shown('pages=exit_page'), 'exit_page')).toEqual([['/pricing', 1]]);
    expect(values(await shown('sources=campaign'), 'campaign')).toEqual([]);
    // One day: the chart is hourly; all of it at 09:00.
    const hours = chartRows(html).filter(([, visitors, views]) => visitors + views > 0);
    expect(hours).toEqual([['09', 1, 2]]);
    expect(chips(html)).toEqual(['Referrer is www.google.com']);
    expect(html).not.toMatch(/<h2>Conversion rate<\/h2>/);
  });

  it('keeps the filters in every link of the page but the chip that removes them', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '', 'filter[browser]=Chrome&filter[page][not]=/blog');
    const own = hrefs(html)
      .filter((h) => h.startsWith(`/stats/${s.domain}`))
      .map((h) => new URL(h, 'https://x'));
    expect(own.length).toBeGreaterThan(30);
    // Each link against the page's filters: which it drops, changes or adds.
    const shown = new Map([
      ['filter[browser]', 'Chrome'],
      ['filter[page][not]', '/blog'],
    ]);
    const removals: string[][] = [];
    let valueLinks = 0;
    for (const u of own) {
      const filters = new Map([...u.searchParams].filter(([k]) => k.startsWith('filter')));
      const removed = [...shown.keys()].filter((k) => !filters.has(k));
      const changed = [...shown.keys()].filter(
        (k) => filters.has(k) && filters.get(k) !== shown.get(k),
      );
      const added = [...filters.keys()].filter((k) => !shown.has(k));
      if (removed.length > 0) {
        // A chip's link drops its filter and changes nothing else.
        removals.push(removed);
        expect([...changed, ...added], u.href).toEqual([]);
        continue;
      }
      // A value's link sets one filter (a browser's replaces Chrome); every other link keeps
      // the filters as they are.
      expect(changed.length + added.length, u.href).toBeLessThanOrEqual(1);
      if (changed.length + added.length === 1) valueLinks++;
    }
    // Chrome's chip, the /blog chip and "Remove all filters": nothing else drops a filter.
    expect(removals.map((r) => r.join(' ')).sort()).toEqual([
      'filter[browser]',
      'filter[browser] filter[page][not]',
      'filter[page][not]',
    ]);
    // (under filters only the tabs shown are read: their values' links)
    expect(valueLinks).toBeGreaterThan(4);
    // The range nav, the chart, "Show all" and the CSV keep both.
    for (const link of [
      linkNamed(html, 'Last 7 days'),
      linkNamed(html, 'Visits'),
      linkNamed(html, 'CSV'),
    ]) {
      expect(link?.searchParams.get('filter[browser]'), String(link)).toBe('Chrome');
      expect(link?.searchParams.get('filter[page][not]')).toBe('/blog');
    }
    expect(html).toContain('<input type="hidden" name="filter[browser]" value="Chrome"/>');
  });

  it('links each value to the page filtered by it, replacing a filter of the same kind', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '', 'filter[browser]=Safari');
    const link = linkNamed(html, 'Safari');
    expect(link?.pathname).toBe(`/stats/${s.domain}`);
    expect(link?.searchParams.getAll('filter[browser]')).toEqual(['Safari']);
    const all = await page(s.domain, '');
    const chrome = linkNamed(all, 'Chrome');
    expect(chrome?.searchParams.get('filter[browser]')).toBe('Chrome');
    expect(chrome?.searchParams.get('from')).toBe(DAY);
    const res = await call(`${chrome?.pathname}${chrome?.search}`);
    // Ann and Cy: five page views in three visits.
    expect(figures(res.text).slice(0, 3)).toEqual(['2', '3', '5']);
    // Time series are not filters: their full view lists dates as text.
    const dates = await page(s.domain, '/pageviews');
    expect(rowsOf(dates)).toEqual([{ value: DAY, count: '6', href: null }]);
    expect(dates).not.toContain('filter%5Bpageviews%5D');
  });

  it('shows the conversion rate with an event filter: visitors who matched of all visitors', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '', 'filter[event]=signup');
    expect(totalCard(html, 'Conversion rate')).toEqual({
      value: '33.3%',
      // (today: the same hours of the day before, to the time the last visitor came)
      change: 'vs 0% on Jun 1, 00:00–09:47',
    });
    // The figures of a conversion: unique and total conversions, the rate, then the page
    // views, which are 0 and say why.
    const shown = [...html.matchAll(/<p class="big">([^<]*)<\/p>/g)].map((m) => m[1]);
    expect(shown).toEqual(['1', '1', '33.3%', '0']);
    expect(html).not.toMatch(/<h2>(<a [^>]*>)?Bounce rate</);
    expect(html).not.toMatch(/<h2>(<a [^>]*>)?Visitors</);
    expect(totalCard(html, 'Unique conversions').value).toBe('1');
    expect(totalCard(html, 'Total conversions').value).toBe('1');
    expect(totalCard(html, 'Page views').change).toBe(
      'its conversions are custom events, which are not page views',
    );
    expect(html).not.toContain('<h2>Revenue</h2>');
  });

  it('shows the goals panel, links each goal to its filter, and rates it against the other filters', async () => {
    const s = await publicSite();
    for (const goal of [{ event: 'signup', currency: 'EUR' }, { page: '/pricing' }]) {
      const res = await call(`/api/v1/websites/${s.id}/goals`, {
        method: 'POST',
        key: s.key,
        body: { json: goal },
      });
      expect(res.status).toBe(201);
    }
    const html = await page(s.domain, '');
    // The goals are the first tab of "Goals and events", chosen while there are conversions.
    expect(html).toMatch(
      /<a href="[^"]*#events" hx-boost="false" role="tab" id="tab-goal"[^>]*aria-selected="true"/,
    );
    const goalsPanel = panel(html, 'goal');
    const goals = [
      ...goalsPanel.matchAll(
        /<tr><td class="bar-cell"><svg[\s\S]*?<\/svg><a href="([^"]*)" class="filter-link"[^>]*>([^<]*)<\/a><\/td>((?:<td class="num">[^<]*<\/td>)+)<\/tr>/g,
      ),
    ].map((m) => [
      unescapeHtml(m[2] ?? ''),
      [...(m[3] ?? '').matchAll(/<td class="num">([^<]*)<\/td>/g)].map((c) =>
        unescapeHtml(c[1] ?? ''),
      ),
    ]);
    // Ann and Cy saw /pricing; Ann signed up (no revenue sent: €0.00). Three visitors.
    expect(goals).toEqual([
      ['Visit /pricing', ['2', '2', '66.7%', '']],
      ['signup', ['1', '1', '33.3%', '€0.00']],
    ]);
    expect(unescapeHtml(goalsPanel)).toContain('filter%5Bgoal%5D=Visit+%2Fpricing');
    const csv = await call(`/stats/${s.domain}/goal.csv?range=custom&from=${DAY}&to=${DAY}`);
    expect(csv.text.trim().split('\r\n')).toEqual([
      'goal,visitors',
      'Visit /pricing,2',
      'signup,1',
    ]);
    // The full view: every goal, searched, sorted and paged as every statistic.
    const full = await page(s.domain, '/goal', 'sort_by=value&sort=asc');
    expect(full).toContain('<h1>Goals</h1>');
    expect(rowsOf(full).map((r) => [r.value, r.count])).toEqual([
      ['Visit /pricing', '2'],
      ['signup', '1'],
    ]);
    // Filtered by the goal: its visitors, and the rate against every visitor of the range.
    const filtered = await page(s.domain, '', 'filter[goal]=Visit%20/pricing');
    expect(chips(filtered)).toEqual(['Goal is Visit /pricing']);
    expect(totalCard(filtered, 'Conversion rate').value).toBe('66.7%');
    expect(totalCard(filtered, 'Unique conversions').value).toBe('2');
    expect(totalCard(filtered, 'Total conversions').value).toBe('2');
    // A goal with a currency: its revenue in it.
    const signup = await page(s.domain, '', 'filter[goal]=signup');
    expect(totalCard(signup, 'Revenue')).toEqual({ value: '€0.00', change: '€0.00 in this range' });
    // With Chrome too (Ann and Cy): both of the two converted.
    const chrome = await page(s.domain, '', 'filter[goal]=Visit%20/pricing&filter[browser]=Chrome');
    expect(totalCard(chrome, 'Conversion rate').value).toBe('100%');
    // A goal the website does not have is said so, and the rest of the page shows.
    const unknown = await page(s.domain, '', 'filter[goal]=Nope');
    expect(unknown).toContain('filter[goal]');
    expect(figures(unknown)[0]).toBe('3');
  });

  it('shows a property named in the address, each value a link to its filter', async () => {
    const s = await publicSite();
    freezeAt(`${DAY}T15:00:00Z`);
    for (const [ip, plan] of [
      ['198.51.100.40', 'pro'],
      ['198.51.100.41', 'pro'],
      ['198.51.100.42', 'free'],
    ] as const) {
      const res = await sendHit({ page: `https://${s.domain}/signup`, props: { plan } }, { ip });
      expect(res.status).toBe(202);
    }
    const res = await sendHit(
      { page: `https://${s.domain}/blog`, props: { author: 'ann' } },
      { ip: '198.51.100.43' },
    );
    expect(res.status).toBe(202);
    vi.useRealTimers();
    // Asked for (the overview reads no log without), the names the range's hits carry, most
    // carried first, each a link that shows its values; without one named, the first's.
    const names = (html: string) =>
      [
        ...html.matchAll(
          /<nav class="tabs" aria-label="Properties of this range">([\s\S]*?)<\/nav>/g,
        ),
      ]
        .flatMap((m) => [
          ...(m[1] ?? '').matchAll(/<a href="([^"]*)"( aria-current="true")?>([^<]*)<\/a>/g),
        ])
        .map((m) => [
          m[3],
          m[2] ? 'shown' : '',
          params(new URL(unescapeHtml(m[1] ?? ''), 'https://x')).property,
        ]);
    const unasked = await page(s.domain, '');
    expect(names(unasked)).toEqual([]);
    expect(unasked).toContain('Name a property your hits carry');
    expect(params(linkNamed(unasked, "List this range's properties"))).toMatchObject({
      properties: '1',
    });
    const blank = await page(s.domain, '', 'properties=1');
    expect(names(blank)).toEqual([
      ['plan', 'shown', 'plan'],
      ['author', '', 'author'],
    ]);
    expect(rowsOf(blank.slice(blank.indexOf('id="panel-properties"'))).slice(0, 2)).toEqual([
      { value: 'pro', count: '2', href: null },
      { value: 'free', count: '1', href: null },
    ]);
    expect(names(await page(s.domain, '', 'property=author'))[1]?.[1]).toBe('shown');
    // Under filters, the names of the hits they keep: none on the home page.
    const home = await page(s.domain, '', 'filter[page]=/&properties=1');
    expect(names(home)).toEqual([]);
    expect(home).toContain('No hit of this range carries a custom property.');
    expect(
      names(await page(s.domain, '', 'filter[page]=/blog&properties=1')).map((n) => n[0]),
    ).toEqual(['author']);
    const html = await page(s.domain, '', 'property=plan');
    const properties =
      html.match(/<h2 id="panel-properties">Properties<\/h2>([\s\S]*?)<\/section>/)?.[1] ?? '';
    expect(rowsOf(properties).map((r) => [r.value, r.count])).toEqual([
      ['pro', '2'],
      ['free', '1'],
    ]);
    // Shares of the visitors whose hits carry the property (the three of them): bars behind
    // the rows, the longest the whole cell.
    expect(sharesOf(properties)).toEqual(['67%', '33%']);
    expect(barsOf(properties)).toEqual(['100.0', '50.0']);
    expect(unescapeHtml(properties)).toContain('filter%5Bprops%3Aplan%5D=pro');
    const csv = await call(
      `/stats/${s.domain}/property.csv?range=custom&from=${DAY}&to=${DAY}&property=plan`,
    );
    expect(csv.text.trim().split('\r\n')).toEqual(['plan,visitors,events', 'pro,2,2', 'free,1,1']);
    const full = await page(s.domain, '/property', 'property=plan&search=fr');
    expect(full).toContain('<h1>Property plan</h1>');
    expect(rowsOf(full).map((r) => [r.value, r.count])).toEqual([['free', '1']]);
    expect(unescapeHtml(full)).toContain('property=plan');
    const filtered = await page(s.domain, '', 'filter[props:plan]=pro');
    expect(chips(filtered)).toEqual(['Property plan is pro']);
    expect(figures(filtered)[0]).toBe('2');
  });

  it('echoes hostile filter values only as escaped text, and matches them literally', async () => {
    const s = await publicSite();
    const hostile = '"><img src=x onerror=alert(1)>';
    const html = await page(
      s.domain,
      '',
      `filter[page]=${encodeURIComponent(hostile)}&filter[referrer][contains]=${encodeURIComponent("%_'")}`,
    );
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    // A value that matches nothing says so on its chip.
    expect(chips(html)).toEqual([
      `Page is ${hostile} — “${hostile}” matches nothing in this range`,
      "Referrer contains %_'",
    ]);
    expect(figures(html).slice(0, 3)).toEqual(['0', '0', '0']);
  });

  it('says which filters of the address it could not use, and uses the others', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '', 'filter[nope]=1&filter[browser]=Safari&filter[os][is]=x');
    expect(html).toContain(
      'Some filters in this address could not be used and are left out: filter[nope], filter[os][is].',
    );
    expect(figures(html).slice(0, 3)).toEqual(['1', '1', '1']);
    expect(chips(html)).toEqual(['Browser is Safari']);
  });
});

describe('full views and CSV under filters', () => {
  it('lists the kept values, offers exclude and contains, and removes a chip in place', async () => {
    const s = await publicSite();
    const html = await page(s.domain, '/page', 'filter[browser][not]=Chrome');
    expect(rowsOf(html).map((r) => [r.value, r.count])).toEqual([['/blog', '1']]);
    const exclude = linkNamed(html, 'Exclude /blog');
    expect(exclude?.pathname).toBe(`/stats/${s.domain}`);
    expect(exclude?.searchParams.get('filter[page][not]')).toBe('/blog');
    expect(exclude?.searchParams.get('filter[browser][not]')).toBe('Chrome');
    expect(html).toContain('name="filter[page][contains]"');
    const remove = linkNamed(html, /^×\s*Remove filter: Browser is not Chrome$/);
    expect(remove?.pathname).toBe(`/stats/${s.domain}/page`);
    expect(remove?.searchParams.has('filter[browser][not]')).toBe(false);
    const contains = await page(s.domain, '', 'filter[page][contains]=PRIC');
    expect(chips(contains)).toEqual(['Page contains PRIC']);
    expect(values(contains, 'page')).toEqual([['/pricing', 2]]);
  });

  it('exports the CSV of the kept values', async () => {
    const s = await publicSite();
    const res = await call(
      `/stats/${s.domain}/page.csv?range=custom&from=${DAY}&to=${DAY}&filter[browser]=Chrome`,
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      [
        'page,visitors,page_views,bounce_rate,time_on_page,scroll_depth',
        '/,2,2,0,0,',
        '/pricing,2,2,100,0,',
        '/blog,1,1,0,0,',
        '',
      ].join('\r\n'),
    );
  });

  it('shows nothing of a private website, filtered or not, to anyone but its owner', async () => {
    const s = await threeVisitors({ privacy: '1' });
    for (const path of ['', '/page', '/page.csv']) {
      const res = await call(`/stats/${s.domain}${path}?filter[browser]=Chrome`);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('/pricing');
    }
  });
});
