/**
 * The known crawlers (src/ingest/steps/crawlers.generated.ts, from crawler-user-agents): each
 * named as its maker writes it, with its kind, found in its real User-Agent; people's browsers
 * name none; the bot step calls other bots unnamed.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CRAWLERS_FILE, crawlersText } from '../../scripts/build-crawlers.ts';
import { botOf, crawlerOf } from '../../src/ingest/steps/bots.ts';
import { CRAWLER_LIST } from '../../src/ingest/steps/crawlers.generated.ts';
import { literalName, marksOf } from '../../src/ingest/steps/crawlers.ts';
import { USER_AGENT_LIMIT } from '../../src/ingest/steps/device.ts';

const list = createRequire(import.meta.url)('crawler-user-agents') as {
  pattern: string;
  instances: string[];
}[];

describe('the known crawlers list', () => {
  it('is the list of the installed crawler-user-agents (build:crawlers --check)', () => {
    expect(readFileSync(CRAWLERS_FILE, 'utf8')).toBe(crawlersText());
  });

  it('finds every example of the kept patterns that its pattern matches', () => {
    const kept = new Set(CRAWLER_LIST.split('\n').map((line) => line.split('\t')[0]));
    const missed = list
      .filter((entry) => kept.has(entry.pattern))
      .flatMap((entry) =>
        entry.instances.filter(
          (ua) =>
            ua.length <= USER_AGENT_LIMIT &&
            new RegExp(entry.pattern).test(ua) &&
            crawlerOf(ua) === null,
        ),
      );
    expect(missed).toEqual([]);
    expect(list.length).toBeGreaterThan(1_000);
    expect(kept.size).toBeGreaterThan(200);
  });

  it('looks a pattern up by the literal text its every match holds', () => {
    expect(marksOf('Googlebot\\/')).toEqual(['Googlebot/']);
    expect(marksOf('[cC]laude[bB]ot')).toEqual(['laude']);
    expect(marksOf('Ahrefs(Bot|SiteAudit)')).toEqual(['Ahrefs']);
    expect(marksOf('Automaton|Newsify Feed Fetcher')).toEqual([
      'Automaton',
      'Newsify Feed Fetcher',
    ]);
    expect(marksOf('Current[\\s\\S]*RSS Reader')).toEqual(['RSS Reader']);
    expect(marksOf('Y!J?')).toBeNull();
    expect(literalName('(^| )sentry\\/')).toBe('sentry');
    expect(literalName('^curl')).toBe('curl');
  });
});

const MOZILLA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible;';

describe('crawlerOf: named crawlers, by their real User-Agents', () => {
  it.each([
    ['GPTBot', 'ai_training', `${MOZILLA} GPTBot/1.2; +https://openai.com/gptbot)`],
    [
      'OAI-SearchBot',
      'ai_search',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    ],
    [
      'ChatGPT-User',
      'ai_agent',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    ],
    ['ClaudeBot', 'ai_training', `${MOZILLA} ClaudeBot/1.0; +claudebot@anthropic.com)`],
    ['Claude-User', 'ai_agent', `${MOZILLA} Claude-User/1.0; +Claude-User@anthropic.com)`],
    [
      'Claude-SearchBot',
      'ai_search',
      `${MOZILLA} Claude-SearchBot/1.0; +Claude-SearchBot@anthropic.com)`,
    ],
    [
      'anthropic-ai',
      'ai_training',
      'Mozilla/5.0 (compatible; anthropic-ai/1.0; +http://www.anthropic.com/bot.html)',
    ],
    [
      'PerplexityBot',
      'ai_search',
      `${MOZILLA} PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)`,
    ],
    [
      'Perplexity-User',
      'ai_agent',
      `${MOZILLA} Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)`,
    ],
    // Google-Extended is a robots.txt token, which Google's crawlers do not send; the list has it.
    ['Google-Extended', 'ai_training', 'Google-Extended'],
    [
      'Googlebot',
      'search_engine',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ],
    [
      'Googlebot',
      'search_engine',
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ],
    [
      'Bingbot',
      'search_engine',
      `${MOZILLA} bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36`,
    ],
    [
      'Applebot',
      'search_engine',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    ],
    [
      'Bytespider',
      'ai_training',
      'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    ],
    ['CCBot', 'ai_training', 'CCBot/2.0 (https://commoncrawl.org/faq/)'],
    [
      'Amazonbot',
      'ai_training',
      `${MOZILLA} Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36`,
    ],
    [
      'meta-externalagent',
      'ai_training',
      'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    ],
    ['DuckDuckBot', 'search_engine', 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)'],
    [
      'YandexBot',
      'search_engine',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    ],
    [
      'Baiduspider',
      'search_engine',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    ],
    ['AhrefsBot', 'seo', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)'],
    [
      'SemrushBot',
      'seo',
      'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
    ],
    ['MJ12bot', 'seo', 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)'],
    [
      'DotBot',
      'seo',
      'Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot; help@moz.com)',
    ],
    [
      'UptimeRobot',
      'monitor',
      'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    ],
    ['Pingdom', 'monitor', 'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)'],
    ['StatusCake', 'monitor', 'Mozilla/5.0 (compatible; StatusCake)'],
    [
      'DatadogSynthetics',
      'monitor',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 DatadogSynthetics',
    ],
  ])('%s (%s)', (name, kind, userAgent) => {
    expect(crawlerOf(userAgent)).toEqual({ name, kind });
    expect(botOf(userAgent, new Headers())).toEqual({ name, kind });
  });
});

const PEOPLE = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15',
  'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36 Instagram 355.0.0.36.114 Android',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/489.0.0.43.107;FBBV/665465005;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]',
];

describe('crawlerOf: people', () => {
  it.each(PEOPLE)('%s → none', (userAgent) => {
    expect(crawlerOf(userAgent)).toBeNull();
    expect(botOf(userAgent, new Headers())).toBeNull();
  });
});

describe('botOf', () => {
  it('calls other bots unnamed: an empty User-Agent, a headless browser, a prefetch', () => {
    expect(botOf('', new Headers())).toBe('unnamed');
    expect(botOf(`${PEOPLE[0]} Cypress/13.0.0`, new Headers())).toBe('unnamed');
    expect(botOf(PEOPLE[0] as string, new Headers({ 'sec-purpose': 'prefetch' }))).toBe('unnamed');
  });
});
