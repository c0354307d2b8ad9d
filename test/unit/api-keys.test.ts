import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/accounts/api-keys.ts';
import { fromBase64Url } from '../../src/lib/crypto.ts';

describe('generateApiKey', () => {
  it('has the sl_ prefix and 43 base64url characters', () => {
    expect(generateApiKey()).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
  });

  it('encodes 32 random bytes', () => {
    expect(fromBase64Url(generateApiKey().slice(3))).toHaveLength(32);
  });

  it('returns a different key on each call', () => {
    expect(generateApiKey()).not.toBe(generateApiKey());
  });

  it('never repeats and always matches the pattern over many calls', () => {
    const keys = Array.from({ length: 1000 }, () => generateApiKey());
    for (const key of keys) expect(key).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    expect(new Set(keys).size).toBe(1000);
  });
});
