/**
 * Server secrets kept in D1, created at random on first use, so a deployment needs no
 * secret configuration. Cached per isolate: a secret never changes once written.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { secrets } from '../db/schema.ts';
import { randomBytes, toHex } from './crypto.ts';

const cache = new Map<string, string>();

export async function serverSecret(db: Database, name: string): Promise<string> {
  const cached = cache.get(name);
  if (cached) return cached;
  await db
    .insert(secrets)
    .values({ name, value: toHex(randomBytes(32)) })
    .onConflictDoNothing()
    .run();
  const row = await db.select().from(secrets).where(eq(secrets.name, name)).get();
  if (!row) throw new Error(`secret ${name} missing after insert`);
  cache.set(name, row.value);
  return row.value;
}

/** HMAC-SHA-256 of `message` under `key`, hex. */
export async function hmacHex(key: string, message: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(message));
  return toHex(new Uint8Array(mac));
}
