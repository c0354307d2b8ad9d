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
