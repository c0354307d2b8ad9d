/**
 * Website domain normalisation (DESIGN §3.1): owners paste whatever their browser shows
 * (`https://www.Example.com:8080/blog/`), and Sightline stores the bare host (`example.com`).
 */
import ipaddr from 'ipaddr.js';
import { hasControlCharacter } from '../lib/text.ts';

export type DomainResult = { ok: true; domain: string } | { ok: false; reason: string };

const MAX_HOST_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** Strict dotted-quad: four decimal octets, no leading zeros, no hex or shorthand forms. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Normalises a website domain: trims, lower-cases, drops scheme, credentials, path, query,
 * fragment, port, a leading `www.` and a trailing dot; converts international names to
 * punycode. The result must be a host name with at least one dot, or an IP literal
 * (IPv6 is stored in its canonical compressed form inside brackets, as URLs write it).
 *
 * @example
 * normalizeDomain('https://www.Example.com:8080/blog') // { ok: true, domain: 'example.com' }
 * normalizeDomain('exa mple.com') // { ok: false, reason: … }
 */
export function normalizeDomain(input: string): DomainResult {
  let host = input.trim().toLowerCase();
  if (host === '') return { ok: false, reason: 'is required' };
  if (host.length > 2048) return { ok: false, reason: 'is too long' };

  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  // Cut at the first path, query or fragment delimiter.
  host = host.split(/[/?#\\]/, 1)[0] ?? '';
  if (host.includes('@')) return { ok: false, reason: 'must not contain credentials' };

  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return { ok: false, reason: 'is not a valid IPv6 address' };
    const rest = host.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest))
      return { ok: false, reason: 'is not a valid host name' };
    const literal = host.slice(1, end);
    if (!ipaddr.IPv6.isValid(literal) || literal.includes('%')) {
      return { ok: false, reason: 'is not a valid IPv6 address' };
    }
    return { ok: true, domain: `[${ipaddr.IPv6.parse(literal).toString()}]` };
  }
  // A bare IPv6 address (more than one colon) without brackets.
  if ((host.match(/:/g) ?? []).length > 1) {
    if (!ipaddr.IPv6.isValid(host) || host.includes('%')) {
      return { ok: false, reason: 'is not a valid IPv6 address' };
    }
    return { ok: true, domain: `[${ipaddr.IPv6.parse(host).toString()}]` };
  }
  const colon = host.indexOf(':');
  if (colon !== -1) {
    if (!/^\d{1,5}$/.test(host.slice(colon + 1)))
      return { ok: false, reason: 'is not a valid host name' };
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('www.')) host = host.slice(4);

  if (/^[\d.]+$/.test(host)) {
    return IPV4.test(host)
      ? { ok: true, domain: host }
      : { ok: false, reason: 'is not a valid IPv4 address' };
  }
  if (/[^\x21-\x7e]/.test(host) && !/\s/.test(host) && !hasControlCharacter(host)) {
    // International domain name: let the URL parser apply UTS #46 / punycode.
    try {
      host = new URL(`http://${host}/`).hostname;
    } catch {
      return { ok: false, reason: 'is not a valid host name' };
    }
  }
  if (host.length > MAX_HOST_LENGTH) return { ok: false, reason: 'is too long' };
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label)))
    return { ok: false, reason: 'is not a valid host name' };
  if (labels.length < 2) return { ok: false, reason: 'must contain a dot (e.g. example.com)' };
  if (/^\d+$/.test(labels[labels.length - 1] ?? ''))
    return { ok: false, reason: 'is not a valid host name' };
  return { ok: true, domain: host };
}
