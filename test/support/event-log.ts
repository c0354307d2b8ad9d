/** Fixtures for the event log (src/event-log/): a hit as the pipeline hands it to a log. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { websiteLog } from '../../src/event-log/client.ts';
import type { LogHit } from '../../src/event-log/events.ts';
import type { NotStored, Recorded } from '../../src/event-log/log-types.ts';

/** A page view of one visitor (Firefox on Linux, from Austin) on 2026-03-10 at 10:00 UTC. */
export function logHit(websiteId: number, over: Partial<LogHit> = {}): LogHit {
  return {
    websiteId,
    kind: 'pageview',
    time: Date.parse('2026-03-10T10:00:00Z'),
    date: '2026-03-10',
    hour: '10',
    ip: '203.0.113.5',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
    page: '/',
    referrer: '',
    campaign: null,
    country: 'US:United States',
    continent: 'NA:North America',
    city: 'US:Austin, TX',
    language: 'en',
    browser: 'Firefox',
    os: 'Linux',
    device: 'desktop',
    resolution: '1920x1080',
    event: null,
    ...over,
  };
}

/** Records a hit in a log and returns what it decided; a refusal fails the test. */
export async function record(
  log: { record(hit: LogHit): Promise<Recorded | NotStored> },
  hit: LogHit,
): Promise<Recorded> {
  const outcome = await log.record(hit);
  if (!outcome.ok) throw new Error('the log did not store the hit');
  return outcome;
}

/** The tables a website's log holds (the platform's own `_cf_` tables left out). */
export function logTables(websiteId: number): Promise<string[]> {
  return runInDurableObject(websiteLog(env, websiteId), (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((t) => t.name)
      .filter((name) => !name.startsWith('_cf_')),
  );
}

/**
 * SQL that takes a log's tables back to before version 5 (staged hits with their address;
 * no `settled`), for tests of a log an older Sightline made.
 */
export const OLDER_THAN_5 =
  'DROP TABLE settled; ALTER TABLE staged DROP COLUMN hash; ALTER TABLE staged DROP COLUMN leader;';
