import { describe, expect, it } from 'vitest';
import { isExcludedIp } from '../../src/ingest/steps/excluded-ip.ts';

describe('isExcludedIp: IPv4', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', true],
    ['203.0.113.8', '203.0.113.7', false],
    ['203.0.113.70', '203.0.113.7', false],
    ['203.0.113.0', '203.0.113.0/24', true],
    ['203.0.113.200', '203.0.113.0/24', true],
    ['203.0.113.255', '203.0.113.0/24', true],
    ['203.0.114.1', '203.0.113.0/24', false],
    ['203.0.112.255', '203.0.113.0/24', false],
    ['10.200.3.4', '10.0.0.0/8', true],
    ['11.0.0.1', '10.0.0.0/8', false],
    ['8.8.8.8', '0.0.0.0/0', true],
    ['255.255.255.255', '0.0.0.0/0', true],
    ['203.0.113.7', '203.0.113.7/32', true],
    ['203.0.113.6', '203.0.113.7/32', false],
    ['203.0.113.7', '203.0.113.99/24', true],
  ])('%s in %j → %s', (ip, list, excluded) => {
    expect(isExcludedIp(ip, list)).toBe(excluded);
  });
});

describe('isExcludedIp: IPv6', () => {
  it.each([
    ['2001:db8::1', '2001:db8::1', true],
    ['2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', true],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', true],
    ['2001:DB8::1', '2001:db8::1', true],
    ['2001:db8::1', '2001:DB8::1', true],
    ['2001:db8::2', '2001:db8::1', false],
    ['2001:db8:0:1::5', '2001:db8::/48', true],
    ['2001:db8:0:ffff:ffff:ffff:ffff:ffff', '2001:db8::/48', true],
    ['2001:db8:1::5', '2001:db8::/48', false],
    ['2001:db8:abcd:12::1', '2001:db8:abcd:12::/64', true],
    ['2001:db8:abcd:13::1', '2001:db8:abcd:12::/64', false],
    ['::1', '::1', true],
    ['::1', '::1/128', true],
    ['2606:4700::1111', '::/0', true],
  ])('%s in %j → %s', (ip, list, excluded) => {
    expect(isExcludedIp(ip, list)).toBe(excluded);
  });
});

describe('isExcludedIp: IPv4-mapped IPv6 on either side', () => {
  it.each([
    ['::ffff:203.0.113.7', '203.0.113.7', true],
    ['::ffff:203.0.113.7', '203.0.113.0/24', true],
    ['::ffff:203.0.114.7', '203.0.113.0/24', false],
    ['::FFFF:203.0.113.7', '203.0.113.0/24', true],
    ['::ffff:cb00:7107', '203.0.113.7', true],
    ['0:0:0:0:0:ffff:cb00:7107', '203.0.113.0/24', true],
    ['203.0.113.7', '::ffff:203.0.113.7', true],
    ['203.0.113.8', '::ffff:203.0.113.7', false],
    ['203.0.113.7', '::ffff:cb00:7107', true],
    ['203.0.113.7', '::ffff:203.0.113.0/120', true],
    ['203.0.114.7', '::ffff:203.0.113.0/120', false],
    ['::ffff:203.0.113.7', '::ffff:203.0.113.7', true],
  ])('client %s, list %j → %s', (ip, list, excluded) => {
    expect(isExcludedIp(ip, list)).toBe(excluded);
  });
});

describe('isExcludedIp: IPv4 and IPv6 do not mix', () => {
  it.each([
    ['2001:db8::1', '0.0.0.0/0'],
    ['::1', '0.0.0.0/0'],
    ['::1', '127.0.0.1'],
    ['::203.0.113.7', '203.0.113.7'],
    ['64:ff9b::203.0.113.7', '203.0.113.7'],
    ['2002:cb00:7107::1', '203.0.113.0/24'],
    ['203.0.113.7', '2001:db8::/32'],
  ])('client %s is not matched by %j', (ip, list) => {
    expect(isExcludedIp(ip, list)).toBe(false);
  });
});

describe('isExcludedIp: the list text', () => {
  it.each([
    ['\n# office\n\n10.0.0.0/8\n  203.0.113.7  \n', true],
    ['10.0.0.0/8\r\n203.0.113.7\r\n', true],
    ['198.51.100.0/24\n2001:db8::/32\n203.0.113.0/24', true],
    ['# 203.0.113.7', false],
    ['#203.0.113.7\n\n', false],
    ['  # 203.0.113.0/24  ', false],
    ['198.51.100.7', false],
    ['garbage\n203.0.113.7', true],
    ['203.0.113.7/33\n10.0.0.0/8', false],
  ])('list %j → %s for 203.0.113.7', (list, excluded) => {
    expect(isExcludedIp('203.0.113.7', list)).toBe(excluded);
  });

  it.each(['', '   ', '\n\n', ' \n\t\n '])('an empty list %j excludes nothing', (list) => {
    expect(isExcludedIp('203.0.113.7', list)).toBe(false);
  });

  it('the same list text gives the same answer when asked again (cached)', () => {
    const list = '203.0.113.0/24\n2001:db8::/32';
    for (let i = 0; i < 3; i++) {
      expect(isExcludedIp('203.0.113.9', list)).toBe(true);
      expect(isExcludedIp('2001:db8::9', list)).toBe(true);
      expect(isExcludedIp('198.51.100.9', list)).toBe(false);
    }
  });
});

describe('isExcludedIp: missing or invalid client IP', () => {
  it.each([
    [null],
    [''],
    ['not-an-ip'],
    ['203.0.113'],
    ['203.0.113.256'],
    ['010.0.0.1'],
    ['0x7f.0.0.1'],
    ['203.0.113.7/32'],
    [' 203.0.113.7'],
    ['fe80::1%eth0'],
    ['2001:db8:::1'],
  ])('%j → false even against 0.0.0.0/0 and ::/0', (ip) => {
    expect(isExcludedIp(ip, '0.0.0.0/0\n::/0')).toBe(false);
  });
});
