/**
 * A D1 binding that tells, before each statement runs, that it is about to run: `count(1)`
 * for a prepared statement, `count(n)` for a `batch()` of n. What the count does is the
 * caller's: the cron spends a query budget (src/db/query-budget.ts), tests play D1's limit
 * of queries per invocation. A count that throws keeps the statement from being sent.
 */
export function countStatements(d1: D1Database, count: (statements: number) => void): D1Database {
  const originals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(stmt, {
      get(target, prop) {
        if (prop === 'bind') return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === 'run' || prop === 'all' || prop === 'raw' || prop === 'first') {
          const method = Reflect.get(target, prop, target) as (...args: unknown[]) => unknown;
          return async (...args: unknown[]) => {
            count(1);
            return method.apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    originals.set(wrapped, stmt);
    return wrapped;
  };
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrap(target.prepare(query));
      if (prop === 'batch')
        return async (statements: D1PreparedStatement[]) => {
          count(statements.length);
          return target.batch(statements.map((s) => originals.get(s) ?? s));
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
