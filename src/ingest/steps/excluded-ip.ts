/**
 * Matching the client IP against a website's `exclude_ips` list. IPv4-mapped IPv6
 * addresses (`::ffff:203.0.113.7`) are compared as the IPv4 address they carry, on either
 * side, so one entry covers both spellings.
 */
import type ipaddr from 'ipaddr.js';
import { parseIPv4, parseIPv6 } from '../../lib/ip.ts';
import { parseIpEntry } from '../../websites/lists/ip-list.ts';
import { listEntries } from '../../websites/lists/line-list.ts';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function unmap(range: Range): Range {
  const [ip, bits] = range;
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return range;
}

/** Parsed lists by text: one website's list is parsed once per isolate, not per hit. */
const cache = new Map<string, Range[]>();

function rangesOf(list: string): Range[] {
  let ranges = cache.get(list);
  if (!ranges) {
    ranges = [];
    for (const line of listEntries(list)) {
      const entry = parseIpEntry(line);
      if (entry) ranges.push(unmap(entry));
    }
    if (cache.size > 1000) cache.clear();
    cache.set(list, ranges);
  }
  return ranges;
}

export function isExcludedIp(clientIp: string | null, list: string): boolean {
  if (!clientIp || list.trim() === '') return false;
  const parsed = parseIPv4(clientIp) ?? parseIPv6(clientIp);
  if (!parsed) return false;
  const [ip] = unmap([parsed, parsed.kind() === 'ipv4' ? 32 : 128]);
  return rangesOf(list).some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits));
}
