/**
 * A website as an API request's key may reach it (docs/ARCHITECTURE.md, "Members"): the one
 * rule of every route about one website, for the routes of every feature.
 */
import type { Context } from 'hono';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { type Role, websiteFor } from './queries.ts';

/**
 * Website `{id}` when the key's person may do there what needs `need`, with their role and
 * the database: no role is the 404 of a missing website, a role too low a 403.
 */
export async function websiteOf(c: Context<AppEnv>, id: number, need: Role) {
  const db = createDb(c.env.DB);
  return { db, ...(await websiteFor(db, c.get('ownerId'), id, need)) };
}
