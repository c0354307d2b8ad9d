/**
 * Bot detection: the maintained `isbot` pattern list, the known crawlers' list (named, with a
 * kind: ./crawlers.ts), plus what they do not cover — automation frameworks and headless
 * browsers that announce themselves, an empty User-Agent, and requests the browser marks as
 * prefetches (no person has seen the page).
 */
import { isbot } from 'isbot';
import { CRAWLER_LIST } from './crawlers.generated.ts';
import { type Crawler, MARK_LENGTH, marksOf, parseCrawlerList } from './crawlers.ts';
import { capUserAgent } from './device.ts';

const AUTOMATION =
  /headless|phantomjs|puppeteer|playwright|selenium|webdriver|electron\/|lighthouse|pagespeed|prerender|slimerjs|nightmare|cypress|jsdom|happydom/i;

export type Headers = { get(name: string): string | null };

/** A crawler's mark (`marksOf`), its pattern that then decides, and the crawler. */
type Mark = { text: string; pattern: RegExp; crawler: Crawler };

/**
 * The list indexed by a hash of its marks' first `MARK_LENGTH` characters (a mark whose hash
 * matches is then compared whole), built on the first call, not when the Worker starts; and
 * the patterns without a mark, tried one by one.
 */
let index: { byHash: (Mark[] | undefined)[]; unmarked: Mark[] } | undefined;

/** A hash of the `MARK_LENGTH` (3) characters at `at`. */
const hashAt = (text: string, at: number) =>
  (text.charCodeAt(at) * 961 + text.charCodeAt(at + 1) * 31 + text.charCodeAt(at + 2)) & 0xffff;

function crawlerIndex(): NonNullable<typeof index> {
  if (index) return index;
  const byHash: (Mark[] | undefined)[] = new Array(1 << 16).fill(undefined);
  const unmarked: Mark[] = [];
  for (const { pattern: source, name, kind } of parseCrawlerList(CRAWLER_LIST)) {
    const pattern = new RegExp(source);
    const crawler = { name, kind };
    const marks = marksOf(source);
    if (!marks) unmarked.push({ text: '', pattern, crawler });
    for (const text of marks ?? []) {
      const hash = hashAt(text, 0);
      byHash[hash] = [...(byHash[hash] ?? []), { text, pattern, crawler }];
    }
  }
  index = { byHash, unmarked };
  return index;
}

/**
 * The known crawler a User-Agent names, or null: the first whose mark it holds (read left to
 * right) and whose pattern then matches it — one pass over the User-Agent, a table lookup a
 * character. Only the capped User-Agent is read (see `capUserAgent`).
 */
export function crawlerOf(userAgent: string): Crawler | null {
  const ua = capUserAgent(userAgent);
  const { byHash, unmarked } = crawlerIndex();
  for (let at = 0; at + MARK_LENGTH <= ua.length; at += 1) {
    const marks = byHash[hashAt(ua, at)];
    if (marks === undefined) continue;
    for (const mark of marks)
      if (ua.startsWith(mark.text, at) && mark.pattern.test(ua)) return { ...mark.crawler };
  }
  for (const mark of unmarked) if (mark.pattern.test(ua)) return { ...mark.crawler };
  return null;
}

/**
 * A request's bot: the known crawler its User-Agent names, `'unnamed'` for another bot (one
 * `isbot` or the automation markers find, an empty User-Agent, a prefetch), or null for a
 * person's. Only the capped User-Agent is read (see `capUserAgent`): a marker beyond the cap
 * is not seen.
 */
export function botOf(userAgent: string, headers: Headers): Crawler | 'unnamed' | null {
  const ua = capUserAgent(userAgent).trim();
  const crawler = crawlerOf(ua);
  if (crawler) return crawler;
  if (ua === '' || isbot(ua) || AUTOMATION.test(ua)) return 'unnamed';
  const purpose = `${headers.get('sec-purpose') ?? ''} ${headers.get('purpose') ?? ''} ${headers.get('x-purpose') ?? ''} ${headers.get('x-moz') ?? ''}`;
  return /prefetch|preview/i.test(purpose) ? 'unnamed' : null;
}

/** True when the request looks automated or is a prefetch (`botOf` finds a bot). */
export function isBotRequest(userAgent: string, headers: Headers): boolean {
  return botOf(userAgent, headers) !== null;
}
