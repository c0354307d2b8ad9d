/** The website log over its storage: hits, engagement, staged calls, flush, alarm, reads. */
import { logError } from '../../lib/log.ts';
import { QueuedRuns } from '../../lib/queued-runs.ts';
import { NO_COST } from '../../rollups/increments.ts';
import type { Dropped, FlushOutcome, LogEnv, LogStorage, NotStored, Recorded } from '../answers.ts';
import { daySalt, type LogHit, visitorHash } from '../events.ts';
import { flushDueAt, flushEvents, type Waiting, waitingIn } from './flush.ts';
import { forgetsAnswers, isClosed, type Moved, movedFrom, sentBack } from './partition.ts';
import { forgetAnswers } from './read/answer-cache.ts';
import { TooCostly } from './read/filters/dictionary-search.ts';
import { LogReads } from './read/methods.ts';
import {
  Forgetting,
  holdsAnythingToForget,
  MAINTENANCE_INTERVAL_MS,
  retentionDays,
} from './retention.ts';
import { latestDate, newestDate, noteDayStart } from './tables/days.ts';
import { Dictionary } from './tables/dictionary.ts';
import { LogDb } from './tables/log-db.ts';
import { insertEvent } from './tables/rows.ts';
import { createTables, nextEventId, upgradeTables } from './tables/versions.ts';
import { type Engaged, engaged } from './write/engagement.ts';
import {
  type Committed,
  type Leaders,
  type Settlement,
  StagedCalls,
} from './write/staged-calls.ts';
import {
  decideHit,
  pruneVisits,
  readBackVisits,
  VisitNumbers,
  type VisitState,
  visitorsAfter,
} from './write/visits.ts';

/**
 * How often, at most, a flush with nothing to roll up compares the log's position with D1's (a
 * D1 restored to an earlier state gets its roll-ups again within minutes: ./flush.ts).
 */
const VERIFY_INTERVAL_MS = 300_000;
/** A failed flush is tried again after this long; a retention with more to delete goes on after this. */
const RETRY_DELAY_MS = 30_000;
const RETENTION_PAUSE_MS = 1_000;

/** What `storeNow` stored, for `stored` to note in memory once committed. */
type Stored = { recorded: Recorded; date: string; state?: [string, VisitState] };

/**
 * The website log over its storage (docs/ARCHITECTURE.md, "The event log"); the Durable Object
 * (./durable-object.ts) holds one, the benchmark's loader one over a local SQLite file.
 */
export class WebsiteLogCore {
  /** Its reads: questions, funnels, journeys, properties, the export (./read/methods.ts). */
  readonly reads: LogReads;
  private readonly db: LogDb;
  /** The texts of the log, by id (./tables/dictionary.ts). */
  private readonly dict: Dictionary;
  /** The hits of calls naming several websites, staged until settled (./write/staged-calls.ts). */
  private readonly staging: StagedCalls;
  /** Next visitor and visit numbers per date. */
  private readonly numbers = new VisitNumbers();
  /** The salts of the dates seen since the last maintenance, as stored. */
  private readonly salts = new Map<string, string>();
  /** The date of the newest event (`lastDate`) and the latest date held, once read. */
  private dates: { newest?: string | null; latest?: string | null } = {};
  /** The visits under way (`visitStates`), once read back after the object started. */
  private visits: Map<string, VisitState> | undefined;
  /** The website id, once noted in `meta`. */
  private website: number | undefined;
  /** What it forgets, and when (./retention.ts); the flushes, one after another (`flush`). */
  private readonly forgetting: Forgetting;
  private readonly flushes = new QueuedRuns(() => this.flushOnce());
  /** The id of the newest event stored, once known (ids never go backwards: `nextEventId`). */
  private lastId: number | undefined;
  /** The events waiting for a flush (./flush.ts `flushDueAt`), once read. */
  private waiting: Waiting | undefined;
  /** When a flush last compared the log's position with D1's (0: not since it started). */
  private verifiedAt = 0;
  /** When the alarm is set for (null: none), once known. */
  private alarmAt: number | null | undefined;
  /** Runs `work` in one transaction of the object's storage. */
  private readonly transaction = <T>(work: () => T): T => this.storage.transactionSync(work);
  /** Whether the tables exist (the first hit makes them: a log never hit stores nothing). */
  private hasTables: boolean;
  /** Why its tables cannot be opened (a version no release wrote), or null: they can. */
  private unopenable: string | null = null;

