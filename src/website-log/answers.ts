/**
 * What a website's event log answers and what it needs (./object/core.ts): shared by its
 * Durable Object, the Worker's calls to it, and the benchmark's bulk loader.
 */
import type { Env } from '../env.ts';
import type { Flushed } from './object/flush.ts';

/**
 * What a read of the log answered: its value, rows read and chunks (./object/read/question-chunks.ts); or, for a range that starts
 * before the oldest date it holds, that date (`firstDate`); or a question refused for what it
 * would cost, saying why (`refused`: ./object/read/filters/dictionary-search.ts); or a failure (logged).
 */
export type LogRead<T> =
  | { ok: true; value: T; rowsRead: number; chunks: number }
  | { ok: false; firstDate?: string; refused?: string };

/** A partition as its reads describe it: closed or not, and its first and last dates. */
export type PartState = { closed: boolean; from: string | null; to: string | null };

/** A read's answer with its partition's state (./object/read/methods.ts adds it; ./worker/partitions.ts reads it). */
export type PartRead<T> = LogRead<T> & { part?: PartState };

/**
 * What the log could not do: a failure (logged by the object), or a question refused for what
 * it would cost (`refused`, the reason).
 */
export type NotStored = { ok: false; refused?: string };

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

/**
 * A hit `record` dropped rather than stored: its visitor sends page views faster than a person
 * can (./object/write/too-fast.ts); `cost` as `Recorded`'s.
 */
export type Dropped = {
  ok: true;
  dropped: 'too_fast';
  cost: { rowsRead: number; rowsWritten: number };
};

/**
 * A flush's answer. A failure is an answer, not an exception: an exception would cross the
 * RPC boundary as an uncaught error of the object; the caller decides (a reader answers 503).
 */
/** A flush's outcome; `closed`: the partition takes no more hits (./object/partition.ts). */
export type FlushOutcome = ({ ok: true; closed?: boolean } & Flushed) | { ok: false };

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
