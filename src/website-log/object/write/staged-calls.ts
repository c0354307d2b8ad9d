/**
 * The hits of a tracker call that names several websites (Plausible's `d: "a.com,b.com"`),
 * each in its own log, counted in every log or in none (docs/ARCHITECTURE.md, "A call that
 * names several websites"). Each log stages its hit — durable, uncounted, holding the
 * visitor's hash and never the address or User-Agent — under the call's token; one of the
 * logs, the leader, decides: the call is counted once the leader has committed its hit, and
 * never once the leader has aborted it. The leader remembers that outcome (`settled`); a log
 * whose staged hit is not committed within `STAGE_TTL_MS` asks the leader and follows it.
 *
 * `StagedCalls` runs the protocol for its log (`WebsiteLogCore`, ../core.ts), over the tables
 * `staged` (the hits) and `settled` (the outcomes a leader remembers).
 */
import { logError } from '../../../lib/log.ts';
import type { Dropped, Recorded } from '../../answers.ts';
import type { LogHit } from '../../events.ts';
import type { LogDb } from '../tables/log-db.ts';

/** A staged hit not committed within this long is settled: dropped, or committed as its leader says. */
export const STAGE_TTL_MS = 60_000;
/** A log that cannot reach its leader asks again this much later… */
const STAGE_RETRY_MS = 60_000;
/** …and drops the hit (logged) once it has been staged this long. */
export const STAGE_GIVE_UP_MS = 3_600_000;
/** The leader remembers each outcome this long: longer than any log may ask. */
const SETTLED_TTL_MS = 2 * STAGE_GIVE_UP_MS;

/** How a call ended: counted in every log it names, or in none. */
export type Settlement = 'committed' | 'aborted';

/** A hit as it is staged: everything the log needs, but the address and User-Agent. */
type StagedHit = Omit<LogHit, 'ip' | 'userAgent'> & Partial<Pick<LogHit, 'ip' | 'userAgent'>>;

/** A staged hit: its call's token and leader (null: staged by an older Sightline). */
type StagedRow = {
  token: string;
  hit: LogHit;
  /** The day's visitor hash, made when it was staged (null: staged by an older Sightline). */
  hash: string | null;
  stagedAt: number;
  leader: number | null;
};

/** Keeps a hit under its call's token, with its visitor's hash instead of who sent it. */
function stageHit(
  db: LogDb,
  token: string,
  hit: LogHit,
  hash: string,
  leader: number,
  now: number,
): void {
  const { ip: _ip, userAgent: _userAgent, ...kept } = hit;
  db.rows(
    `INSERT INTO staged (token, hit, staged_at, hash, leader) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (token) DO NOTHING`,
    token,
    JSON.stringify(kept),
    now,
    hash,
    leader,
  );
}

type Row = {
  token: string;
  hit: string;
  staged_at: number;
  hash: string | null;
  leader: number | null;
};

function toStaged(row: Row): StagedRow {
  const hit = JSON.parse(row.hit) as StagedHit;
  return {
    token: row.token,
    hit: { ...hit, ip: hit.ip ?? '', userAgent: hit.userAgent ?? '' },
    hash: row.hash,
    stagedAt: row.staged_at,
    leader: row.leader,
  };
}

/** The hit staged under `token`, if any. */
function stagedRow(db: LogDb, token: string): StagedRow | undefined {
  const row = db.rows<Row>(
    'SELECT token, hit, staged_at, hash, leader FROM staged WHERE token = ?',
    token,
  )[0];
  return row && toStaged(row);
}

/** Takes the hit staged under `token` out of `staged`; false when there was none. */
function unstage(db: LogDb, token: string): boolean {
  return db.rows('DELETE FROM staged WHERE token = ? RETURNING token', token).length > 0;
}

/** The hits staged before `before` (their time to be settled has come), oldest first. */
function dueStaged(db: LogDb, before: number): StagedRow[] {
  return db
    .rows<Row>(
      'SELECT token, hit, staged_at, hash, leader FROM staged WHERE staged_at <= ? ORDER BY staged_at',
      before,
    )
    .map(toStaged);
}

/** When the oldest staged hit is due to be settled; null when none is staged. */
function nextStagedDue(db: LogDb): number | null {
  const oldest = db.one<{ at: number | null }>('SELECT min(staged_at) AS at FROM staged').at;
  return oldest === null ? null : oldest + STAGE_TTL_MS;
}

/** How the call of `token` ended, as this log (its leader) noted it; undefined if not noted. */
function settledOutcome(db: LogDb, token: string): Settlement | undefined {
  return db.rows<{ outcome: Settlement }>('SELECT outcome FROM settled WHERE token = ?', token)[0]
    ?.outcome;
}

/** Notes how the call of `token` ended (the leader does: the others ask it). */
function noteSettled(db: LogDb, token: string, outcome: Settlement, now: number): void {
  db.rows(
    'INSERT INTO settled (token, outcome, at) VALUES (?, ?, ?) ON CONFLICT (token) DO NOTHING',
    token,
    outcome,
    now,
  );
}

/** Forgets the outcomes nobody can ask about any more. */
export function forgetSettled(db: LogDb, now: number): void {
  db.rows('DELETE FROM settled WHERE at < ?', now - SETTLED_TTL_MS);
}

/**
 * How a log reaches the leader of a staged call: another website's log, in the partition the
 * leader staged in.
 */
export type Leaders = (
  websiteId: number,
  partition: number,
) => { settle(token: string): Promise<Settlement> };

/**
 * What `commit` did: the call's outcome as this log knows it, and the hit it stored now (or
 * dropped, its visitor too fast: ./too-fast.ts).
 */
