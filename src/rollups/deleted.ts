/**
 * A deleted website's roll-ups, in chunks (the hourly purge: src/maintenance/purge.ts): its
 * daily, month and year roll-ups, its imported history, its counters of dropped hits
 * (./dropped-hits.ts), its log's flush position and its last compacted month. Each deleter
 * removes at most `limit` rows, chosen by the primary key's prefix (D1 has no `DELETE … LIMIT`).
 */
import { type SQL, sql } from 'drizzle-orm';
import {
  compactedMonths,
  droppedHits,
  importedStats,
  logPositions,
  stats,
  statsMonths,
  statsYears,
} from '../db/schema.ts';

export const ROLLUP_PURGES: ((websiteId: number, limit: number) => SQL)[] = [
  (websiteId, limit) =>
    sql`DELETE FROM ${stats} WHERE (website_id, name, date, value) IN (SELECT website_id, name, date, value FROM ${stats} WHERE ${stats.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId, limit) =>
    sql`DELETE FROM ${statsMonths} WHERE (website_id, name, month, value) IN (SELECT website_id, name, month, value FROM ${statsMonths} WHERE ${statsMonths.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId, limit) =>
    sql`DELETE FROM ${statsYears} WHERE (website_id, name, year, value) IN (SELECT website_id, name, year, value FROM ${statsYears} WHERE ${statsYears.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId, limit) =>
    sql`DELETE FROM ${importedStats} WHERE (website_id, name, date, value, import_id) IN (SELECT website_id, name, date, value, import_id FROM ${importedStats} WHERE ${importedStats.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId, limit) =>
    sql`DELETE FROM ${droppedHits} WHERE (website_id, date, reason, name, kind) IN (SELECT website_id, date, reason, name, kind FROM ${droppedHits} WHERE ${droppedHits.websiteId} = ${websiteId} LIMIT ${limit})`,
  (websiteId) => sql`DELETE FROM ${logPositions} WHERE ${logPositions.websiteId} = ${websiteId}`,
  (websiteId) =>
    sql`DELETE FROM ${compactedMonths} WHERE ${compactedMonths.websiteId} = ${websiteId}`,
];
