/**
 * One website's event log, over SQLite storage: in production a Durable Object's, one per
 * website (`WebsiteLog`, ./website-log.ts; docs/ARCHITECTURE.md). It keeps one row per stored page view or custom event, decides in
 * arrival order — an object runs one request at a time — whether a page view is its
 * visitor's first of the day and whether it starts a visit, and rolls the log up into D1's
 * daily `stats`, exactly once, on an alarm ten seconds after the first unflushed event or
 * when a reader asks (`flush`).
 *
 * What it stores: the events (their dimensions, local date and hour, the visitor's and the
 * visit's number of that day — never an address, a User-Agent or a hash); the visitors of the
 * last 48 hours (the day's salted hash, their numbers, their visit's start and the referrer
 * that started it); the day's random salts, for 72 hours; hits staged for a minute at most
 * (`stage`); and its flush position. The visits under way are kept in memory (`VisitState`).
 */
import type { Env } from '../env.ts';
import { randomBytes, toHex } from '../lib/crypto.ts';
import { addDays } from '../lib/dates.ts';
import { logError } from '../lib/log.ts';
import { STAT_NAMES } from '../stats/names.ts';
import {
  type EventDimensions,
  type LoggedEvent,
  type LogHit,
  rollupOf,
  visitorHash,
} from './events.ts';
import { type Applied, appliedPosition, applyFlush, type FlushCost } from './flush.ts';
import {
  type LogStatsQuery,
  type LogSums,
  statisticStatement,
  sumsStatement,
  topValuesStatement,
} from './log-query.ts';

/** A new visit starts after this long without a page view (docs/ARCHITECTURE.md). */
const VISIT_GAP_MS = 30 * 60 * 1000;
/**
 * How soon after the first unflushed event the alarm flushes. Readers flush first anyway
 * (read-your-writes), so the delay only decides how many events one flush sums, and so how
 * many D1 rows each page view shares: the longer, the fewer (measured in
 * test/integration/website-log-cost.test.ts and the benchmark).
 */
