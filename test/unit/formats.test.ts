/** Other trackers' payloads (Plausible, Umami) translated into the native hit (docs/ARCHITECTURE.md, The HTTP contract). */
import { describe, expect, it } from 'vitest';
import { storedEventName } from '../../src/counting/statistics.ts';
import {
  fromPlausible,
  fromUmami,
  isPlausible,
  type NativeHit,
  type Translated,
} from '../../src/ingest/formats.ts';

const PAGE = 'https://a.com/pricing?plan=pro';
const GOOGLE = 'https://www.google.com/';
const UUID = '7d9f0a6e-1b2c-4d3e-9f8a-0b1c2d3e4f5a';

/** The hits of a translation that must produce hits. */
function hitsOf(translated: Translated): NativeHit[] {
  if (translated.kind !== 'hits') throw new Error(`expected hits, got ${translated.kind}`);
  return translated.hits;
}

/** The only hit of a translation. */
function onlyHit(translated: Translated): NativeHit {
  const hits = hitsOf(translated);
  expect(hits).toHaveLength(1);
  return hits[0] as NativeHit;
}

describe('storedEventName', () => {
  it('replaces every ":" by the look-alike U+A789 and keeps everything else', () => {
    expect(storedEventName('Outbound Link: Click')).toBe('Outbound Link\uA789 Click');
    expect(storedEventName('a:b:c')).toBe('a\uA789b\uA789c');
    expect(storedEventName('Signup')).toBe('Signup');
  });
});

describe('isPlausible', () => {
  it('is true for short and long keys with a name and a url', () => {
    expect(isPlausible({ n: 'pageview', u: PAGE })).toBe(true);
    expect(isPlausible({ name: 'pageview', url: PAGE })).toBe(true);
    expect(isPlausible({ n: 'pageview', u: PAGE, d: 'a.com', r: null, w: 1440 })).toBe(true);
  });

  it('is false for native bodies and for a name without a url', () => {
    expect(isPlausible({ page: PAGE })).toBe(false);
    expect(isPlausible({ page: PAGE, referrer: GOOGLE, screen_resolution: '1920x1080' })).toBe(
      false,
    );
    expect(isPlausible({ page: PAGE, event: 'purchase:20:eur' })).toBe(false);
    expect(isPlausible({ page: PAGE, n: 'pageview', u: PAGE })).toBe(false);
    expect(isPlausible({ n: 'pageview' })).toBe(false);
    expect(isPlausible({ name: 'pageview', d: 'a.com' })).toBe(false);
    expect(isPlausible({})).toBe(false);
  });
});

describe('fromPlausible: page views', () => {
  it('translates short keys into one native hit without an event', () => {
    expect(fromPlausible({ n: 'pageview', u: PAGE, d: 'a.com', r: GOOGLE, w: 1440 })).toEqual({
      kind: 'hits',
      hits: [{ page: PAGE, referrer: GOOGLE, domain: 'a.com' }],
    });
  });

  it('translates long keys the same way', () => {
    expect(
      fromPlausible({ name: 'pageview', url: PAGE, domain: 'a.com', referrer: GOOGLE }),
    ).toEqual({ kind: 'hits', hits: [{ page: PAGE, referrer: GOOGLE, domain: 'a.com' }] });
  });

  it('has a null referrer when none is sent and no domain when none is given', () => {
    const hit = onlyHit(fromPlausible({ n: 'pageview', u: PAGE }));
    expect(hit).toEqual({ page: PAGE, referrer: null });
    expect('domain' in hit).toBe(false);
    expect('event' in hit).toBe(false);
  });

  it('makes one hit per domain listed in `d`', () => {
    expect(fromPlausible({ n: 'pageview', u: PAGE, d: 'a.com, b.com', r: null })).toEqual({
      kind: 'hits',
      hits: [
        { page: PAGE, referrer: null, domain: 'a.com' },
        { page: PAGE, referrer: null, domain: 'b.com' },
      ],
    });
    expect(hitsOf(fromPlausible({ n: 'pageview', u: PAGE, d: 'a.com,b.com' }))).toHaveLength(2);
  });
});

