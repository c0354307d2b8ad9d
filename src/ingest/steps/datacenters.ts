/**
 * The data-centre rule (docs/ARCHITECTURE.md, The path of a hit): a hit whose network — the
 * autonomous system Cloudflare names in `request.cf.asn` — is a hosting or cloud provider's
 * comes from a server, not from a person's browser. The networks are the shipped list
 * (./datacenters.generated.ts, written by `npm run build:datacenters`), decoded once per
 * isolate on first use; looking a hit up is one `Set.has`.
 */
import { parseIPv4, parseIPv6 } from '../../lib/ip.ts';
import { DATACENTER_ASNS } from './datacenters.generated.ts';

/** What the step reads of Cloudflare's `request.cf`: the client's network. */
export type CfNetwork = { asn?: unknown };

/** The 64 digits of the list's text: the first 32 say another digit follows, the last 32 end. */
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Sorted, distinct numbers → the text the generated file holds: each number's difference from
 * the one before it, in base 32, most significant digit first, in base64's characters (a
 * variable-length code like source maps' VLQ, unsigned): a digit of `DIGITS`' first half is
 * followed by another, one of its second half ends the number. About 900 networks weigh
 * 1.5 KB, 1.1 KB gzipped.
 */
export function encodeAsns(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  let text = '';
  let previous = 0;
  for (const n of sorted) {
    let rest = n - previous;
    let digits = DIGITS[32 + (rest % 32)] as string;
    for (rest = Math.floor(rest / 32); rest > 0; rest = Math.floor(rest / 32))
      digits = (DIGITS[rest % 32] as string) + digits;
    text += digits;
    previous = n;
  }
  return text;
}

/** The numbers `encodeAsns` wrote, in order. */
export function decodeAsns(text: string): number[] {
  const numbers: number[] = [];
  let n = 0;
  let delta = 0;
  for (const char of text) {
    const digit = DIGITS.indexOf(char);
    delta = delta * 32 + (digit % 32);
    if (digit >= 32) {
      n += delta;
      numbers.push(n);
      delta = 0;
    }
  }
  return numbers;
}

let listed: Set<number> | undefined;

/** Whether `asn` is on the list of hosting and cloud networks. */
export function isDatacenterAsn(asn: unknown): boolean {
  if (typeof asn !== 'number' || !Number.isInteger(asn)) return false;
  listed ??= new Set(decodeAsns(DATACENTER_ASNS));
  return listed.has(asn);
}

/**
 * Whether a client address is a public one. Cloudflare always gives a deployed Worker the
 * client's public address; a local run — `npm run dev`, the tests, the benchmark — sends
 * loopback, private or documentation addresses, and its `request.cf` describes the machine
 * it runs on (or is wrangler's placeholder), not the visitor: such a hit is never judged by
 * its network.
 */
function isPublicAddress(ip: string | null): boolean {
  if (ip === null) return false;
  const v6 = parseIPv6(ip);
  const address = v6?.isIPv4MappedAddress() ? v6.toIPv4Address() : (v6 ?? parseIPv4(ip));
  return address?.range() === 'unicast';
}

/** Step: whether a hit comes from a hosting or cloud network (its public address's). */
export function fromDatacenter(cf: CfNetwork | undefined, ip: string | null): boolean {
  return isDatacenterAsn(cf?.asn) && isPublicAddress(ip);
}
