import { describe, expect, it } from 'vitest';
import { parseIpEntry, validateIpList } from '../../src/websites/lists/ip-list.ts';

/** `[kind, canonical address, prefix bits]`, or null: comparable with toEqual. */
function parsed(entry: string): [string, string, number] | null {
  const result = parseIpEntry(entry);
  if (result === null) return null;
  const [ip, bits] = result;
  return [ip.kind(), ip.toString(), bits];
}

describe('parseIpEntry: IPv4', () => {
  it.each([
    ['1.2.3.4', 'ipv4', '1.2.3.4', 32],
    ['0.0.0.0', 'ipv4', '0.0.0.0', 32],
    ['255.255.255.255', 'ipv4', '255.255.255.255', 32],
    ['192.168.1.10', 'ipv4', '192.168.1.10', 32],
    ['10.0.0.0/8', 'ipv4', '10.0.0.0', 8],
    ['192.168.0.0/16', 'ipv4', '192.168.0.0', 16],
    ['1.2.3.4/32', 'ipv4', '1.2.3.4', 32],
    ['0.0.0.0/0', 'ipv4', '0.0.0.0', 0],
    ['1.2.3.4/0', 'ipv4', '1.2.3.4', 0],
    ['1.2.3.4/1', 'ipv4', '1.2.3.4', 1],
    ['1.2.3.4/31', 'ipv4', '1.2.3.4', 31],
  ])('%s → %s %s /%i', (entry, kind, address, bits) => {
    expect(parsed(entry)).toEqual([kind, address, bits]);
  });

  it.each(Array.from({ length: 33 }, (_, bits) => bits))(
    'accepts every IPv4 prefix /%i',
    (bits) => {
      expect(parsed(`10.0.0.0/${bits}`)).toEqual(['ipv4', '10.0.0.0', bits]);
    },
  );

  it.each([
    '1.2.3.4/33',
    '1.2.3.4/99',
    '1.2.3.4/100',
    '1.2.3.4/128',
    '1.2.3.4/999',
    '1.2.3.4/1000',
    '999.1.1.1',
    '256.0.0.0',
    '1.2.3.256',
    '1.2.3',
    '1.2',
    '1',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '0x7f.0.0.1',
    '0X7F.0.0.1',
    '1.2.3.0x4',
    '2130706433',
    '0x7f000001',
    '1.2.3.4/',
    '1.2.3.4/-1',
    '1.2.3.4/+8',
    '1.2.3.4/8/8',
    '1.2.3.4//8',
    '1.2.3.4/8.0',
    '1.2.3.4/0x8',
    '1.2.3.4/1e1',
    '1.2.3.4/ 8',
    '1.2.3.4 /8',
    '1.2.3.4/abc',
    '/8',
    '/',
    '1.2.3.4%eth0',
    '1.2.3.4:80',
    '1.2.3.4.',
    '.1.2.3.4',
    '1..2.3',
    '-1.2.3.4',
    '1.2.3.-4',
    '1.2.3.4-1.2.3.5',
    '1.2.3.*',
    '1.2.3.4\u0000',
    '\u0000',
    '１.２.３.４',
  ])('rejects %j', (entry) => {
    expect(parseIpEntry(entry)).toBeNull();
  });
});

