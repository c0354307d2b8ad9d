/**
 * What a member made (docs/ARCHITECTURE.md, "Members"): shared links and invitations are an
 * admin's to make, and each row names its maker (`created_by`). When a person's admin rights
 * on a website end — removed, leaving, or made a viewer — what they made there is revoked
 * (links and pending invitations deleted) or handed over to another person, by statements
 * that go in the same batch as the change itself. And whatever the path, a link or an
 * invitation works only while its maker may still make it (`makerMayAct`).
 */
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { alias, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.ts';
import { members, websites } from '../db/schema.ts';
import { sharedLinks } from '../db/sharing-schema.ts';
import { intChoice } from '../lib/fields.ts';
import type { Check } from '../lib/json-schema.ts';

/**
 * Revoke what the member made (null), or hand it over to this person — to the website's
 * owner when it is the member themselves.
 */
export type HandOver = number | null;

const holder = alias(members, 'holder');

/**
 * The statements that revoke (or hand to `handTo`) the shared links and pending invitations
 * made on website `websiteId` by the person of its member row `memberId`; they find the
 * person in the batch itself, so an invitation row (no person yet) makes them change nothing.
 */
export function madeByMember(db: Database, websiteId: number, memberId: number, handTo: HandOver) {
  const person = db
    .select({ id: holder.ownerId })
    .from(holder)
    .where(and(eq(holder.id, memberId), eq(holder.websiteId, websiteId)));
  const links = and(eq(sharedLinks.websiteId, websiteId), inArray(sharedLinks.createdBy, person));
  const invitations = and(
    eq(members.websiteId, websiteId),
    isNull(members.ownerId),
    inArray(members.createdBy, person),
  );
  if (handTo === null)
    return [db.delete(sharedLinks).where(links), db.delete(members).where(invitations)] as const;
  // Members who act on themselves (leaving, giving up admin) hand over to the owner.
  const to = (maker: SQLiteColumn) =>
    sql`CASE WHEN ${maker} = ${handTo} THEN (SELECT ${websites.ownerId} FROM ${websites} WHERE ${websites.id} = ${websiteId}) ELSE ${handTo} END`;
  return [
    db
      .update(sharedLinks)
      .set({ createdBy: to(sharedLinks.createdBy) })
      .where(links),
    db
      .update(members)
      .set({ createdBy: to(members.createdBy) })
      .where(invitations),
  ] as const;
}

/**
 * The condition that a row made by `createdBy` on website `websiteId` still works: its maker
 * is the website's owner or one of its admins — or unknown (made before makers were
 * recorded), which counts as the owner's.
 */
export const makerMayAct = (createdBy: SQLiteColumn, websiteId: SQLiteColumn): SQL =>
  sql`(${createdBy} IS NULL
    OR ${createdBy} = (SELECT ${websites.ownerId} FROM ${websites} WHERE ${websites.id} = ${websiteId})
    OR EXISTS (SELECT 1 FROM ${members} AS "maker" WHERE "maker"."website_id" = ${websiteId}
      AND "maker"."owner_id" = ${createdBy} AND "maker"."role" = 'admin'))`;

/** `hand_over`: 1 hands what the member made over, 0 (the default) revokes it. */
export const handOverField = intChoice(
  'hand_over',
  [0, 1],
  "1: the shared links and pending invitations the member made are handed over to the person removing them or making them a viewer (to the website's owner when members do it to themselves); 0 (default): they are revoked.",
);

/** A `hand_over` field as given (absent: 0), or its message. */
export function readHandOver(raw: unknown): Check<boolean> {
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: false };
  const parsed = handOverField.check(raw);
  return parsed.ok ? { ok: true, value: parsed.value === 1 } : parsed;
}
