import { describe, expect, it } from 'vitest';
import { hostnameOf, utmOf } from '../../src/ingest/steps/page.ts';
import { type Acquisition, acquisitionSource, channelOf } from '../../src/ingest/steps/source.ts';

const visit = (over: Partial<Acquisition>): Acquisition => ({
  referrer: '',
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  ...over,
});

describe('acquisitionSource', () => {
  it.each<[Partial<Acquisition>, string]>([
    [{}, ''],
    [{ referrer: 'www.google.com' }, 'Google'],
    [{ referrer: 'www.google.co.uk' }, 'Google'],
    [{ referrer: 'mail.google.com' }, 'Gmail'],
    [{ referrer: 'news.ycombinator.com' }, 'Hacker News'],
    [{ referrer: 't.co' }, 'Twitter'],
    [{ referrer: 'l.facebook.com' }, 'Facebook'],
    [{ referrer: 'm.youtube.com' }, 'YouTube'],
    [{ referrer: 'www.example.org' }, 'example.org'],
    [{ referrer: 'blog.example.org' }, 'blog.example.org'],
    [{ utmSource: 'newsletter' }, 'newsletter'],
    [{ utmSource: 'Google', referrer: 'www.bing.com' }, 'Google'],
    [{ utmSource: 'fb' }, 'Facebook'],
    [{ utmSource: 'constructor' }, 'constructor'],
    [{ referrer: 'google' }, 'google'],
  ])('%j → %s', (over, source) => {
    expect(acquisitionSource(visit(over))).toBe(source);
  });
});

describe('channelOf (Google Analytics 4 default channel groups)', () => {
  it.each<[Partial<Acquisition>, string]>([
    [{}, 'Direct'],
    [{ referrer: 'www.google.com' }, 'Organic Search'],
    [{ referrer: 'duckduckgo.com' }, 'Organic Search'],
    [{ utmSource: 'google', utmMedium: 'cpc' }, 'Paid Search'],
    [{ referrer: 'www.google.com', utmMedium: 'ppc' }, 'Paid Search'],
    [{ referrer: 'l.facebook.com' }, 'Organic Social'],
    [{ utmSource: 'facebook', utmMedium: 'paid_social' }, 'Paid Social'],
    [{ referrer: 'www.youtube.com' }, 'Organic Video'],
    [{ utmSource: 'youtube', utmMedium: 'cpv' }, 'Paid Video'],
    [{ referrer: 'www.amazon.de' }, 'Organic Shopping'],
    [{ utmCampaign: 'Summer shopping', utmMedium: 'cpc', utmSource: 'x-ads' }, 'Paid Shopping'],
    [{ utmMedium: 'display' }, 'Display'],
    [{ utmMedium: 'cpm' }, 'Display'],
    [{ utmMedium: 'paid' }, 'Paid Other'],
    [{ utmCampaign: 'cross-network launch', utmMedium: 'cpc' }, 'Cross-network'],
    [{ utmMedium: 'email', utmSource: 'newsletter' }, 'Email'],
    [{ referrer: 'mail.google.com' }, 'Email'],
    [{ utmMedium: 'affiliate', utmSource: 'partner' }, 'Affiliates'],
    [{ utmMedium: 'audio', utmSource: 'podcast' }, 'Audio'],
    [{ utmMedium: 'sms', utmSource: 'twilio' }, 'SMS'],
    [{ utmMedium: 'web-push', utmSource: 'onesignal' }, 'Mobile Push Notifications'],
    [{ referrer: 'www.example.org' }, 'Referral'],
    [{ utmMedium: 'referral', utmSource: 'partner' }, 'Referral'],
    [{ utmSource: 'partner' }, 'Unassigned'],
    [{ utmMedium: 'social' }, 'Organic Social'],
    [{ utmMedium: 'organic', utmSource: 'somewhere' }, 'Organic Search'],
  ])('%j → %s', (over, channel) => {
    expect(channelOf(visit(over))).toBe(channel);
  });
});

