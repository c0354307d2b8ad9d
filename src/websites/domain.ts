/**
 * Website domain normalisation (docs/ARCHITECTURE.md, The HTTP contract): owners paste whatever their browser shows
 * (`https://www.Example.com:8080/blog/`), and Sightline stores the bare host (`example.com`).
 */
import { parseIPv4, parseIPv6 } from '../lib/ip.ts';
import { hasControlCharacter } from '../lib/text/text.ts';

export type DomainResult = { ok: true; domain: string } | { ok: false; reason: string };

const MAX_HOST_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises a website domain: trims, lower-cases, drops scheme, credentials, path, query,
 * fragment, port, a leading `www.` and a trailing dot; converts international names to
 * punycode. The result must be a host name with at least one dot, `localhost`, or an IP
 * literal (IPv6 is stored in its canonical compressed form inside brackets, as URLs write it).
 *
 * @example
 * normalizeDomain('https://www.Example.com:8080/blog') // { ok: true, domain: 'example.com' }
 * normalizeDomain('exa mple.com') // { ok: false, reason: … }
 */
export function normalizeDomain(input: string): DomainResult {
  let host = input.trim().toLowerCase();
  if (host === '') return { ok: false, reason: 'is required' };
  if (host.length > 2048) return { ok: false, reason: 'is too long' };
  if (hasControlCharacter(host)) return { ok: false, reason: 'is not a valid host name' };

  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  // Cut at the first path, query or fragment delimiter.
  host = host.split(/[/?#\\]/, 1)[0] ?? '';
  if (host.includes('@')) return { ok: false, reason: 'must not contain credentials' };

  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    const rest = end === -1 ? '' : host.slice(end + 1);
    if (end === -1 || (rest !== '' && !isPort(rest.slice(1)))) {
      return { ok: false, reason: 'is not a valid IPv6 address' };
    }
    const ip = parseIPv6(host.slice(1, end));
    return ip
      ? { ok: true, domain: `[${ip.toString()}]` }
      : { ok: false, reason: 'is not a valid IPv6 address' };
  }
  // A bare IPv6 address (more than one colon) without brackets.
  if ((host.match(/:/g) ?? []).length > 1) {
    const ip = parseIPv6(host);
    return ip
      ? { ok: true, domain: `[${ip.toString()}]` }
      : { ok: false, reason: 'is not a valid IPv6 address' };
  }
  const colon = host.indexOf(':');
  if (colon !== -1) {
    if (!isPort(host.slice(colon + 1))) return { ok: false, reason: 'is not a valid host name' };
    host = host.slice(0, colon);
  }
  if (/[^\x21-\x7e]/.test(host) && !/\s/.test(host)) {
    // International domain name: let the URL parser apply UTS #46 mapping and punycode
    // (this also folds full-width letters and ideographic full stops).
    try {
      host = new URL(`http://${host}/`).hostname;
    } catch {
      return { ok: false, reason: 'is not a valid host name' };
    }
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('www.')) host = host.slice(4);

  const labels = host.split('.');
  const last = labels[labels.length - 1] ?? '';
  // Browsers read a host whose last label is a number (decimal or 0x-hex) as IPv4.
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) {
    return parseIPv4(host)
      ? { ok: true, domain: host }
      : { ok: false, reason: 'is not a valid IPv4 address' };
  }
  if (host.length > MAX_HOST_LENGTH) return { ok: false, reason: 'is too long' };
  if (!labels.every((label) => LABEL.test(label)))
    return { ok: false, reason: 'is not a valid host name' };
  // `localhost`: a website in development only, which src/websites/service.ts decides.
  if (labels.length < 2 && host !== LOCALHOST)
    return { ok: false, reason: 'must contain a dot (e.g. example.com)' };
  return { ok: true, domain: host };
}

/** The one host without a dot a website may have, in development (`npm run dev`). */
export const LOCALHOST = 'localhost';

/** True for an IP literal as `normalizeDomain` writes it (`203.0.113.7`, `[2001:db8::1]`). */
export function isIpLiteral(domain: string): boolean {
  return domain.startsWith('[') || /^[\d.]+$/.test(domain);
}

/**
 * The parent domains of a normalised host name, nearest first, down to two labels:
 * `a.b.example.com` → `b.example.com`, `example.com`. None for an IP literal.
 */
export function parentDomains(domain: string): string[] {
  if (isIpLiteral(domain)) return [];
  const labels = domain.split('.');
  return labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
}

function isPort(text: string): boolean {
  return /^\d{1,5}$/.test(text) && Number(text) <= 65_535;
}