describe('fromPlausible: custom events', () => {
  it('turns a custom name into an event with just that name', () => {
    const hit = onlyHit(fromPlausible({ n: 'Signup', u: PAGE, d: 'a.com', r: null }));
    expect(hit.page).toBe(PAGE);
    expect(hit.domain).toBe('a.com');
    expect(hit.event).toEqual({ name: 'Signup' });
  });

  it('takes value and unit from the props object', () => {
    const hit = onlyHit(fromPlausible({ n: 'Weight', u: PAGE, p: { value: 5, unit: 'kg' } }));
    expect(hit.event).toEqual({ name: 'Weight', value: 5, unit: 'kg' });
    const long = onlyHit(
      fromPlausible({ name: 'Weight', url: PAGE, props: { value: 5, unit: 'kg' } }),
    );
    expect(long.event).toEqual({ name: 'Weight', value: 5, unit: 'kg' });
  });

  it('takes value and unit from props sent as a JSON string', () => {
    const hit = onlyHit(
      fromPlausible({ n: 'Weight', u: PAGE, p: JSON.stringify({ value: 5, unit: 'kg' }) }),
    );
    expect(hit.event).toEqual({ name: 'Weight', value: 5, unit: 'kg' });
  });

  it('ignores props that are not JSON', () => {
    const hit = onlyHit(fromPlausible({ n: 'Weight', u: PAGE, p: '{not json' }));
    expect(hit.event).toEqual({ name: 'Weight' });
  });

  it('takes value and unit from revenue (`$` and `revenue`), before props', () => {
    const short = onlyHit(
      fromPlausible({ n: 'Purchase', u: PAGE, $: { amount: '19.99', currency: 'EUR' } }),
    );
    expect(short.event).toEqual({ name: 'Purchase', value: '19.99', unit: 'EUR' });
    const long = onlyHit(
      fromPlausible({ name: 'Purchase', url: PAGE, revenue: { amount: '19.99', currency: 'EUR' } }),
    );
    expect(long.event).toEqual({ name: 'Purchase', value: '19.99', unit: 'EUR' });
    const both = onlyHit(
      fromPlausible({
        n: 'Purchase',
        u: PAGE,
        p: { value: 1, unit: 'items' },
        $: { amount: '19.99', currency: 'EUR' },
      }),
    );
    expect(both.event).toEqual({ name: 'Purchase', value: '19.99', unit: 'EUR' });
  });

  it('replaces ":" in event names by U+A789', () => {
    const hit = onlyHit(fromPlausible({ n: 'Outbound Link: Click', u: PAGE }));
    expect(hit.event).toEqual({ name: 'Outbound Link\uA789 Click' });
  });

  it('puts the event on every domain listed in `d`', () => {
    const hits = hitsOf(fromPlausible({ n: 'Signup', u: PAGE, d: 'a.com, b.com' }));
    expect(hits.map((h) => [h.domain, h.event])).toEqual([
      ['a.com', { name: 'Signup' }],
      ['b.com', { name: 'Signup' }],
    ]);
  });
});

describe('fromPlausible: not counted and invalid', () => {
  it('translates an engagement: its time since the last send added, its scroll if measured', () => {
    expect(fromPlausible({ n: 'engagement', u: PAGE, d: 'a.com', sd: 80, e: 12_000 })).toEqual({
      kind: 'hits',
      hits: [{ page: PAGE, domain: 'a.com', engagement: { ms: 12_000, scroll: 80, added: true } }],
    });
    expect(fromPlausible({ name: 'engagement', url: PAGE, sd: 255, h: 1 })).toEqual({
      kind: 'hits',
      hits: [{ page: PAGE, engagement: { ms: 0, scroll: null, added: true }, hash: true }],
    });
  });

  it('rejects a missing or blank name', () => {
    for (const body of [
      { u: PAGE },
      { n: '', u: PAGE },
      { n: '   ', u: PAGE },
      { name: 42, url: PAGE },
      { n: null, u: PAGE },
    ]) {
      expect(fromPlausible(body).kind, JSON.stringify(body)).toBe('invalid');
    }
  });

  it('rejects a url that is not a string', () => {
    for (const body of [
      { n: 'pageview' },
      { n: 'pageview', u: 42 },
      { n: 'pageview', u: null },
      { name: 'pageview', url: { href: PAGE } },
    ]) {
      expect(fromPlausible(body).kind, JSON.stringify(body)).toBe('invalid');
    }
  });
});

