/**
 * Events read as people name them: the Events tab shows an event as one row (visitors, events,
 * conversion rate) with its values inside it, and the full view its name, value and unit in
 * columns of their own (not `purchase:99:USD`); the filter a value links to is the event as
 * stored, so it still narrows to it.
 */
import { describe, expect, it } from 'vitest';
import { makeOwner, makeWebsite } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { panel, unescapeHtml } from '../../support/html.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

/** The cells of a fragment's body rows, as text. */
const cells = (fragment: string) =>
  [...fragment.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((tr) =>
      [...(tr[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) =>
        unescapeHtml((td[1] ?? '').replace(/<svg[\s\S]*?<\/svg>/, '').replace(/<[^>]*>/g, '')),
      ),
    )
    .filter((row) => row.length > 0);

describe('the events', () => {
  it('show one row per name with its values inside, and columns of their own in the full view', async () => {
    freezeAt('2026-11-28T10:00:00Z');
    const owner = await makeOwner('event-columns');
    const site = await makeWebsite(owner.key, {
      domain: `events-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    const url = `https://${site.domain}/`;
    const purchase = { name: 'purchase', url, revenue: { amount: 99, currency: 'USD' } };
    // Each visitor reads a page, then sends the event.
    for (const [ip, hit] of [
      ['203.0.113.1', purchase],
      ['203.0.113.2', { name: 'signup', url }],
    ] as const) {
      expect((await sendHit({ name: 'pageview', url }, { ip })).status).toBe(202);
      expect((await sendHit(hit, { ip })).status).toBe(202);
    }
    const b = newBrowser();
    const html = (await b.get(`/stats/${site.domain}?range=today`)).text;
    const events = panel(html, 'event');
    // An event is one row with its visitors, events and conversion rate; its values are rows
    // inside it, each read as people name it and linking to the event as stored.
    expect(events).toMatch(
      /<th scope="col">Event<\/th><th scope="col" class="num">Visitors<\/th><th scope="col" class="num">Events<\/th><th [^>]*>Conversion rate<\/th>/,
    );
    expect(cells(events)).toEqual([
      ['purchase', '1', '1', '50%'],
      ['signup', '1', '1', '50%'],
    ]);
    expect(events).toMatch(/<tr class="event-value">[\s\S]*?purchase: <\/span>99 USD<\/a>/);
    expect(unescapeHtml(events)).toContain('filter%5Bevent%5D=purchase%3A99%3AUSD');
    const full = (await b.get(`/stats/${site.domain}/event?range=today`)).text;
    expect(cells(full).map((row) => row.slice(0, 3))).toEqual([
      ['purchase', '99', 'USD'],
      ['signup', '', ''],
    ]);
  });
});
