/**
 * Web sessions of the dashboard: a random token in an HttpOnly, Secure, SameSite cookie; D1
 * keeps only its SHA-256, so a database leak does not leak live sessions.
 */
import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { owners, sessions } from '../db/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '../lib/crypto.ts';

export const SESSION_COOKIE = 'sl_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export async function createSession(
  db: Database,
  ownerId: number,
  now = Date.now(),
): Promise<string> {
  const token = toBase64Url(randomBytes(32));
  await db
    .insert(sessions)
    .values({
      tokenHash: await sha256Hex(token),
      ownerId,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
    })
    .run();
  return token;
}

/** The signed-in owner of a session token, or null when it is unknown or expired. */
export async function findSessionOwner(db: Database, token: string, now = Date.now()) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await db
    .select({ id: owners.id, email: owners.email })
    .from(sessions)
    .innerJoin(owners, eq(owners.id, sessions.ownerId))
    .where(and(eq(sessions.tokenHash, await sha256Hex(token)), gt(sessions.expiresAt, now)))
    .get();
  return row ?? null;
}

export async function deleteSession(db: Database, token: string): Promise<void> {
  await db
    .delete(sessions)
    .where(eq(sessions.tokenHash, await sha256Hex(token)))
    .run();
}