describe('parseIpEntry: IPv6', () => {
  it.each([
    ['::1', '::1', 128],
    ['::', '::', 128],
    ['::/0', '::', 0],
    ['2001:db8::1', '2001:db8::1', 128],
    ['2001:DB8::1', '2001:db8::1', 128],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 128],
    ['2001:0db8:0000:0000:0000:0000:0000:0001/128', '2001:db8::1', 128],
    ['2001:db8:0:0:0:0:0:1', '2001:db8::1', 128],
    ['2001:db8::/32', '2001:db8::', 32],
    ['2001:db8::/48', '2001:db8::', 48],
    ['2001:db8::/0', '2001:db8::', 0],
    ['2001:db8::/128', '2001:db8::', 128],
    ['fe80::1', 'fe80::1', 128],
    ['fe80::/10', 'fe80::', 10],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8', 128],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 128],
    ['::ffff:1.2.3.4', '::ffff:102:304', 128],
    ['::ffff:1.2.3.4/128', '::ffff:102:304', 128],
    ['::ffff:1.2.3.0/120', '::ffff:102:300', 120],
    ['::ffff:102:304', '::ffff:102:304', 128],
    ['0:0:0:0:0:ffff:1.2.3.4', '::ffff:102:304', 128],
    ['64:ff9b::1.2.3.4', '64:ff9b::102:304', 128],
  ])('%s → %s /%i', (entry, address, bits) => {
    expect(parsed(entry)).toEqual(['ipv6', address, bits]);
  });

  it.each(Array.from({ length: 129 }, (_, bits) => bits))(
    'accepts every IPv6 prefix /%i',
    (bits) => {
      expect(parsed(`2001:db8::/${bits}`)).toEqual(['ipv6', '2001:db8::', bits]);
    },
  );

  it.each([
    '2001:db8::/129',
    '2001:db8::/200',
    '2001:db8::/1000',
    '2001:db8::/',
    '2001:db8::/-1',
    '2001:db8::/64/64',
    'fe80::1%eth0',
    'fe80::1%1',
    'fe80::1%25eth0',
    'fe80::1%eth0/64',
    '[2001:db8::1]',
    '[2001:db8::1]/64',
    '2001:db8::g',
    '2001:db8:::1',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '12345::1',
    '2001:db8::1:',
    ':2001:db8::1',
    ':',
    ':::',
    '::ffff:999.1.1.1',
    '::ffff:1.2.3',
    '::ffff:1.2.3.4.5',
    '2001:db8::1 ',
    ' 2001:db8::1',
  ])('rejects %j', (entry) => {
    expect(parseIpEntry(entry)).toBeNull();
  });

  it.each(['::ffff:01.2.3.4', '::ffff:0x7f.0.0.1'])(
    'rejects the non-strict embedded IPv4 in %j',
    (entry) => {
      expect(parseIpEntry(entry)).toBeNull();
    },
  );

  // `::1.2.3.4` is the IPv4-compatible address 0:0:0:0:0:0:102:304, not ::ffff:1.2.3.4: a
  // range written this way must not silently exclude a different address.
  it('parses ::1.2.3.4 as ::102:304, not as the IPv4-mapped ::ffff:102:304', () => {
    expect(parsed('::1.2.3.4')).toEqual(['ipv6', '::102:304', 128]);
  });
});

describe('parseIpEntry: hostile input', () => {
  it.each([
    '',
    ' ',
    'hello',
    'localhost',
    'example.com',
    '1.2.3.4 5.6.7.8',
    '1.2.3.4\t5.6.7.8',
    '1.2.3.4\n5.6.7.8',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.4\u00a0',
    '1.2.3.4\u2028',
    '#1.2.3.4',
    '1.2.3.4#comment',
    '1.2.3.4,5.6.7.8',
    '1.2.3.4;5.6.7.8',
    "1.2.3.4' OR '1'='1",
    '<script>alert(1)</script>',
    '__proto__',
    'constructor',
    'toString',
    'NaN',
    'null',
    'undefined',
    '*',
  ])('rejects %j', (entry) => {
    expect(parseIpEntry(entry)).toBeNull();
  });

  it.each([
    ['a long garbage string', 'a'.repeat(10_000)],
    ['a long digit string', '1'.repeat(10_000)],
    ['a long run of dots', '.'.repeat(10_000)],
    ['a long run of colons', ':'.repeat(10_000)],
    ['an address with a huge prefix', `1.2.3.4/${'0'.repeat(10_000)}8`],
    ['an address with many leading zero groups', `${'0:'.repeat(5000)}1`],
    ['an address followed by 100k slashes', `1.2.3.4${'/'.repeat(100_000)}`],
  ])('rejects %s', (_, entry) => {
    expect(parseIpEntry(entry)).toBeNull();
  });

  it.each(['1.2.3.4/0033', '1.2.3.4/0008', '::1/00128'])(
    'rejects the 4+ digit prefix %j',
    (entry) => {
      expect(parseIpEntry(entry)).toBeNull();
    },
  );
});