describe('AI assistants', () => {
  it.each<[string, string]>([
    ['chatgpt.com', 'ChatGPT'],
    ['www.chatgpt.com', 'ChatGPT'],
    ['chat.openai.com', 'ChatGPT'],
    ['perplexity.ai', 'Perplexity'],
    ['www.perplexity.ai', 'Perplexity'],
    ['claude.ai', 'Claude'],
    ['gemini.google.com', 'Gemini'],
    ['bard.google.com', 'Gemini'],
    ['copilot.microsoft.com', 'Microsoft Copilot'],
    ['copilot.cloud.microsoft', 'Microsoft Copilot'],
    ['chat.mistral.ai', 'Le Chat'],
    ['chat.deepseek.com', 'DeepSeek'],
    ['grok.com', 'Grok'],
    ['www.meta.ai', 'Meta AI'],
    ['poe.com', 'Poe'],
    ['www.phind.com', 'Phind'],
    ['you.com', 'You.com'],
    ['chat.qwen.ai', 'Qwen'],
    ['www.kimi.com', 'Kimi'],
    ['kimi.moonshot.cn', 'Kimi'],
    ['www.doubao.com', 'Doubao'],
  ])('a referrer from %s is %s, an AI assistant', (referrer, source) => {
    expect(acquisitionSource(visit({ referrer }))).toBe(source);
    expect(channelOf(visit({ referrer }))).toBe('AI Assistants');
  });

  it.each<[Partial<Acquisition>, string, string]>([
    // ChatGPT tags the links of its answers, with or without a referrer sent.
    [{ utmSource: 'chatgpt.com' }, 'ChatGPT', 'AI Assistants'],
    [{ utmSource: 'ChatGPT.com', referrer: 'chatgpt.com' }, 'ChatGPT', 'AI Assistants'],
    [{ utmSource: 'perplexity' }, 'Perplexity', 'AI Assistants'],
    [{ utmSource: 'claude.ai' }, 'Claude', 'AI Assistants'],
    // A paid medium keeps its paid channel; a tag names the source as sent.
    [{ utmSource: 'chatgpt.com', utmMedium: 'cpc' }, 'ChatGPT', 'Paid Other'],
    [{ utmSource: 'newsletter', referrer: 'chatgpt.com' }, 'newsletter', 'AI Assistants'],
    // Google's other hosts, OpenAI's own site and what only a path would tell stay as before.
    [{ referrer: 'www.google.com' }, 'Google', 'Organic Search'],
    [{ referrer: 'mail.google.com' }, 'Gmail', 'Email'],
    [{ referrer: 'openai.com' }, 'openai.com', 'Referral'],
    [{ referrer: 'kagi.com' }, 'Kagi', 'Organic Search'],
    [{ referrer: 'x.com' }, 'Twitter', 'Organic Social'],
    [{ referrer: 'notchatgpt.com' }, 'notchatgpt.com', 'Referral'],
  ])('%j → %s, %s', (over, source, channel) => {
    expect(acquisitionSource(visit(over))).toBe(source);
    expect(channelOf(visit(over))).toBe(channel);
  });
});

describe('utmOf and hostnameOf', () => {
  it('reads the UTM tags, trimmed; ref and source stand for utm_source', () => {
    expect(
      utmOf(
        new URL(
          'https://a.example/?utm_source=%20news%20&utm_medium=email&utm_content=top&utm_term=x',
        ),
      ),
    ).toEqual({ utmSource: 'news', utmMedium: 'email', utmContent: 'top', utmTerm: 'x' });
    expect(utmOf(new URL('https://a.example/?ref=producthunt')).utmSource).toBe('producthunt');
    expect(utmOf(new URL('https://a.example/?source=hn')).utmSource).toBe('hn');
    expect(utmOf(new URL('https://a.example/?utm_source=&utm_medium=%20'))).toEqual({
      utmSource: null,
      utmMedium: null,
      utmContent: null,
      utmTerm: null,
    });
    expect(utmOf(new URL(`https://a.example/?utm_term=${'x'.repeat(400)}`)).utmTerm).toHaveLength(
      255,
    );
  });

  it('takes the page host in lower case without www.', () => {
    expect(hostnameOf(new URL('https://WWW.Example.COM/a'))).toBe('example.com');
    expect(hostnameOf(new URL('https://docs.example.com/a'))).toBe('docs.example.com');
  });
});
