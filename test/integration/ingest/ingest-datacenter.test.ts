/**
 * The data-centre rule (docs/ARCHITECTURE.md, The path of a hit): a hit from a hosting or
 * cloud network (`request.cf.asn`) answers 202 with `X-Drop-Reason: datacenter` and stores
 * nothing, unless its website switched the rule off.
 */
import { describe, expect, it } from 'vitest';
import { AUSTIN, expectDropped, rollups, sendHit } from '../../support/hits.ts';
import { site, statRows } from '../../support/ingest-fixtures.ts';

/** A public address: a local run's own addresses are never judged by their network. */
const PUBLIC_IP = '3.5.140.2';
const AMAZON = { ...AUSTIN, asn: 16509, asOrganization: 'Amazon.com, Inc.' };
const HETZNER = { ...AUSTIN, asn: 24940, asOrganization: 'Hetzner Online GmbH' };
const COMCAST = { ...AUSTIN, asn: 7922, asOrganization: 'Comcast Cable Communications, LLC' };

type Hit = Parameters<typeof sendHit>;

async function expectCounted(websiteId: number, ...[body, options]: Hit) {
  const total = async () =>
    Object.values((await rollups(websiteId)).pageviews ?? {}).reduce((a, b) => a + b, 0);
  const before = await total();
  const res = await sendHit(body, options);
  expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: null });
  expect(await total()).toBe(before + 1);
}

describe('datacenter', () => {
  it("drops a hit from a cloud's or a host's network", async () => {
    const s = await site('datacenter');
    const page = `https://${s.domain}/`;
    await expectDropped('datacenter', { page }, { ip: PUBLIC_IP, cf: AMAZON });
    await expectDropped('datacenter', { page }, { ip: '2a01:4f8::1', cf: HETZNER });
    expect(await statRows(s.id)).toBe(0);
  });

  it("counts a person's network, and a hit whose network is unknown", async () => {
    const s = await site('residential');
    const page = `https://${s.domain}/`;
    await expectCounted(s.id, { page }, { ip: PUBLIC_IP, cf: COMCAST });
    await expectCounted(s.id, { page }, { ip: PUBLIC_IP, cf: AUSTIN });
    // iCloud Private Relay leaves through Akamai's network, which the source lists.
    await expectCounted(s.id, { page }, { ip: PUBLIC_IP, cf: { ...AUSTIN, asn: 36183 } });
  });

  it('counts the same hits when the website switched the rule off', async () => {
    const s = await site('datacenters-welcome', { exclude_datacenters: '0' });
    const page = `https://${s.domain}/`;
    await expectCounted(s.id, { page }, { ip: PUBLIC_IP, cf: AMAZON });
    await expectCounted(s.id, { page }, { ip: '2a01:4f8::1', cf: HETZNER });
  });

  it("counts a local run's hits: the placeholder network, a local address", async () => {
    const s = await site('datacenter-local');
    const page = `https://${s.domain}/`;
    // The network of wrangler's placeholder `request.cf` (`npm run dev`'s and the tests').
    await expectCounted(s.id, { page }, { ip: PUBLIC_IP, cf: { ...AUSTIN, asn: 395747 } });
    // A cloud's network seen from a local address: the machine's, not a visitor's.
    await expectCounted(s.id, { page }, { ip: '127.0.0.1', cf: AMAZON });
    await expectCounted(s.id, { page }, { cf: AMAZON });
  });

  it('runs after the bot step and before the excluded addresses', async () => {
    const s = await site('datacenter-order', { exclude_ips: PUBLIC_IP });
    const page = `https://${s.domain}/`;
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    await expectDropped('bot', { page }, { ip: PUBLIC_IP, cf: AMAZON, ua: googlebot });
    await expectDropped('datacenter', { page }, { ip: PUBLIC_IP, cf: AMAZON });
    await expectDropped('excluded_ip', { page }, { ip: PUBLIC_IP, cf: COMCAST });
  });
});
