/**
 * A website's event-log storage (`LogStorage` of src/website-log/object/core.ts) over Node's
 * built-in SQLite, so that the benchmark's bulk loader runs the real `WebsiteLogCore` — the same
 * statements, decisions and flush as the Durable Object — outside workerd. Alarms are not
 * needed there: the loader flushes itself. Only for loading (its events are then imported into
 * the benchmark site's real object: `importEvents`, scripts/bench/worker.ts).
 */
import { DatabaseSync } from 'node:sqlite';
import type { LogStorage } from '../../src/website-log/answers.ts';

type Value = string | number | bigint | null | Uint8Array;

/** The cursor of `SqlStorage.exec`, as far as the log reads it: rows as objects or arrays. */
function cursor(read: (arrays: boolean) => unknown[], written: number) {
  const result = {
    toArray: () => {
      const rows = read(false);
      result.rowsRead = rows.length;
      return rows;
    },
    raw: () => {
      const rows = read(true);
      result.rowsRead = rows.length;
      return rows[Symbol.iterator]();
    },
    one: () => {
      const [row] = result.toArray();
      if (!row) throw new Error('expected a row');
      return row;
    },
    rowsRead: 0,
    rowsWritten: written,
  };
  return result;
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
      return cursor(() => [], 0);
    }
    const stmt = db.prepare(query);
    if (/^\s*(SELECT|WITH)\b|\bRETURNING\b/i.test(query))
      return cursor((arrays) => {
        stmt.setReturnArrays(arrays);
        return stmt.all(...params);
      }, 0);
    return cursor(() => [], Number(stmt.run(...params).changes));
  };
  // The database's size, as SqlStorage's `databaseSize` gives it: its pages times their size.
  const size = () => {
    const pages = db.prepare('PRAGMA page_count').get() as { page_count: number };
    const bytes = db.prepare('PRAGMA page_size').get() as { page_size: number };
    return pages.page_count * bytes.page_size;
  };
  return {
    sql: {
      exec,
      get databaseSize() {
        return size();
      },
    } as unknown as SqlStorage,
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
