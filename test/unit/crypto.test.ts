import { describe, expect, it } from 'vitest';
import {
  fromBase64Url,
  randomBytes,
  sha256Hex,
  timingSafeEqual,
  toBase64Url,
  toHex,
} from '../../src/lib/crypto.ts';

describe('sha256Hex', () => {
  it.each([
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [
      'The quick brown fox jumps over the lazy dog',
      'd7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592',
    ],
    ['é', '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c'],
    ['😀', 'f0443a342c5ef54783a111b51ba56c938e474c32324d90c3a60c9c8e3a37e2d9'],
    ['a\u0000b', '59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138'],
  ])('sha256Hex(%j) → %s', async (text, hex) => {
    expect(await sha256Hex(text)).toBe(hex);
  });

  it('returns 64 lower-case hex digits for long input', async () => {
    expect(await sha256Hex('x'.repeat(1_000_000))).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('toHex', () => {
  it.each([
    [[], ''],
    [[0], '00'],
    [[1, 2, 255], '0102ff'],
    [[0x0a, 0xb0, 0xcd], '0ab0cd'],
  ])('toHex(%j) → %j', (bytes, hex) => {
    expect(toHex(new Uint8Array(bytes))).toBe(hex);
  });
});

describe('toBase64Url / fromBase64Url', () => {
  it.each([
    [[], ''],
    [[0], 'AA'],
    [[0, 0], 'AAA'],
    [[0, 0, 0], 'AAAA'],
    [[1], 'AQ'],
    [[1, 2], 'AQI'],
    [[1, 2, 3], 'AQID'],
    [[255], '_w'],
    [[0xff, 0xfe], '__4'],
    [[0xff, 0xff, 0xff], '____'],
    [[0xfb, 0xef, 0xbe], '----'],
    [[0xfb, 0xff], '-_8'],
    [[104, 101, 108, 108, 111], 'aGVsbG8'],
    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 250, 251, 252, 253, 254, 255], 'AAECAwQFBgcICfr7_P3-_w'],
  ])('%j ↔ %j', (bytes, text) => {
    expect(toBase64Url(new Uint8Array(bytes))).toBe(text);
    expect(Array.from(fromBase64Url(text))).toEqual(bytes);
  });

  it('never emits +, / or = padding', () => {
    for (let n = 0; n < 64; n++) {
      expect(toBase64Url(new Uint8Array(n).fill(0xff))).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(toBase64Url(new Uint8Array(n).fill(0xfb))).toMatch(/^[A-Za-z0-9_-]*$/);
    }
  });

  it('produces ceil(4n/3) characters for n bytes', () => {
    for (let n = 0; n <= 100; n++) {
      expect(toBase64Url(new Uint8Array(n))).toHaveLength(Math.ceil((4 * n) / 3));
    }
  });

  it('round-trips every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(fromBase64Url(toBase64Url(all))).toEqual(all);
  });

  it.each([0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 255, 256, 1000, 4096])(
    'round-trips %i random bytes',
    (n) => {
      const bytes = randomBytes(n);
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    },
  );

  it('round-trips all-zero and all-0xff buffers of lengths 0–9', () => {
    for (let n = 0; n < 10; n++) {
      for (const fill of [0, 0xff]) {
        const bytes = new Uint8Array(n).fill(fill);
        expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
      }
    }
  });

  it('returns a Uint8Array', () => {
    expect(fromBase64Url('AQID')).toBeInstanceOf(Uint8Array);
  });

  it.each(['A', '!!!', 'AA=A', 'AAAAA', 'A$B'])('throws on malformed input %j', (text) => {
    expect(() => fromBase64Url(text)).toThrow();
  });
});

describe('randomBytes', () => {
  it.each([0, 1, 16, 32, 64])('returns %i bytes', (n) => {
    const bytes = randomBytes(n);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes).toHaveLength(n);
  });

  it('returns different bytes on each call', () => {
    expect(toHex(randomBytes(32))).not.toBe(toHex(randomBytes(32)));
  });
});

describe('timingSafeEqual', () => {
  it.each([
    ['', ''],
    ['a', 'a'],
    ['abc', 'abc'],
    ['sl_abcdef', 'sl_abcdef'],
    ['é😀\u0000', 'é😀\u0000'],
    ['x'.repeat(10_000), 'x'.repeat(10_000)],
  ])('%j equals %j', (a, b) => {
    expect(timingSafeEqual(a, b)).toBe(true);
  });

  it.each([
    ['', 'a'],
    ['a', ''],
    ['a', 'b'],
    ['abc', 'abd'],
    ['abc', 'xbc'],
    ['abc', 'ab'],
    ['ab', 'abc'],
    ['abc', 'ABC'],
    ['abc', 'abc '],
    ['abc', 'abc\u0000'],
    ['\u0000', ''],
    ['\u0000', '\u0001'],
    ['é', 'e\u0301'],
    ['\u0100', '\u0000'],
    ['\uffff', '\u00ff'],
    ['😀', '😁'],
    ['x'.repeat(10_000), `${'x'.repeat(9_999)}y`],
  ])('%j differs from %j', (a, b) => {
    expect(timingSafeEqual(a, b)).toBe(false);
    expect(timingSafeEqual(b, a)).toBe(false);
  });
});
