/**
 * Strict IP address parsing on top of ipaddr.js, which is lenient in ways a browser is not
 * (hex or octal IPv4 parts, `::1.2.3.4` read as IPv4-mapped).
 */
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

/**
 * The client's address as the page routes count it (throttles, rate limits): Cloudflare's
 * `CF-Connecting-IP` only, never `X-Forwarded-For` (docs/ARCHITECTURE.md, The HTTP contract); `unknown` when absent.
 */
const clientIp = (c: Context) => c.req.header('cf-connecting-ip') ?? 'unknown';

/**
 * The key every per-address control counts a client under (rate limits, throttles): an IPv4
 * address as it is, an IPv6 address by its /64 network. One IPv6 subscriber or server is
 * handed a whole /64 and can send from any of its 2^64 addresses, so counting per address
 * would give an attacker unlimited fresh counters. An IPv4-mapped IPv6 address counts as
 * the IPv4 address it carries. Anything that is not an address is kept as it is (`unknown`).
 * The visitor hash does not use this: it keeps the full address.
 *
 * @example
 * addressKey('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 * addressKey('203.0.113.7') // '203.0.113.7'
 */
export function addressKey(ip: string): string {
  const v4 = parseIPv4(ip);
  if (v4) return v4.toString();
  const v6 = parseIPv6(ip);
  if (!v6) return ip;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((p) => p.toString(16));
  return `${ipaddr.IPv6.parse(`${parts.join(':')}::`).toString()}/64`;
}

/** `addressKey` of the request's client (`CF-Connecting-IP`). */
export const clientAddressKey = (c: Context) => addressKey(clientIp(c));

/** Strict dotted-quad: four decimal octets, no leading zeros, no hex or shorthand forms. */
const IPV4_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function parseIPv4(text: string): ipaddr.IPv4 | null {
  return IPV4_QUAD.test(text) ? ipaddr.IPv4.parse(text) : null;
}

/**
 * Parses an IPv6 address without zone id. A trailing dotted-quad IPv4 part must be strict
 * and is rewritten as two hex groups first (ipaddr.js reads `::1.2.3.4` as `::ffff:1.2.3.4`).
 */
export function parseIPv6(text: string): ipaddr.IPv6 | null {
  if (!text.includes(':') || text.includes('%')) return null;
  let address = text;
  const embedded = /^(.*:)([^:]*\.[^:]*)$/.exec(text);
  if (embedded) {
    const quad = embedded[2] ?? '';
    if (!IPV4_QUAD.test(quad)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = quad.split('.').map(Number);
    address = `${embedded[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(address) ? ipaddr.IPv6.parse(address) : null;
}
