/**
 * A website's members (docs/ARCHITECTURE.md, "Members"): people besides its owner, each with
 * a role — `viewer` reads everything of the website, `admin` also changes it below its owner.
 * Someone becomes a member through an invitation: an e-mail with a link valid for 72 hours
 * and usable once, whose token (256 random bits) is kept only as its SHA-256. An invitation
 * and the membership it becomes are one row (`members`), so both have one id.
 *
 * An invitation is written the same way whether or not its address has a login here, and
 * answers the same: who is registered cannot be learnt by inviting. The address is bound at
 * acceptance: only the login of that address (or a new one made for it) can take it.
 */
import { and, asc, count, eq, gt, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { apiKeyUpsert, generateApiKey } from '../accounts/api-keys.ts';
import {
  normalizeEmail,
  ownerInsertWhen,
  validateEmail,
  validateNewPassword,
} from '../accounts/owners.ts';
import { hashPassword } from '../accounts/password.ts';
import { type Database, isUniqueConflict } from '../db/client.ts';
import { type MemberRow, members, owners, type WebsiteRow, websites } from '../db/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '../lib/crypto.ts';
import { ApiError, type FieldErrors, validationFailed } from '../lib/errors.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import { MEMBER_ROLES, type MemberRole } from '../websites/queries.ts';
import { type HandOver, madeByMember, makerMayAct, readHandOver } from './made.ts';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
/** At most this many members and open invitations a website. */
const MAX_MEMBERS = 100;

/** A member or an invitation as the API shows it. */
export type MemberRecord = {
  id: number;
  /** The member's address (their login's, once accepted), or the address invited. */
  email: string;
  role: MemberRole;
  /** `active`: a member; `pending`: invited; `expired`: invited, the link no longer works. */
  status: 'active' | 'pending' | 'expired';
  /** Who invited them (or was handed the invitation); null: before inviters were recorded. */
  created_by: string | null;
  created_at: string;
  expires_at: string | null;
  accepted_at: string | null;
};

type Listed = MemberRow & { personEmail: string | null; makerEmail: string | null };

function toRecord(row: Listed, now: number): MemberRecord {
  const status =
    row.ownerId !== null ? 'active' : (row.expiresAt ?? 0) > now ? 'pending' : 'expired';
  return {
    id: row.id,
    email: row.personEmail ?? row.email,
    role: row.role as MemberRole,
    status,
    created_by: row.makerEmail,
    created_at: apiTimestamp(row.createdAt),
    expires_at: row.expiresAt === null ? null : apiTimestamp(row.expiresAt),
    accepted_at: row.acceptedAt === null ? null : apiTimestamp(row.acceptedAt),
  };
}

/** A role field: `viewer` or `admin` (the owner is no member). */
function roleErrors(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null || raw === '') return ['The role field is required.'];
  return typeof raw === 'string' && (MEMBER_ROLES as readonly string[]).includes(raw)
    ? undefined
    : ['The selected role is invalid: viewer or admin.'];
}

/** The fields of an invitation: `email` and `role`, each named when wrong (a 422). */
export function checkInvitation(fields: Record<string, unknown>): {
  email: string;
  role: MemberRole;
} {
  const errors: FieldErrors = {};
  const email = typeof fields.email === 'string' ? fields.email : '';
  const emailErrors =
    fields.email !== undefined && typeof fields.email !== 'string'
      ? ['The email field must be a string.']
      : validateEmail(email);
  if (emailErrors) errors.email = emailErrors;
  const role = roleErrors(fields.role);
  if (role) errors.role = role;
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { email: normalizeEmail(email), role: fields.role as MemberRole };
}

/**
 * A role change's fields: `role`, and `hand_over` (what a member made a viewer made as an
 * admin: ./made.ts) — a 422 naming each that is wrong.
 */
export function checkRole(fields: Record<string, unknown>): {
  role: MemberRole;
  handOver: boolean;
} {
  const errors: FieldErrors = {};
  const role = roleErrors(fields.role);
  if (role) errors.role = role;
  const handOver = readHandOver(fields.hand_over);
  if (!handOver.ok) errors.hand_over = [handOver.message];
  if (Object.keys(errors).length > 0 || !handOver.ok) throw validationFailed(errors);
  return { role: fields.role as MemberRole, handOver: handOver.value };
}

const inviter = alias(owners, 'inviter');
const listed = (db: Database) =>
  db
    .select({ member: members, personEmail: owners.email, makerEmail: inviter.email })
    .from(members)
    .leftJoin(owners, eq(owners.id, members.ownerId))
    .leftJoin(inviter, eq(inviter.id, members.createdBy));

