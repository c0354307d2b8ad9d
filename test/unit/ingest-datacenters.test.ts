/**
 * The data-centre rule's list (src/ingest/steps/datacenters.ts): the refresh script's parser
 * of its source (scripts/build-datacenters.ts), the compact encoding the Worker ships, and
 * the networks the rule must never drop.
 */
import { describe, expect, it } from 'vitest';
import { datacentersText, PEOPLE_NETWORKS, parseAsnList } from '../../scripts/build-datacenters.ts';
import { DATACENTER_ASNS } from '../../src/ingest/steps/datacenters.generated.ts';
import {
  decodeAsns,
  encodeAsns,
  fromDatacenter,
  isDatacenterAsn,
} from '../../src/ingest/steps/datacenters.ts';

/** Lines as the source writes them: a comment after a space or a tab, blank lines, repeats. */
const SOURCE = [
  'AS45090 # Tencent cloud computing, they dont really monitor their network',
  'AS3223 # VOXILITY, RO',
  'AS55286\t# SERVER-MANIA, CA',
  '',
  '# a comment of its own',
  '  as14061  ',
  'AS3223 # listed twice',
  'AS36183 # Akami AS - https://asn.ipinfo.app/AS36183',
].join('\r\n');

describe('the refresh script', () => {
  it('reads the ASNs of the list, skipping comments and blank lines', () => {
    expect(parseAsnList(SOURCE)).toEqual([45090, 3223, 55286, 14061, 3223, 36183]);
    expect(parseAsnList('')).toEqual([]);
  });

  it('fails on a line that is not an ASN, naming it', () => {
    expect(() => parseAsnList('AS1\n10.0.0.0/8\n')).toThrow(/line 2 .*10\.0\.0\.0\/8/);
    expect(() => parseAsnList('AS12 AS13')).toThrow(/line 1/);
    expect(() => parseAsnList('AS99999999999')).toThrow(/line 1/);
  });

  it('writes the list sorted and distinct, less the networks people browse through', () => {
    const many = Array.from({ length: 150 }, (_, i) => `AS${64_000 + i * 7}`);
    const text = datacentersText([SOURCE, ...many].join('\n'), '2026-07-26');
    expect(text).toContain('as of 2026-07-26');
    const encoded = /DATACENTER_ASNS =\s*'([^']*)'/.exec(text)?.[1] ?? '';
    const asns = decodeAsns(encoded);
    expect(asns.slice(0, 4)).toEqual([3223, 14061, 45090, 55286]);
    expect(asns).not.toContain(36183);
    expect(asns).toHaveLength(154);
  });

  it('refuses a list too short to be the real one', () => {
    expect(() => datacentersText(SOURCE, '2026-07-26')).toThrow(/not the real one/);
  });
});

describe('the shipped list', () => {
  const shipped = decodeAsns(DATACENTER_ASNS);

  it('decodes to sorted, distinct ASNs, as it was encoded', () => {
    expect(shipped.length).toBeGreaterThan(500);
    expect(shipped).toEqual([...new Set(shipped)].sort((a, b) => a - b));
    expect(encodeAsns(shipped)).toBe(DATACENTER_ASNS);
    expect(decodeAsns(encodeAsns([5, 1, 4_200_000_000, 1]))).toEqual([1, 5, 4_200_000_000]);
    expect(decodeAsns('')).toEqual([]);
  });

  it('holds the big clouds and hosts, and no network people browse through', () => {
    // Amazon, Microsoft, Google Cloud, DigitalOcean, Hetzner, OVH.
    for (const asn of [16509, 14618, 8075, 396982, 14061, 24940, 16276])
      expect(isDatacenterAsn(asn), String(asn)).toBe(true);
    // iCloud Private Relay, WARP, and the placeholder `request.cf` of a local run.
    for (const asn of PEOPLE_NETWORKS) expect(isDatacenterAsn(asn), String(asn)).toBe(false);
    // Comcast, Deutsche Telekom, Verizon: people's homes and phones.
    for (const asn of [7922, 3320, 701]) expect(isDatacenterAsn(asn), String(asn)).toBe(false);
  });

  it('reads only a whole number as an ASN', () => {
    for (const asn of ['16509', 16509.5, null, undefined, {}])
      expect(isDatacenterAsn(asn)).toBe(false);
  });
});

describe('fromDatacenter', () => {
  it("judges a listed network's hit from a public address, IPv4 or IPv6", () => {
    expect(fromDatacenter({ asn: 16509 }, '3.5.140.2')).toBe(true);
    expect(fromDatacenter({ asn: 16509 }, '2600:1f18::1')).toBe(true);
    expect(fromDatacenter({ asn: 16509 }, '::ffff:3.5.140.2')).toBe(true);
    expect(fromDatacenter({ asn: 7922 }, '3.5.140.2')).toBe(false);
    expect(fromDatacenter({}, '3.5.140.2')).toBe(false);
    expect(fromDatacenter(undefined, '3.5.140.2')).toBe(false);
  });

  it('never judges a local run: loopback, private, documentation or no address', () => {
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.9', '192.0.2.1', '198.51.100.23'])
      expect(fromDatacenter({ asn: 16509 }, ip), ip).toBe(false);
    expect(fromDatacenter({ asn: 16509 }, null)).toBe(false);
    expect(fromDatacenter({ asn: 16509 }, 'not an address')).toBe(false);
  });
});
