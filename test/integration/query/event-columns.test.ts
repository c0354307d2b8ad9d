/**
 * Events read as people name them: the Events tab and full view show an event's name, with
 * its value and unit in columns of their own (not `purchase:99:USD`); the filter it links to
 * is the event as stored, so it still narrows to it.
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
  it('show the name, then the value and the unit in their own columns', async () => {
    freezeAt('2026-11-28T10:00:00Z');
    const owner = await makeOwner('event-columns');
    const site = await makeWebsite(owner.key, {
      domain: `events-${crypto.randomUUID().slice(0, 6)}.example.com`,
      privacy: '0',
    });
    const url = `https://${site.domain}/`;
    const purchase = { name: 'purchase', url, revenue: { amount: 99, currency: 'USD' } };
    expect((await sendHit(purchase, { ip: '203.0.113.1' })).status).toBe(202);
    expect((await sendHit({ name: 'signup', url }, { ip: '203.0.113.2' })).status).toBe(202);
    const b = newBrowser();
    const html = (await b.get(`/stats/${site.domain}?range=today`)).text;
    const events = panel(html, 'event');
    expect(events).toMatch(
      /<th scope="col">Events<\/th><th scope="col">Value<\/th><th scope="col">Unit<\/th>/,
    );
    expect(cells(events).map((row) => row.slice(0, 4))).toEqual([
      ['purchase', '99', 'USD', '1'],
      ['signup', '', '', '1'],
    ]);
    expect(unescapeHtml(events)).toContain('filter%5Bevent%5D=purchase%3A99%3AUSD');
    const full = (await b.get(`/stats/${site.domain}/event?range=today`)).text;
    expect(cells(full).map((row) => row.slice(0, 3))).toEqual([
      ['purchase', '99', 'USD'],
      ['signup', '', ''],
    ]);
  });
});
