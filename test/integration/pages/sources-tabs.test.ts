/**
 * Sources as people look for them: the overview's Sources card has a tab for channels,
 * sources, referrers and each UTM tag, each row a filter; API v1 lists and filters by the same
 * names (`name=utm_source`, `filter[channel]=Email`), and each has its full view and CSV.
 */
import { describe, expect, it } from 'vitest';
import { call, listOf, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { panel, panelRows, rowsOf, totalsOf, unescapeHtml } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { openSharedLink } from '../../support/tokens.ts';

describe('the Sources tabs', () => {
  it('find a tagged visit under its channel, source and tags, and filter by each', async () => {
    freezeAt('2026-11-28T10:00:00Z');
    const owner = await makeOwner('sources-tabs');
    const site = await makeWebsite(owner.key, {
      domain: `sources-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    const tagged = `https://${site.domain}/?utm_source=newsletter&utm_medium=email&utm_campaign=winter&utm_term=boots&utm_content=header`;
    expect((await sendHit({ name: 'pageview', url: tagged }, { ip: '203.0.113.1' })).status).toBe(
      202,
    );
    const referred = {
      name: 'pageview',
      url: `https://${site.domain}/a`,
      referrer: 'https://www.google.com/',
    };
    expect((await sendHit(referred, { ip: '203.0.113.2' })).status).toBe(202);
    expect(
      (await sendHit({ name: 'pageview', url: `https://${site.domain}/b` }, { ip: '203.0.113.3' }))
        .status,
    ).toBe(202);

    const b = newBrowser();
    const html = (await b.get(`/stats/${site.domain}?range=today`)).text;
    // Referrers is the card's first tab, read with the other statistics from the roll-ups;
    // the log's listings are read when their tab is shown (`sources=…`), a link until then.
    expect(panelRows(html, 'referrer').map((r) => [r.value, r.count])).toEqual([
      ['www.google.com', '1'],
    ]);
    expect(html).toMatch(/id="panel-utm_source"[^>]*hidden="" data-load=""/);
    expect(panel(html, 'utm_source')).toContain('>Show UTM source</a>');
    const shown = new Map<string, string>();
    for (const name of [
      'channel',
      'source',
      'campaign',
      'utm_medium',
      'utm_source',
      'utm_term',
      'utm_content',
    ])
      shown.set(name, (await b.get(`/stats/${site.domain}?range=today&sources=${name}`)).text);
    const values = (name: string) =>
      panelRows(shown.get(name) ?? html, name).map((r) => [r.value, r.count]);
    expect(values('channel')).toEqual([
      ['Direct', '1'],
      ['Email', '1'],
      ['Organic Search', '1'],
    ]);
    expect(values('source')).toEqual([
      ['Direct / None', '1'],
      ['Google', '1'],
      ['newsletter', '1'],
    ]);
    expect(values('referrer')).toEqual([['www.google.com', '1']]);
    expect(values('utm_medium')).toEqual([['email', '1']]);
    expect(values('utm_source')).toEqual([['newsletter', '1']]);
    expect(values('campaign')).toEqual([['winter', '1']]);
    expect(values('utm_term')).toEqual([['boots', '1']]);
    expect(values('utm_content')).toEqual([['header', '1']]);
    // A row is a filter: the UTM source's narrows every figure to its visit.
    const link = (shown.get('utm_source') ?? '').match(
      /href="([^"]*filter%5Butm_source%5D=newsletter[^"]*)"/,
    )?.[1];
    expect(link).toBeDefined();
    const filtered = (await b.get(unescapeHtml(link as string))).text;
    expect(totalsOf(filtered).visitors?.value).toBe('1');
    expect(filtered).toContain('UTM source');
    expect(panelRows(filtered, 'page').map((r) => r.value)).toEqual(['/']);
    const direct = (
      await b.get(`/stats/${site.domain}?range=today&filter%5Bsource%5D=Direct+%2F+None`)
    ).text;
    expect(panelRows(direct, 'page').map((r) => r.value)).toEqual(['/b']);

    // The full view and its CSV.
    const full = (await b.get(`/stats/${site.domain}/channel?range=today`)).text;
    expect(full).toContain('<h1');
    expect(rowsOf(full).map((r) => r.value)).toEqual(['Direct', 'Email', 'Organic Search']);
    const csv = (await b.get(`/stats/${site.domain}/utm_medium.csv?range=today`)).text;
    expect(csv.trim().split(/\r?\n/)).toEqual([
      'utm_medium,visitors,visits,bounce_rate,visit_duration',
      'email,1,1,100,0',
    ]);
  });

  it('and every other dimension can be filtered from the menu, its values suggested', async () => {
    freezeAt('2026-11-28T10:00:00Z');
    const owner = await makeOwner('filter-menu');
    const site = await makeWebsite(owner.key, {
      domain: `menu-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    for (const [path, ip] of [
      ['/?utm_source=newsletter', '203.0.113.1'],
      ['/?utm_source=news-digest', '203.0.113.2'],
      ['/?utm_source=newsletter', '203.0.113.3'],
      ['/x?utm_source=partner', '203.0.113.4'],
    ] as const)
      expect(
        (await sendHit({ name: 'pageview', url: `https://${site.domain}${path}` }, { ip })).status,
      ).toBe(202);
    const b = newBrowser();
    const base = `/stats/${site.domain}`;
    const html = (await b.get(`${base}?range=today`)).text;
    expect(html).toContain(`<details class="filter-menu"><summary>Add a filter</summary>`);
    expect(html).toContain('<option value="utm_source">UTM source</option>');
    expect(html).toContain('<option value="goal">Goal</option>');
    // The form's answer is the address with the filter as its own parameter.
    const added = await b.get(
      `${base}?range=today&add_filter=utm_source&add_operator=is&add_value=newsletter`,
    );
    expect(added.status).toBe(303);
    expect(added.location).toBe(`${base}?range=today&filter%5Butm_source%5D=newsletter`);
    const not = await b.get(`${base}?range=7d&add_filter=page&add_operator=not&add_value=%2Fx`);
    expect(not.location).toBe(`${base}?range=7d&filter%5Bpage%5D%5Bnot%5D=%2Fx`);
    const filtered = (await b.get(added.location as string)).text;
    expect(totalsOf(filtered).visitors?.value).toBe('2');
    // Suggestions: the range's values containing what is typed, most counted first, under
    // the view's filters.
    const suggest = async (query: string) =>
      JSON.parse((await b.get(`${base}/utm_source.json?range=today&${query}`)).text);
    expect(await suggest('search=news')).toEqual({
      values: [
        { value: 'newsletter', label: 'newsletter' },
        { value: 'news-digest', label: 'news-digest' },
      ],
    });
    expect(await suggest('search=&filter%5Bpage%5D=%2Fx')).toEqual({
      values: [{ value: 'partner', label: 'partner' }],
    });
    // A private website's values are not to be had without its access.
    const closed = await makeWebsite(owner.key, {
      domain: `closed-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    expect((await b.get(`/stats/${closed.domain}/utm_source.json?range=today`)).status).toBe(404);
    // A shared link's readers have the menu and its suggestions, under the link's address.
    expect(
      (
        await sendHit(
          { name: 'pageview', url: `https://${closed.domain}/?utm_source=partner` },
          { ip: '203.0.113.9' },
        )
      ).status,
    ).toBe(202);
    const link = await call(`/api/v1/websites/${closed.id}/shared-links`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'Board' } },
    });
    const reader = newBrowser();
    const shared = await openSharedLink(reader, String(oneOf(link).data.url), 'range=today');
    const suggestAt = shared.text.match(/data-suggest="([^"]*)"/)?.[1] ?? '';
    expect(suggestAt).toMatch(/^\/share\/[^/]+$/);
    const values = await reader.get(`${suggestAt}/utm_source.json?range=today&search=part`);
    expect(values.status).toBe(200);
    expect(JSON.parse(values.text)).toEqual({ values: [{ value: 'partner', label: 'partner' }] });
  });

  it('name the AI assistants and group them as AI Assistants, in every view', async () => {
    freezeAt('2026-12-02T10:00:00Z');
    const owner = await makeOwner('ai-assistants');
    const site = await makeWebsite(owner.key, {
      domain: `ai-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    const hits: [string, string, string][] = [
      ['/a', 'https://chatgpt.com/', '203.0.113.1'],
      // ChatGPT's tag, with no referrer sent.
      ['/b?utm_source=chatgpt.com', '', '203.0.113.2'],
      ['/c', 'https://www.perplexity.ai/search/x', '203.0.113.3'],
      ['/d', 'https://www.google.com/', '203.0.113.4'],
    ];
    for (const [path, referrer, ip] of hits) {
      const hit = { name: 'pageview', url: `https://${site.domain}${path}`, referrer };
      expect((await sendHit(hit, { ip })).status).toBe(202);
    }
    const v2 = async (body: Record<string, unknown>) => {
      const res = await call('/api/v2/query', {
        method: 'POST',
        key: owner.key,
        body: { json: { site_id: site.domain, date_range: 'day', metrics: ['visits'], ...body } },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (res.json as { results: { dimensions: string[]; metrics: number[] }[] }).results;
    };
    expect(await v2({ dimensions: ['visit:channel'] })).toEqual([
      { dimensions: ['AI Assistants'], metrics: [3] },
      { dimensions: ['Organic Search'], metrics: [1] },
    ]);
    const ai = [['is', 'visit:channel', ['AI Assistants']]];
    expect(await v2({ dimensions: ['visit:source'], filters: ai })).toEqual([
      { dimensions: ['ChatGPT'], metrics: [2] },
      { dimensions: ['Perplexity'], metrics: [1] },
    ]);
    expect(await v2({ dimensions: ['event:page'], filters: ai, metrics: ['pageviews'] })).toEqual([
      { dimensions: ['/a'], metrics: [1] },
      { dimensions: ['/b'], metrics: [1] },
      { dimensions: ['/c'], metrics: [1] },
    ]);

    // API v1: the channel statistic and its filter.
    const v1 = async (query: string) =>
      listOf(await call(`/api/v1/stats/${site.id}?${query}`, { key: owner.key })).data;
    const day = 'from=2026-12-02&to=2026-12-02';
    expect(await v1(`name=channel&${day}`)).toEqual([
      { value: 'AI Assistants', count: 3 },
      { value: 'Organic Search', count: 1 },
    ]);
    expect(await v1(`name=source&${day}&filter%5Bchannel%5D=AI+Assistants`)).toEqual([
      { value: 'ChatGPT', count: 2 },
      { value: 'Perplexity', count: 1 },
    ]);

    // The statistics page: the Channels tab, and its row a filter.
    const b = newBrowser();
    const base = `/stats/${site.domain}?range=today`;
    const channels = (await b.get(`${base}&sources=channel`)).text;
    expect(panelRows(channels, 'channel').map((r) => [r.value, r.count])).toEqual([
      ['AI Assistants', '3'],
      ['Organic Search', '1'],
    ]);
    const link = channels.match(
      /href="([^"]*filter%5Bchannel%5D=AI(?:\+|%20)Assistants[^"]*)"/,
    )?.[1];
    expect(link).toBeDefined();
    const filtered = (await b.get(unescapeHtml(link as string))).text;
    expect(totalsOf(filtered).visitors?.value).toBe('3');
    expect(panelRows(filtered, 'page').map((r) => r.value)).toEqual(['/a', '/b', '/c']);
  });

  it('are API v1 statistics and filters', async () => {
    freezeAt('2026-11-28T10:00:00Z');
    const owner = await makeOwner('sources-api');
    const site = await makeWebsite(owner.key, {
      domain: `sources-api-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    const url = `https://${site.domain}/?utm_source=newsletter&utm_medium=email`;
    expect((await sendHit({ name: 'pageview', url }, { ip: '203.0.113.1' })).status).toBe(202);
    expect(
      (await sendHit({ name: 'pageview', url: `https://${site.domain}/x` }, { ip: '203.0.113.2' }))
        .status,
    ).toBe(202);
    const day = 'from=2026-11-28&to=2026-11-28';
    const sources = await call(`/api/v1/stats/${site.id}?name=utm_source&${day}`, {
      key: owner.key,
    });
    expect(sources.status).toBe(200);
    expect(listOf(sources).data).toEqual([{ value: 'newsletter', count: 1 }]);
    const pages = await call(
      `/api/v1/stats/${site.id}?name=page&${day}&filter%5Bchannel%5D=Email`,
      { key: owner.key },
    );
    expect(listOf(pages).data).toEqual([{ value: '/', count: 1 }]);
    const unknown = await call(`/api/v1/stats/${site.id}?name=page&${day}&filter%5Bchanel%5D=x`, {
      key: owner.key,
    });
    expect(unknown.status).toBe(422);
  });
});
