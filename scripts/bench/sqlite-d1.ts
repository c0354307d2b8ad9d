/**
 * The part of the D1 binding's interface that drizzle and Sightline's ingestion use, over
 * Node's built-in SQLite, for bulk-loading the benchmark's year of traffic into a local D1
 * database file. The same statements run as in the Worker — this only swaps the transport —
 * and a `batch()` is one transaction, as on D1. Prepared statements are cached by their SQL.
 *
 * Only for loading: the benchmark's measurements run in workerd against local D1.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';

type Param = string | number | bigint | null | Uint8Array;

/** A statement prepared twice: rows as objects, and as arrays (drizzle's `raw()`). */
type Prepared = { stmt: StatementSync; arrays: StatementSync; reads: boolean };

class Statement {
  constructor(
    private readonly d1: SqliteD1,
    readonly query: string,
    readonly params: Param[] = [],
  ) {}

  bind(...params: unknown[]): Statement {
    return new Statement(this.d1, this.query, params.map(toParam));
  }

  /** Runs the statement now (inside or outside a transaction). */
  execute(): D1Result {
    const { stmt, reads } = this.d1.statement(this.query);
    if (!reads) return result([], Number(stmt.run(...this.params).changes));
    return result(stmt.all(...this.params) as Record<string, unknown>[], 0);
  }

  async run() {
    return this.execute();
  }

  async all() {
    return this.execute();
  }

  async first(column?: string) {
    const row = (this.execute().results[0] ?? null) as Record<string, unknown> | null;
    return row && column ? row[column] : row;
  }

  async raw() {
    return this.d1.statement(this.query).arrays.all(...this.params) as unknown as unknown[][];
  }
}

function toParam(value: unknown): Param {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value as Param;
}

function result(results: Record<string, unknown>[], changes: number): D1Result {
  return {
    success: true,
    results,
    meta: {
      duration: 0,
      size_after: 0,
      rows_read: 0,
      rows_written: changes,
      last_row_id: 0,
      changed_db: changes > 0,
      changes,
    },
  } as D1Result;
}

export class SqliteD1 {
  readonly db: DatabaseSync;
  private readonly cache = new Map<string, Prepared>();

  constructor(path: string) {
    this.db = new DatabaseSync(path);
    // Loading is one writer on a scratch database: no need to wait for the disk.
    this.db.exec('PRAGMA synchronous = OFF;');
  }

  statement(query: string): Prepared {
    let prepared = this.cache.get(query);
    if (!prepared) {
      const stmt = this.db.prepare(query);
      const arrays = this.db.prepare(query);
      arrays.setReturnArrays(true);
      prepared = { stmt, arrays, reads: stmt.columns().length > 0 };
      this.cache.set(query, prepared);
    }
    return prepared;
  }

  prepare(query: string): Statement {
    return new Statement(this, query);
  }

  async batch(statements: Statement[]): Promise<D1Result[]> {
    this.db.exec('BEGIN');
    try {
      const results = statements.map((s) => s.execute());
      this.db.exec('COMMIT');
      return results;
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  async exec(query: string) {
    this.db.exec(query);
    return { count: 0, duration: 0 };
  }

  close() {
    this.db.close();
  }

  /** This object typed as the binding drizzle expects. */
  asBinding(): D1Database {
    return this as unknown as D1Database;
  }
}