  constructor(
    private readonly storage: LogStorage,
    private readonly env: LogEnv,
    /** The other logs, for a staged call whose leader is another website's (none: never asked). */
    leaders?: Leaders,
  ) {
    this.db = new LogDb(storage.sql);
    this.dict = new Dictionary(this.db);
    this.hasTables = this.db.hasTable('meta');
    this.reads = new LogReads(
      this.db,
      this.dict,
      (failure, work) => this.answer(failure, work),
      () => this.hasTables,
    );
    const transaction = this.transaction;
    if (this.hasTables) this.unopenable = upgradeTables(this.db, transaction);
    this.forgetting = new Forgetting(this.db, retentionDays(env.EVENT_RETENTION_DAYS), transaction);
    this.staging = new StagedCalls({
      db: this.db,
      transaction,
      ensureTables: () => this.ensureTables(),
      hasTables: () => this.hasTables,
      hashOf: (hit) => this.hashOf(hit),
      storeIf: (hit, hash, guard) => this.storeIf(hit, hash, guard),
      scheduleAlarm: (at) => this.scheduleAlarm(at),
      leaders,
    });
  }

  /**
   * Stores one hit and decides its visitor and visit — or drops it, its visitor too fast.
   * Answers only once the row is durable (the output gate holds it until storage confirms).
   */
  async record(hit: LogHit): Promise<Recorded | Dropped | NotStored | Moved> {
    return this.answer('hit not stored in its log', async () => {
      this.ensureTables();
      const moved = await this.movedFrom(hit);
      if (moved) return moved;
      // The cost counts the day's salt and the website's id, which making the hash may write.
      const before = { ...this.db.io };
      const recorded = await this.storeIf(hit, await this.hashOf(hit), () => true, before);
      if (!recorded) throw new Error('the hit was not stored');
      if (sentBack(this.db, hit)) await this.flush();
      return recorded;
    });
  }

  /** Writes an engagement onto its page view (./write/engagement.ts), if it finds it. */
  async engage(hit: LogHit): Promise<Engaged | NotStored | Moved> {
    return this.answer('engagement not stored in its log', async () => {
      this.ensureTables();
      const moved = await this.movedFrom(hit);
      if (moved) return moved;
      const before = { ...this.db.io };
      const hash = await this.hashOf(hit);
      this.dates.latest ??= latestDate(this.db);
      const log = { db: this.db, transaction: this.transaction, latest: this.dates.latest };
      const id = this.nextId();
      const done = engaged(log, this.visitStates(), hit, hash, before, id);
      if (done.late) await (sentBack(this.db, hit) ? this.flush() : this.waitFor(id, hit.time));
      return done;
    });
  }

  /**
   * Stores a hit whose hash is made, when `guard` — run first, in the same transaction —
   * says so; answers what was stored, or null. The flush's alarm is set.
   */
  private async storeIf(
    hit: LogHit,
    hash: string,
    guard: () => boolean,
    before = { ...this.db.io },
  ): Promise<Recorded | Dropped | null> {
    let outcome: Stored | Dropped | null;
    try {
      outcome = this.transaction(() => (guard() ? this.storeNow(hit, hash, before) : null));
    } catch (err) {
      // Values the failed transaction added to the dictionary are gone with it.
      this.dict.forget();
      throw err;
    }
    if (!outcome || 'dropped' in outcome) return outcome;
    if (hit.replayed) this.forgetting.noteReplayed(Date.now());
    const recorded = this.stored(outcome);
    await this.waitFor(recorded.id, hit.time);
    return recorded;
  }

