/**
 * Sending the periodic reports from the cron: to every website's owner with `email = 1` and
 * to every confirmed recipient (./recipients.ts), the report of the last complete period of
 * its interval, never twice.
 *
 * Who: only those that still owe their period's report (./owing.ts: no claim for it in
 * `report_sends`), a few queries a page, whatever the number of time zones. Every statement
 * counts against the run's query budget (see src/db/query-budget.ts); a report is begun only
 * when the budget has room for all of it, and the next run continues.
 *
 * Each report: its numbers are read (once for a website's owner and recipients of one
 * period), then it is claimed, sent and marked sent through `sendOnce` (./once.ts), which
 * sends it at most once. A failure of one report (reading its numbers, its claim, its send)
 * is that report's failure only; the others go on.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { metered, QueryBudget } from '../db/query-budget.ts';
import { reportSends, websites } from '../db/schema.ts';
import { linkSecret } from '../db/secrets.ts';
import type { Env } from '../env.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { logError } from '../lib/log.ts';
import type { Mailer } from '../lib/mail.ts';
import { mimeMessage } from '../lib/text/mime.ts';
import { topGoals } from '../query/present/overview.ts';
import { flushBeforeReading } from '../website-log/worker/partitions.ts';
import {
  type GoalRows,
  htmlOf,
  type ReportData,
  reportData,
  subjectOf,
  textOf,
} from './content.ts';
import { ONCE_QUERIES, type Outcome, sendOnce } from './once.ts';
import { claimKey, type Owed, owed, PAGE, periodGroups, START } from './owing.ts';
import type { Interval, Period } from './period.ts';
import { recipientToken } from './recipients.ts';

export type ReportConfig = { from: string; publicUrl: string; interval: Interval };

/**
 * The most statements one report may cost: its numbers (at most 12: the unsubscribe secret,
 * the figures of the period and of the one before, three top lists, the annotations), and its
 * claim with marking it or releasing it (`ONCE_QUERIES`). test/integration/mail/reports-cron.test.ts
 * measures it.
 */
export const REPORT_QUERIES = 12 + ONCE_QUERIES;

/** The secret of the owner's unsubscribe link of a website's reports. */
export function unsubscribeToken(db: Database, websiteId: number): Promise<string> {
  return linkSecret(db, 'unsubscribe', ['unsubscribe', websiteId]);
}

export function buildMessage(report: ReportData, to: string, config: { from: string }): string {
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

/** What reading a website's numbers needs besides D1's roll-ups (its event log). */
export type ReportHooks = {
  /** Called before a website's numbers are read (its event log's flush). */
  beforeReading?: (websiteId: number) => Promise<void>;
  /** The website's top goals over the period, from its event log (none: no section). */
  goalsOf?: (websiteId: number, period: Period) => Promise<GoalRows>;
};

/** The hooks of a deployed Worker: the website's log flushed first, its goals from the log. */
export const reportHooks = (env: Env, db: Database): ReportHooks => ({
  beforeReading: (websiteId) => flushBeforeReading(env, websiteId),
  goalsOf: (websiteId, period) => topGoals(env, db, websiteId, period),
});

/** The numbers of a website's report of `period`, with the link to its statistics page. */
export async function numbersOf(
  db: Database,
  site: { id: number; domain: string },
  period: Period,
  publicUrl: string,
  hooks: ReportHooks,
): Promise<ReportData> {
  // Read-your-writes: the log's last hits are in the numbers (a failure: retried next run).
  await hooks.beforeReading?.(site.id);
  const statsUrl = `${publicUrl}/stats/${site.domain}?range=custom&from=${period.from}&to=${period.to}`;
  const goals = (await hooks.goalsOf?.(site.id, period)) ?? [];
  return reportData(db, site, period, { statsUrl, unsubscribeUrl: '' }, goals);
}

/**
 * A report's numbers for one address: its unsubscribe links (the owner's by website, `{id}`; a
 * recipient's its own, `r{id}`) and why it gets them.
 */
export async function addressedTo(
  db: Database,
  numbers: ReportData,
  publicUrl: string,
  to: Pick<Owed, 'websiteId' | 'recipientId' | 'email'> & { interval: Interval },
): Promise<ReportData> {
  const owner = to.recipientId === 0;
  const code = owner ? String(to.websiteId) : `r${to.recipientId}`;
  const token = owner
    ? await unsubscribeToken(db, to.websiteId)
    : await recipientToken(db, 'unsubscribe', { id: to.recipientId, email: to.email });
  return {
    ...numbers,
    unsubscribeUrl: `${publicUrl}/reports/unsubscribe/${code}/${token}`,
    unsubscribePage: `${publicUrl}/reports/unsubscribe#${code}.${token}`,
    ...(owner
      ? {}
      : {
          reason: `You get this because ${to.email} was added to the ${to.interval} reports of ${numbers.domain} and confirmed it.`,
        }),
  };
}

export type ReportRun = {
  sent: number;
  failed: number;
  /** Claimed by another run first. */
  skipped: number;
};

/** A run's numbers of one website and period, read once for its owner and recipients. */
type Numbers = (site: Owed, period: Period) => Promise<ReportData>;

/** Reads, claims, sends and marks one report. */
async function sendOne(
  db: Database,
  mailer: Mailer,
  config: ReportConfig,
  to: Owed,
  period: Period,
  now: number,
  numbers: Numbers,
): Promise<Outcome> {
  const key = { websiteId: to.websiteId, period: claimKey(period, to.recipientId) };
  let raw: string;
  try {
    const interval = period.interval;
    const report = await addressedTo(db, await numbers(to, period), config.publicUrl, {
      ...to,
      interval,
    });
    raw = buildMessage(report, to.email, config);
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
  return sendOnce(db, mailer, { from: config.from, to: to.email, raw }, key, claim, 'report');
}

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
  let last: { key: string; numbers: Promise<ReportData> } | undefined;
  const numbers: Numbers = (site, period) => {
    const key = `${site.websiteId}:${period.key}`;
    if (last?.key !== key)
      last = {
        key,
        numbers: numbersOf(db, { id: site.websiteId, ...site }, period, config.publicUrl, hooks),
      };
    return last.numbers;
  };
  for (const { period, zones } of await periodGroups(db, now, config.interval)) {
    let cursor = START;
    while (room() && queries.left >= 1 + REPORT_QUERIES) {
      const page = await owed(db, period, zones, config.interval, cursor);
      for (const to of page) {
        if (!room()) return run;
        cursor = { websiteId: to.websiteId, recipientId: to.recipientId };
        handled++;
        run[await sendOne(db, mailer, config, to, period, now, numbers)]++;
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
