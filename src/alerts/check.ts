/**
 * Checking traffic alerts from the hourly cron (docs/ARCHITECTURE.md, "Traffic alerts"): every
 * confirmed alert whose last e-mail is older than its `every_hours` is checked against its
 * website's traffic over the whole hours before the run's hour (./traffic.ts), and e-mailed
 * when it fires — through the reports' sending path (src/reports/once.ts), at most once: the
 * claim's key is the alert and the hour, and the claim itself is refused while an earlier
 * claim of the alert is within its `every_hours`, in the same statement, so neither a retried
 * run nor two runs at once send twice.
 *
 * A run reads the due alerts a page at a time, by website; each website's traffic is asked
 * once per length of window among its alerts. At most `websites` websites a run (each is a few
 * reads of its event log), and every statement counts against the run's query budget; what
 * is left waits for the next hour's run, whose window has moved on (said in the docs).
 */
import { and, asc, eq, gt, isNotNull, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { metered, type QueryBudget } from '../db/query-budget.ts';
import { reportSends, websites } from '../db/schema.ts';
import { type AlertRow, alerts } from '../db/sharing-schema.ts';
import { logError } from '../lib/log.ts';
import type { Mailer } from '../lib/mail.ts';
import { zonedIso } from '../lib/time/dates.ts';
import { ONCE_QUERIES, type Outcome, sendOnce } from '../reports/once.ts';
import { alertMessage } from './alert-mail.ts';
import { type AlertKind, alertToken } from './alerts.ts';
import { type WindowTraffic, windowOf } from './traffic.ts';

const HOUR = 3_600_000;
/** Alerts read per query. */
const PAGE = 100;
/** Statements one alert's e-mail costs at most: its unsubscribe secret, and `ONCE_QUERIES`. */
const ALERT_QUERIES = 1 + ONCE_QUERIES;

export type AlertRun = { sent: number; failed: number; skipped: number; websites: number };

/** A confirmed alert due a check, with its website's domain and time zone. */
type Due = AlertRow & { domain: string; timezone: string };

/** The first and last key of an alert's claims in `report_sends` (`alert:<id>:<hour>`). */
const claimPrefix = (id: number) => `alert:${id}:`;

/** The claim keys of the alert of `alerts.id` lie between these (SQL). */
const claimsOfAlert = sql`${reportSends.websiteId} = ${alerts.websiteId} AND ${reportSends.period} BETWEEN 'alert:' || ${alerts.id} || ':' AND 'alert:' || ${alerts.id} || ':~'`;

/** The next confirmed alerts after `cursor` (by website, then id) not within their `every_hours`. */
function dueAlerts(
  db: Database,
  now: number,
  cursor: { websiteId: number; id: number },
): Promise<Due[]> {
  return db
    .select({
      alert: alerts,
      domain: websites.domain,
      timezone: websites.timezone,
    })
    .from(alerts)
    .innerJoin(websites, eq(websites.id, alerts.websiteId))
    .where(
      and(
        isNotNull(alerts.confirmedAt),
        or(
          gt(alerts.websiteId, cursor.websiteId),
          and(eq(alerts.websiteId, cursor.websiteId), gt(alerts.id, cursor.id)),
        ),
        sql`NOT EXISTS (SELECT 1 FROM ${reportSends} WHERE ${claimsOfAlert} AND ${reportSends.claimedAt} > ${now} - ${alerts.everyHours} * ${HOUR})`,
      ),
    )
    .orderBy(asc(alerts.websiteId), asc(alerts.id))
    .limit(PAGE)
    .all()
    .then((rows) => rows.map((r) => ({ ...r.alert, domain: r.domain, timezone: r.timezone })));
}

/** Whether an alert fires on its window's traffic. */
function fires(
  alert: Pick<AlertRow, 'kind' | 'threshold'>,
  traffic: { visitors: number; weekBefore: number },
): boolean {
  return (alert.kind as AlertKind) === 'spike'
    ? traffic.visitors >= alert.threshold
    : traffic.visitors < alert.threshold && traffic.weekBefore >= alert.threshold;
}

/**
 * Claims the alert's e-mail of this hour — only while no claim of it is within its
 * `every_hours` (one statement: D1 runs it alone) — true when this run holds it.
 */
async function claimAlert(db: Database, alert: Due, key: string, now: number): Promise<boolean> {
  const result = await db.run(
    sql`INSERT INTO ${reportSends} (website_id, period, claimed_at)
        SELECT ${alert.websiteId}, ${key}, ${now}
        WHERE NOT EXISTS (SELECT 1 FROM ${reportSends}
          WHERE ${reportSends.websiteId} = ${alert.websiteId}
            AND ${reportSends.period} BETWEEN ${claimPrefix(alert.id)} AND ${`${claimPrefix(alert.id)}~`}
            AND ${reportSends.claimedAt} > ${now - alert.everyHours * HOUR})
        ON CONFLICT DO NOTHING`,
  );
  return (result.meta.changes ?? 0) > 0;
}

/** Local "2026-11-29 13:00" of an instant (13:30 in a zone half an hour off UTC). */
const localTime = (at: number, timeZone: string) =>
  zonedIso(at, timeZone).slice(0, 16).replace('T', ' ');

type Config = { from: string; publicUrl: string };
type Traffic = WindowTraffic & { weekBefore: number };

/** Sends one alert that fired. */
async function sendAlert(
  db: Database,
  mailer: Mailer,
  config: Config,
  alert: Due,
  traffic: Traffic,
  now: number,
): Promise<Outcome> {
  const end = Math.floor(now / HOUR) * HOUR;
  const key = {
    websiteId: alert.websiteId,
    period: `${claimPrefix(alert.id)}${new Date(end).toISOString().slice(0, 13)}`,
  };
  let raw: string;
  try {
    const token = await alertToken(db, 'unsubscribe', alert);
    const [from] = windowOf(end, alert.hours);
    raw = alertMessage(
      alert,
      alert.domain,
      {
        ...traffic,
        from: localTime(from, alert.timezone),
        to: localTime(end, alert.timezone),
        timeZone: alert.timezone,
      },
      {
        stats: `${config.publicUrl}/stats/${alert.domain}?range=today`,
        unsubscribeUrl: `${config.publicUrl}/alerts/unsubscribe/${alert.id}/${token}`,
        unsubscribePage: `${config.publicUrl}/alerts/unsubscribe#${alert.id}.${token}`,
      },
      config.from,
    );
  } catch (err) {
    logError('alert not sent', key, err);
    return 'failed';
  }
  const message = { from: config.from, to: alert.email, raw };
  return sendOnce(db, mailer, message, key, () => claimAlert(db, alert, key.period, now), 'alert');
}

/** Checks one website's due alerts; each fired one is sent. */
async function checkWebsite(
  db: Database,
  mailer: Mailer,
  config: Config,
  due: Due[],
  now: number,
  trafficOf: CheckOptions['trafficOf'],
  run: AlertRun,
  queries: QueryBudget,
): Promise<void> {
  const first = due[0];
  if (!first) return;
  const site = { id: first.websiteId, timezone: first.timezone };
  const windows = new Map<number, Promise<Traffic>>();
  for (const alert of due) {
    let traffic: Traffic;
    try {
      const asked = windows.get(alert.hours) ?? trafficOf(site, alert.hours, now);
      windows.set(alert.hours, asked);
      traffic = await asked;
    } catch (err) {
      logError('alert not checked', { websiteId: alert.websiteId }, err);
      run.failed++;
      continue;
    }
    if (!fires(alert, traffic)) continue;
    if (queries.left < ALERT_QUERIES) return;
    run[await sendAlert(db, mailer, config, alert, traffic, now)]++;
  }
}

type CheckOptions = {
  queries: QueryBudget;
  /** Websites checked a run at most. */
  websites?: number;
  /** A website's traffic over the `hours` whole hours before `now`'s hour (./traffic.ts). */
  trafficOf: (
    site: { id: number; timezone: string },
    hours: number,
    now: number,
  ) => Promise<Traffic>;
};

export async function checkAlerts(
  base: Database,
  mailer: Mailer,
  config: Config,
  now: number,
  { queries, websites: most = 100, trafficOf }: CheckOptions,
): Promise<AlertRun> {
  const db = metered(base, queries);
  const run: AlertRun = { sent: 0, failed: 0, skipped: 0, websites: 0 };
  let cursor = { websiteId: 0, id: 0 };
  while (run.websites < most && queries.left >= 1 + ALERT_QUERIES) {
    const page = await dueAlerts(db, now, cursor);
    const bySite = new Map<number, Due[]>();
    for (const alert of page)
      bySite.set(alert.websiteId, [...(bySite.get(alert.websiteId) ?? []), alert]);
    // (A website split by a page's end is asked again for the rest of its alerts.)
    for (const [websiteId, due] of bySite) {
      if (run.websites >= most || queries.left < ALERT_QUERIES) return run;
      run.websites++;
      await checkWebsite(db, mailer, config, due, now, trafficOf, run, queries);
      cursor = { websiteId, id: (due.at(-1) as Due).id };
    }
    if (page.length < PAGE) break;
  }
  return run;
}
