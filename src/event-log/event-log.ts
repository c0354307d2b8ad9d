/**
 * One website's event log, over SQLite storage: in production a Durable Object's, one per
 * website (`WebsiteLog`, ./website-log.ts; docs/ARCHITECTURE.md). It keeps one row per
 * stored page view or custom event, decides in arrival order — an object runs one request at a time — whether a page view is its
 * visitor's first of the day and whether it starts a visit, and rolls the log up into D1's
 * daily `stats`, exactly once, on an alarm ten seconds after the first unflushed event or
 * when a reader asks (`flush`).
 *
 * What it stores: the events (their dimensions, local date and hour, the visitor's and the
 * visit's number of that day — never an address, a User-Agent or a hash); the visitors of the
 * last 48 hours (the day's salted hash, their numbers, their visit's start and the referrer
 * that started it); the day's random salts, for 72 hours; hits staged for a minute at most
 * (`stage`); and its flush position. The visits under way are kept in memory (`VisitState`).
 *
 * Its parts: the tables (./log-schema.ts), its statements and their exact cost (./log-db.ts),
 * visitors and visits (./visits.ts), the dates it holds (./days.ts), its reads
 * (./log-reads.ts), its flush into D1 (./flush.ts), what it forgets (./retention.ts).
 */
import { logError } from '../lib/log.ts';
import { randomOnFirstUse } from '../lib/random-on-first-use.ts';
import { firstDate, idsOf, newestDate, noteDayStart } from './days.ts';
import { type LogHit, visitorHash } from './events.ts';
import { type Flushed, flushEvents, NO_COST, pendingEvents } from './flush.ts';
import { LogDb } from './log-db.ts';
import type { LogStatsQuery, LogSums } from './log-query.ts';
import {
  emptyPage,
  noSums,
  readStatistic,
  readSums,
  readTopValues,
  type TopValuesQuery,
  type ValuePage,
} from './log-reads.ts';
import { createTables, insertEvent, upgradeTables } from './log-schema.ts';
import type {
  FlushOutcome,
  LogEnv,
  LogRead,
  LogStorage,
  NotStored,
  Recorded,
} from './log-types.ts';
import { forgetExpired, holdsAnythingToForget, retentionDays } from './retention.ts';
import { decideHit, pruneVisits, readBackVisits, VisitNumbers, type VisitState } from './visits.ts';

/**
 * How soon after the first unflushed event the alarm flushes. Readers flush first anyway
 * (read-your-writes), so the delay only decides how many events one flush sums, and so how
 * many D1 rows each page view shares: the longer, the fewer (measured in
 * test/integration/website-log-cost.test.ts and the benchmark).
 */
export const FLUSH_DELAY_MS = 10_000;
/** The alarm runs at least this often while there is anything to forget. */
const MAINTENANCE_INTERVAL_MS = 3_600_000;
/** A staged hit not committed within this long is dropped, never counted. */
export const STAGE_TTL_MS = 60_000;
/** A failed flush is tried again after this long. */
const RETRY_DELAY_MS = 30_000;

/** What `storeNow` stored, for `stored` to note in memory once committed. */
type Stored = { recorded: Recorded; date: string; state?: [string, VisitState] };

/** A website's event log over its storage; `WebsiteLog` (website-log.ts) is its Durable Object. */
export class EventLog {
  private readonly db: LogDb;
  /** Next visitor and visit numbers per date. */
  private readonly numbers = new VisitNumbers();
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

  /**
   * Whether the tables exist: made by the first hit, so that a website that never had one
   * (whose log a reader only asks to flush) gets no storage at all.
   */
  private hasTables: boolean;

  constructor(
    private readonly storage: LogStorage,
    private readonly env: LogEnv,
  ) {
    this.db = new LogDb(storage.sql);
    this.hasTables = this.db.hasTable('events');
    if (this.hasTables) upgradeTables(this.db, (work) => storage.transactionSync(work));
  }

