/**
 * The website's event log (docs/ARCHITECTURE.md, "The event log"): a hit as the Worker hands
 * it to its log, and one stored page view or custom event as the log keeps it — what the
 * roll-ups count of it is the counting model's (src/counting/statistics.ts, `rollupOf`).
 */
import type { CountedEvent, EventDimensions, LogOnlyDimensions } from '../counting/statistics.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { randomOnFirstUse } from '../lib/random-on-first-use.ts';
import type { LogDb } from './object/tables/log-db.ts';

/**
 * A hit handed to its website's log: the dimensions, when it happened (instant, website-local
 * date and hour), and who sent it — the client address and User-Agent, used only to make the
 * day's visitor hash and never stored.
 */
export type LogHit = EventDimensions &
  LogOnlyDimensions & {
    websiteId: number;
    kind: 'pageview' | 'event' | 'engagement';
    time: number;
    date: string;
    hour: string;
    ip: string;
    userAgent: string;
    /**
     * Its custom properties as sent, names and values (src/ingest/props.ts); a hit staged by
     * an older Sightline has none.
     */
    props?: [name: string, value: string][];
    /** A custom event's revenue: millionths of its currency (src/ingest/revenue.ts). */
    revenue?: { amount: number; currency: string } | null;
    /** An engagement's time and deepest scroll of its page view (./object/write/engagement.ts). */
    engagement?: Engagement;
    /**
     * The partition of the website's log the Worker sent it to (none: the first), the events
     * past which that partition closes at the next local date (0: never), whether the next
     * partition sent it back here (`back`: its date is older than that one's), and — for a
     * hit of a call that names several websites — its leader's partition (./object/partition.ts).
     */
    partition?: { number: number; limit: number; leader?: number; back?: boolean };
    /** Loaded by the replay route with others of past days (src/website-log/object/retention.ts). */
    replayed?: boolean;
  };

/** What an engagement says of its page view (./object/write/engagement.ts). */
export type Engagement = {
  /** Milliseconds seen: the page view's total so far, or (`added`) since the last send. */
  ms: number;
  /** The deepest scroll so far, in percent of the page's height; null: not measured. */
  scroll: number | null;
  added?: boolean;
};

/** A row of the log: what the roll-ups count of it, its position, instant and visitor. */
export type LoggedEvent = CountedEvent & {
  /** Position in the log: increasing, never reused. */
  id: number;
  time: number;
  /** The visit's number on `date`; 0 for an event of a visitor never seen. */
  visit: number;
};

/**
 * The day's visitor identity: a salted one-way hash of (salt, website, address, User-Agent),
 * in the spirit of Plausible's approach
 * (https://plausible.io/data-policy#how-we-count-unique-users-without-cookies). The salt is
 * random, per local date, and deleted after 72 hours: then nothing can link a hash to the
 * address and browser that made it.
 */
export async function visitorHash(
  salt: string,
  websiteId: number,
  ip: string,
  userAgent: string,
): Promise<string> {
  return (await sha256Hex(`${salt}\u0000${websiteId}\u0000${ip}\u0000${userAgent}`)).slice(0, 32);
}

/**
 * The random salt of a local date, made on first use and stored (`salts`: those of the dates
 * seen since the last maintenance, as stored).
 */
export function daySalt(db: LogDb, salts: Map<string, string>, date: string, now: number): string {
  return randomOnFirstUse(salts, date, (fresh) => {
    const row = db.rows<{ salt: string }>('SELECT salt FROM salts WHERE date = ?', date)[0];
    if (row) return row.salt;
    const salt = fresh();
    db.rows('INSERT INTO salts (date, salt, created_at) VALUES (?, ?, ?)', date, salt, now);
    return salt;
  });
}