  /** Row `id`, the newest, written at `time`, waits for the flush: the flush's alarm is set. */
  private async waitFor(id: number, time: number): Promise<void> {
    this.lastId = id;
    const waiting = this.waitingNow();
    waiting.count += 1;
    waiting.oldest ??= time;
    await this.scheduleAlarm(Math.max(Date.now(), flushDueAt(waiting) ?? 0));
  }

  // The hits of a tracker call that names several websites: staged (in the open partition,
  // never sent back: the call names its leader's), committed, settled or aborted (./write/staged-calls.ts).
  async stage(token: string, hit: LogHit, leader: number): Promise<{ ok: boolean } | Moved> {
    return this.answer('hit not staged in its log', async () => {
      this.ensureTables();
      return (await this.movedFrom(hit, false)) ?? this.staging.stage(token, hit, leader);
    });
  }
  async commit(token: string): Promise<Committed | NotStored> {
    return this.answer('staged hit not committed', () => this.staging.commit(token));
  }
  settle(token: string): Settlement {
    return this.staging.settle(token);
  }
  abort(token: string): void {
    this.staging.abort(token);
  }

  /** Whether this partition takes a hit (./partition.ts); one that closes flushes at once. */
  private async movedFrom(hit: LogHit, mayGoBack = true): Promise<Moved | null> {
    const moved = movedFrom(this.db, hit, this.lastDate(), mayGoBack);
    if (moved && this.waitingNow().count > 0) await this.scheduleAlarm(Date.now());
    return moved;
  }

  /**
   * Runs a method's work and answers; a failure is an answer (`{ok: false}`, logged here; a
   * question refused for its cost says why), not an exception, which would cross the RPC
   * boundary as an uncaught error. The caller decides what a failure means.
   */
  private async answer<T>(failure: string, work: () => Promise<T>): Promise<T | NotStored> {
    try {
      if (this.unopenable) throw new Error(this.unopenable);
      return await work();
    } catch (err) {
      if (err instanceof TooCostly) return { ok: false, refused: err.message };
      logError(failure, { website: this.hasTables ? this.db.meta('website') : 0 }, err);
      return { ok: false };
    }
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
    const salt = daySalt(this.db, this.salts, hit.date, hit.time);
    return visitorHash(salt, hit.websiteId, hit.ip, hit.userAgent);
  }