type Joined = { member: MemberRow; personEmail: string | null; makerEmail: string | null };
const flat = ({ member, personEmail, makerEmail }: Joined): Listed => ({
  ...member,
  personEmail,
  makerEmail,
});

/**
 * `inviter` invites `email` to a website with `role`: a new invitation, or a pending one to
 * the same address renewed (new token, role, inviter and 72 hours; the old link stops
 * working). Returns the invitation and its token, which only the e-mail carries. An address
 * that is a member already is a 409.
 */
export async function inviteMember(
  db: Database,
  websiteId: number,
  input: { email: string; role: MemberRole },
  inviter: { id: number; email: string },
  now = Date.now(),
): Promise<{ record: MemberRecord; token: string }> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(members)
    .where(eq(members.websiteId, websiteId))
    .all();
  if (n >= MAX_MEMBERS)
    throw validationFailed({
      email: [`A website has at most ${MAX_MEMBERS} members and invitations.`],
    });
  const token = toBase64Url(randomBytes(32));
  const invitation = {
    role: input.role,
    tokenHash: await sha256Hex(token),
    expiresAt: now + INVITATION_TTL_MS,
    createdBy: inviter.id,
    createdAt: now,
  };
  const row = await db
    .insert(members)
    .values({ websiteId, email: input.email, ...invitation })
    .onConflictDoUpdate({
      target: [members.websiteId, members.email],
      set: invitation,
      setWhere: isNull(members.ownerId),
    })
    .returning()
    .get();
  if (!row) throw new ApiError(409, 'This address is a member of the website already.');
  return { record: toRecord({ ...row, personEmail: null, makerEmail: inviter.email }, now), token };
}

/** A website's members and invitations, oldest first; `onlyPerson`: that person's row alone. */
export async function listMembers(
  db: Database,
  websiteId: number,
  now = Date.now(),
  onlyPerson?: number,
): Promise<MemberRecord[]> {
  const rows = await listed(db)
    .where(
      and(
        eq(members.websiteId, websiteId),
        onlyPerson === undefined ? undefined : eq(members.ownerId, onlyPerson),
      ),
    )
    .orderBy(asc(members.id))
    .all();
  return rows.map((row) => toRecord(flat(row), now));
}

/** A website's member or invitation `memberId`, or undefined. */
export async function findMember(
  db: Database,
  websiteId: number,
  memberId: number,
): Promise<MemberRow | undefined> {
  return db
    .select()
    .from(members)
    .where(and(eq(members.id, memberId), eq(members.websiteId, websiteId)))
    .get();
}

/**
 * Gives a member (or an invitation) another role; undefined when the website has no such
 * row. A member made a viewer loses what only an admin makes — their shared links and
 * pending invitations are revoked, or handed to `handTo` — in the same batch.
 */
export async function changeMemberRole(
  db: Database,
  websiteId: number,
  memberId: number,
  role: MemberRole,
  handTo: HandOver = null,
  now = Date.now(),
): Promise<MemberRecord | undefined> {
  const update = db
    .update(members)
    .set({ role })
    .where(and(eq(members.id, memberId), eq(members.websiteId, websiteId)))
    .returning({ id: members.id });
  let updated: { id: number } | undefined;
  if (role === 'viewer') {
    const [links, invitations] = madeByMember(db, websiteId, memberId, handTo);
    [updated] = (await db.batch([links, invitations, update]))[2];
  } else [updated] = await update.all();
  if (!updated) return undefined;
  const row = await listed(db).where(eq(members.id, updated.id)).get();
  return row ? toRecord(flat(row), now) : undefined;
}

/**
 * Removes a member or cancels an invitation: from the next request on, the person's
 * sessions and key reach the website no more (every request reads the row), and the shared
 * links and pending invitations they made are revoked — or handed to `handTo` — in the same
 * batch. False when the website has no such row.
 */
export async function removeMember(
  db: Database,
  websiteId: number,
  memberId: number,
  handTo: HandOver = null,
): Promise<boolean> {
  const [links, invitations] = madeByMember(db, websiteId, memberId, handTo);
  const [, , removed] = await db.batch([
    links,
    invitations,
    db
      .delete(members)
      .where(and(eq(members.id, memberId), eq(members.websiteId, websiteId)))
      .returning({ id: members.id }),
  ]);
  return removed.length > 0;
}

