import { describe, expect, it } from 'vitest';
import { normalizeDomain } from '../../src/websites/domain.ts';

/** Rejections carry a reason; its wording is not part of the contract. */
const REJECTED = { ok: false, reason: expect.any(String) };

describe('normalizeDomain: accepted host names', () => {
  it.each([
    ['example.com', 'example.com'],
    ['sub.example.com', 'sub.example.com'],
    ['a.b.c.d.example.co.uk', 'a.b.c.d.example.co.uk'],
    ['Example.COM', 'example.com'],
    ['  example.com  ', 'example.com'],
    ['\texample.com\n', 'example.com'],
    ['\r\n example.com \r\n', 'example.com'],
    ['\u00a0example.com\u00a0', 'example.com'],
    ['\ufeffexample.com', 'example.com'],
    ['x.com', 'x.com'],
    ['a.io', 'a.io'],
    ['1.com', '1.com'],
    ['123.example.com', '123.example.com'],
    ['example.123abc', 'example.123abc'],
    ['my-site.example.com', 'my-site.example.com'],
    ['a--b.com', 'a--b.com'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['example.com.', 'example.com'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });
});

describe('normalizeDomain: scheme, credentials, path, query, fragment and port', () => {
  it.each([
    ['http://x.com/p', 'x.com'],
    ['https://x.com', 'x.com'],
    ['https://x.com/', 'x.com'],
    ['HTTPS://X.COM/PATH', 'x.com'],
    ['ftp://x.com/file.txt', 'x.com'],
    ['//x.com/path', 'x.com'],
    ['x.com/path/to/page', 'x.com'],
    ['x.com?q=1', 'x.com'],
    ['x.com#frag', 'x.com'],
    ['x.com/?q=1#frag', 'x.com'],
    ['https://x.com/@user', 'x.com'],
    ['https://x.com/?redirect=a@b.com', 'x.com'],
    ['https://x.com#a@b', 'x.com'],
    ['https://x.com\\evil', 'x.com'],
    ['x.com:8080', 'x.com'],
    ['x.com:1', 'x.com'],
    ['x.com:443/', 'x.com'],
    ['https://www.Example.com:8080/blog/', 'example.com'],
    ['https://www.example.com:8080/blog?x=1#top', 'example.com'],
    ['example.com.:8080', 'example.com'],
    ['https://example.com./path', 'example.com'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });

  it.each([
    'user@x.com',
    'user:pass@x.com',
    'http://user:pass@x.com/',
    'https://user@x.com',
    '@x.com',
    'x.com@evil.com',
    'http://x.com@evil.com/',
  ])('rejects credentials in %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });
});

describe('normalizeDomain: leading www.', () => {
  it.each([
    ['www.example.com', 'example.com'],
    ['WWW.EXAMPLE.COM', 'example.com'],
    ['http://www.example.com/', 'example.com'],
    ['www.sub.example.com', 'sub.example.com'],
    ['www.www.example.com', 'www.example.com'],
    ['wwwexample.com', 'wwwexample.com'],
    ['www2.example.com', 'www2.example.com'],
    ['sub.www.example.com', 'sub.www.example.com'],
    ['www.example.com.', 'example.com'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });

  // The www./trailing-dot stripping must also apply to names that only take their ASCII
  // form through IDNA mapping (full-width letters, ideographic full stop).
  it('strips a full-width ＷＷＷ. prefix after IDNA mapping', () => {
    expect(normalizeDomain('ＷＷＷ.example.com')).toEqual({ ok: true, domain: 'example.com' });
  });

  it('strips a trailing ideographic full stop after IDNA mapping', () => {
    expect(normalizeDomain('bücher.de。')).toEqual({ ok: true, domain: 'xn--bcher-kva.de' });
  });
});

describe('normalizeDomain: international names', () => {
  it.each([
    ['bücher.de', 'xn--bcher-kva.de'],
    ['BÜCHER.DE', 'xn--bcher-kva.de'],
    ['www.bücher.de', 'xn--bcher-kva.de'],
    ['https://www.bücher.de:8080/pfad?q=1', 'xn--bcher-kva.de'],
    ['münchen.de:8080', 'xn--mnchen-3ya.de'],
    ['☃.net', 'xn--n3h.net'],
    ['faß.de', 'xn--fa-hia.de'],
    ['bücher.de.', 'xn--bcher-kva.de'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });

  it.each([
    'bü<cher.de',
    'bü cher.de',
    'bü\u0000cher.de',
    'bü\tcher.de',
    'exa\u0085mple.com',
    'exa\u0080mple.com',
    '\u00fc',
  ])('rejects %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });
});

describe('normalizeDomain: IPv4 literals', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['10.0.0.1', '10.0.0.1'],
    ['192.168.100.200', '192.168.100.200'],
    ['http://1.2.3.4:8080/path', '1.2.3.4'],
    ['1.2.3.4.', '1.2.3.4'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });

  it.each([
    '999.1.1.1',
    '256.0.0.0',
    '1.256.0.0',
    '1.2.3.256',
    '1.2.3',
    '1.2',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.00',
    '00.0.0.0',
    '1..2.3',
    '.1.2.3',
  ])('rejects %j as an invalid IPv4 address', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });

  it.each(['0x7f.0.0.1', '0X7F.0.0.1', '127.0.0.0x1', '1.2.3.0x4', '1.2.0x3.4'])(
    'rejects the non-dotted-quad address form %j',
    (input) => {
      expect(normalizeDomain(input)).toEqual(REJECTED);
    },
  );

  it.each(['2130706433', '0x7f000001', '017700000001'])('rejects single-number %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });
});

describe('normalizeDomain: IPv6 literals', () => {
  it.each([
    ['[2001:0db8:0000:0000:0000:0000:0000:0001]', '[2001:db8::1]'],
    ['2001:db8::1', '[2001:db8::1]'],
    ['http://[2001:DB8::1]:8080/', '[2001:db8::1]'],
    ['[2001:db8::1]', '[2001:db8::1]'],
    ['2001:0DB8:0:0:0:0:0:1', '[2001:db8::1]'],
    ['[2001:db8::1]:443', '[2001:db8::1]'],
    ['https://[2001:db8::1]/path?q=1#f', '[2001:db8::1]'],
    ['[::1]', '[::1]'],
    ['::1', '[::1]'],
    ['[::]', '[::]'],
    ['[fe80::1]', '[fe80::1]'],
    ['[2001:db8:0:0:1:0:0:1]', '[2001:db8::1:0:0:1]'],
    ['[2001:db8:0:1:1:1:1:1]', '[2001:db8:0:1:1:1:1:1]'],
    ['[1:2:3:4:5:6:7::]', '[1:2:3:4:5:6:7:0]'],
    ['[::ffff:1.2.3.4]', '[::ffff:102:304]'],
  ])('%j → %s', (input, domain) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain });
  });

  it.each([
    '[2001:db8::1',
    '[]',
    '[1.2.3.4]',
    '[example.com]',
    '[2001:db8::g]',
    '[1:2:3:4:5:6:7:8:9]',
    '[1::2::3]',
    '[fe80::1%eth0]',
    '[fe80::1%25eth0]',
    'fe80::1%eth0',
    '[2001:db8::1]x',
    '[2001:db8::1]:',
    '[2001:db8::1]:abc',
    '[2001:db8::1]:99999999',
    '[2001:db8::1]]',
    '[2001:db8::1]example.com',
    '2001:db8::g',
    '1::2::3',
    ':::',
    'example.com:80:80',
    '[::ffff:999.1.1.1]',
  ])('rejects %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });

  it.each(['[::ffff:01.2.3.4]', '[::ffff:0x7f.0.0.1]'])(
    'rejects the non-strict embedded IPv4 in %j',
    (input) => {
      expect(normalizeDomain(input)).toEqual(REJECTED);
    },
  );

  // `::1.2.3.4` is 0:0:0:0:0:0:102:304 (an IPv4-compatible address), not ::ffff:1.2.3.4.
  it('keeps the IPv4-compatible address [::1.2.3.4] as the same address', () => {
    expect(normalizeDomain('[::1.2.3.4]')).toEqual({ ok: true, domain: '[::102:304]' });
  });
});

describe('normalizeDomain: localhost', () => {
  it.each(['localhost', 'LOCALHOST', 'http://localhost:8080/', 'localhost.'])(
    '%j is localhost (a website in development only: src/websites/service.ts)',
    (input) => {
      expect(normalizeDomain(input)).toEqual({ ok: true, domain: 'localhost' });
    },
  );
});

describe('normalizeDomain: rejected input', () => {
  it.each([
    '',
    '   ',
    '\t\n\r ',
    'com',
    '<script>',
    'exa mple.com',
    '-a.com',
    'a-.com',
    'a.-b.com',
    'a.b-.com',
    'a.com-',
    'a..com',
    '.com',
    '.example.com',
    'example.com..',
    'example.com:abc',
    'example.com:99999999',
    'example.com:',
    'example.com:-1',
    'javascript:alert(1)',
    'JavaScript:alert(document.cookie)',
    'example.123',
    'example.com.123',
    'exa_mple.com',
    'exa!mple.com',
    '<script>alert(1)</script>.com',
    '"example.com"',
    "example.com'",
    'example.com;drop table websites',
    '%65xample.com',
    '*.example.com',
  ])('rejects %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });

  it.each([
    'exa\u0000mple.com',
    'example.com\u0000',
    '\u0000example.com',
    'example\u0000.com',
    'exa\u0001mple.com',
    'exa\u001fmple.com',
    'exa\u007fmple.com',
    'exa\bmple.com',
    'exa\nmple.com',
    'exa\rmple.com',
    'example.com\r\nHost: evil.com',
    'exa\u00a0mple.com',
    'exa\u2028mple.com',
    'exa\u3000mple.com',
  ])('rejects control characters and white space inside %j', (input) => {
    expect(normalizeDomain(input)).toEqual(REJECTED);
  });

  it.each(['example.com:65536', 'example.com:99999'])(
    'rejects out-of-range port in %j',
    (input) => {
      expect(normalizeDomain(input)).toEqual(REJECTED);
    },
  );
});

describe('normalizeDomain: length limits', () => {
  const l63 = 'a'.repeat(63);
  const l64 = 'a'.repeat(64);

  it('accepts a 63-character label', () => {
    expect(normalizeDomain(`${l63}.com`)).toEqual({ ok: true, domain: `${l63}.com` });
  });

  it('rejects a 64-character label', () => {
    expect(normalizeDomain(`${l64}.com`)).toEqual(REJECTED);
  });

  it('rejects a 64-character top-level label', () => {
    expect(normalizeDomain(`example.${l64}`)).toEqual(REJECTED);
  });

  it('accepts a host of exactly 253 characters', () => {
    const host = `${l63}.${l63}.${l63}.${'a'.repeat(61)}`;
    expect(host).toHaveLength(253);
    expect(normalizeDomain(host)).toEqual({ ok: true, domain: host });
  });

  it('accepts 253 characters plus a trailing dot', () => {
    const host = `${l63}.${l63}.${l63}.${'a'.repeat(61)}`;
    expect(normalizeDomain(`${host}.`)).toEqual({ ok: true, domain: host });
  });

  it('rejects a host of 254 characters', () => {
    const host = `${l63}.${l63}.${l63}.${'a'.repeat(62)}`;
    expect(host).toHaveLength(254);
    expect(normalizeDomain(host)).toEqual(REJECTED);
  });

  it('rejects very long input', () => {
    expect(normalizeDomain(`${'a.'.repeat(5000)}com`)).toEqual(REJECTED);
  });

  it('rejects an international name whose punycode form is too long', () => {
    const label = 'ü'.repeat(60);
    expect(normalizeDomain(`${label}.de`)).toEqual(REJECTED);
  });

  // A pattern that backtracks would take hours on these; the test's timeout is only a guard
  // (nothing here measures speed, which a busy machine would make flaky).
  it('handles pathological input', { timeout: 30_000 }, () => {
    for (const input of [
      '-'.repeat(2000),
      `${'a-'.repeat(1000)}.com`,
      `${'['.repeat(2000)}`,
      `${':'.repeat(2000)}`,
      `${'1.'.repeat(1000)}`,
    ]) {
      expect(normalizeDomain(input)).toEqual(REJECTED);
    }
  });
});

describe('normalizeDomain: idempotence', () => {
  it.each([
    'https://www.Example.com:8080/blog/',
    'bücher.de',
    'http://[2001:DB8::1]:8080/',
    '1.2.3.4',
    'sub.example.co.uk.',
  ])('normalising the result of %j again yields the same domain', (input) => {
    const first = normalizeDomain(input);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(normalizeDomain(first.domain)).toEqual(first);
  });
});
