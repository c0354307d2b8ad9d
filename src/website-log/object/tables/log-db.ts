/**
 * The SQL of one event log's storage, with the rows every statement read and wrote counted
 * exactly (SQLite's cursor counts: docs/ARCHITECTURE.md, "Cost"), and the log's `meta`.
 */

/**
 * What `meta` holds: the website's id, the log's partition (0 the first), whether it is
 * closed and the id its events are numbered after (../partition.ts), the flush position, the
 * tables' version; once `EVENT_RETENTION_DAYS` has deleted events, the highest id deleted and
 * the first date the log still holds whole (../retention.ts); the epoch of the answers it
 * keeps (../read/answer-cache.ts).
 */
export type MetaKey =
  | 'website'
  | 'partition'
  | 'closed'
  | 'id_base'
  | 'flushed'
  | 'schema'
  | 'deleted_through'
  | 'kept_from'
  | 'answers_epoch'
  | 'visitors_counted';

export class LogDb {
  /** Rows read and written by this log's statements so far. */
  readonly io = { rowsRead: 0, rowsWritten: 0 };

  constructor(private readonly sql: SqlStorage) {}

  /** The rows read and written since `before` (an earlier copy of `io`). */
  since(before: { rowsRead: number; rowsWritten: number }) {
    return {
      rowsRead: this.io.rowsRead - before.rowsRead,
      rowsWritten: this.io.rowsWritten - before.rowsWritten,
    };
  }

  /** The bytes the object's storage takes (its SQLite database). */
  get bytes(): number {
    return this.sql.databaseSize;
  }

  /** Runs one statement and returns its rows, counting the rows it read and wrote. */
  rows<T extends Record<string, SqlStorageValue>>(
    query: string,
    ...params: SqlStorageValue[]
  ): T[] {
    const cursor = this.sql.exec<T>(query, ...params);
    const rows = cursor.toArray();
    this.io.rowsRead += cursor.rowsRead;
    this.io.rowsWritten += cursor.rowsWritten;
    return rows;
  }

  /**
   * Runs one statement and returns its rows as arrays of values, in the order of its columns
   * (no object per row: the reads' statements return many), counting the rows it read.
   */
  arrays(query: string, ...params: SqlStorageValue[]): SqlStorageValue[][] {
    const cursor = this.sql.exec(query, ...params);
    const rows = [...cursor.raw()];
    this.io.rowsRead += cursor.rowsRead;
    this.io.rowsWritten += cursor.rowsWritten;
    return rows;
  }

  /** Runs a statement that returns exactly one row (an aggregate, `RETURNING`). */
  one<T extends Record<string, SqlStorageValue>>(query: string, ...params: SqlStorageValue[]): T {
    const row = this.rows<T>(query, ...params)[0];
    if (!row) throw new Error('expected a row');
    return row;
  }

  /** Runs a script of several statements (the tables' definitions), uncounted. */
  script(statements: string): void {
    this.sql.exec(statements);
  }

  /** Whether a table of that name exists. */
  hasTable(name: string): boolean {
    return (
      this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray()
        .length > 0
    );
  }

  meta(key: MetaKey): number {
    return this.rows<{ value: number }>('SELECT value FROM meta WHERE key = ?', key)[0]?.value ?? 0;
  }

  setMeta(key: MetaKey, value: number): void {
    if (this.meta(key) === value) return;
    this.rows(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }
}