describe('fromUmami: page views', () => {
  const payload = {
    website: '12',
    hostname: 'shop.example.com',
    url: '/cart?x=1',
    referrer: GOOGLE,
    screen: '1920x1080',
    language: 'en-US',
    title: 'Cart',
  };

  it('names the website by id and builds the page from hostname and path', () => {
    const translated = fromUmami({ type: 'event', payload });
    expect(translated).toEqual({
      kind: 'hits',
      websiteId: 12,
      hits: [
        {
          page: 'https://shop.example.com/cart?x=1',
          referrer: GOOGLE,
          screen_resolution: '1920x1080',
          language: 'en-US',
        },
      ],
    });
    const hit = onlyHit(translated);
    expect('event' in hit).toBe(false);
    expect('domain' in hit).toBe(false);
  });

  it('accepts a numeric website id', () => {
    const translated = fromUmami({ type: 'event', payload: { ...payload, website: 12 } });
    expect(translated).toMatchObject({ kind: 'hits', websiteId: 12 });
  });

  it('keeps a full URL in `url` as it is', () => {
    const hit = onlyHit(
      fromUmami({
        type: 'event',
        payload: { ...payload, url: 'https://shop.example.com/pricing?plan=pro' },
      }),
    );
    expect(hit.page).toBe('https://shop.example.com/pricing?plan=pro');
  });

  it('has null referrer, resolution and language when they are empty', () => {
    const translated = fromUmami({
      type: 'event',
      payload: { ...payload, referrer: '', screen: '', language: '' },
    });
    expect(onlyHit(translated)).toEqual({
      page: 'https://shop.example.com/cart?x=1',
      referrer: null,
      screen_resolution: null,
      language: null,
    });
  });

  it('names the website by domain when `website` is a domain', () => {
    const translated = fromUmami({
      type: 'event',
      payload: { website: 'shop.example.com', url: '/cart' },
    });
    expect(translated.kind).toBe('hits');
    expect('websiteId' in translated).toBe(false);
    const hit = onlyHit(translated);
    expect(hit.domain).toBe('shop.example.com');
    expect(hit.page).toBe('https://shop.example.com/cart');
  });

  it('lets the page host decide for an Umami UUID website id', () => {
    const translated = fromUmami({ type: 'event', payload: { ...payload, website: UUID } });
    expect(translated.kind).toBe('hits');
    expect('websiteId' in translated).toBe(false);
    const hit = onlyHit(translated);
    expect('domain' in hit).toBe(false);
    expect(hit.page).toBe('https://shop.example.com/cart?x=1');
  });
});

describe('fromUmami: events', () => {
  const base = { website: '12', hostname: 'shop.example.com', url: '/checkout' };

  it('takes value and unit from data.revenue and data.currency', () => {
    const hit = onlyHit(
      fromUmami({
        type: 'event',
        payload: { ...base, name: 'checkout', data: { revenue: 49, currency: 'USD' } },
      }),
    );
    expect(hit.event).toEqual({ name: 'checkout', value: 49, unit: 'USD' });
    expect(hit.page).toBe('https://shop.example.com/checkout');
  });

  it('takes value and unit from data.value and data.unit', () => {
    const hit = onlyHit(
      fromUmami({
        type: 'event',
        payload: { ...base, name: 'add-to-cart', data: { value: 3, unit: 'items' } },
      }),
    );
    expect(hit.event).toEqual({ name: 'add-to-cart', value: 3, unit: 'items' });
  });

  it('has an event with only a name when there is no data', () => {
    const hit = onlyHit(fromUmami({ type: 'event', payload: { ...base, name: 'signup' } }));
    expect(hit.event).toEqual({ name: 'signup' });
  });

  it('replaces ":" in event names by U+A789', () => {
    const hit = onlyHit(fromUmami({ type: 'event', payload: { ...base, name: 'Outbound: x' } }));
    expect(hit.event).toEqual({ name: 'Outbound\uA789 x' });
  });

  it('leaves the page out of a server-side event named only by website id', () => {
    const translated = fromUmami({ type: 'event', payload: { website: '12', name: 'signup' } });
    expect(translated).toMatchObject({ kind: 'hits', websiteId: 12 });
    const hit = onlyHit(translated);
    expect('page' in hit).toBe(false);
    expect(hit.event).toEqual({ name: 'signup' });
  });
});

describe('fromUmami: not counted and invalid', () => {
  it('ignores identify calls', () => {
    expect(
      fromUmami({ type: 'identify', payload: { website: '12', data: { plan: 'pro' } } }),
    ).toEqual({ kind: 'ignored', reason: 'not_counted' });
  });

  it('rejects a body that is not an object or has no payload object', () => {
    for (const body of [
      null,
      'event',
      42,
      [],
      [{ type: 'event', payload: {} }],
      {},
      { type: 'event' },
      { type: 'event', payload: null },
      { type: 'event', payload: 'x' },
      { type: 'event', payload: [] },
    ]) {
      expect(fromUmami(body).kind, JSON.stringify(body)).toBe('invalid');
    }
  });
});
