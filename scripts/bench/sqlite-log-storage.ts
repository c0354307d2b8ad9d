/**
 * A website's event-log storage (`LogStorage` of src/event-log/event-log.ts) over Node's
 * built-in SQLite, so that the benchmark's bulk loader runs the real `EventLog` — the same
 * statements, decisions and flush as the Durable Object — outside workerd. Alarms are not
 * needed there: the loader flushes itself. Only for loading (its events are then imported into
 * the benchmark site's real object: `importEvents`, scripts/bench/worker.ts).
 */
import { DatabaseSync } from 'node:sqlite';
import type { LogStorage } from '../../src/event-log/log-types.ts';

type Value = string | number | bigint | null | Uint8Array;

/** The cursor of `SqlStorage.exec`, as far as the log reads it. */
function cursor(rows: Record<string, unknown>[], written: number) {
  return {
    toArray: () => rows,
    one: () => {
      const [row] = rows;
      if (!row) throw new Error('expected a row');
      return row;
    },
    rowsRead: rows.length,
    rowsWritten: written,
  };
}

/**
 * A `LogStorage` in memory, or in the file `path` (one per website and process; unsynced: a
 * crash of the loader loses the run anyway).
 */
export function sqliteLogStorage(path = ':memory:'): LogStorage {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
  const exec = (query: string, ...params: Value[]) => {
    if (params.length === 0 && query.includes(';')) {
      db.exec(query);
      return cursor([], 0);
    }
    const stmt = db.prepare(query);
    if (/^\s*(SELECT|WITH)\b|\bRETURNING\b/i.test(query))
      return cursor(stmt.all(...params) as Record<string, unknown>[], 0);
    return cursor([], Number(stmt.run(...params).changes));
  };
  return {
    sql: { exec } as unknown as SqlStorage,
    transactionSync<T>(closure: () => T): T {
      db.exec('BEGIN');
      try {
        const out = closure();
        db.exec('COMMIT');
        return out;
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
    },
    getAlarm: async () => null,
    setAlarm: async () => undefined,
    deleteAlarm: async () => undefined,
    deleteAll: async () => undefined,
  };
}
