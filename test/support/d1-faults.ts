/**
 * Injected D1 failures for the Worker under test. The Worker runs in the test's isolate and
 * reads the same `env.DB` binding, so spying on its `prepare` and `batch` makes the Worker's
 * queries fail. A failing statement rejects when it runs (as D1 does, so drizzle wraps the
 * error in its "Failed query: … params: …" error) or, in `prepare` mode, throws at once.
 * The injected error looks like a real one: a D1/SQLite message and a stack with source
 * positions, so tests can check that none of it reaches a response.
 */
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import { countStatements } from '../../src/db/count-statements.ts';

export const D1_MESSAGE = 'D1_ERROR: no such table: stats: SQLITE_ERROR';

/** Stack frames as workerd writes them, with source positions. */
const FRAMES = [
  '    at D1DatabaseSessionAlwaysPrimary._sendOrThrow (cloudflare-internal:d1-api:139:24)',
  '    at async D1PreparedStatement.all (cloudflare-internal:d1-api:336:24)',
  '    at async queryStats (src/rollups/sums.ts:88:17)',
].join('\n');

export type FaultOptions = {
  /** Which statements fail, by their SQL (default: every one). */
  matches?: (sql: string) => boolean;
  /** `execute` (default): the statement fails when it runs; `prepare`: `prepare()` throws. */
  mode?: 'execute' | 'prepare';
  /** The error message; gets the SQL and the values bound to it (default: `D1_MESSAGE`). */
  message?: (sql: string, params: unknown[]) => string;
  /** Also fail every `batch()`, whatever its statements (default: only batches of failing ones). */
  failBatches?: boolean;
  /**
   * Of the statements `matches` picks, only those bound to values this accepts fail (default:
   * all of them); the others run as usual. (`execute` mode only.)
   */
  bound?: (params: unknown[]) => boolean;
};

export type Fault = {
  /** The SQL of every statement made to fail so far. */
  failed: string[];
  restore(): void;
};

/**
 * Every statement but the reads of a request's credentials (API key, session), so that a
 * request gets past authentication and fails in its route.
 */
export const exceptAuth = (sql: string) =>
  !(/^\s*select/i.test(sql) && /"(api_keys|sessions)"/.test(sql));

export function injectD1Failure(options: FaultOptions = {}): Fault {
  const { matches = () => true, mode = 'execute', message = () => D1_MESSAGE } = options;
  const db = env.DB;
  const realPrepare = db.prepare.bind(db);
  const realBatch = db.batch.bind(db);
  const failing = new WeakMap<object, { sql: string; params: unknown[] }>();
  const failed: string[] = [];

  const d1Error = (sql: string, params: unknown[]) => {
    const err = new Error(message(sql, params));
    err.stack = `Error: ${err.message}\n${FRAMES}`;
    return err;
  };

  const statement = (sql: string, params: unknown[]): D1PreparedStatement => {
    const reject = async (): Promise<never> => {
      throw d1Error(sql, params);
    };
    const stmt = {
      bind: (...values: unknown[]) => statement(sql, values),
      first: reject,
      all: reject,
      run: reject,
      raw: reject,
    };
    failing.set(stmt, { sql, params });
    return stmt as unknown as D1PreparedStatement;
  };

  /** A statement that fails only once bound to values `bound` accepts. */
  const boundStatement = (sql: string, bound: (params: unknown[]) => boolean) => {
    const real = realPrepare(sql);
    return new Proxy(real, {
      get(target, prop) {
        if (prop === 'bind')
          return (...values: unknown[]) => {
            if (!bound(values)) return target.bind(...values);
            failed.push(sql);
            return statement(sql, values);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };

  const prepare = vi.spyOn(db, 'prepare').mockImplementation((sql: string) => {
    if (!matches(sql)) return realPrepare(sql);
    if (options.bound) return boundStatement(sql, options.bound);
    failed.push(sql);
    if (mode === 'prepare') throw d1Error(sql, []);
    return statement(sql, []);
  });
  const batch = vi.spyOn(db, 'batch').mockImplementation((async (
    statements: D1PreparedStatement[],
  ) => {
    const bad = statements.map((s) => failing.get(s)).find((f) => f !== undefined);
    if (bad) throw d1Error(bad.sql, bad.params);
    if (options.failBatches) {
      failed.push('batch');
      throw d1Error('batch', []);
    }
    return realBatch(statements);
  }) as typeof db.batch);

  return {
    failed,
    restore() {
      prepare.mockRestore();
      batch.mockRestore();
    },
  };
}

/** Fragments that must never appear in a response body: SQL, driver errors, stack traces. */
const LEAKS = [
  'SQLITE',
  'D1_',
  'no such table',
  'SELECT',
  'INSERT',
  'UPDATE ',
  'DELETE FROM',
  'Failed query',
  'params:',
  ' at ',
  '.ts:',
  'cloudflare-internal',
  'Error:',
  'stack',
];

/** The leak fragments a body contains (case-insensitive); [] when it is clean. */
export function leaksIn(body: string): string[] {
  const lower = body.toLowerCase();
  return LEAKS.filter((fragment) => lower.includes(fragment.toLowerCase()));
}

/** The error a Worker gets past its queries per invocation. */
const QUERY_LIMIT_MESSAGE = 'D1_ERROR: Too many API requests by single worker invocation.';

/**
 * A D1 binding that behaves like D1 past its queries per Worker invocation: the first
 * `limit` statements run (each statement of a `batch()` counts), every later one fails.
 * `sent()` tells how many statements were attempted in all.
 */
export function withQueryLimit(d1: D1Database, limit: number) {
  let attempted = 0;
  const take = (n: number) => {
    attempted += n;
    if (attempted > limit) throw new Error(QUERY_LIMIT_MESSAGE);
  };
  const binding = countStatements(d1, take);
  return { binding, sent: () => attempted };
}