  /**
   * Stores one hit and decides its visitor and visit. Answers only once the row is durable
   * (the object's output gate holds the answer until storage has confirmed the write).
   */
  async record(hit: LogHit): Promise<Recorded | NotStored> {
    return this.answer('hit not stored in its log', async () => {
      this.ensureTables();
      const before = { ...this.db.io };
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
      this.db.rows(
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
      const row = this.db.rows<{ hit: string }>('SELECT hit FROM staged WHERE token = ?', token)[0];
      if (!row) return none;
      const hit = JSON.parse(row.hit) as LogHit;
      const before = { ...this.db.io };
      const hash = await this.hashOf(hit);
      // Taking the staged row and storing the hit are one transaction: a failure keeps the
      // row for the next try; a second commit that ran while the hash was made finds none.
      const outcome = this.storage.transactionSync(() =>
        this.db.rows('DELETE FROM staged WHERE token = ? RETURNING token', token).length === 0
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
      logError(failure, { website: this.hasTables ? this.db.meta('website') : 0 }, err);
      return { ok: false };
    }
  }

  /** Drops the hit staged under `token`, if any: it is never counted. */
  abort(token: string): void {
    if (this.hasTables) this.db.rows('DELETE FROM staged WHERE token = ?', token);
  }

  /** Makes the tables on the first hit. */
  private ensureTables(): void {
    if (this.hasTables) return;
    createTables(this.db);
    this.hasTables = true;
  }

  /** The day's visitor hash of a hit (made with the day's salt, made on first use). */
  private hashOf(hit: LogHit): Promise<string> {
    if (this.website !== hit.websiteId) {
      this.db.setMeta('website', hit.websiteId);
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
    const { decided, facts, state } = decideHit(
      this.db,
      this.numbers,
      () => this.visitStates(),
      hit,
      hash,
    );
    const id = insertEvent(this.db, hit, decided, facts);
    // A run of events of one date starts here: what lets a query read only its dates.
    if (hit.date !== this.lastDate()) noteDayStart(this.db, id, hit.date);
    const cost = {
      rowsRead: this.db.io.rowsRead - before.rowsRead,
      rowsWritten: this.db.io.rowsWritten - before.rowsWritten,
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
    if (this.newestDate === undefined) this.newestDate = newestDate(this.db);
    return this.newestDate;
  }

  /** The visits under way, by `visitKey`; read back from the events after a restart. */
  private visitStates(): Map<string, VisitState> {
    this.visits ??= readBackVisits(this.db);
    return this.visits;
  }

  /**
   * Rolls every unflushed event up into D1 (read-your-writes: readers call this first).
   * Flushes run one at a time; a caller that finds one under way waits for it and then
   * flushes whatever arrived meanwhile.
   */
  async flush(): Promise<FlushOutcome> {
    if (!this.hasTables) return { ok: true, events: 0, position: 0, cost: NO_COST };
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = flushEvents(this.db, this.env.DB);
    try {
      const flushed = await this.flushing;
      if (flushed.websiteGone) await this.destroy();
      return { ok: true, events: flushed.events, position: flushed.position, cost: flushed.cost };
    } catch (err) {
      logError('flush failed', { website: this.db.meta('website') }, err);
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
  ): Promise<LogRead<ValuePage>> {
    return this.read(q.from, q.to, emptyPage(), (ids) => readStatistic(this.db, q, ids));
  }

  /**
   * The first page (`limit` values by count, or by value) of each of several statistics, as
   * `statistic` answers each, in one read of the log (the statistics page's panels and chart).
   */
  async topValues(q: TopValuesQuery): Promise<LogRead<ValuePage[]>> {
    const none = q.names.map(emptyPage);
    return this.read(q.from, q.to, none, (ids) => readTopValues(this.db, q, ids));
  }

  /** The sums of a summary's figures over the kept events of a range, as `statistic`. */
  async sums(q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>): Promise<LogRead<LogSums>> {
    return this.read(q.from, q.to, noSums(), (ids) => readSums(this.db, q, ids));
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
      const before = this.db.io.rowsRead;
      const first = firstDate(this.db);
      if (first !== null && from < first) return { ok: false as const, firstDate: first };
      const value = work(idsOf(this.db, from, to));
      return { ok: true as const, value, rowsRead: this.db.io.rowsRead - before };
    });
  }

  /** Deletes everything the object stores (its website was deleted). */
  async destroy(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
    this.numbers.clear();
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
    if (this.visits) pruneVisits(this.visits);
    if (flushed.ok && pendingEvents(this.db) > 0) await this.scheduleAlarm(now + FLUSH_DELAY_MS);
    else if (holdsAnythingToForget(this.db, retentionDays(this.env.EVENT_RETENTION_DAYS)))
      await this.scheduleAlarm(now + MAINTENANCE_INTERVAL_MS);
  }

  /**
   * Staged hits after a minute, at every alarm (the table is nearly always empty); at most
   * hourly — not at every flush of a busy log, since each deletion scans its table — the
   * visitors, salts and events past their time (./retention.ts).
   */
  private forget(now: number): void {
    this.db.rows('DELETE FROM staged WHERE staged_at < ?', now - STAGE_TTL_MS);
    if (now - this.forgottenAt < MAINTENANCE_INTERVAL_MS) return;
    this.forgottenAt = now;
    forgetExpired(this.db, now, retentionDays(this.env.EVENT_RETENTION_DAYS));
    this.salts.clear();
  }

  /** The random salt of a local date, made on first use. */
  private saltFor(date: string, now: number): string {
    return randomOnFirstUse(this.salts, date, (fresh) => {
      const row = this.db.rows<{ salt: string }>('SELECT salt FROM salts WHERE date = ?', date)[0];
      if (row) return row.salt;
      const salt = fresh();
      this.db.rows('INSERT INTO salts (date, salt, created_at) VALUES (?, ?, ?)', date, salt, now);
      return salt;
    });
  }

  private async scheduleAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.storage.setAlarm(at);
  }
}
