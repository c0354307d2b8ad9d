/**
 * The websites list's last 24 hours: each website's visitors of the 24 hours up to now, per
 * hour for its trend line, read from its event log (the last minutes' hits included).
 */
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { recentTraffic } from '../../../src/query/present/recent.ts';
import { db, makeOwner, makeWebsite } from '../../support/api.ts';
import { signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

afterAll(() => freezeAt(Date.now()));

describe("a website's last 24 hours", () => {
  it('counts its visitors, per hour in its time zone, and the list shows them', async () => {
    const owner = await makeOwner('recent');
    const site = await makeWebsite(owner.key, {
      domain: `recent-${crypto.randomUUID().slice(0, 6)}.example.com`,
      timezone: 'Asia/Kolkata',
    });
    const visit = async (at: string, ip: string) => {
      freezeAt(at);
      const res = await sendHit({ name: 'pageview', url: `https://${site.domain}/` }, { ip });
      expect(res.status).toBe(202);
    };
    await visit('2026-11-27T09:00:00Z', '203.0.113.1'); // more than a day before: not counted
    await visit('2026-11-28T07:10:00Z', '203.0.113.2');
    await visit('2026-11-28T12:10:00Z', '203.0.113.3');
    await visit('2026-11-28T12:20:00Z', '203.0.113.4');
    freezeAt('2026-11-28T12:30:00Z');
    const recent = await recentTraffic(env, db(), { id: site.id, timezone: 'Asia/Kolkata' });
    expect(recent.visitors).toBe(3);
    expect(recent.hourly).toHaveLength(24);
    // The last slot is the hour under way (12:00 UTC, 17:30 in India), five before it 07:00.
    expect(recent.hourly[23]).toBe(2);
    expect(recent.hourly[18]).toBe(1);
    expect(recent.hourly.reduce((a, b) => a + b)).toBe(3);

    const list = (await (await signedIn(owner)).get('/websites')).text;
    expect(list).toContain(
      `<a href="/stats/${site.domain}?range=today" class="recent">3 <svg class="trend"`,
    );
  });
});
