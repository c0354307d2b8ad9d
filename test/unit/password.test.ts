import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/accounts/password.ts';

// Each hash costs ~100 ms (PBKDF2, 100,000 iterations): hash once, reuse.
const PASSWORD = 'correct horse battery staple';
let stored: string;

beforeAll(async () => {
  stored = await hashPassword(PASSWORD);
});

describe('hashPassword', () => {
  it('produces pbkdf2-sha256$100000$<salt>$<hash> with base64url salt and hash', () => {
    expect(stored).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  });

  it('uses a different salt (and so a different hash) on every call', async () => {
    const again = await hashPassword(PASSWORD);
    const [, , saltA, hashA] = stored.split('$');
    const [, , saltB, hashB] = again.split('$');
    expect(saltB).not.toBe(saltA);
    expect(hashB).not.toBe(hashA);
  });
});

describe('verifyPassword', () => {
  it('accepts the right password', async () => {
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  });

  it('rejects a wrong password', async () => {
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
  });

  it('rejects the right password with different case', async () => {
    expect(await verifyPassword(PASSWORD.toUpperCase(), stored)).toBe(false);
  });

  it('rejects an empty password', async () => {
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('rejects a hash whose last character was changed', async () => {
    const tampered = stored.slice(0, -1) + (stored.endsWith('A') ? 'B' : 'A');
    expect(await verifyPassword(PASSWORD, tampered)).toBe(false);
  });

  it('rejects a hash paired with another salt', async () => {
    const [scheme, cost, , hash] = stored.split('$');
    const forged = [scheme, cost, 'AAAAAAAAAAAAAAAAAAAAAA', hash].join('$');
    expect(await verifyPassword(PASSWORD, forged)).toBe(false);
  });

  it.each([
    '',
    'plain',
    'correct horse battery staple',
    '$$$',
    'pbkdf2-sha256',
    'pbkdf2-sha256$',
    'pbkdf2-sha256$$$',
    'pbkdf2-sha256$100000',
    'pbkdf2-sha256$100000$salt',
    'pbkdf2-sha256$100000$salt$',
    'pbkdf2-sha256$100000$$hash',
    'pbkdf2-sha256$$salt$hash',
    'pbkdf2-sha256$abc$x$y',
    'pbkdf2-sha256$999999999$x$y',
    'pbkdf2-sha256$100001$x$y',
    'pbkdf2-sha256$0$x$y',
    'pbkdf2-sha256$-1$x$y',
    'pbkdf2-sha256$1.5$x$y',
    'pbkdf2-sha256$NaN$x$y',
    'pbkdf2-sha256$Infinity$x$y',
    'PBKDF2-SHA256$100000$x$y',
    'pbkdf2-sha512$100000$x$y',
    'md5$1$a$b',
    'bcrypt$10$a$b',
    '$2y$10$abcdefghijklmnopqrstuuFzWdDfNC2lXbmLGy8E0JHTGKtN3NqCm',
  ])('returns false for the malformed stored hash %j', async (malformed) => {
    expect(await verifyPassword(PASSWORD, malformed)).toBe(false);
  });

  // Salts that are not base64url must make verification fail, not throw.
  it.each([
    'pbkdf2-sha256$1$!!!$y',
    'pbkdf2-sha256$1$a$b',
    'pbkdf2-sha256$1$ab=c$d',
    'pbkdf2-sha256$1$\u00ff\u00ff$d',
  ])('returns false (does not throw) for the undecodable salt in %j', async (malformed) => {
    await expect(verifyPassword(PASSWORD, malformed)).resolves.toBe(false);
  });

  it('returns false when extra $-separated fields follow a valid hash', async () => {
    expect(await verifyPassword(PASSWORD, `${stored}$extra`)).toBe(false);
  });
});
