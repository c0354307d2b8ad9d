/**
 * Sending the periodic reports from the cron: for every website with `email = 1`, the
 * report of its last complete period, never twice.
 *
 * Which websites: only those that still owe their period's report (no `report_sends` row
 * for it). A website's period depends on its time zone, so the time zones in use are
 * grouped by the period they are in at this instant (at most two or three groups), and
 * each group is one query per page of websites. Every statement counts against the run's
 * query budget (see src/db/query-budget.ts); a report is begun only when the budget has
 * room for all of it, and the next run continues.
 *
 * Each report: its numbers are read, then it is claimed, sent and marked sent through
 * `sendOnce` (./once.ts), which sends it at most once. A failure of one website (reading its
 * numbers, its claim, its send) is that website's failure only; the others go on.
 */
import { and, asc, eq, gt, notExists, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { metered, QueryBudget } from '../db/query-budget.ts';
import { owners, reportSends, type WebsiteRow, websites } from '../db/schema.ts';
import { hmacHex, serverSecret } from '../db/secrets.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { logError } from '../lib/log.ts';
import type { Mailer } from '../lib/mail.ts';
import { mimeMessage } from '../lib/text/mime.ts';
import {
  type GoalRows,
  htmlOf,
  type ReportData,
  reportData,
  subjectOf,
  textOf,
} from './content.ts';
import { ONCE_QUERIES, type Outcome, sendOnce } from './once.ts';
import { type Interval, lastCompletePeriod, type Period } from './period.ts';

export type ReportConfig = { from: string; publicUrl: string; interval: Interval };

/**
 * The most statements one report may cost: its numbers (at most 12: the unsubscribe secret,
 * the figures of the period and of the one before, three top lists, the annotations), and its
 * claim with marking it or releasing it (`ONCE_QUERIES`). test/integration/mail/reports-cron.test.ts
 * measures it.
 */
export const REPORT_QUERIES = 12 + ONCE_QUERIES;
/** Websites read per query. */
const PAGE = 50;

export async function unsubscribeToken(db: Database, websiteId: number): Promise<string> {
  return (
    await hmacHex(await serverSecret(db, 'unsubscribe'), `unsubscribe\u0000${websiteId}`)
  ).slice(0, 32);
}

export function buildMessage(report: ReportData, to: string, config: ReportConfig): string {
  return mimeMessage({
    from: { name: 'Sightline', address: config.from },
    to,
    subject: subjectOf(report),
    headers: {
      // RFC 8058 one-click unsubscribe: mail clients POST to this URL.
      'List-Unsubscribe': `<${report.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
    parts: [
      { type: 'text/plain', text: textOf(report) },
      { type: 'text/html', text: htmlOf(report) },
    ],
  });
}

export type ReportRun = {
  sent: number;
  failed: number;
  /** Claimed by another run first. */
  skipped: number;
};

/** A website with its owner's address, as a report needs it. */
type Site = Pick<WebsiteRow, 'id' | 'domain' | 'timezone'> & { email: string };

/** The time zones of websites with reports on, grouped by the period they are in now. */
async function periodGroups(db: Database, now: number, interval: Interval) {
  const zones = await db
    .selectDistinct({ timezone: websites.timezone })
    .from(websites)
    .where(eq(websites.email, 1))
    .all();
  const groups = new Map<string, { period: Period; zones: string[] }>();
  for (const { timezone } of zones) {
    const period = lastCompletePeriod(now, timezone, interval);
    const group = groups.get(period.key) ?? { period, zones: [] };
    group.zones.push(timezone);
    groups.set(period.key, group);
  }
  return [...groups.values()];
}

/** The next websites after `cursor`, in `zones`, that have no claim for `period` yet. */
function owing(db: Database, period: Period, zones: string[], cursor: number): Promise<Site[]> {
  return db
    .select({
      id: websites.id,
      domain: websites.domain,
      timezone: websites.timezone,
      email: owners.email,
    })
    .from(websites)
    .innerJoin(owners, eq(owners.id, websites.ownerId))
    .where(
      and(
        eq(websites.email, 1),
        gt(websites.id, cursor),
        // One bound JSON array, whatever the number of zones (D1 binds at most 100 values).
        sql`${websites.timezone} IN (SELECT value FROM json_each(${JSON.stringify(zones)}))`,
        notExists(
          db
            .select({ one: sql`1` })
            .from(reportSends)
            .where(and(eq(reportSends.websiteId, websites.id), eq(reportSends.period, period.key))),
        ),
      ),
    )
    .orderBy(asc(websites.id))
    .limit(PAGE)
    .all();
}

/** Reads, claims, sends and marks one website's report. */
async function sendOne(
  db: Database,
  mailer: Mailer,
  config: ReportConfig,
  site: Site,
  period: Period,
  now: number,
  hooks: ReportHooks,
): Promise<Outcome> {
  const key = { websiteId: site.id, period: period.key };
  let raw: string;
  try {
    // Read-your-writes: the log's last hits are in the numbers (a failure: retried next run).
    await hooks.beforeReading?.(site.id);
    const token = await unsubscribeToken(db, site.id);
    const report = await reportData(
      db,
      site,
      period,
      {
        statsUrl: `${config.publicUrl}/stats/${site.domain}?range=custom&from=${period.from}&to=${period.to}`,
        unsubscribeUrl: `${config.publicUrl}/reports/unsubscribe/${site.id}/${token}`,
        unsubscribePage: `${config.publicUrl}/reports/unsubscribe#${site.id}.${token}`,
      },
      (await hooks.goalsOf?.(site.id, period)) ?? [],
    );
    raw = buildMessage(report, site.email, config);
  } catch (err) {
    // Nothing was claimed: the next run tries again.
    logError('report not sent', key, err);
    return 'failed';
  }
  const claim = async () =>
    (await db
      .insert(reportSends)
      .values({ ...key, claimedAt: now })
      .onConflictDoNothing()
      .returning({ websiteId: reportSends.websiteId })
      .get()) !== undefined;
  return sendOnce(db, mailer, { from: config.from, to: site.email, raw }, key, claim, 'report');
}

/** What reading a website's numbers needs besides D1's roll-ups (its event log). */
type ReportHooks = {
  /** Called before a website's numbers are read (its event log's flush). */
  beforeReading?: (websiteId: number) => Promise<void>;
  /** The website's top goals over the period, from its event log (none: no section). */
  goalsOf?: (websiteId: number, period: Period) => Promise<GoalRows>;
};

export async function sendReports(
  base: Database,
  mailer: Mailer,
  config: ReportConfig,
  now = Date.now(),
  {
    batch = 200,
    queries = new QueryBudget(400),
    ...hooks
  }: { batch?: number; queries?: QueryBudget } & ReportHooks = {},
): Promise<ReportRun> {
  const db = metered(base, queries);
  const run: ReportRun = { sent: 0, failed: 0, skipped: 0 };
  let handled = 0;
  const room = () => handled < batch && queries.left >= REPORT_QUERIES;
  if (queries.left < 2 + REPORT_QUERIES) return run;
  for (const { period, zones } of await periodGroups(db, now, config.interval)) {
    let cursor = 0;
    while (room() && queries.left >= 1 + REPORT_QUERIES) {
      const page = await owing(db, period, zones, cursor);
      for (const site of page) {
        if (!room()) return run;
        cursor = site.id;
        handled++;
        run[await sendOne(db, mailer, config, site, period, now, hooks)]++;
      }
      if (page.length < PAGE) break;
    }
    if (!room()) break;
  }
  return run;
}

/** Turns reports off for a website when the token matches; true when it did. */
export async function unsubscribe(
  db: Database,
  websiteId: number,
  token: string,
): Promise<boolean> {
  const expected = await unsubscribeToken(db, websiteId);
  if (!timingSafeEqual(token, expected)) return false;
  // Only `email` changes, which no hit reads: the hit endpoints' cache need not forget.
  const updated = await db
    .update(websites)
    .set({ email: 0 })
    .where(eq(websites.id, websiteId))
    .returning({ id: websites.id })
    .get();
  return updated !== undefined;
}
