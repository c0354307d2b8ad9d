/**
 * Browser, OS and device type from the User-Agent, refined by User-Agent Client Hints
 * (`Sec-CH-UA*`) when the browser sends them: Chromium freezes parts of the UA string
 * ("Windows NT 10.0", "Android 10; K"), and the hints carry the real values.
 *
 * Only the first `USER_AGENT_LIMIT` characters of a User-Agent are ever read: real ones are
 * 100 to 300 characters long (in-app browsers up to about 400), while a request may carry
 * tens of kilobytes, and every pattern run over it costs CPU per character or worse.
 */
import Bowser from 'bowser';

export type Device = {
  browser: string;
  os: string;
  device: string;
  /** Major and minor version (`131.0`, `10.15`), or null when the User-Agent has none. */
  browserVersion: string | null;
  osVersion: string | null;
};

/** A version's first two numbers (`131.0.6778.85` → `131.0`), or null. */
function majorMinor(version: string | undefined): string | null {
  const match = /^(\d{1,6})(?:[._](\d{1,6}))?/.exec(version ?? '');
  if (!match) return null;
  return match[2] === undefined ? (match[1] as string) : `${match[1]}.${match[2]}`;
}

/** How much of a User-Agent (or a Client Hints header) is read; the rest is ignored. */
export const USER_AGENT_LIMIT = 512;

/**
 * The part of a User-Agent that Sightline reads: its first `USER_AGENT_LIMIT` characters.
 * The pipeline caps it once, before the bot check, the device and the visitor hash.
 */
export const capUserAgent = (userAgent: string): string =>
  userAgent.length > USER_AGENT_LIMIT ? userAgent.slice(0, USER_AGENT_LIMIT) : userAgent;

// Maps, not object literals: the keys come from the request, and a name such as
// `constructor` or `__proto__` must find nothing rather than a property every object has.

/** bowser's names → the short names analytics users know. */
const BROWSER_NAMES = new Map([
  ['Microsoft Edge', 'Edge'],
  ['Samsung Internet for Android', 'Samsung Internet'],
  ['Internet Explorer', 'Internet Explorer'],
  ['Opera Touch', 'Opera'],
  ['Chrome OS', 'Chrome'],
]);

/** `Sec-CH-UA-Platform`, lower-cased → the operating system. */
const PLATFORM_HINTS = new Map([
  ['windows', 'Windows'],
  ['macos', 'macOS'],
  ['mac os x', 'macOS'],
  ['linux', 'Linux'],
  ['android', 'Android'],
  ['ios', 'iOS'],
  ['chrome os', 'Chrome OS'],
  ['chromeos', 'Chrome OS'],
]);

/** Brands a Chromium browser lists in `Sec-CH-UA`, most specific first. */
const BRAND_NAMES: [RegExp, string][] = [
  [/^Microsoft Edge$/i, 'Edge'],
  [/^Opera$/i, 'Opera'],
  [/^Brave$/i, 'Brave'],
  [/^Vivaldi$/i, 'Vivaldi'],
  [/^Samsung Internet$/i, 'Samsung Internet'],
  [/^YaBrowser$/i, 'Yandex Browser'],
  [/^Google Chrome$/i, 'Chrome'],
];

/**
 * Every repetition is bounded (a Tizen TV names "TV" within 200 characters of "Tizen"), so
 * that the pattern costs time linear in the length of the User-Agent.
 */
const TV =
  /\b(smart-?tv|android tv|google ?tv|bravia|aft[a-z]{1,3}\b|crkey|appletv|hbbtv|roku|web0s|tizen.{0,200}?\btv\b)/i;

export type ClientHints = {
  platform?: string | null;
  mobile?: string | null;
  brands?: string | null;
};

function unquote(value: string): string {
  return value.trim().replace(/^"(.*)"$/, '$1');
}

/** The browser named by a `Sec-CH-UA` brand list, or null when it names only Chromium. */
export function browserFromBrands(header: string): string | null {
  const brands = header
    .split(',')
    .map((part) => unquote(part.split(';')[0] ?? ''))
    .filter((brand) => brand && !/not.?a.?brand/i.test(brand));
  for (const [pattern, name] of BRAND_NAMES) if (brands.some((b) => pattern.test(b))) return name;
  return null;
}

export function parseDevice(fullUserAgent: string, hints: ClientHints = {}): Device {
  const userAgent = capUserAgent(fullUserAgent);
  const parsed = Bowser.parse(userAgent || ' ');
  let browser = parsed.browser.name
    ? (BROWSER_NAMES.get(parsed.browser.name) ?? parsed.browser.name)
    : 'Unknown';
  let os = parsed.os.name ?? 'Unknown';
  let device: string =
    parsed.platform.type ??
    (os === 'Chrome OS' || os === 'Linux' || os === 'macOS' || os === 'Windows'
      ? 'desktop'
      : 'Unknown');

  // bowser reads any Android device without "Mobile" as a tablet; TVs announce themselves.
  if (TV.test(userAgent)) device = 'tv';
  if (hints.brands) browser = browserFromBrands(capUserAgent(hints.brands)) ?? browser;
  if (hints.platform)
    os = PLATFORM_HINTS.get(unquote(capUserAgent(hints.platform)).toLowerCase()) ?? os;
  // `?1` is sent by phones; tablets send `?0` and are recognised from the UA.
  if (hints.mobile === '?1') device = 'mobile';
  return {
    browser,
    os,
    device,
    browserVersion: majorMinor(parsed.browser.version),
    osVersion: majorMinor(parsed.os.version),
  };
}
