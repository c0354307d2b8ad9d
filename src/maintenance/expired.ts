/**
 * Purging rows that nothing reads any more, in bounded chunks: throttle counters whose window
 * is over (anyone can add them, two or three per log-in attempt with a new e-mail), expired
 * sessions, report claims older than any period a report can still be owed for, and
 * invitations to a website that expired more than 30 days ago (shown as expired until then). Each
 * delete statement takes at most `chunk` rows, found through an index, and each table gets
 * at most `chunks` statements per run; the hourly cron continues where a run stopped.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { metered, QueryBudget, QueryBudgetExhausted } from '../db/query-budget.ts';
import { members, reportSends, sessions, throttles } from '../db/schema.ts';

/**
 * A report claim older than this can never be the claim of a report still owed: the last
 * complete period (a week or a calendar month) has moved on at least once since it was made.
 */
const REPORT_CLAIM_TTL_MS = 62 * 24 * 60 * 60 * 1000;
/** How long an expired invitation stays listed (as expired) before it is purged. */
const EXPIRED_INVITATION_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

export type ChunkLimits = {
  /** Rows per delete statement. */
  chunk?: number;
  /** Delete statements per table and run. */
  chunks?: number;
};

export type ExpiredResult = {
  throttlesDeleted: number;
  sessionsDeleted: number;
  reportClaimsDeleted: number;
  invitationsDeleted: number;
};

/**
 * Runs `statement(limit)` until it deletes fewer than `chunk` rows, at most `chunks` times,
 * or until the query budget is spent (then `spent` is true).
 */
async function deleteInChunks(
  db: Database,
  statement: (limit: number) => SQL,
  { chunk, chunks }: Required<ChunkLimits>,
): Promise<{ deleted: number; spent: boolean }> {
  let deleted = 0;
  for (let i = 0; i < chunks; i++) {
    let changes: number;
    try {
      changes = (await db.run(statement(chunk))).meta.changes ?? 0;
    } catch (err) {
      if (err instanceof QueryBudgetExhausted) return { deleted, spent: true };
      throw err;
    }
    deleted += changes;
    if (changes < chunk) break;
  }
  return { deleted, spent: false };
}

export async function purgeExpired(
  base: Database,
  now: number,
  {
    chunk = 5_000,
    chunks = 4,
    queries = new QueryBudget(4 * chunks),
  }: ChunkLimits & { queries?: QueryBudget } = {},
): Promise<ExpiredResult> {
  const db = metered(base, queries);
  const limits = { chunk, chunks };
  const result: ExpiredResult = {
    throttlesDeleted: 0,
    sessionsDeleted: 0,
    reportClaimsDeleted: 0,
    invitationsDeleted: 0,
  };
  // drizzle has no DELETE … LIMIT for SQLite: each chunk is chosen by rowid through the index.
  const steps: [keyof ExpiredResult, (limit: number) => SQL][] = [
    [
      'throttlesDeleted',
      (limit) =>
        sql`DELETE FROM ${throttles} WHERE rowid IN (SELECT rowid FROM ${throttles} WHERE ${throttles.resetAt} <= ${now} LIMIT ${limit})`,
    ],
    [
      'sessionsDeleted',
      (limit) =>
        sql`DELETE FROM ${sessions} WHERE rowid IN (SELECT rowid FROM ${sessions} WHERE ${sessions.expiresAt} <= ${now} LIMIT ${limit})`,
    ],
    [
      'reportClaimsDeleted',
      (limit) =>
        sql`DELETE FROM ${reportSends} WHERE rowid IN (SELECT rowid FROM ${reportSends} WHERE ${reportSends.claimedAt} < ${now - REPORT_CLAIM_TTL_MS} LIMIT ${limit})`,
    ],
    [
      'invitationsDeleted',
      (limit) =>
        sql`DELETE FROM ${members} WHERE rowid IN (SELECT rowid FROM ${members} WHERE ${members.expiresAt} <= ${now - EXPIRED_INVITATION_KEPT_MS} LIMIT ${limit})`,
    ],
  ];
  for (const [field, statement] of steps) {
    const { deleted, spent } = await deleteInChunks(db, statement, limits);
    result[field] = deleted;
    // Out of budget: what is left waits for the next run.
    if (spent) break;
  }
  return result;
}
