import { describe, expect, it } from 'vitest';
import { externalReferrer, isSameSite } from '../../src/ingest/steps/referrer.ts';

describe('isSameSite', () => {
  it.each([
    ['example.com', 'example.com', true],
    ['www.example.com', 'example.com', true],
    ['blog.example.com', 'example.com', true],
    ['a.b.c.example.com', 'example.com', true],
    ['EXAMPLE.COM', 'example.com', true],
    ['Www.Example.Com', 'example.com', true],
    ['example.com.', 'example.com', true],
    ['www.example.com.', 'example.com', true],
    ['shop.example.co.uk', 'example.co.uk', true],
    ['192.168.1.1', '192.168.1.1', true],
    ['notexample.com', 'example.com', false],
    ['wwwexample.com', 'example.com', false],
    ['example.com.evil.org', 'example.com', false],
    ['example.co', 'example.com', false],
    ['example.com', 'www.example.com', false],
    ['example.org', 'example.com', false],
    ['evil-example.com', 'example.com', false],
    ['192.168.1.10', '192.168.1.1', false],
    ['', 'example.com', false],
  ])('%j on %j → %s', (host, domain, same) => {
    expect(isSameSite(host, domain)).toBe(same);
  });
});

describe('externalReferrer', () => {
  it.each([
    // Internal navigation.
    ['https://example.com/pricing', 'example.com', null],
    ['http://example.com/', 'example.com', null],
    ['https://www.example.com/', 'example.com', null],
    ['https://deep.sub.example.com/a?b=c', 'example.com', null],
    ['https://EXAMPLE.com/', 'example.com', null],
    ['https://example.com./', 'example.com', null],
    ['https://example.com:8443/', 'example.com', null],
    // External.
    ['https://www.google.com/', 'example.com', 'www.google.com'],
    ['https://www.google.com/search?q=sightline', 'example.com', 'www.google.com'],
    ['https://WWW.Google.COM/', 'example.com', 'www.google.com'],
    ['https://notexample.com/', 'example.com', 'notexample.com'],
    ['https://example.com.evil.org/', 'example.com', 'example.com.evil.org'],
    ['https://t.co/abc', 'example.com', 't.co'],
    ['https://user:secret@news.ycombinator.com/item?id=1', 'example.com', 'news.ycombinator.com'],
    ['http://localhost:3000/', 'example.com', 'localhost'],
    ['https://bücher.example/', 'example.com', 'xn--bcher-kva.example'],
    ['https://example.com/', 'www.example.com', 'example.com'],
    // IP literals.
    ['https://192.168.1.1:8080/', '192.168.1.1', null],
    ['http://10.0.0.1/', '192.168.1.1', '10.0.0.1'],
    ['http://192.168.1.1/', 'example.com', '192.168.1.1'],
    ['http://[2001:db8::1]/', 'example.com', '[2001:db8::1]'],
    ['http://[2001:db8::1]/', '[2001:db8::1]', null],
    // Not a web referrer.
    ['android-app://com.google.android.gm/', 'example.com', null],
    ['android-app://com.slack/', 'example.com', null],
    ['ftp://ftp.example.org/file', 'example.com', null],
    ['file:///etc/passwd', 'example.com', null],
    ['chrome-extension://abcdefgh/page.html', 'example.com', null],
    ['about:blank', 'example.com', null],
    ['data:text/html,hi', 'example.com', null],
  ])('%s on %s → %j', (referrer, domain, host) => {
    expect(externalReferrer(new URL(referrer), domain)).toBe(host);
  });

  it('no referrer → null', () => {
    expect(externalReferrer(null, 'example.com')).toBeNull();
  });
});
