import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema.ts';

/** Wraps a D1 binding (the Worker's, or the CLI's platform proxy) in drizzle. */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof createDb>;
