/** Owners: the people who sign in and own websites. Shared by the CLI and the Worker. */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { owners } from '../db/schema.ts';
import { sha256Hex } from '../lib/crypto.ts';
import type { FieldErrors } from '../lib/errors.ts';
import { hasControlCharacter } from '../lib/text/text.ts';
import { apiKeyUpsert, generateApiKey } from './api-keys.ts';
import { hashPassword } from './password.ts';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/**
 * An e-mail address in the one form Sightline keeps and compares, so that one inbox is one
 * address for every check and limit (owners, members, alerts, reports): trimmed, in lower
 * case, its domain without the trailing dots of a fully qualified name and in its ASCII
 * (IDNA) form — `Victim@Example.org.` and `victim@example.org` are one, as are
 * `a@bücher.example` and `a@xn--bcher-kva.example`.
 */
export function normalizeEmail(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  const domain = lower.slice(at + 1).replace(/\.+$/, '');
  return `${lower.slice(0, at)}@${asciiDomain(domain)}`;
}

/** A domain's ASCII form (`xn--…` labels for others), or the domain as it is when it is none. */
function asciiDomain(domain: string): string {
  if (/^[\x21-\x7e]*$/.test(domain)) return domain;
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return domain;
  }
}

/** What is wrong with an e-mail address (undefined when it is a valid one). */
export function validateEmail(email: string): string[] | undefined {
  const normalized = normalizeEmail(email);
  if (normalized === '') return ['The email field is required.'];
  if (normalized.length > 254 || !EMAIL.test(normalized) || hasControlCharacter(normalized))
    return ['The email field must be a valid email address.'];
  return undefined;
}

/** Validates sign-up input; returns field errors (empty when valid). */
export function validateOwnerInput(email: string, password: string): FieldErrors {
  const errors: FieldErrors = {};
  const emailErrors = validateEmail(email);
  if (emailErrors) errors.email = emailErrors;
  const passwordErrors = validateNewPassword(password);
  if (passwordErrors) errors.password = passwordErrors;
  return errors;
}

export function validateNewPassword(password: string): string[] | undefined {
  // Counted in characters (code points), not UTF-16 units.
  const length = [...password].length;
  if (length < PASSWORD_MIN)
    return [`The password field must be at least ${PASSWORD_MIN} characters.`];
  if (length > PASSWORD_MAX)
    return [`The password field must not be greater than ${PASSWORD_MAX} characters.`];
  return undefined;
}

export async function findOwnerByEmail(db: Database, email: string) {
  return db
    .select()
    .from(owners)
    .where(eq(owners.email, normalizeEmail(email)))
    .get();
}

export class EmailTakenError extends Error {
  constructor() {
    super('An owner with this email already exists.');
  }
}

/**
 * The statement that inserts an owner only when `condition` holds as it runs (returning the
 * id, or nothing): the condition is part of the insert, so no concurrent request can slip in
 * between a check and the write.
 */
export function ownerInsertWhen(
  db: Database,
  owner: { email: string; passwordHash: string; now: number },
  condition: SQL,
) {
  return db
    .insert(owners)
    .select(
      db
        .select({
          id: sql<number>`NULL`.as('id'),
          email: sql<string>`${owner.email}`.as('email'),
          passwordHash: sql<string>`${owner.passwordHash}`.as('password_hash'),
          createdAt: sql<number>`${owner.now}`.as('created_at'),
          updatedAt: sql<number>`${owner.now}`.as('updated_at'),
        })
        .from(sql`(SELECT 1)`)
        .where(condition),
    )
    .returning({ id: owners.id });
}

/**
 * What an owner is created with: a password, or its hash made already (`hashPassword`:
 * test fixtures make one hash for all their owners instead of one PBKDF2 run each).
 */
type OwnerInput = { email: string } & ({ password: string } | { passwordHash: string });

/**
 * Creates an owner and their first API key in one batch (both rows or neither) and returns
 * the key, which is never retrievable again. Input must have passed `validateOwnerInput`.
 */
export async function createOwner(
  db: Database,
  input: OwnerInput,
  now?: number,
): Promise<{ id: number; email: string; apiKey: string }>;
/** With `onlyFirst`, creates the owner only when there is none yet; null otherwise. */
export async function createOwner(
  db: Database,
  input: OwnerInput,
  now: number,
  options: { onlyFirst: boolean },
): Promise<{ id: number; email: string; apiKey: string } | null>;
export async function createOwner(
  db: Database,
  input: OwnerInput,
  now = Date.now(),
  options: { onlyFirst?: boolean } = {},
): Promise<{ id: number; email: string; apiKey: string } | null> {
  const email = normalizeEmail(input.email);
  if (await findOwnerByEmail(db, email)) throw new EmailTakenError();
  const apiKey = generateApiKey();
  const ownerId = sql`(SELECT ${owners.id} FROM ${owners} WHERE ${owners.email} = ${email})`;
  const passwordHash =
    'passwordHash' in input ? input.passwordHash : await hashPassword(input.password);
  // The condition is part of the insert, so concurrent sign-ups cannot both be "the first".
  const insert = options.onlyFirst
    ? ownerInsertWhen(db, { email, passwordHash, now }, sql`NOT EXISTS (SELECT 1 FROM ${owners})`)
    : db
        .insert(owners)
        .values({ email, passwordHash, createdAt: now, updatedAt: now })
        .returning({ id: owners.id });
  try {
    const [inserted] = await db.batch([
      insert,
      apiKeyUpsert(db, ownerId, await sha256Hex(apiKey), now),
    ]);
    const id = inserted[0]?.id;
    if (id === undefined) throw new Error('owner insert returned no row');
    return { id, email, apiKey };
  } catch (err) {
    const text = String(err);
    if (text.includes('UNIQUE constraint failed: owners.email')) throw new EmailTakenError();
    // No owner row was inserted (another one exists): the key insert found no owner id.
    if (options.onlyFirst && text.includes('NOT NULL constraint failed: api_keys.owner_id'))
      return null;
    throw err;
  }
}

/** A person by their id, as a maker of what they add (a shared link, an invitation) is named. */
export async function personOf(db: Database, id: number): Promise<{ id: number; email: string }> {
  const row = await db.select({ email: owners.email }).from(owners).where(eq(owners.id, id)).get();
  return { id, email: row?.email ?? 'Someone' };
}
