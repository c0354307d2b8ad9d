/** Fixtures for the event log (src/website-log/): a hit as the pipeline hands it to a log. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { Dropped, NotStored, Recorded } from '../../src/website-log/answers.ts';
import type { LoggedEvent, LogHit } from '../../src/website-log/events.ts';
import type { WebsiteLog } from '../../src/website-log/object/durable-object.ts';
import { Dictionary } from '../../src/website-log/object/tables/dictionary.ts';
import { LogDb } from '../../src/website-log/object/tables/log-db.ts';
import { eventsAfter } from '../../src/website-log/object/tables/rows.ts';
import { websiteLog } from '../../src/website-log/worker/partitions.ts';

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
    hostname: 'example.com',
    name: over.kind === 'event' ? 'event' : 'pageview',
    utmSource: null,
    utmMedium: null,
    utmContent: null,
    utmTerm: null,
    source: '',
    channel: 'Direct',
    browserVersion: '133.0',
    osVersion: null,
    region: 'US-TX:Texas',
    ...over,
  };
}

/** Records a hit in a log and returns what it decided; a refusal or a drop fails the test. */
export async function record(
  log: { record(hit: LogHit): Promise<Recorded | Dropped | NotStored> },
  hit: LogHit,
): Promise<Recorded> {
  const outcome = await log.record(hit);
  if (!outcome.ok || 'dropped' in outcome) throw new Error('the log did not store the hit');
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

/** Every event a log holds, in order, as the roll-ups count them (its texts read back). */
export function loggedEvents(log: DurableObjectStub<WebsiteLog>): Promise<LoggedEvent[]> {
  return runInDurableObject(log, (_instance, state) => {
    const db = new LogDb(state.storage.sql);
    return eventsAfter(db, new Dictionary(db), 0, Number.MAX_SAFE_INTEGER);
  });
}

/** The columns version 7 added to `log` (src/website-log/object/tables/versions.ts). */
const VERSION_7_COLUMNS = [
  'hostname',
  'name',
  'landing_host',
  'source',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_content',
  'utm_term',
  'browser_version',
  'os_version',
  'region',
];

/**
 * SQL that takes a log's tables back to version 9: `log` without its page views' engagement,
 * no `late_durations`.
 */
export const AS_VERSION_9 = `DROP TABLE late_durations;
ALTER TABLE log DROP COLUMN engaged;
ALTER TABLE log DROP COLUMN scroll;
UPDATE meta SET value = 9 WHERE key = 'schema';
`;

/** SQL that takes a log's tables back to version 7: `log` without its hits' properties. */
export const AS_VERSION_7 = `${AS_VERSION_9}
ALTER TABLE log DROP COLUMN props;
ALTER TABLE log DROP COLUMN revenue;
ALTER TABLE log DROP COLUMN currency;
UPDATE meta SET value = 7 WHERE key = 'schema';
`;

/** SQL that takes a log's tables back to version 6: `log` without the columns 7 added. */
export const AS_VERSION_6 = `${AS_VERSION_7}
${VERSION_7_COLUMNS.map((c) => `ALTER TABLE log DROP COLUMN ${c};`).join('\n')}
UPDATE meta SET value = 6 WHERE key = 'schema';
`;
