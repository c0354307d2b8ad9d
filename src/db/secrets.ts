/**
 * Server secrets kept in D1, created at random on first use, so a deployment needs no
 * secret configuration. Cached per isolate: a secret never changes once written.
 */
import { eq } from 'drizzle-orm';
import { toHex } from '../lib/crypto.ts';
import { randomOnFirstUse } from '../lib/random-on-first-use.ts';
import type { Database } from './client.ts';
import { secrets } from './schema.ts';

const kept = new Map<string, string>();

export async function serverSecret(db: Database, name: string): Promise<string> {
  return randomOnFirstUse(kept, name, async (fresh) => {
    await db.insert(secrets).values({ name, value: fresh() }).onConflictDoNothing().run();
    const row = await db.select().from(secrets).where(eq(secrets.name, name)).get();
    if (!row) throw new Error(`secret ${name} missing after insert`);
    return row.value;
  });
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

/**
 * The secret of a link an e-mail carries (confirm an address, unsubscribe): an HMAC of `parts`
 * (a purpose, a row's id and address) under the server secret `secret`, 32 hex digits.
 */
export async function linkSecret(
  db: Database,
  secret: string,
  parts: (string | number)[],
): Promise<string> {
  return (await hmacHex(await serverSecret(db, secret), parts.join('\u0000'))).slice(0, 32);
}
