/**
 * The daily archive (docs/ARCHITECTURE.md, "The daily archive"): with an R2 binding
 * `ARCHIVE`, each closed local date of each website is written once into the owner's bucket as
 * `sightline/site=<domain>/date=<YYYY-MM-DD>/events.parquet`, by the hourly maintenance
 * (`archiveClosedDates`) from the date it first saw the website on, and by the backfill
 * (`archiveRange`, ./routes.ts) for the dates before. Each date is claimed in D1 before it is
 * written and noted after (./claims.ts), then the website's manifest (./manifest.ts): runs at
 * once split the dates, and a run that failed midway is resumed by the next from the first
 * date not noted.
 */

import { countStatements } from '../db/count-statements.ts';
import { QueryBudget, QueryBudgetExhausted } from '../db/query-budget.ts';
import type { Env } from '../env.ts';
import { logError } from '../lib/log.ts';
import { addDays } from '../lib/time/dates.ts';
import { exportLog } from '../website-log/worker/calls.ts';
import {
  type ArchiveSite,
  claimDate,
  dateKey,
  dueSites,
  lastClosedDate,
  markWritten,
  passWritten,
  registerSites,
  releaseClaim,
} from './claims.ts';
import { writeManifest } from './manifest.ts';
import { uploadParquet } from './upload.ts';

/**
 * Dates one hourly run writes at most, over all websites. A date costs the run about a dozen
 * subrequests (its log's partitions, the Parquet Worker, two or three R2 calls) and four D1
 * statements, and its file passes through the run once (hashed, held up to 8 MiB): 24 keep a
 * run far inside a cron's 1,000 subrequests, its query budget and 15 minutes, and are 576 a
 * day — every website's date for up to ~500 websites; a longer backlog takes more runs.
 */
const DATES_PER_RUN = 24;

/** Websites one run looks at (their dates are capped by `DATES_PER_RUN`). */
const SITES_PER_RUN = 100;

export type DateOutcome = 'written' | 'written before' | 'busy';

/**
 * Writes one claimed-or-claimable date: `written` (or, found written, `written before`), or
 * `busy` when another run holds it. A failure gives the claim up and is thrown.
 */
export async function archiveDate(
  env: Env,
  d1: D1Database,
  bucket: R2Bucket,
  site: ArchiveSite,
  date: string,
  now: number,
): Promise<DateOutcome> {
  const token = crypto.randomUUID();
  const claim = await claimDate(d1, site, date, token, now);
  if (claim === 'written') return 'written before';
  if (claim === 'busy') return 'busy';
  try {
    const events = await exportLog(env, site.websiteId, 'parquet', { from: date, to: date });
    const metadata = { website_id: String(site.websiteId), date };
    const written = await uploadParquet(bucket, dateKey(site.domain, date), events, metadata);
    if (!(await markWritten(d1, site, date, token, written, now)))
      logError(
        'archive: a date was claimed again while being written',
        { websiteId: site.websiteId, date },
        null,
      );
    return 'written';
  } catch (err) {
    await releaseClaim(d1, site.websiteId, date, token).catch(() => undefined);
    throw err;
  }
}

/**
 * The hourly run: registers the websites it does not know, then writes the due dates of those
 * furthest behind, oldest first, `dates` at most, and their manifests. A website whose date
 * fails (or is another run's) waits for the next run from that date; the others go on.
 */
export async function archiveClosedDates(
  env: Env,
  now: number,
  { queries = new QueryBudget(100), dates = DATES_PER_RUN } = {},
): Promise<Record<string, number>> {
  const bucket = env.ARCHIVE;
  if (!bucket) return {};
  const d1 = countStatements(env.DB, (n) => queries.spend(n));
  const result = { archiveDatesWritten: 0, archiveDatesFailed: 0, archiveManifests: 0 };
  let left = dates;
  try {
    await registerSites(d1, now);
    for (const site of await dueSites(d1, now, SITES_PER_RUN)) {
      const last = lastClosedDate(now, site.timezone);
      let wrote = site.manifestVersion < site.version;
      for (let date = site.nextDate; date <= last && left > 0; date = addDays(date, 1)) {
        let outcome: DateOutcome;
        try {
          outcome = await archiveDate(env, d1, bucket, site, date, now);
        } catch (err) {
          if (err instanceof QueryBudgetExhausted) throw err;
          logError('archive: a date was not written', { websiteId: site.websiteId, date }, err);
          result.archiveDatesFailed++;
          break;
        }
        if (outcome === 'busy') break;
        if (outcome === 'written before') await passWritten(d1, site, date);
        else {
          result.archiveDatesWritten++;
          wrote = true;
          left--;
        }
      }
      // Past the cap too: a manifest behind (retention deleted files) costs three statements.
      if (wrote && (await manifestDue(d1, bucket, site, now))) result.archiveManifests++;
    }
  } catch (err) {
    // Out of budget: what is left waits for the next run.
    if (!(err instanceof QueryBudgetExhausted)) throw err;
  }
  return result;
}

/** Writes the website's manifest when it is behind its dates; a failure waits for the next run. */
export async function manifestDue(
  d1: D1Database,
  bucket: R2Bucket,
  site: ArchiveSite,
  now: number,
): Promise<boolean> {
  try {
    return await writeManifest(d1, bucket, site, now);
  } catch (err) {
    if (err instanceof QueryBudgetExhausted) throw err;
    logError('archive: manifest not written', { websiteId: site.websiteId }, err);
    return false;
  }
}