describe('validateIpList', () => {
  it('accepts an empty text', () => {
    expect(validateIpList('')).toEqual({ ok: true, text: '' });
  });

  it('accepts a text of only blank lines, trimming it to empty', () => {
    expect(validateIpList('\n\n  \r\n\t\n')).toEqual({ ok: true, text: '' });
  });

  it('accepts a single address', () => {
    expect(validateIpList('1.2.3.4')).toEqual({ ok: true, text: '1.2.3.4' });
  });

  it('accepts a mixed list and keeps entries as written', () => {
    const text = [
      '1.2.3.4',
      '10.0.0.0/8',
      '2001:db8::1',
      '2001:0db8:0000:0000:0000:0000:0000:0001',
      '2001:db8::/32',
      '::ffff:1.2.3.4',
      '0.0.0.0/0',
      '::/0',
    ].join('\n');
    expect(validateIpList(text)).toEqual({ ok: true, text });
  });

  it('trims each line', () => {
    expect(validateIpList('  1.2.3.4  \n\t10.0.0.0/8\t')).toEqual({
      ok: true,
      text: '1.2.3.4\n10.0.0.0/8',
    });
  });

  it('normalises CRLF to LF', () => {
    expect(validateIpList('1.2.3.4\r\n5.6.7.8\r\n::1')).toEqual({
      ok: true,
      text: '1.2.3.4\n5.6.7.8\n::1',
    });
  });

  it('normalises lone CR to LF', () => {
    expect(validateIpList('1.2.3.4\r5.6.7.8')).toEqual({ ok: true, text: '1.2.3.4\n5.6.7.8' });
  });

  it('trims the whole text but keeps inner blank lines', () => {
    expect(validateIpList('\n\n1.2.3.4\n\n5.6.7.8\n\n')).toEqual({
      ok: true,
      text: '1.2.3.4\n\n5.6.7.8',
    });
  });

  it('keeps comment lines and treats them as valid whatever they contain', () => {
    const text = '# office\n1.2.3.4\n#hello world; DROP TABLE x\n# 999.1.1.1\n::1';
    expect(validateIpList(text)).toEqual({ ok: true, text });
  });

  it('treats an indented # line as a comment and trims it', () => {
    expect(validateIpList('   # office\n1.2.3.4')).toEqual({
      ok: true,
      text: '# office\n1.2.3.4',
    });
  });

  it('accepts a list that is only comments', () => {
    expect(validateIpList('# a\n#\n# b')).toEqual({ ok: true, text: '# a\n#\n# b' });
  });

  it.each([
    ['hello', 1, 'hello'],
    ['1.2.3.4/33', 1, '1.2.3.4/33'],
    ['1.2.3.4\n999.1.1.1', 2, '999.1.1.1'],
    ['1.2.3.4\n5.6.7.8\n1.2.3', 3, '1.2.3'],
    ['1.2.3.4\r\n1.2.3.4/\r\n', 2, '1.2.3.4/'],
    ['1.2.3.4\r1.2.3.4/-1', 2, '1.2.3.4/-1'],
    ['\n\n1.2.3.4/8/8', 3, '1.2.3.4/8/8'],
    ['# comment\n\n  fe80::1%eth0  ', 3, 'fe80::1%eth0'],
    ['::1\n2001:db8::/129', 2, '2001:db8::/129'],
    ['1.2.3.4 5.6.7.8', 1, '1.2.3.4 5.6.7.8'],
    ['1.2.3.4 # office', 1, '1.2.3.4 # office'],
    ['bad1\nbad2', 1, 'bad1'],
    ['1.2.3.4\nbad1\n5.6.7.8\nbad2', 2, 'bad1'],
    ['1.2.3.4\u20285.6.7.8', 1, '1.2.3.4\u20285.6.7.8'],
    ['1.2.3.4\u0000', 1, '1.2.3.4\u0000'],
  ])('rejects %j at line %i (%j)', (text, line, entry) => {
    expect(validateIpList(text)).toEqual({ ok: false, line, entry });
  });

  it('reports the line number counting blank and comment lines', () => {
    const lines = ['# header', '', '1.2.3.4', '   ', '# another', '10.0.0.0/8', 'nope'];
    expect(validateIpList(lines.join('\r\n'))).toEqual({ ok: false, line: 7, entry: 'nope' });
  });

  it('rejects a very long line', () => {
    const entry = `1.2.3.4${'x'.repeat(100_000)}`;
    expect(validateIpList(`1.2.3.4\n${entry}`)).toEqual({ ok: false, line: 2, entry });
  });

  it('handles many lines', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1`);
    expect(validateIpList(lines.join('\n'))).toEqual({ ok: true, text: lines.join('\n') });
  });

  it('reports a bad line deep in a long list', () => {
    const lines = Array.from({ length: 5000 }, () => '1.2.3.4');
    lines[4321] = '1.2.3.4/33';
    expect(validateIpList(lines.join('\n'))).toEqual({
      ok: false,
      line: 4322,
      entry: '1.2.3.4/33',
    });
  });

  it('is idempotent on its own output', () => {
    const first = validateIpList('\r\n  # office \r\n 1.2.3.4 \r\n\r\n ::1/64 \r\n');
    expect(first).toEqual({ ok: true, text: '# office\n1.2.3.4\n\n::1/64' });
    if (first.ok) expect(validateIpList(first.text)).toEqual(first);
  });
});
