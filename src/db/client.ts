/** D1 through drizzle: the one database handle every query of Sightline's takes. */
import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema.ts';
import * as sharingSchema from './sharing-schema.ts';

/** Wraps a D1 binding (the Worker's, or the CLI's platform proxy) in drizzle. */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema: { ...schema, ...sharingSchema } });
}

export type Database = ReturnType<typeof createDb>;

/**
 * Whether a write failed on a unique index over `columns` (`websites.domain`): D1's message
 * says so, on the error itself or on the one drizzle wraps it in (`cause`).
 */
export function isUniqueConflict(err: unknown, columns: string): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return `${String(err)} ${String(cause)}`.includes(`UNIQUE constraint failed: ${columns}`);
}
