/**
 * Password hashing with PBKDF2-HMAC-SHA-256 from WebCrypto and a random per-password salt.
 * Workers cap PBKDF2 at 100,000 iterations, so that is the cost used; the stored string
 * names algorithm and cost so that a later change can verify old hashes and rehash them.
 *
 * Stored format: `pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>`.
 */
import { fromBase64Url, randomBytes, timingSafeEqual, toBase64Url } from '../lib/crypto.ts';

const ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(password),
    'PBKDF2',
    false,
    ['deriveBits'],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    HASH_BITS,
  );
  return toBase64Url(new Uint8Array(bits));
}

/** Hashes a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return `pbkdf2-sha256$${ITERATIONS}$${toBase64Url(salt)}$${await derive(password, salt, ITERATIONS)}`;
}

/** Checks a password against a stored hash; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const [scheme, iterations, salt, hash] = parts;
  if (parts.length !== 4 || scheme !== 'pbkdf2-sha256' || !iterations || !salt || !hash)
    return false;
  const cost = Number(iterations);
  if (!/^\d+$/.test(iterations) || cost < 1 || cost > ITERATIONS) return false;
  try {
    return timingSafeEqual(await derive(password, fromBase64Url(salt), cost), hash);
  } catch {
    // A salt that is not base64url: the stored value is corrupt, so nothing matches it.
    return false;
  }
}