  /**
   * Decides the hit's visitor and visit and writes the event (and the visitor, when a visit
   * starts), in one synchronous step and one storage transaction: nothing awaits between
   * reading the visitor and writing, so two hits of one visitor are decided one after the
   * other, in arrival order; and a write that fails takes the others back with it, so a retry
   * is decided as if the failed attempt never happened. Answers the visit's new state, for
   * `stored` to keep once committed; or the hit dropped (./write/too-fast.ts).
   */
  private storeNow(
    hit: LogHit,
    hash: string,
    before: { rowsRead: number; rowsWritten: number },
  ): Stored | Dropped {
    const id = this.nextId();
    const decision = decideHit(this.db, this.numbers, () => this.visitStates(), hit, hash, id);
    if ('tooFast' in decision)
      return { ok: true, dropped: 'too_fast', cost: this.db.since(before) };
    const { decided, facts, values, state } = decision;
    this.dates.latest ??= latestDate(this.db);
    // In the transaction that stores it: a read meanwhile keeps nothing (./read/answer-cache.ts).
    if (forgetsAnswers(hit, this.dates.latest)) forgetAnswers(this.db);
    insertEvent(this.db, this.dict, id, hit, decided, facts, values);
    // A run of events of one date starts here: what lets a query read only its dates.
    if (hit.date !== this.lastDate()) noteDayStart(this.db, id, hit.date);
    return {
      recorded: { ok: true, id, ...decided, cost: this.db.since(before) },
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
    if (outcome.date !== this.dates.newest) this.dates = { newest: outcome.date };
    return outcome.recorded;
  }

  /** The id of the next row positioned among the events (`nextEventId`). */
  private nextId = () => (this.lastId ?? nextEventId(this.db) - 1) + 1;

  /** The events waiting for a flush, read from the log after the object starts or a flush. */
  private waitingNow(): Waiting {
    this.waiting ??= waitingIn(this.db);
    return this.waiting;
  }

  /** The local date of the newest event (null before the first). */
  private lastDate(): string | null {
    if (this.dates.newest === undefined) this.dates.newest = newestDate(this.db);
    return this.dates.newest;
  }

  /** The visits under way, by `visitKey`; read back from the events after a restart. */
  private visitStates(): Map<string, VisitState> {
    this.visits ??= readBackVisits(this.db, (id) => this.dict.decodeMaybe(id) ?? '');
    return this.visits;
  }

  /**
   * Rolls every unflushed event up into D1 (read-your-writes: readers call this first).
   * Flushes form a queue, each run after the one before has ended (its storage calls too); a
   * caller joins the flush queued and not yet begun, if there is one, else queues a new one:
   * either way its flush begins after it called, so it covers every event stored before.
   */
  flush(): Promise<FlushOutcome> {
    return this.flushes.run();
  }

  private async flushOnce(): Promise<FlushOutcome> {
    if (this.unopenable) return { ok: false };
    if (!this.hasTables) return { ok: true, events: 0, position: 0, cost: NO_COST };
    try {
      const now = Date.now();
      const verify = now - this.verifiedAt >= VERIFY_INTERVAL_MS;
      const flushed = await flushEvents(this.db, this.dict, this.env.DB, verify);
      if (verify) this.verifiedAt = now;
      // Events may have come while D1 answered: read what waits again when needed.
      this.waiting = undefined;
      if (flushed.websiteGone) await this.destroy();
      // D1 ahead of every id known here (adopted): ids go on after its position.
      else if (this.db.meta('flushed') > (this.lastId ?? 0)) this.lastId = undefined;
      const { events, position, cost } = flushed;
      return { ok: true, events, position, cost, closed: this.hasTables && isClosed(this.db) };
    } catch (err) {
      logError('flush failed', { website: this.db.meta('website') }, err);
      await this.scheduleAlarm(Date.now() + RETRY_DELAY_MS);
      return { ok: false };
    }
  }

  /** Visitors whose last page view was in the five minutes before `now`. */
  realtime(now: number): number {
    if (!this.hasTables || this.unopenable) return 0;
    return visitorsAfter(this.visitStates(), now - 300_000);
  }

  /** Deletes everything the object stores (its website was deleted). */
  async destroy(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
    this.numbers.clear();
    this.salts.clear();
    this.visits = undefined;
    this.dates = {};
    this.website = undefined;
    this.alarmAt = null;
    this.lastId = undefined;
    this.waiting = undefined;
    this.hasTables = false;
    this.unopenable = null;
  }

  /**
   * Flushes, settles the staged hits that are due, forgets old visitors, salts and outcomes,
   * deletes events past the retention, and sets itself again for the soonest of: the next
   * flush, the next staged hit due, more retention, the hourly maintenance.
   */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    if (!this.hasTables || this.unopenable) return;
    const now = Date.now();
    // When its events are due (a failed flush has set its retry, and logged); the rest goes
    // on regardless.
    const due = flushDueAt(this.waitingNow());
    const flushed = due !== null && due <= now ? await this.flush() : { ok: true };
    if (!this.hasTables) return; // the website is gone, and so is everything here
    const staged = await this.staging.settleDue(now);
    const { hourly, deleted, behind } = this.forgetting.run(now);
    if (hourly) this.salts.clear();
    // The newest date's run may be gone with its events: read it again when needed.
    if (deleted > 0) this.dates = {};
    if (this.visits && !this.forgetting.loading(now)) pruneVisits(this.visits);
    const days = retentionDays(this.env.EVENT_RETENTION_DAYS);
    const next = [
      flushed.ok ? flushDueAt(this.waitingNow()) : null,
      staged,
      behind ? now + RETENTION_PAUSE_MS : null,
      holdsAnythingToForget(this.db, days) ? now + MAINTENANCE_INTERVAL_MS : null,
    ].filter((at): at is number => at !== null);
    if (next.length > 0) await this.scheduleAlarm(Math.min(...next));
  }

  private async scheduleAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.storage.setAlarm(at);
  }
}
