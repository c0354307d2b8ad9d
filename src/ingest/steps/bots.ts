/**
 * Bot detection: the maintained `isbot` pattern list, plus what it does not cover —
 * automation frameworks and headless browsers that announce themselves, an empty
 * User-Agent, and requests the browser marks as prefetches (no person has seen the page).
 */
import { isbot } from 'isbot';
import { capUserAgent } from './device.ts';

const AUTOMATION =
  /headless|phantomjs|puppeteer|playwright|selenium|webdriver|electron\/|lighthouse|pagespeed|prerender|slimerjs|nightmare|cypress|jsdom|happydom/i;

export type Headers = { get(name: string): string | null };

/**
 * True when the request looks automated or is a prefetch. Only the capped User-Agent is
 * read (see `capUserAgent`): a marker beyond the cap is not seen.
 */
export function isBotRequest(userAgent: string, headers: Headers): boolean {
  const ua = capUserAgent(userAgent).trim();
  if (ua === '' || isbot(ua) || AUTOMATION.test(ua)) return true;
  const purpose = `${headers.get('sec-purpose') ?? ''} ${headers.get('purpose') ?? ''} ${headers.get('x-purpose') ?? ''} ${headers.get('x-moz') ?? ''}`;
  return /prefetch|preview/i.test(purpose);
}
