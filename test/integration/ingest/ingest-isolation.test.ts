/** Hits for one website never write rows of another, even when their domains are related. */
import { describe, expect, it } from 'vitest';
import { makeOwner, makeWebsite } from '../../support/api.ts';
import { rollups, sendHit } from '../../support/hits.ts';
import { site, statRows } from '../../support/ingest-fixtures.ts';

describe('website isolation', () => {
  it('hits for site A create rows for site A only', async () => {
    const a = await site('iso-a');
    const b = await site('iso-b');
    const page = `https://${a.domain}/pricing?utm_campaign=spring`;
    await sendHit({ page, referrer: 'https://www.google.com/', screen_resolution: '800x600' });
    await sendHit({ page, event: { name: 'signup', value: 3 } });
    await sendHit({ page: `https://blog.${a.domain}/` });
    expect(await statRows(a.id)).toBeGreaterThan(0);
    expect(await statRows(b.id)).toBe(0);
    expect(await rollups(b.id)).toEqual({});
  });

  it('sites of different owners stay apart', async () => {
    const other = await makeOwner('other');
    const a = await site('owner-a');
    const b = await makeWebsite(other.key, {
      domain: `owner-b-${crypto.randomUUID().slice(0, 8)}.example.com`,
    });
    await sendHit({ page: `https://${a.domain}/` });
    await sendHit({ page: `https://${b.domain}/x` });
    expect((await rollups(a.id)).page).toEqual({ '/': 1 });
    expect((await rollups(b.id)).page).toEqual({ '/x': 1 });
  });

  it('a website on a subdomain of another gets its own hits, and only those', async () => {
    const parent = await site('nest');
    const child = await site('nest-child', { domain: `shop.${parent.domain}` });
    await sendHit({ page: `https://shop.${parent.domain}/cart` });
    await sendHit({ page: `https://www.shop.${parent.domain}/cart` });
    await sendHit({ page: `https://eu.shop.${parent.domain}/cart` });
    expect((await rollups(child.id)).pageviews).toBeDefined();
    expect(Object.values((await rollups(child.id)).pageviews ?? {})).toEqual([3]);
    expect(await statRows(parent.id)).toBe(0);

    await sendHit({ page: `https://${parent.domain}/` });
    await sendHit({ page: `https://blog.${parent.domain}/` });
    expect(Object.values((await rollups(parent.id)).pageviews ?? {})).toEqual([2]);
    expect(Object.values((await rollups(child.id)).pageviews ?? {})).toEqual([3]);
  });

  it('the parent domain named in `domain` takes a page of its subdomain, and the child site does not', async () => {
    const parent = await site('named');
    const child = await site('named-child', { domain: `app.${parent.domain}` });
    const res = await sendHit({ page: `https://app.${parent.domain}/`, domain: parent.domain });
    expect(res.status).toBe(202);
    expect(Object.values((await rollups(parent.id)).pageviews ?? {})).toEqual([1]);
    expect(await statRows(child.id)).toBe(0);

    // The child named in `domain` with a page of the parent is a mismatch, stored nowhere.
    const mismatch = await sendHit({ page: `https://${parent.domain}/`, domain: child.domain });
    expect(mismatch.dropReason).toBe('host_mismatch');
    expect(await statRows(child.id)).toBe(0);
    expect(Object.values((await rollups(parent.id)).pageviews ?? {})).toEqual([1]);
  });
});
