/**
 * API keys: 256 random bits, shown once, stored only as SHA-256 (docs/ARCHITECTURE.md, The HTTP contract). A key is
 * looked up by its hash through a unique index, so checking one is a single-row read.
 */
import { eq, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '../lib/crypto.ts';

/** Recognisable prefix, so leaked keys are easy to spot in logs and secret scanners. */
const PREFIX = 'sl_';
const KEY_PATTERN = /^sl_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return PREFIX + toBase64Url(randomBytes(32));
}

/** The owner id a key belongs to, or null when the key is unknown or malformed. */
export async function findOwnerIdByApiKey(db: Database, key: string): Promise<number | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const row = await db
    .select({ ownerId: apiKeys.ownerId })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, await sha256Hex(key)))
    .get();
  return row?.ownerId ?? null;
}

/**
 * The statement that gives an owner a new key, replacing the old one in the same write
 * (upsert on the owner), so the old key stops working at once.
 */
export function apiKeyUpsert(db: Database, ownerId: number | SQL, keyHash: string, now: number) {
  return db
    .insert(apiKeys)
    .values({ ownerId, keyHash, createdAt: now })
    .onConflictDoUpdate({ target: apiKeys.ownerId, set: { keyHash, createdAt: now } });
}

/** Rotates an owner's key and returns the new one (the only time it is ever visible). */
export async function rotateApiKey(
  db: Database,
  ownerId: number,
  now = Date.now(),
): Promise<string> {
  const key = generateApiKey();
  await apiKeyUpsert(db, ownerId, await sha256Hex(key), now).run();
  return key;
}
