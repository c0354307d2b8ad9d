/**
 * Cookieless visitor identity (docs/ARCHITECTURE.md, The counting model): a daily-rotating, salted, one-way hash of
 * (salt, website, IP, User-Agent), in the spirit of Plausible's approach
 * (https://plausible.io/data-policy#how-we-count-unique-users-without-cookies). The salt is
 * random and kept per website-local date, so "a visitor that day" means that day in the
 * website's own time zone, and yesterday's hashes cannot be linked to today's.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { salts } from '../db/schema.ts';
import { randomBytes, toHex } from '../lib/crypto.ts';

/** Salts by date, cached in the isolate: a salt never changes once written. */
const cache = new Map<string, string>();

export async function saltFor(db: Database, date: string, now: number): Promise<string> {
  const cached = cache.get(date);
  if (cached) return cached;
  // Insert-if-absent then read: concurrent isolates agree on whichever salt was first.
  await db
    .insert(salts)
    .values({ date, salt: toHex(randomBytes(32)), createdAt: now })
    .onConflictDoNothing()
    .run();
  const row = await db.select({ salt: salts.salt }).from(salts).where(eq(salts.date, date)).get();
  if (!row) throw new Error(`salt for ${date} missing after insert`);
  if (cache.size > 16) cache.clear();
  cache.set(date, row.salt);
  return row.salt;
}
