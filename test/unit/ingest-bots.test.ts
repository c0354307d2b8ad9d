import { describe, expect, it } from 'vitest';
import { isBotRequest } from '../../src/ingest/steps/bots.ts';
import { USER_AGENT_LIMIT } from '../../src/ingest/steps/device.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The headers a browser sends with the tracker's `fetch` to /api/event. */
function browserHeaders(extra: Record<string, string> = {}): Headers {
  return new Headers({
    accept: '*/*',
    'accept-language': 'en-US,en;q=0.9',
    'content-type': 'application/json',
    'sec-fetch-mode': 'cors',
    'sec-fetch-dest': 'empty',
    'sec-fetch-site': 'cross-site',
    ...extra,
  });
}

describe('isBotRequest: crawlers, tools and automation', () => {
  it.each([
    ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    [
      'Googlebot (evergreen desktop)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.69 Safari/537.36',
    ],
    [
      'Googlebot (smartphone)',
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ],
    ['Bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'],
    ['DuckDuckBot', 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)'],
    ['YandexBot', 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)'],
    [
      'Baiduspider',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    ],
    ['AhrefsBot', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)'],
    ['SemrushBot', 'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)'],
    ['Applebot', 'Mozilla/5.0 (compatible; Applebot/0.1; +http://www.apple.com/go/applebot)'],
    [
      'facebookexternalhit',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    ],
    ['Twitterbot', 'Twitterbot/1.0'],
    ['Slackbot', 'Slackbot 1.0 (+https://api.slack.com/robots)'],
    ['Slackbot link expander', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
    ['Discordbot', 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'],
    [
      'LinkedInBot',
      'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    ],
    ['curl', 'curl/8.4.0'],
    ['python-requests', 'python-requests/2.32.3'],
    ['Go-http-client', 'Go-http-client/2.0'],
    ['Wget', 'Wget/1.21.4'],
    ['axios', 'axios/1.7.7'],
    ['okhttp', 'okhttp/4.12.0'],
    [
      'HeadlessChrome',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
    ],
    [
      'PhantomJS',
      'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
    ],
    ['Playwright', `${CHROME} Playwright/1.49.0`],
    ['Puppeteer', `${CHROME} Puppeteer`],
    [
      'Chrome-Lighthouse',
      'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
    ],
    [
      'Lighthouse',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Lighthouse',
    ],
    [
      'Cypress (Electron)',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Cypress/13.0.0 Chrome/118.0.5993.159 Electron/27.0.3 Safari/537.36',
    ],
    ['jsdom', 'Mozilla/5.0 (linux) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/24.0.0'],
    [
      'GPTBot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    ],
    [
      'ClaudeBot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    ],
    [
      'PerplexityBot',
      'Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    ],
    ['empty UA', ''],
    ['spaces-only UA', '   '],
    ['tab and newline UA', '\t\n'],
  ])('%s → bot', (_label, userAgent) => {
    expect(isBotRequest(userAgent, browserHeaders())).toBe(true);
  });

  it.each([
    ['Playwright', 'PLAYWRIGHT'],
    ['Puppeteer', 'puppeteer'],
    ['HeadlessChrome', 'headlesschrome'],
  ])('automation markers are case-insensitive: %s as %s', (_label, marker) => {
    expect(isBotRequest(`${CHROME} ${marker}`, browserHeaders())).toBe(true);
  });
});

describe('isBotRequest: prefetches and previews', () => {
  it.each([
    ['Sec-Purpose', 'prefetch'],
    ['Sec-Purpose', 'prefetch;prerender'],
    ['Sec-Purpose', 'prefetch;anonymous-client-ip'],
    ['Sec-Purpose', 'PREFETCH'],
    ['Purpose', 'prefetch'],
    ['Purpose', 'preview'],
    ['X-Purpose', 'preview'],
    ['X-Moz', 'prefetch'],
  ])('a normal Chrome UA with %s: %s → bot', (name, value) => {
    expect(isBotRequest(CHROME, browserHeaders({ [name]: value }))).toBe(true);
  });

  it.each([
    ['Sec-Purpose', ''],
    ['Purpose', ''],
    ['X-Moz', ''],
    ['Sec-Fetch-Dest', 'document'],
    ['Sec-Fetch-Mode', 'navigate'],
  ])('a normal Chrome UA with %s: %j → not a bot', (name, value) => {
    expect(isBotRequest(CHROME, browserHeaders({ [name]: value }))).toBe(false);
  });

  it('a Chrome UA with no headers at all is not a bot', () => {
    expect(isBotRequest(CHROME, new Headers())).toBe(false);
  });
});

describe('isBotRequest: people', () => {
  it.each([
    ['Chrome on Windows', CHROME],
    [
      'Edge on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    ],
    [
      'Firefox on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
    ],
    [
      'Opera on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
    ],
    [
      'Safari on macOS',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    ],
    [
      'Chrome on Linux',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    ],
    [
      'Chrome on Chrome OS',
      'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    ],
    [
      'Chrome on Android',
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    ],
    [
      'Samsung Internet',
      'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
    ],
    ['Firefox on Android', 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0'],
    [
      'Safari on iPhone',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    ],
    [
      'Chrome on iPhone',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
    ],
    [
      'Safari on iPad',
      'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    ],
    [
      'Samsung smart TV',
      'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.5) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.5 TV Safari/537.36',
    ],
    [
      'Facebook in-app browser on iPhone',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/489.0.0.43.107;FBBV/665465005;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]',
    ],
    [
      'Instagram in-app browser on Android',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36 Instagram 355.0.0.36.114 Android',
    ],
  ])('%s → not a bot', (_label, userAgent) => {
    expect(isBotRequest(userAgent, browserHeaders())).toBe(false);
    expect(isBotRequest(`  ${userAgent}  `, browserHeaders({ dnt: '1', 'sec-gpc': '1' }))).toBe(
      false,
    );
  });
});

describe('isBotRequest: long User-Agents', () => {
  const padded = (marker: string) => `${CHROME}; ${'x'.repeat(USER_AGENT_LIMIT)} ${marker}`;

  it('reads only the capped User-Agent: a marker beyond the cap is not seen', () => {
    expect(isBotRequest(`${CHROME} Googlebot/2.1`, browserHeaders())).toBe(true);
    expect(isBotRequest(padded('Googlebot/2.1'), browserHeaders())).toBe(false);
    expect(isBotRequest(`${CHROME} HeadlessChrome/131`, browserHeaders())).toBe(true);
    expect(isBotRequest(padded('HeadlessChrome/131'), browserHeaders())).toBe(false);
  });

  it('still sees a marker at the start of a huge User-Agent', () => {
    const huge = `Mozilla/5.0 (compatible; Googlebot/2.1)${' a'.repeat(20_000)}`;
    expect(isBotRequest(huge, browserHeaders())).toBe(true);
  });
});
