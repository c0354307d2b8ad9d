/** Fixtures for the event log (src/event-log/): a hit as the pipeline hands it to a log. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Dictionary } from '../../src/event-log/dictionary.ts';
import type { LoggedEvent, LogHit } from '../../src/event-log/events.ts';
import { LogDb } from '../../src/event-log/log-db.ts';
import { eventsAfter } from '../../src/event-log/log-rows.ts';
import type { NotStored, Recorded } from '../../src/event-log/log-types.ts';
import { websiteLog } from '../../src/event-log/stub.ts';
import type { WebsiteLog } from '../../src/event-log/website-log.ts';

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

/** Every event a log holds, in order, as the roll-ups count them (its texts read back). */
export function loggedEvents(log: DurableObjectStub<WebsiteLog>): Promise<LoggedEvent[]> {
  return runInDurableObject(log, (_instance, state) => {
    const db = new LogDb(state.storage.sql);
    return eventsAfter(db, new Dictionary(db), 0, Number.MAX_SAFE_INTEGER);
  });
}

/**
 * SQL that takes a log's tables back to version 5, as an older Sightline wrote them: its
 * events in `events`, every value as text (each row with the values `log` gives it); no
 * `log` or `dict`; visitors without values.
 */
export const AS_VERSION_5 = `
CREATE TABLE events (
  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, time INTEGER NOT NULL, date TEXT NOT NULL,
  hour TEXT NOT NULL, visitor INTEGER NOT NULL, visit INTEGER NOT NULL,
  new_visitor INTEGER NOT NULL, new_visit INTEGER NOT NULL, page TEXT NOT NULL,
  referrer TEXT NOT NULL, campaign TEXT, country TEXT, continent TEXT, city TEXT,
  language TEXT, browser TEXT NOT NULL, os TEXT NOT NULL, device TEXT NOT NULL,
  resolution TEXT, event TEXT, visit_views INTEGER, previous_page TEXT,
  visit_seconds INTEGER NOT NULL DEFAULT 0
);
INSERT INTO events SELECT l.id, CASE l.kind WHEN 1 THEN 'event' ELSE 'pageview' END, l.time,
  date(l.day * 86400, 'unixepoch'), printf('%02d', l.hour), l.visitor, l.visit,
  l.firsts & 1, (l.firsts & 2) / 2, coalesce(p.value, ''), coalesce(r.value, ''), c.value,
  co.value, ct.value, ci.value, la.value, coalesce(b.value, ''), coalesce(o.value, ''),
  coalesce(d.value, ''), re.value, e.value, l.visit_views, pp.value, l.visit_seconds
  FROM log l
  LEFT JOIN dict p ON p.id = l.page LEFT JOIN dict r ON r.id = l.referrer
  LEFT JOIN dict c ON c.id = l.campaign LEFT JOIN dict co ON co.id = l.country
  LEFT JOIN dict ct ON ct.id = l.continent LEFT JOIN dict ci ON ci.id = l.city
  LEFT JOIN dict la ON la.id = l.language LEFT JOIN dict b ON b.id = l.browser
  LEFT JOIN dict o ON o.id = l.os LEFT JOIN dict d ON d.id = l.device
  LEFT JOIN dict re ON re.id = l.resolution LEFT JOIN dict e ON e.id = l.event
  LEFT JOIN dict pp ON pp.id = l.previous_page ORDER BY l.id;
DROP TABLE log; DROP TABLE dict;
ALTER TABLE visitors DROP COLUMN attrs;
DELETE FROM meta WHERE key IN ('legacy', 'legacy_max');
UPDATE meta SET value = 5 WHERE key = 'schema';
`;

/** `AS_VERSION_5`, then back to version 4: staged hits without hash or leader, no `settled`. */
export const AS_VERSION_4 = `${AS_VERSION_5}
DROP TABLE settled; ALTER TABLE staged DROP COLUMN hash; ALTER TABLE staged DROP COLUMN leader;
UPDATE meta SET value = 4 WHERE key = 'schema';
`;

/** The columns version 7 added to `log` (src/event-log/log-schema.ts). */
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
