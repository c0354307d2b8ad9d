/**
 * Who still owes a report, for the cron (./send.ts). A report goes to a website's owner when
 * `websites.email` is 1 (the server's `REPORT_INTERVAL`), and to each confirmed recipient of
 * ./recipients.ts (its own interval); each is owed once per period, and is claimed in
 * `report_sends` under the period's key — the owner's `weekly:2026-11-30`, a recipient's
 * `weekly:2026-11-30:r12` — so the primary key makes a second send impossible.
 *
 * A period depends on the website's time zone and the interval, so the (time zone, interval)
 * pairs in use are read once and grouped by the period they are in at this instant (a few
 * groups); each group is then one query per page of owed reports, owners and recipients
 * together, that leaves out those claimed already (`NOT EXISTS`, on the claims' primary key).
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type Interval, lastCompletePeriod, type Period } from './period.ts';

/** Owed reports read per query. */
export const PAGE = 50;

/** One report owed: to a website's owner (`recipientId` 0) or to one of its recipients. */
export type Owed = {
  websiteId: number;
  domain: string;
  timezone: string;
  email: string;
  recipientId: number;
};

/** Where a run is in a group's owed reports: after this website and recipient. */
export type Cursor = { websiteId: number; recipientId: number };
export const START: Cursor = { websiteId: 0, recipientId: -1 };

/** The key of a report's claim in `report_sends`. */
export const claimKey = (period: Period, recipientId: number) =>
  recipientId === 0 ? period.key : `${period.key}:r${recipientId}`;

/** The time zones with reports of each interval, grouped by the period they are in now. */
export async function periodGroups(db: Database, now: number, ownerInterval: Interval) {
  // In the order of their first website, so that a run goes through the websites oldest first.
  const pairs = await db.all<{ timezone: string; interval: string }>(
    sql`SELECT timezone, interval FROM (
        SELECT id AS site, timezone, ${ownerInterval} AS interval FROM websites WHERE email = 1
        UNION ALL
        SELECT w.id, w.timezone, r.interval FROM report_recipients r
          JOIN websites w ON w.id = r.website_id
          WHERE r.confirmed_at IS NOT NULL)
      GROUP BY timezone, interval
      ORDER BY MIN(site)`,
  );
  const groups = new Map<string, { period: Period; zones: string[] }>();
  for (const { timezone, interval } of pairs) {
    const period = lastCompletePeriod(now, timezone, interval === 'monthly' ? 'monthly' : 'weekly');
    const group = groups.get(period.key) ?? { period, zones: [] };
    group.zones.push(timezone);
    groups.set(period.key, group);
  }
  return [...groups.values()];
}

/**
 * The next reports after `cursor` owed for `period` by the websites in `zones`: their owners'
 * when the owners' interval is the period's, and their confirmed recipients of its interval;
 * by website, the owner first.
 */
export function owed(
  db: Database,
  period: Period,
  zones: string[],
  ownerInterval: Interval,
  cursor: Cursor,
): Promise<Owed[]> {
  // One bound JSON array, whatever the number of zones (D1 binds at most 100 values).
  const inZones = sql`w.timezone IN (SELECT value FROM json_each(${JSON.stringify(zones)}))`;
  const { websiteId: site, recipientId: after } = cursor;
  // Each part is read in order up to a page (the websites' primary key), then both are merged.
  const owners = sql`SELECT * FROM (
      SELECT w.id AS websiteId, w.domain, w.timezone, o.email, 0 AS recipientId
      FROM websites w JOIN owners o ON o.id = w.owner_id
      WHERE w.email = 1 AND (w.id > ${site} OR (w.id = ${site} AND ${after} < 0)) AND ${inZones}
        AND NOT EXISTS (SELECT 1 FROM report_sends s
          WHERE s.website_id = w.id AND s.period = ${claimKey(period, 0)})
      ORDER BY w.id LIMIT ${PAGE})
    UNION ALL `;
  return db.all<Owed>(
    sql`${period.interval === ownerInterval ? owners : sql``}SELECT * FROM (
      SELECT w.id AS websiteId, w.domain, w.timezone, r.email, r.id AS recipientId
      FROM websites w JOIN report_recipients r ON r.website_id = w.id
      WHERE r.confirmed_at IS NOT NULL AND r.interval = ${period.interval}
        AND (w.id > ${site} OR (w.id = ${site} AND r.id > ${after})) AND ${inZones}
        AND NOT EXISTS (SELECT 1 FROM report_sends s
          WHERE s.website_id = w.id AND s.period = ${period.key} || ':r' || r.id)
      ORDER BY w.id, r.id LIMIT ${PAGE})
    ORDER BY websiteId, recipientId
    LIMIT ${PAGE}`,
  );
}