export type Committed = {
  ok: true;
  outcome: Settlement | 'unknown';
  recorded: Recorded | Dropped | null;
};

/** What the protocol needs of its log. */
type Host = {
  db: LogDb;
  transaction<T>(work: () => T): T;
  ensureTables(): void;
  hasTables(): boolean;
  /** The day's visitor hash of a hit. */
  hashOf(hit: LogHit): Promise<string>;
  /** Stores a hit when `guard`, run first in the same transaction, says so (null: not stored). */
  storeIf(hit: LogHit, hash: string, guard: () => boolean): Promise<Recorded | Dropped | null>;
  scheduleAlarm(at: number): Promise<void>;
  leaders: Leaders | undefined;
};

/** The staged hits of one log, and the calls it leads. */
export class StagedCalls {
  constructor(private readonly host: Host) {}

  private get db(): LogDb {
    return this.host.db;
  }

  /**
   * Keeps a hit under `token` with its visitor's hash, durable but not counted, until its call
   * is settled — committed (`commit`, or the leader's word) or aborted. Refused once `token`
   * is settled as aborted here (this log leads it: a late stage must not revive the call).
   */
  async stage(token: string, hit: LogHit, leader: number): Promise<{ ok: boolean }> {
    this.host.ensureTables();
    const hash = await this.host.hashOf(hit);
    if (settledOutcome(this.db, token) === 'aborted') return { ok: false };
    stageHit(this.db, token, hit, hash, leader, Date.now());
    await this.host.scheduleAlarm(Date.now() + STAGE_TTL_MS);
    return { ok: true };
  }

  /**
   * Stores the hit staged under `token`, as a hit is recorded, and answers the call's outcome
   * as this log knows it: `committed` (now or before: a leader remembers), `aborted`, or
   * `unknown` (nothing staged here, and not the leader of that call).
   */
  async commit(token: string): Promise<Committed> {
    const row = this.host.hasTables() ? stagedRow(this.db, token) : undefined;
    return row ? this.commitStaged(row) : this.known(token);
  }

  /** A call's outcome as this log noted it (as its leader), with nothing stored now. */
  private known(token: string): Committed {
    const outcome = this.host.hasTables() ? settledOutcome(this.db, token) : undefined;
    return { ok: true, outcome: outcome ?? 'unknown', recorded: null };
  }

  /**
   * Stores a staged hit. Taking the staged row, noting the outcome (the leader) and storing
   * the hit are one transaction: a failure keeps the row for the next try; a second commit
   * that ran meanwhile finds none.
   */
  private async commitStaged(row: StagedRow): Promise<Committed> {
    // Hits staged by an older Sightline kept their address and User-Agent instead of the hash.
    const hash = row.hash ?? (await this.host.hashOf(row.hit));
    const recorded = await this.host.storeIf(row.hit, hash, () => {
      if (!unstage(this.db, row.token)) return false;
      if (row.leader === row.hit.websiteId)
        noteSettled(this.db, row.token, 'committed', Date.now());
      return true;
    });
    return recorded ? { ok: true, outcome: 'committed', recorded } : this.known(row.token);
  }

  /**
   * Settles the call of `token` here, this log being its leader, as another log asks once its
   * own staged hit is due: `committed` if the leader committed it; otherwise the leader aborts
   * it — its staged hit dropped, a late stage or commit refused — and answers `aborted`.
   */
  settle(token: string): Settlement {
    this.host.ensureTables();
    const known = settledOutcome(this.db, token);
    if (known) return known;
    this.host.transaction(() => {
      unstage(this.db, token);
      noteSettled(this.db, token, 'aborted', Date.now());
    });
    return 'aborted';
  }

  /** Drops the hit staged under `token`, if any: it is never counted (a leader notes it). */
  abort(token: string): void {
    const row = this.host.hasTables() ? stagedRow(this.db, token) : undefined;
    if (!row) return;
    this.host.transaction(() => {
      unstage(this.db, token);
      if (row.leader === row.hit.websiteId) noteSettled(this.db, token, 'aborted', Date.now());
    });
  }

  /**
   * Settles the staged hits that are due (staged `STAGE_TTL_MS` ago and neither committed nor
   * aborted): a leader aborts its own; another log asks the leader and follows it, or asks
   * again later when the leader cannot be reached (and gives up, logged, after
   * `STAGE_GIVE_UP_MS`). Answers when the alarm is next needed for them (null: never).
   */
  async settleDue(now: number): Promise<number | null> {
    let retry = false;
    for (const row of dueStaged(this.db, now - STAGE_TTL_MS)) {
      if (row.leader === null || row.leader === row.hit.websiteId) {
        this.abort(row.token);
        continue;
      }
      let outcome: Settlement | undefined;
      try {
        const partition = row.hit.partition?.leader ?? 0;
        outcome = await this.host.leaders?.(row.leader, partition).settle(row.token);
      } catch (err) {
        logError('leader of a staged hit not reached', { website: row.hit.websiteId }, err);
      }
      if (outcome === 'committed') await this.commitStaged(row);
      else if (outcome === 'aborted') unstage(this.db, row.token);
      else if (row.stagedAt <= now - STAGE_GIVE_UP_MS) {
        unstage(this.db, row.token);
        logError(
          'staged hit dropped: its call was never settled',
          { website: row.hit.websiteId },
          new Error(`the leader, website ${row.leader}, was not reached`),
        );
      } else retry = true;
    }
    const due = nextStagedDue(this.db);
    return retry ? Math.min(due ?? Number.POSITIVE_INFINITY, now + STAGE_RETRY_MS) : due;
  }
}
