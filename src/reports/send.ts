/**
 * Sending the periodic reports from the cron: for every website with `email = 1`, the
 * report of its last complete period, exactly once. A send is claimed first (the
 * (website, period) primary key admits one claim), then sent, then marked sent; a failed
 * send drops its claim so the next run retries it, and is logged; one website's failure
 * never stops the others. Each run handles a bounded batch; the hourly cron continues.
 */
import { and, asc, eq, gt, isNull, lt } from 'drizzle-orm';
import { createMimeMessage } from 'mimetext/browser';
import type { Database } from '../db/client.ts';
import { owners, reportSends, websites } from '../db/schema.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { logError } from '../lib/log.ts';
import { hmacHex, serverSecret } from '../lib/secret.ts';
import { htmlOf, type ReportData, reportData, subjectOf, textOf } from './content.ts';
import { type Interval, lastCompletePeriod } from './period.ts';

/** What sending needs: the binding (or a stand-in in tests) and the addresses. */
export type Mailer = {
  send(message: { from: string; to: string; raw: string }): Promise<void>;
};

export type ReportConfig = { from: string; publicUrl: string; interval: Interval };

/** A claim older than this is taken to have died with its run and may be retried. */
const STALE_CLAIM_MS = 60 * 60 * 1000;

export async function unsubscribeToken(db: Database, websiteId: number): Promise<string> {
  return (
    await hmacHex(await serverSecret(db, 'unsubscribe'), `unsubscribe\u0000${websiteId}`)
  ).slice(0, 32);
}

export function buildMessage(report: ReportData, to: string, config: ReportConfig): string {
  const message = createMimeMessage();
  message.setSender({ name: 'Sightline', addr: config.from });
  message.setRecipient(to);
  message.setSubject(subjectOf(report));
  // RFC 8058 one-click unsubscribe: mail clients POST to this URL.
  message.setHeader('List-Unsubscribe', `<${report.unsubscribeUrl}>`);
  message.setHeader('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click');
  message.setHeader('Auto-Submitted', 'auto-generated');
  message.addMessage({ contentType: 'text/plain', data: textOf(report) });
  message.addMessage({ contentType: 'text/html', data: htmlOf(report) });
  return message.asRaw();
}

export type ReportRun = { sent: number; failed: number; skipped: number };

export async function sendReports(
  db: Database,
  mailer: Mailer,
  config: ReportConfig,
  now = Date.now(),
  { batch = 200 }: { batch?: number } = {},
): Promise<ReportRun> {
  const run: ReportRun = { sent: 0, failed: 0, skipped: 0 };
  let cursor = 0;
  let handled = 0;
  while (handled < batch) {
    const page = await db
      .select({
        id: websites.id,
        domain: websites.domain,
        timezone: websites.timezone,
        email: owners.email,
      })
      .from(websites)
      .innerJoin(owners, eq(owners.id, websites.ownerId))
      .where(and(eq(websites.email, 1), gt(websites.id, cursor)))
      .orderBy(asc(websites.id))
      .limit(50)
      .all();
    if (page.length === 0) break;
    for (const site of page) {
      cursor = site.id;
      const period = lastCompletePeriod(now, site.timezone, config.interval);
      // Claim: insert, or take over a claim that died without sending.
      const claimed = await db
        .insert(reportSends)
        .values({ websiteId: site.id, period: period.key, claimedAt: now })
        .onConflictDoUpdate({
          target: [reportSends.websiteId, reportSends.period],
          set: { claimedAt: now },
          setWhere: and(
            isNull(reportSends.sentAt),
            lt(reportSends.claimedAt, now - STALE_CLAIM_MS),
          ),
        })
        .returning()
        .get();
      if (!claimed || claimed.claimedAt !== now) {
        run.skipped++;
        continue;
      }
      handled++;
      try {
        const token = await unsubscribeToken(db, site.id);
        const report = await reportData(db, site, period, {
          statsUrl: `${config.publicUrl}/stats/${site.domain}?range=custom&from=${period.from}&to=${period.to}`,
          unsubscribeUrl: `${config.publicUrl}/reports/unsubscribe/${site.id}/${token}`,
        });
        await mailer.send({
          from: config.from,
          to: site.email,
          raw: buildMessage(report, site.email, config),
        });
        await db
          .update(reportSends)
          .set({ sentAt: Date.now() })
          .where(and(eq(reportSends.websiteId, site.id), eq(reportSends.period, period.key)))
          .run();
        run.sent++;
      } catch (err) {
        run.failed++;
        logError('report not sent', { websiteId: site.id, period: period.key }, err);
        await db
          .delete(reportSends)
          .where(
            and(
              eq(reportSends.websiteId, site.id),
              eq(reportSends.period, period.key),
              isNull(reportSends.sentAt),
            ),
          )
          .run()
          .catch(() => undefined);
      }
      if (handled >= batch) break;
    }
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
  const updated = await db
    .update(websites)
    .set({ email: 0 })
    .where(eq(websites.id, websiteId))
    .returning({ id: websites.id })
    .get();
  return updated !== undefined;
}
