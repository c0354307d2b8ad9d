/**
 * The cron handler (wrangler.toml `[triggers]`): hourly maintenance, traffic alerts and
 * periodic reports.
 *
 * One run is one Worker invocation, and D1 allows an invocation 1,000 queries: every
 * statement of the run counts against `QUERY_BUDGET` (see src/db/query-budget.ts). Each maintenance
 * step has a small share of it, the alerts theirs, and the reports get the rest; a step that fails is logged and
 * the others still run. What a run leaves undone, the next one continues.
 */

import { checkAlerts } from '../alerts/check.ts';
import { trafficOf } from '../alerts/traffic.ts';
import { archiveClosedDates } from '../archive/archive.ts';
import { forgetArchived } from '../archive/forget.ts';
import { createDb } from '../db/client.ts';
import { metered, QueryBudget } from '../db/query-budget.ts';
import type { Env } from '../env.ts';
import { sweepImports } from '../imports/sweep.ts';
import { logError, logSummary } from '../lib/log.ts';
import { mailerOf } from '../lib/mail.ts';
import { intervalOf } from '../reports/period.ts';
import { reportHooks, sendReports } from '../reports/send.ts';
import { compactMonths } from '../rollups/compaction.ts';
import { destroyLog } from '../website-log/worker/calls.ts';
import { type ChunkLimits, purgeExpired } from './expired.ts';
import { purgeDeletedWebsites } from './purge.ts';

/** Statements one run may send: well under D1's 1,000 queries per invocation. */
const QUERY_BUDGET = 500;
/** The share of the deleted websites' purge (stats chunks and tombstones). */
const DELETED_WEBSITES_QUERIES = 100;
/**
 * The share of the month roll-ups (src/rollups/compaction.ts), at most a fifth of what is
 * left: up to five statements a website.
 */
const COMPACTION_QUERIES = 110;

/**
 * The share of the daily archive into the owner's bucket (src/archive/): up to three
 * statements a date written, three a manifest, and what it forgets (deleted websites' files,
 * retention). Spent only with an `ARCHIVE` binding.
 */
const ARCHIVE_QUERIES = 120;

/** Statements for removing imports' rows: 5,000 rows each. */
const IMPORT_QUERIES = 20;

/** The share of traffic alerts (src/alerts/check.ts): up to five statements an e-mail. */
const ALERT_QUERIES = 100;

/** Settings of a run; the defaults are the production ones (tests make them small). */
export type ScheduledOptions = {
  /** Statements the whole run may send. */
  queryBudget?: number;
  /** Chunks of the purges of expired rows. */
  purge?: ChunkLimits;
  /** Reports per run at most. */
  reports?: { batch?: number };
  /** Websites whose alerts a run checks at most. */
  alerts?: { websites?: number };
};

export async function runScheduled(
  controller: ScheduledController,
  env: Env,
  options: ScheduledOptions = {},
): Promise<void> {
  const db = createDb(env.DB);
  const now = controller.scheduledTime;
  const queries = new QueryBudget(options.queryBudget ?? QUERY_BUDGET);
  const chunks = options.purge?.chunks ?? 4;

  const maintenance: Record<string, number> = {};
  const step = async (name: string, work: () => Promise<Record<string, number>>) => {
    try {
      Object.assign(maintenance, await work());
    } catch (err) {
      logError('maintenance step failed', { step: name }, err);
    }
  };
  await step('expired rows', () =>
    purgeExpired(db, now, { ...options.purge, chunks, queries: queries.share(4 * chunks) }),
  );
  await step('deleted websites', () =>
    purgeDeletedWebsites(db, {
      queries: queries.share(DELETED_WEBSITES_QUERIES),
      destroyLog: (websiteId) => destroyLog(env, websiteId),
    }),
  );
  await step('imports', async () => {
    // Imports deleted, replaced or left pending lose their rows (src/imports/sweep.ts).
    const share = queries.share(IMPORT_QUERIES);
    return { importRowsDeleted: await sweepImports(metered(db, share)) };
  });
  await step('month roll-ups', async () => {
    const share = queries.share(Math.min(COMPACTION_QUERIES, Math.floor(queries.left / 5)));
    const compacted = await compactMonths(metered(db, share), now, { queries: share });
    return { websitesCompacted: compacted.websites, monthsCompacted: compacted.months };
  });
  await step('archive', async () => {
    const share = queries.share(ARCHIVE_QUERIES);
    const forgotten = await forgetArchived(env, now, { queries: share.share(10) });
    return { ...forgotten, ...(await archiveClosedDates(env, now, { queries: share })) };
  });
  logSummary('maintenance', { ...maintenance, queries: queries.used });

  const sending = mailerOf(env);
  if (!sending || !env.PUBLIC_URL) {
    console.log(
      'alerts and reports skipped: set the EMAIL binding, MAIL_FROM and PUBLIC_URL to send them',
    );
    return;
  }
  const config = { from: sending.from, publicUrl: env.PUBLIC_URL.replace(/\/+$/, '') };
  try {
    const share = queries.share(ALERT_QUERIES);
    const alerts = await checkAlerts(db, sending.mailer, config, now, {
      queries: share,
      websites: options.alerts?.websites,
      trafficOf: (site, hours, end) => trafficOf(env, db, site, hours, end),
    });
    logSummary('alerts', { ...alerts, queries: queries.used });
  } catch (err) {
    // The alerts due could not be read; the next run checks them again.
    logError('alerts failed', {}, err);
  }
  try {
    const reports = await sendReports(
      db,
      sending.mailer,
      { ...config, interval: intervalOf(env.REPORT_INTERVAL) },
      now,
      {
        batch: options.reports?.batch,
        queries,
        ...reportHooks(env, db),
      },
    );
    logSummary('reports', { ...reports, queries: queries.used });
  } catch (err) {
    // The websites owing a report could not be read; the next run tries again.
    logError('reports failed', {}, err);
  }
}