export const FLUSH_DELAY_MS = 10_000;
/** Events per D1 batch of a flush; a longer backlog is flushed in several. */
const FLUSH_BATCH = 5_000;
/** Visitor hashes are forgotten 48 hours after they were last seen, salts after 72. */
const VISITOR_TTL_MS = 48 * 3_600_000;
const SALT_TTL_MS = 72 * 3_600_000;
/** The alarm runs at least this often while there is anything to forget. */
const MAINTENANCE_INTERVAL_MS = 3_600_000;
/** A staged hit not committed within this long is dropped, never counted. */
export const STAGE_TTL_MS = 60_000;
/** A failed flush is tried again after this long. */
const RETRY_DELAY_MS = 30_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  time INTEGER NOT NULL,
  date TEXT NOT NULL,
  hour TEXT NOT NULL,
  visitor INTEGER NOT NULL,
  visit INTEGER NOT NULL,
  new_visitor INTEGER NOT NULL,
  new_visit INTEGER NOT NULL,
  page TEXT NOT NULL,
  referrer TEXT NOT NULL,
  campaign TEXT,
  country TEXT,
  continent TEXT,
  city TEXT,
  language TEXT,
  browser TEXT NOT NULL,
  os TEXT NOT NULL,
  device TEXT NOT NULL,
  resolution TEXT,
  event TEXT,
  visit_views INTEGER,
  previous_page TEXT,
  visit_seconds INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS visitors (
  hash TEXT PRIMARY KEY,
  date TEXT NOT NULL,
  number INTEGER NOT NULL,
  visit INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  visit_referrer TEXT NOT NULL,
  visit_start INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS days (
  first INTEGER PRIMARY KEY,
  date TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS salts (
  date TEXT PRIMARY KEY,
  salt TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS staged (
  token TEXT PRIMARY KEY,
  hit TEXT NOT NULL,
  staged_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** The version of the tables `SCHEMA` makes, kept in `meta` under `schema`. */
const SCHEMA_VERSION = 4;

/**
 * What brings the tables of an older version up to date, by the version it reaches. Version 2
 * keeps what a visit's bounce, exit page and duration need; the visits under way when a log
 * is upgraded count as visits but not in those three (their page views so far are unknown).
 */
const UPGRADES: Record<number, string> = {
  2: `
ALTER TABLE events ADD COLUMN visit_views INTEGER;
ALTER TABLE events ADD COLUMN previous_page TEXT;
ALTER TABLE events ADD COLUMN visit_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE visitors ADD COLUMN visit_views INTEGER;
ALTER TABLE visitors ADD COLUMN visit_page TEXT;
ALTER TABLE visitors ADD COLUMN visit_start INTEGER;
`,
  // A visit's page views so far and its last page live in memory (`VisitState`), rebuilt
  // from the events after a restart: the visitor's row is written when a visit starts only.
  3: `
ALTER TABLE visitors DROP COLUMN visit_views;
ALTER TABLE visitors DROP COLUMN visit_page;
`,
  // Where each local date's events are, for the queries that read the log (`idsOf`).
  4: `
CREATE TABLE days (first INTEGER PRIMARY KEY, date TEXT NOT NULL);
INSERT INTO days (first, date)
  SELECT id, date FROM (SELECT id, date, lag(date) OVER (ORDER BY id) AS before FROM events)
  WHERE before IS NULL OR before != date;
`,
};

/** A row of `events`: the dimensions under their own names, the rest as its columns. */
type EventRow = EventDimensions & {
  id: number;
  kind: string;
  time: number;
  date: string;
  hour: string;
  visitor: number;
  visit: number;
  new_visitor: number;
  new_visit: number;
  visit_views: number | null;
  previous_page: string | null;
  visit_seconds: number;
};

type VisitorRow = {
  number: number;
  visit: number;
  visit_referrer: string;
  visit_start: number | null;
};

/**
 * Where a visitor's current visit stands, kept in memory by `${date} ${visitor number}`: the
 * visit's number, its last page view's time and page, and its page views so far (null for a
 * visit under way when the log was upgraded to version 2). It changes with every page view,
 * so it is not written anywhere: every page view's event row says all of it, and a restarted
 * object reads it back from the events of the last half hour (`visitStates`).
 */
type VisitState = { visit: number; lastSeen: number; views: number | null; page: string };

/** What `storeNow` stored, for `stored` to note in memory once committed. */
type Stored = { recorded: Recorded; date: string; state?: [string, VisitState] };

/** Slack for clocks of different Workers when the visits under way are read back. */
const CLOCK_SLACK_MS = 5 * 60_000;
/** Events read per statement while reading back the visits under way. */
const READ_BACK_BATCH = 1_000;

/**
 * What `meta` holds: the website's id, the flush position, the tables' version, and whether
 * events were ever deleted (`EVENT_RETENTION_DAYS`: the log no longer holds every date).
 */
type MetaKey = 'website' | 'flushed' | 'schema' | 'pruned';

/**
 * What a read of the log answered: its value and rows read; or, for a range that starts
 * before the oldest date it holds, that date (`firstDate`); or a failure (logged).
 */
export type LogRead<T> =
  | { ok: true; value: T; rowsRead: number }
  | { ok: false; firstDate?: string };

/** A hit the log could not store (the failure is logged by the object). */
export type NotStored = { ok: false };

/** What `record` decided, and the rows its statements read and wrote (exact). */
export type Recorded = {
  ok: true;
  id: number;
  visitor: number;
  visit: number;
  newVisitor: boolean;
  newVisit: boolean;
  cost: { rowsRead: number; rowsWritten: number };
};

const NO_COST: FlushCost = { rowsWritten: 0, rowsRead: 0, statements: 0 };

/** What a flush did: events rolled up, the position reached, and D1's exact cost. */
export type Flushed = { events: number; position: number; cost: FlushCost };

/**
 * A flush's answer. A failure is an answer, not an exception: an exception would cross the
 * RPC boundary as an uncaught error of the object; the caller decides (a reader answers 503).
 */
export type FlushOutcome = ({ ok: true } & Flushed) | { ok: false };

export function toLoggedEvent(row: EventRow): LoggedEvent {
  const { kind, new_visitor, new_visit, visit_views, previous_page, visit_seconds, ...rest } = row;
  return {
    ...rest,
    kind: kind === 'event' ? 'event' : 'pageview',
    newVisitor: new_visitor === 1,
    newVisit: new_visit === 1,
    visitViews: visit_views,
    previousPage: previous_page,
    visitSeconds: visit_seconds,
  };
}

/**
 * What the log needs of its storage: a Durable Object's (`ctx.storage`), or — for the
 * benchmark's bulk loader — the same over Node's SQLite (scripts/bench/sqlite-log-storage.ts).
 */
export type LogStorage = {
  sql: SqlStorage;
  transactionSync<T>(closure: () => T): T;
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
  deleteAlarm(): Promise<void>;
  deleteAll(): Promise<void>;
};

/** What the log needs of the Worker's environment. */
export type LogEnv = Pick<Env, 'DB' | 'EVENT_RETENTION_DAYS'>;

/** A website's event log over its storage; `WebsiteLog` (website-log.ts) is its Durable Object. */
export class EventLog {
  private readonly sql: SqlStorage;
  /** Next visitor and visit numbers per date, learnt from storage on first use. */
  private readonly next = new Map<string, { visitor: number; visit: number }>();
  /** The salts of the dates seen since the last maintenance, as stored. */
  private readonly salts = new Map<string, string>();
  /** The date of the newest event (`lastDate`), once read. */
  private newestDate: string | null | undefined;
  /** The visits under way (`visitStates`), once read back after the object started. */
  private visits: Map<string, VisitState> | undefined;
  /** The website id, once noted in `meta`. */
  private website: number | undefined;
  /** When visitors, salts and old events were last forgotten (0: not since the object started). */
  private forgottenAt = 0;
  /** The flush under way; a second caller waits for it and then flushes what is left. */
  private flushing: Promise<Flushed & { websiteGone: boolean }> | undefined;
  /** When the alarm is set for (null: none), once known. */
  private alarmAt: number | null | undefined;
  /** Rows read and written by this object's statements so far (SQLite's exact counts). */
  private readonly io = { rowsRead: 0, rowsWritten: 0 };

  /**
   * Whether the tables exist: made by the first hit, so that a website that never had one
   * (whose log a reader only asks to flush) gets no storage at all.
   */
  private hasTables: boolean;

  constructor(
    private readonly storage: LogStorage,
    private readonly env: LogEnv,
  ) {
    this.sql = storage.sql;
    this.hasTables =
      this.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'")
        .toArray().length > 0;
    if (this.hasTables) this.upgrade();
  }

  /**
   * Stores one hit and decides its visitor and visit. Answers only once the row is durable
   * (the object's output gate holds the answer until storage has confirmed the write).
   */
  async record(hit: LogHit): Promise<Recorded | NotStored> {
    return this.answer('hit not stored in its log', async () => {
      this.ensureTables();
      const before = { ...this.io };
      const hash = await this.hashOf(hit);
      const recorded = this.stored(
        this.storage.transactionSync(() => this.storeNow(hit, hash, before)),
      );
      await this.scheduleAlarm(Date.now() + FLUSH_DELAY_MS);
      return recorded;
    });
  }

  /**
   * The first half of storing a hit that is one of several of a tracker call (Plausible's
   * `d: "a.com,b.com"` names several websites, each with its own log): the hit is kept under
   * `token`, durable but not counted, until `commit` or `abort`. A hit staged and never
   * committed is dropped after `STAGE_TTL_MS`: a call is counted in every log or in none.
   */
  async stage(token: string, hit: LogHit): Promise<{ ok: true } | NotStored> {
    return this.answer('hit not staged in its log', async () => {
      this.ensureTables();
      this.rows(
        'INSERT INTO staged (token, hit, staged_at) VALUES (?, ?, ?) ON CONFLICT (token) DO NOTHING',
        token,
        JSON.stringify(hit),
        Date.now(),
      );
      await this.scheduleAlarm(Date.now() + STAGE_TTL_MS);
      return { ok: true as const };
    });
  }

  /**
   * Stores the hit staged under `token`, as `record` would; `{ok: true, recorded: null}` when
   * there is none (any more: committed already, aborted, or dropped).
   */
  async commit(token: string): Promise<{ ok: true; recorded: Recorded | null } | NotStored> {
    return this.answer('staged hit not committed', async () => {
      const none = { ok: true as const, recorded: null };
      if (!this.hasTables) return none;
      const row = this.rows<{ hit: string }>('SELECT hit FROM staged WHERE token = ?', token)[0];
      if (!row) return none;
      const hit = JSON.parse(row.hit) as LogHit;
      const before = { ...this.io };
      const hash = await this.hashOf(hit);
      // Taking the staged row and storing the hit are one transaction: a failure keeps the
      // row for the next try; a second commit that ran while the hash was made finds none.
      const outcome = this.storage.transactionSync(() =>
        this.rows('DELETE FROM staged WHERE token = ? RETURNING token', token).length === 0
          ? null
          : this.storeNow(hit, hash, before),
      );
      const recorded = outcome && this.stored(outcome);
      await this.scheduleAlarm(Date.now() + FLUSH_DELAY_MS);
      return { ok: true as const, recorded };
    });
  }

  /**
   * Runs a method's work and answers; a failure is an answer (`{ok: false}`, logged here), not
   * an exception: an exception would cross the RPC boundary as an uncaught error of the
   * object. The caller decides what a failure means (the hit endpoints answer 503).
   */
  private async answer<T>(failure: string, work: () => Promise<T>): Promise<T | NotStored> {
    try {
      return await work();
    } catch (err) {
      logError(failure, { website: this.hasTables ? this.meta('website') : 0 }, err);
      return { ok: false };
    }
  }

  /** Drops the hit staged under `token`, if any: it is never counted. */
  abort(token: string): void {
    if (this.hasTables) this.rows('DELETE FROM staged WHERE token = ?', token);
  }

  /** Makes the tables on the first hit. */
  private ensureTables(): void {
    if (this.hasTables) return;
    this.sql.exec(SCHEMA);
    this.hasTables = true;
    this.setMeta('schema', SCHEMA_VERSION);
  }

  /** Brings tables made by an older version up to date (once, when the object starts). */
  private upgrade(): void {
    const from = this.meta('schema') || 1;
    if (from >= SCHEMA_VERSION) return;
    this.storage.transactionSync(() => {
      for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
        const statements = UPGRADES[version];
        if (statements) this.sql.exec(statements);
      }
      this.setMeta('schema', SCHEMA_VERSION);
    });
  }

  /** The day's visitor hash of a hit (made with the day's salt, made on first use). */
  private hashOf(hit: LogHit): Promise<string> {
    if (this.website !== hit.websiteId) {
      this.setMeta('website', hit.websiteId);
      this.website = hit.websiteId;
    }
    return visitorHash(this.saltFor(hit.date, hit.time), hit.websiteId, hit.ip, hit.userAgent);
  }

  /**
   * Decides the hit's visitor and visit and writes the event (and the visitor, when a visit
   * starts), in one synchronous step and one storage transaction: nothing awaits between
   * reading the visitor and writing, so two hits of one visitor are decided one after the
   * other, in arrival order; and a write that fails takes the others back with it, so a retry
   * is decided as if the failed attempt never happened. The visit's new state is answered,
   * for `stored` to keep once the transaction has committed.
   */
  private storeNow(
    hit: LogHit,
    hash: string,
    before: { rowsRead: number; rowsWritten: number },
  ): Stored {
    const known = this.rows<VisitorRow>(
      'SELECT number, visit, visit_referrer, visit_start FROM visitors WHERE hash = ?',
      hash,
    )[0];
    let decided: Omit<Recorded, 'ok' | 'id' | 'cost'>;
    let visit: Pick<LoggedEvent, 'visitViews' | 'previousPage' | 'visitSeconds'> = {
      visitViews: null,
      previousPage: null,
      visitSeconds: 0,
    };
    let state: [string, VisitState] | undefined;
    if (hit.kind === 'pageview') {
      // The visitor's visit under way, if the one in memory is the visitor's current one.
      const current = known && this.visitStates().get(`${hit.date} ${known.number}`);
      const under = current?.visit === known?.visit ? current : undefined;
      // A visit goes on within 30 minutes of the last page view, unless the visitor arrives
      // from another site than the one that started it (reloads and single-page-app
      // navigations repeat that referrer).
      const goesOn =
        known !== undefined &&
        under !== undefined &&
        under.lastSeen > hit.time - VISIT_GAP_MS &&
        (hit.referrer === '' || known.visit_referrer === hit.referrer);
      decided = {
        visitor: known?.number ?? this.take(hit.date, 'visitor'),
        visit: goesOn ? known.visit : this.take(hit.date, 'visit'),
        newVisitor: known === undefined,
        newVisit: !goesOn,
      };
      if (!goesOn) visit = { visitViews: 1, previousPage: null, visitSeconds: 0 };
      else if (under.views !== null && known.visit_start !== null)
        visit = {
          visitViews: under.views + 1,
          previousPage: under.page,
          // Whole seconds since the visit's start, less those counted already: the visit's
          // seconds add up to floor((last - first) / 1000) exactly.
          visitSeconds: Math.max(
            0,
            Math.floor((hit.time - known.visit_start) / 1000) -
              Math.floor((under.lastSeen - known.visit_start) / 1000),
          ),
        };
      // else: a visit under way when the log was upgraded; its views so far are unknown.
      state = [
        `${hit.date} ${decided.visitor}`,
        {
          visit: decided.visit,
          lastSeen: goesOn ? Math.max(under.lastSeen, hit.time) : hit.time,
          views: visit.visitViews,
          page: hit.page,
        },
      ];
      // The visitor's row changes only when a visit starts: its page views are in memory.
      if (!goesOn)
        this.rows(
          `INSERT INTO visitors (hash, date, number, visit, last_seen, visit_referrer, visit_start)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (hash) DO UPDATE SET
            visit = excluded.visit,
            last_seen = max(last_seen, excluded.last_seen),
            visit_referrer = excluded.visit_referrer,
            visit_start = excluded.visit_start`,
          hash,
          hit.date,
          decided.visitor,
          decided.visit,
          hit.time,
          hit.referrer,
          hit.time,
        );
    } else {
      decided = {
        visitor: known?.number ?? 0,
        visit: known?.visit ?? 0,
        newVisitor: false,
        newVisit: false,
      };
    }
    const id = this.one<{ id: number }>(
      `INSERT INTO events (kind, time, date, hour, visitor, visit, new_visitor, new_visit, page,
          referrer, campaign, country, continent, city, language, browser, os, device,
          resolution, event, visit_views, previous_page, visit_seconds)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      hit.kind,
      hit.time,
      hit.date,
      hit.hour,
      decided.visitor,
      decided.visit,
      decided.newVisitor ? 1 : 0,
      decided.newVisit ? 1 : 0,
      hit.page,
      hit.referrer,
      hit.campaign,
      hit.country,
      hit.continent,
      hit.city,
      hit.language,
      hit.browser,
      hit.os,
      hit.device,
      hit.resolution,
      hit.event,
      visit.visitViews,
      visit.previousPage,
      visit.visitSeconds,
    ).id;
    // A run of events of one date starts here: what lets a query read only its dates.
    if (hit.date !== this.lastDate())
      this.rows('INSERT INTO days (first, date) VALUES (?, ?)', id, hit.date);
    const cost = {
      rowsRead: this.io.rowsRead - before.rowsRead,
      rowsWritten: this.io.rowsWritten - before.rowsWritten,
    };
    return {
      recorded: { ok: true, id, ...decided, cost },
      date: hit.date,
      ...(state ? { state } : {}),
    };
  }

  /**
   * Notes a stored page view's visit in memory, once its transaction has committed: a write
   * that failed leaves the visit as it was, so a retry is decided as if it never happened.
   */
  private stored(outcome: Stored): Recorded {
    if (outcome.state) this.visitStates().set(...outcome.state);
    this.newestDate = outcome.date;
    return outcome.recorded;
  }

  /** The local date of the newest event (null before the first). */
  private lastDate(): string | null {
    if (this.newestDate === undefined)
      this.newestDate =
        this.rows<{ date: string }>('SELECT date FROM days ORDER BY first DESC LIMIT 1')[0]?.date ??
        null;
    return this.newestDate;
  }

  /**
   * The visits under way, by `${date} ${visitor}`; after a restart, read back from the page
   * views of the half hour before the newest event (and some slack for the clocks of
   * different Workers): a visit whose last page view is older than that cannot go on. Reads
   * the log backwards, a batch at a time, so the cost is the last half hour's events and one
   * batch more.
   */
  private visitStates(): Map<string, VisitState> {
    if (this.visits) return this.visits;
    const visits = new Map<string, VisitState>();
    let below = Number.MAX_SAFE_INTEGER;
    let cutoff: number | undefined;
    for (;;) {
      const rows = this.rows<{
        id: number;
        kind: string;
        time: number;
        date: string;
        visitor: number;
        visit: number;
        page: string;
        visit_views: number | null;
      }>(
        `SELECT id, kind, time, date, visitor, visit, page, visit_views FROM events
          WHERE id < ? ORDER BY id DESC LIMIT ?`,
        below,
        READ_BACK_BATCH,
      );
      let current = false;
      for (const row of rows) {
        cutoff ??= row.time - VISIT_GAP_MS - CLOCK_SLACK_MS;
        if (row.time < cutoff) continue;
        current = true;
        const key = `${row.date} ${row.visitor}`;
        if (row.kind === 'pageview' && !visits.has(key))
          visits.set(key, {
            visit: row.visit,
            lastSeen: row.time,
            views: row.visit_views,
            page: row.page,
          });
      }
      // Done at the first batch with nothing recent: arrival order and time order may
      // differ a little (the clocks of different Workers).
      const last = rows.at(-1);
      if (!last || !current || rows.length < READ_BACK_BATCH) break;
      below = last.id;
    }
    this.visits = visits;
    return visits;
  }

  /** Forgets the visits in memory that can no longer go on. */
  private pruneVisits(): void {
    if (!this.visits) return;
    let newest = 0;
    for (const state of this.visits.values()) newest = Math.max(newest, state.lastSeen);
    for (const [key, state] of this.visits)
      if (state.lastSeen < newest - VISIT_GAP_MS - CLOCK_SLACK_MS) this.visits.delete(key);
  }

  /**
   * Rolls every unflushed event up into D1 (read-your-writes: readers call this first).
   * Flushes run one at a time; a caller that finds one under way waits for it and then
   * flushes whatever arrived meanwhile.
   */
  async flush(): Promise<FlushOutcome> {
    if (!this.hasTables) return { ok: true, events: 0, position: 0, cost: NO_COST };
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = this.flushAll();
    try {
      const flushed = await this.flushing;
      if (flushed.websiteGone) await this.destroy();
      return { ok: true, events: flushed.events, position: flushed.position, cost: flushed.cost };
    } catch (err) {
      logError('flush failed', { website: this.meta('website') }, err);
      await this.scheduleAlarm(Date.now() + RETRY_DELAY_MS);
      return { ok: false };
    } finally {
      this.flushing = undefined;
    }
  }

  /** Visitors whose last page view was in the five minutes before `now`. */
  realtime(now: number): number {
    if (!this.hasTables) return 0;
    let seen = 0;
    for (const state of this.visitStates().values()) if (state.lastSeen > now - 300_000) seen++;
    return seen;
  }

  /**
   * One statistic read from the log (a filtered question: src/stats/filters.ts), sorted, with
   * the page `offset`/`limit` of its values and how many there are. `firstDate` instead when
   * the range starts before the oldest date the log still holds (after `EVENT_RETENTION_DAYS`
   * deleted events).
   */
  async statistic(
    q: LogStatsQuery & { limit: number; offset: number },
  ): Promise<LogRead<{ rows: { value: string; count: number }[]; total: number }>> {
    return this.read(q.from, q.to, { rows: [], total: 0 }, (ids) => {
      const statement = statisticStatement(q, ids);
      const rows = this.rows<{ value: string; count: number }>(statement.text, ...statement.params);
      return { rows: rows.slice(q.offset, q.offset + q.limit), total: rows.length };
    });
  }

  /**
   * The first page (`limit` values by count, or by value) of each of several statistics, as
   * `statistic` answers each, in one read of the log (the statistics page's panels and chart).
   */
  async topValues(
    q: Parameters<typeof topValuesStatement>[0],
  ): Promise<LogRead<{ rows: { value: string; count: number }[]; total: number }[]>> {
    const pages = () =>
      q.names.map(() => ({ rows: [] as { value: string; count: number }[], total: 0 }));
    return this.read(q.from, q.to, pages(), (ids) => {
      if (!q.names.every((name) => STAT_NAMES.includes(name))) throw new Error('unknown statistic');
      const statement = topValuesStatement(q, ids);
      const answer = pages();
      for (const row of this.rows<{ q: number; value: string; count: number; total: number }>(
        statement.text,
        ...statement.params,
      )) {
        const page = answer[row.q];
        if (!page) continue;
        page.rows.push({ value: row.value, count: row.count });
        page.total = row.total;
      }
      return answer;
    });
  }

  /** The sums of a summary's figures over the kept events of a range, as `statistic`. */
  async sums(q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>): Promise<LogRead<LogSums>> {
    const none = { visitors: 0, visits: 0, pageviews: 0, bounces: 0, visit_duration: 0, event: 0 };
    return this.read(q.from, q.to, none, (ids) => {
      const statement = sumsStatement(q, ids);
      return this.one<LogSums>(statement.text, ...statement.params);
    });
  }

  /**
   * Runs a read over the events of `from`–`to`, counting its rows read; `none` for a log
   * that has no tables yet (its website never had a hit).
   */
  private read<T>(
    from: string,
    to: string,
    none: T,
    work: (ids: [number, number]) => T,
  ): Promise<LogRead<T>> {
    return this.answer('log not read', async () => {
      if (!this.hasTables) return { ok: true as const, value: none, rowsRead: 0 };
      const before = this.io.rowsRead;
      const firstDate = this.firstDate();
      if (firstDate !== null && from < firstDate) return { ok: false as const, firstDate };
      const value = work(this.idsOf(from, to));
      return { ok: true as const, value, rowsRead: this.io.rowsRead - before };
    });
  }

  /**
   * The ids between which the events of the dates `from`–`to` lie (`days` notes where each
   * run of one date's events starts); [1, 0] when there are none.
   */
  private idsOf(from: string, to: string): [number, number] {
    const row = this.one<{ low: number | null; high: number | null }>(
      `SELECT min(d.first) AS low,
          max(coalesce((SELECT min(n.first) FROM days n WHERE n.first > d.first) - 1, ?)) AS high
        FROM days d WHERE d.date BETWEEN ? AND ?`,
      Number.MAX_SAFE_INTEGER,
      from,
      to,
    );
    return row.low === null || row.high === null ? [1, 0] : [row.low, row.high];
  }

  /**
   * The oldest date the log holds: null while it has deleted no event (it holds every date
   * since its first hit). Events are deleted by whole dates (`forget`), so that date is whole.
   */
  private firstDate(): string | null {
    if (this.meta('pruned') !== 1) return null;
    const oldest = this.rows<{ date: string }>('SELECT date FROM events ORDER BY id LIMIT 1')[0]
      ?.date;
    return oldest ?? addDays(new Date().toISOString().slice(0, 10), 1);
  }

  /** Deletes everything the object stores (its website was deleted). */
  async destroy(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
    this.next.clear();
    this.salts.clear();
    this.visits = undefined;
    this.newestDate = undefined;
    this.website = undefined;
    this.alarmAt = null;
    this.hasTables = false;
  }

  /** Flushes, forgets old visitors and salts, prunes events past the retention, re-arms. */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    if (!this.hasTables) return;
    const now = Date.now();
    // A failed flush has set its retry (and logged); forgetting goes on regardless.
    const flushed = await this.flush();
    if (!this.hasTables) return; // the website is gone, and so is everything here
    this.forget(now);
    this.pruneVisits();
    if (flushed.ok && this.pendingEvents() > 0) await this.scheduleAlarm(now + FLUSH_DELAY_MS);
    else if (this.holdsAnythingToForget()) await this.scheduleAlarm(now + MAINTENANCE_INTERVAL_MS);
  }

  /** Flushes in batches; `websiteGone` when D1 no longer has the website (nothing written). */
  private async flushAll(): Promise<Flushed & { websiteGone: boolean }> {
    const websiteId = this.meta('website');
    const total = {
      events: 0,
      position: this.meta('flushed'),
      cost: { ...NO_COST },
      websiteGone: false,
    };
    if (!websiteId) return total;
    for (;;) {
      const from = this.meta('flushed');
      const rows = this.rows<EventRow>(
        'SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?',
        from,
        FLUSH_BATCH,
      );
      const last = rows.at(-1);
      if (!last) break;
      let cost: Applied;
      try {
        cost = await applyFlush(
          this.env.DB,
          websiteId,
          from,
          last.id,
          rollupOf(rows.map(toLoggedEvent)),
        );
      } catch (err) {
        // A flush that committed without this object learning it (an answer lost, an
        // eviction between the commit and the note) left D1 ahead: adopt its position.
        const applied = await appliedPosition(this.env.DB, websiteId);
        if (applied <= from) throw err;
        this.setMeta('flushed', applied);
        continue;
      }
      if (cost.websiteGone) {
        total.websiteGone = true;
        break;
      }
      this.setMeta('flushed', last.id);
      total.events += rows.length;
      total.position = last.id;
      total.cost.rowsWritten += cost.rowsWritten;
      total.cost.rowsRead += cost.rowsRead;
      total.cost.statements += cost.statements;
    }
    return total;
  }

  /** Events not yet rolled up into D1. */
  private pendingEvents(): number {
    return this.one<{ n: number }>(
      'SELECT count(*) AS n FROM events WHERE id > ?',
      this.meta('flushed'),
    ).n;
  }

  private holdsAnythingToForget(): boolean {
    const held = this.one<{ held: number }>(
      `SELECT EXISTS (SELECT 1 FROM visitors) OR EXISTS (SELECT 1 FROM salts)
        OR EXISTS (SELECT 1 FROM staged) AS held`,
    ).held;
    return (
      held === 1 ||
      (this.retentionDays() !== null && this.rows('SELECT 1 FROM events LIMIT 1').length > 0)
    );
  }

  /**
   * Staged hits after a minute, at every alarm (the table is nearly always empty); at most
   * hourly — not at every flush of a busy log, since each deletion scans its table — visitors
   * after 48 hours, salts after 72, rolled-up events past `EVENT_RETENTION_DAYS`.
   */
  private forget(now: number): void {
    this.rows('DELETE FROM staged WHERE staged_at < ?', now - STAGE_TTL_MS);
    if (now - this.forgottenAt < MAINTENANCE_INTERVAL_MS) return;
    this.forgottenAt = now;
    this.rows('DELETE FROM visitors WHERE last_seen < ?', now - VISITOR_TTL_MS);
    this.rows('DELETE FROM salts WHERE created_at < ?', now - SALT_TTL_MS);
    this.salts.clear();
    const days = this.retentionDays();
    if (days !== null) {
      const before = this.io.rowsWritten;
      // Whole local dates at a time, so that the oldest date left is whole (`firstDate`).
      this.rows(
        'DELETE FROM events WHERE date < ? AND id <= ?',
        new Date(now - days * 86_400_000).toISOString().slice(0, 10),
        this.meta('flushed'),
      );
      if (this.io.rowsWritten > before) this.setMeta('pruned', 1);
    }
  }

  /** `EVENT_RETENTION_DAYS` as a whole number of days, or null to keep every event. */
  private retentionDays(): number | null {
    const setting = this.env.EVENT_RETENTION_DAYS;
    if (setting === undefined || setting === '') return null;
    const days = Number(setting);
    return Number.isInteger(days) && days > 0 ? days : null;
  }

  /** The random salt of a local date, made on first use. */
  private saltFor(date: string, now: number): string {
    const known = this.salts.get(date);
    if (known) return known;
    const row = this.rows<{ salt: string }>('SELECT salt FROM salts WHERE date = ?', date)[0];
    const salt = row?.salt ?? toHex(randomBytes(32));
    if (!row)
      this.rows('INSERT INTO salts (date, salt, created_at) VALUES (?, ?, ?)', date, salt, now);
    this.salts.set(date, salt);
    return salt;
  }

  /** The next visitor or visit number of a date. */
  private take(date: string, kind: 'visitor' | 'visit'): number {
    let counters = this.next.get(date);
    if (!counters) {
      const row = this.one<{ visitor: number | null; visit: number | null }>(
        'SELECT max(number) AS visitor, max(visit) AS visit FROM visitors WHERE date = ?',
        date,
      );
      counters = { visitor: (row.visitor ?? 0) + 1, visit: (row.visit ?? 0) + 1 };
      if (this.next.size > 3) this.next.clear();
      this.next.set(date, counters);
    }
    const number = counters[kind];
    counters[kind] += 1;
    return number;
  }

  private async scheduleAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.storage.setAlarm(at);
  }

  /** Runs one statement and returns its rows, counting the rows it read and wrote. */
  private rows<T extends Record<string, SqlStorageValue>>(
    query: string,
    ...params: SqlStorageValue[]
  ): T[] {
    const cursor = this.sql.exec<T>(query, ...params);
    const rows = cursor.toArray();
    this.io.rowsRead += cursor.rowsRead;
    this.io.rowsWritten += cursor.rowsWritten;
    return rows;
  }

  /** Runs a statement that returns exactly one row (an aggregate, `RETURNING`). */
  private one<T extends Record<string, SqlStorageValue>>(
    query: string,
    ...params: SqlStorageValue[]
  ): T {
    const row = this.rows<T>(query, ...params)[0];
    if (!row) throw new Error('expected a row');
    return row;
  }

  private meta(key: MetaKey): number {
    return this.rows<{ value: number }>('SELECT value FROM meta WHERE key = ?', key)[0]?.value ?? 0;
  }

  private setMeta(key: MetaKey, value: number): void {
    if (this.meta(key) === value) return;
    this.rows(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }
}
