/**
 * Forgetting visitors: visitor hashes older than 48 hours are deleted, and so are salts older
 * than 72 hours. A salt belongs to one website-local date, and a local date lasts at most ~50
 * hours of real time across all time zones (UTC+14 to UTC−12), so a salt is never deleted
 * while its date is still current somewhere; once it is gone, nothing can link a hash to the
 * IP and User-Agent that made it.
 */
import { lt } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { salts, visitors } from '../db/schema.ts';
import { metered, type QueryBudget } from './budget.ts';

const VISITOR_TTL_MS = 48 * 60 * 60 * 1000;
const SALT_TTL_MS = 72 * 60 * 60 * 1000;

export async function forgetOldVisitors(
  base: Database,
  now: number,
  { queries }: { queries?: QueryBudget } = {},
) {
  const db = queries ? metered(base, queries) : base;
  const [v, s] = await db.batch([
    db.delete(visitors).where(lt(visitors.lastSeenAt, now - VISITOR_TTL_MS)),
    db.delete(salts).where(lt(salts.createdAt, now - SALT_TTL_MS)),
  ]);
  return { visitorsDeleted: v.meta.changes ?? 0, saltsDeleted: s.meta.changes ?? 0 };
}
