import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/lib/ip.ts';

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:0:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['::1', '::/64'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['unknown', 'unknown'],
    ['not an ip', 'not an ip'],
  ])('%s → %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it('keys every address of one /64 alike and neighbouring networks apart', () => {
    const keys = new Set(
      Array.from({ length: 20 }, (_, i) =>
        addressKey(`2001:db8:aa:bb:${i.toString(16)}::${i + 1}`),
      ),
    );
    expect(keys).toEqual(new Set(['2001:db8:aa:bb::/64']));
    expect(addressKey('2001:db8:aa:bc::1')).not.toBe(addressKey('2001:db8:aa:bb::1'));
  });
});