/** `personId` leaves the website, as `removeMember`; false when they were no member of it. */
export async function leaveWebsite(
  db: Database,
  websiteId: number,
  personId: number,
  handTo: HandOver = null,
): Promise<boolean> {
  const row = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.websiteId, websiteId), eq(members.ownerId, personId)))
    .get();
  return row !== undefined && removeMember(db, websiteId, row.id, handTo);
}

/** An open invitation: its row, its website, and whether its address has a login here. */
export type Invitation = { member: MemberRow; site: WebsiteRow; loginId: number | null };

/** The invitation a token opens while it is open; undefined once used, cancelled or expired. */
export async function invitationOf(
  db: Database,
  token: string,
  now = Date.now(),
): Promise<Invitation | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await db
    .select({ member: members, site: websites, loginId: owners.id })
    .from(members)
    .innerJoin(websites, eq(websites.id, members.websiteId))
    .leftJoin(owners, eq(owners.email, members.email))
    .where(open(await sha256Hex(token), now))
    .get();
  return row ?? undefined;
}

/** What accepting an invitation came to. */
export type Accepted = 'accepted' | 'member already' | 'owner' | 'gone';

/**
 * The condition that the invitation of `tokenHash` is still open: unused, unexpired, and its
 * inviter still the website's owner or one of its admins (`makerMayAct`).
 */
const open = (tokenHash: string, now: number) =>
  and(
    eq(members.tokenHash, tokenHash),
    isNull(members.ownerId),
    gt(members.expiresAt, now),
    makerMayAct(members.createdBy, members.websiteId),
  );

/**
 * Makes `personId` (the login of the invited address) a member: once only — the row is
 * taken by one statement that requires it still open. A person who owns the website, or is
 * a member already, uses the invitation up without change.
 */
export async function acceptInvitation(
  db: Database,
  invitation: Invitation,
  token: string,
  personId: number,
  now = Date.now(),
): Promise<Accepted> {
  const tokenHash = await sha256Hex(token);
  const consume = () => db.delete(members).where(open(tokenHash, now)).run();
  if (invitation.site.ownerId === personId) {
    await consume();
    return 'owner';
  }
  try {
    const taken = await db
      .update(members)
      .set({ ownerId: personId, tokenHash: null, expiresAt: null, acceptedAt: now })
      .where(open(tokenHash, now))
      .returning({ id: members.id })
      .get();
    return taken ? 'accepted' : 'gone';
  } catch (err) {
    if (!isUniqueConflict(err, 'members.website_id, members.owner_id')) throw err;
    await consume();
    return 'member already';
  }
}

/**
 * For an invited address without a login: makes its login (with `password`, whatever
 * `REGISTRATION` says) and the membership in one batch, which does nothing unless the
 * invitation is still open. Returns the new person's id; what is wrong with the password;
 * 'gone' when the invitation was used meanwhile, 'taken' when the address got a login
 * meanwhile (then accept as that login).
 */
export async function acceptWithNewLogin(
  db: Database,
  invitation: Invitation,
  token: string,
  password: string,
  now = Date.now(),
): Promise<number | { passwordErrors: string[] } | 'gone' | 'taken'> {
  const passwordErrors = validateNewPassword(password);
  if (passwordErrors) return { passwordErrors };
  const passwordHash = await hashPassword(password);
  const tokenHash = await sha256Hex(token);
  const email = invitation.member.email;
  const personId = sql`(SELECT ${owners.id} FROM ${owners} WHERE ${owners.email} = ${email})`;
  const stillOpen = db
    .select({ one: sql`1` })
    .from(members)
    .where(and(open(tokenHash, now), eq(members.email, email)));
  try {
    const [inserted] = await db.batch([
      ownerInsertWhen(db, { email, passwordHash, now }, sql`EXISTS ${stillOpen}`),
      // No login was made (the invitation was used): no owner id, the batch fails whole.
      apiKeyUpsert(db, personId, await sha256Hex(generateApiKey()), now),
      db
        .update(members)
        .set({ ownerId: personId, tokenHash: null, expiresAt: null, acceptedAt: now })
        .where(open(tokenHash, now)),
    ]);
    const id = inserted[0]?.id;
    if (id === undefined) return 'gone';
    return id;
  } catch (err) {
    if (isUniqueConflict(err, 'owners.email')) return 'taken';
    if (`${String(err)} ${String((err as Error).cause)}`.includes('NOT NULL constraint failed'))
      return 'gone';
    throw err;
  }
}
