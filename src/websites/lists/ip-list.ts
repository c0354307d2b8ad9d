/**
 * The `exclude_ips` list: one IPv4/IPv6 address or CIDR range per line; blank lines and
 * lines starting with `#` are comments (docs/ARCHITECTURE.md, The HTTP contract).
 */
import type ipaddr from 'ipaddr.js';
import { parseIPv4, parseIPv6 } from '../../lib/ip.ts';
import { type LineListResult, validateLineList } from './line-list.ts';

/** Lines longer than this are rejected outright; no address or range is longer. */
const MAX_ENTRY = 64;

/** Parses one list entry (an address or a CIDR) strictly; null when it is not valid. */
export function parseIpEntry(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  if (entry.length > MAX_ENTRY || /\s/.test(entry)) return null;
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return null;
  const ip = parseIPv4(address) ?? parseIPv6(address);
  if (!ip) return null;
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  if (prefix === undefined) return [ip, max];
  if (!/^\d{1,3}$/.test(prefix)) return null;
  const bits = Number(prefix);
  return bits <= max ? [ip, bits] : null;
}

/**
 * Validates an `exclude_ips` text and returns it with line endings normalised and each line
 * trimmed; on failure names the first bad line (1-based) and its text.
 */
export function validateIpList(text: string): LineListResult {
  return validateLineList(text, (entry) => parseIpEntry(entry) !== null);
}
