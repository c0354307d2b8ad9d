import { describe, expect, it } from 'vitest';
import {
  normalizeEmail,
  PASSWORD_MAX,
  PASSWORD_MIN,
  validateNewPassword,
  validateOwnerInput,
} from '../../src/accounts/owners.ts';

const GOOD_PASSWORD = 'long enough';
const REQUIRED = ['The email field is required.'];
const INVALID = ['The email field must be a valid email address.'];
const TOO_SHORT = ['The password field must be at least 8 characters.'];
const TOO_LONG = ['The password field must not be greater than 128 characters.'];

describe('normalizeEmail', () => {
  it.each([
    [' A@B.COM ', 'a@b.com'],
    ['a@b.com', 'a@b.com'],
    ['User.Name+Tag@Example.Org', 'user.name+tag@example.org'],
    ['\tme@example.com\n', 'me@example.com'],
    ['\r\n ME@EXAMPLE.COM \r\n', 'me@example.com'],
    ['', ''],
    ['   ', ''],
    // One inbox, one address: a fully qualified domain's trailing dots, and IDNA.
    ['victim@example.org.', 'victim@example.org'],
    ['Victim@Example.Org..', 'victim@example.org'],
    ['a@Bücher.example', 'a@xn--bcher-kva.example'],
    ['a@xn--bcher-kva.example', 'a@xn--bcher-kva.example'],
    ['a@münchen.de.', 'a@xn--mnchen-3ya.de'],
  ])('normalizeEmail(%j) → %j', (email, normalised) => {
    expect(normalizeEmail(email)).toBe(normalised);
  });
});

describe('validateOwnerInput: valid input', () => {
  it.each([
    'a@b.co',
    'a@b.com',
    ' A@B.COM ',
    'user@example.com',
    'first.last@example.co.uk',
    'user+tag@example.com',
    'user_name@sub.example.org',
    "o'brien@example.ie",
    '1234@example.com',
    'user@xn--bcher-kva.de',
  ])('accepts %j', (email) => {
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({});
  });
});

describe('validateOwnerInput: email', () => {
  it.each(['', ' ', '   ', '\t\n'])('%j is required', (email) => {
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({ email: REQUIRED });
  });

  it.each([
    'not-an-email',
    'a@b',
    'a b@c.com',
    '<x>@y.com',
    'x@<y>.com',
    '@example.com',
    'user@',
    'user@.com',
    'user@example.',
    'user@@example.com',
    'a@b@c.com',
    'user example.com',
    'user@exa mple.com',
    'user@example.com extra',
    'user@example,com',
    'user;x@example.com',
    'user:x@example.com',
    '"quoted"@example.com',
    '(comment)user@example.com',
    'user@[1.2.3.4]',
    'user\\@example.com',
    'a\tb@c.com',
    'a\nb@c.com',
    'user@example.com\nBcc: victim@example.com',
    '<script>alert(1)</script>@x.com',
  ])('%j is not a valid email address', (email) => {
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({ email: INVALID });
  });

  it.each([
    ['NUL', 'a\u0000b@c.com'],
    ['BEL', 'a\u0007b@c.com'],
    ['ESC', 'a@b\u001b.com'],
    ['DEL', 'a\u007fb@c.com'],
  ])('rejects an email containing the control character %s', (_, email) => {
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({ email: INVALID });
  });

  it('accepts an address of 254 characters', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
    expect(email).toHaveLength(254);
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({});
  });

  it('rejects an address longer than 254 characters', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(186)}.com`;
    expect(email).toHaveLength(255);
    expect(validateOwnerInput(email, GOOD_PASSWORD)).toEqual({ email: INVALID });
  });

  // A pattern that backtracks would take hours on these; the test's timeout is only a guard.
  it('rejects a huge address', { timeout: 30_000 }, () => {
    expect(validateOwnerInput(`${'a'.repeat(100_000)}@b`, GOOD_PASSWORD)).toEqual({
      email: INVALID,
    });
    expect(validateOwnerInput(`a@${'b.'.repeat(50_000)}`, GOOD_PASSWORD)).toEqual({
      email: INVALID,
    });
  });
});

describe('validateOwnerInput: password', () => {
  it('exports the limits 8 and 128', () => {
    expect([PASSWORD_MIN, PASSWORD_MAX]).toEqual([8, 128]);
  });

  it.each([
    ['', TOO_SHORT],
    ['a', TOO_SHORT],
    ['1234567', TOO_SHORT],
    ['x'.repeat(129), TOO_LONG],
    ['x'.repeat(1000), TOO_LONG],
  ])('password %j → %j', (password, messages) => {
    expect(validateOwnerInput('a@b.com', password)).toEqual({ password: messages });
  });

  it.each([
    ['exactly 8', '12345678'],
    ['exactly 128', 'x'.repeat(128)],
    ['8 spaces', '        '],
    ['with unicode', 'pässwörd'],
    ['with NUL', 'pass\u0000word'],
  ])('accepts a password of %s characters', (_, password) => {
    expect(validateOwnerInput('a@b.com', password)).toEqual({});
  });

  // Lengths count characters (code points), as Laravel's mb_strlen does, not UTF-16 units.
  it('counts an emoji as one character towards the minimum', () => {
    expect(validateOwnerInput('a@b.com', '😀😀😀😀')).toEqual({ password: TOO_SHORT });
  });

  it('counts an emoji as one character towards the maximum', () => {
    expect(validateOwnerInput('a@b.com', '😀'.repeat(128))).toEqual({});
  });

  it('reports both fields, email first', () => {
    const errors = validateOwnerInput('', 'short');
    expect(errors).toEqual({ email: REQUIRED, password: TOO_SHORT });
    expect(Object.keys(errors)).toEqual(['email', 'password']);
  });

  it('reports an invalid email and a too-long password together', () => {
    expect(validateOwnerInput('a@b', 'x'.repeat(129))).toEqual({
      email: INVALID,
      password: TOO_LONG,
    });
  });
});

describe('validateNewPassword', () => {
  it.each([
    ['1234567', TOO_SHORT],
    ['12345678', undefined],
    ['x'.repeat(128), undefined],
    ['x'.repeat(129), TOO_LONG],
  ])('validateNewPassword(%j) → %j', (password, result) => {
    expect(validateNewPassword(password)).toEqual(result);
  });
});
