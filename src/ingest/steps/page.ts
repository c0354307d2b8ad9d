/**
 * The recorded page: path and query of the page URL without attribution parameters
 * (`isAttribution`: campaign tags and ad click ids, counted in their own dimensions) and
 * without the website's excluded query parameters (`exclude_params`, docs/ARCHITECTURE.md;
 * `*`, "count the path only", removes every one), as people read it (UTF-8 decoded, see
 * `readable`), at most 255 characters.
 */
import { listEntries } from '../../websites/lists/line-list.ts';

export const MAX_PAGE = 255;

/**
 * Click ids that ad and e-mail platforms add to a link (Google's `gclid`, `gbraid`, `wbraid`,
 * `dclid`; Meta's `fbclid`; Microsoft's `msclkid`; X's `twclid`; TikTok's `ttclid`; LinkedIn's
 * `li_fat_id`; Yandex's `yclid`; Mailchimp's `mc_cid`, `mc_eid`; HubSpot's `_hsenc`, `_hsmi`;
 * Instagram's `igshid`). docs/GUIDE.md, "What is counted", lists them.
 */
const CLICK_IDS = new Set([
  'gclid',
  'gbraid',
  'wbraid',
  'dclid',
  'fbclid',
  'msclkid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'yclid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  'igshid',
]);

/** A query parameter that says where a visit came from, never part of the page: `utm_*`, a click id. */
const isAttribution = (name: string) => {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || CLICK_IDS.has(lower);
};

/** Parameter names from an `exclude_params` text; `*` means all. */
export function excludedParams(text: string): { all: boolean; names: Set<string> } {
  const names = new Set<string>();
  let all = false;
  for (const entry of listEntries(text)) {
    if (entry === '*') all = true;
    else names.add(entry);
  }
  return { all, names };
}

/** The page as recorded: its path and the query parameters kept, and its `#fragment` with `data-hash`. */
export function pagePath(
  url: URL,
  exclude: { all: boolean; names: Set<string> },
  withHash = false,
): string {
  let query = '';
  if (!exclude.all && url.search !== '') {
    // Rebuild from the raw pairs so that kept parameters stay exactly as the page wrote them.
    const kept = url.search
      .slice(1)
      .split('&')
      .filter((pair) => {
        if (pair === '') return false;
        const name = pair.split('=', 1)[0] ?? '';
        let decoded = name;
        try {
          decoded = decodeURIComponent(name.replace(/\+/g, ' '));
        } catch {
          // A malformed escape: compare the raw name.
        }
        return !exclude.names.has(decoded) && !isAttribution(decoded);
      });
    query = kept.length > 0 ? `?${kept.join('&')}` : '';
  }
  return readable(`${url.pathname}${query}${withHash ? url.hash : ''}`, MAX_PAGE);
}

/** Never shown decoded: controls, format characters (bidi, zero-width), separators and spaces, unassigned, private use. */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Cn}\p{Co}\p{Cs}]/u;
const ESCAPE = /^%[0-9A-Fa-f]{2}/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A URL path (and query) as people read it, at most `max` characters: percent-escapes that
 * spell a valid UTF-8 sequence of a visible non-ASCII character are decoded
 * (`/%C3%BAst%C3%AD` → `/ústí`); everything else stays exactly as it was. ASCII escapes stay
 * escaped (`%2F` decoded would turn `/a%2Fb` into the different path `/a/b`; `%3F` would
 * move the query), and so do invalid UTF-8 and control, format and space characters.
 * Two different paths never become one value: the URL parser escapes every non-ASCII
 * character, so a decoded character cannot also have stood there raw, and UTF-8 has exactly
 * one valid spelling of each character. The bound never cuts a character or an escape.
 *
 * @example
 * readable('/%C3%BAst%C3%AD?q=a%2Fb', 255) // '/ústí?q=a%2Fb'
 */
function readable(path: string, max: number): string {
  let out = '';
  let i = 0;
  while (i < path.length) {
    const [token, consumed] = nextToken(path, i);
    if (out.length + token.length > max) break;
    out += token;
    i += consumed;
  }
  return out;
}

/** The piece of `path` at `i` as shown, and how many characters of `path` it stands for. */
function nextToken(path: string, i: number): [string, number] {
  const decoded = decodedCharacter(path, i);
  if (decoded) return decoded;
  if (hexByte(path, i) >= 0) return [path.slice(i, i + 3), 3];
  const character = String.fromCodePoint(path.codePointAt(i) ?? 0);
  return [character, character.length];
}

/** The visible non-ASCII character spelled by the UTF-8 escapes at `i`, and their length. */
function decodedCharacter(path: string, i: number): [string, number] | null {
  const size = sequenceLength(hexByte(path, i));
  if (size === 0) return null;
  const bytes = new Uint8Array(size);
  for (let b = 0; b < size; b++) {
    const byte = hexByte(path, i + 3 * b);
    if (byte < 0) return null;
    bytes[b] = byte;
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return null; // not UTF-8: overlong, a surrogate, a bad continuation byte
  }
  return UNSHOWN.test(text) ? null : [text, 3 * size];
}

/** The byte of the `%XX` escape at `i`, or -1 when there is none. */
function hexByte(path: string, i: number): number {
  const match = ESCAPE.exec(path.slice(i, i + 3));
  return match ? Number.parseInt(match[0].slice(1), 16) : -1;
}

/** Length of the UTF-8 sequence a lead byte starts (2–4); 0 for ASCII and non-lead bytes. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** A query parameter of the page URL, trimmed and bounded, or null when absent or empty. */
function param(url: URL, name: string): string | null {
  const value = url.searchParams.get(name)?.trim();
  return value ? value.slice(0, MAX_PAGE) : null;
}

/** `utm_campaign` of the page URL, trimmed and bounded, or null. */
export function campaignOf(url: URL): string | null {
  return param(url, 'utm_campaign');
}

/**
 * The UTM tags of the page URL besides the campaign (`utm_source`, `utm_medium`,
 * `utm_content`, `utm_term`), each trimmed and bounded, or null. The source may also come as
 * `ref` or `source`, as Plausible reads it.
 */
export function utmOf(url: URL) {
  return {
    utmSource: param(url, 'utm_source') ?? param(url, 'ref') ?? param(url, 'source'),
    utmMedium: param(url, 'utm_medium'),
    utmContent: param(url, 'utm_content'),
    utmTerm: param(url, 'utm_term'),
  };
}

/** The page's host name, lower case, without `www.` (Plausible's `event:hostname`). */
export function hostnameOf(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/^www\./, '')
    .slice(0, MAX_PAGE);
}
