/**
 * The cron's query budget. D1 lets one Worker invocation run a limited number of queries
 * (1,000 on the paid plan); past it every further query fails, and the rest of the run with
 * it. The hourly run therefore counts every statement it sends against a budget well under
 * that limit, and each step stops where its share ends; the next run continues.
 */
import { createDb, type Database } from '../db/client.ts';

/** Thrown instead of sending a statement that the budget has no room for. */
export class QueryBudgetExhausted extends Error {
  override name = 'QueryBudgetExhausted';
}

export class QueryBudget {
  #used = 0;

  constructor(
    readonly limit: number,
    private readonly parent?: QueryBudget,
  ) {}

  /** Statements sent so far (through this budget or its shares). */
  get used(): number {
    return this.#used;
  }

  /** Statements that may still be sent: this budget's rest, within its parent's. */
  get left(): number {
    const own = this.limit - this.#used;
    return this.parent ? Math.min(own, this.parent.left) : own;
  }

  /** Counts `n` statements; throws `QueryBudgetExhausted` (counting nothing) when they do not fit. */
  spend(n = 1): void {
    if (n > this.left) throw new QueryBudgetExhausted(`query budget of ${this.limit} spent`);
    this.parent?.spend(n);
    this.#used += n;
  }

  /** A part of this budget of at most `limit` statements; what it spends counts here too. */
  share(limit: number): QueryBudget {
    return new QueryBudget(limit, this);
  }
}

/**
 * The D1 binding with every statement counted against `budget` when it runs (each statement
 * of a `batch()` counts as one); a statement that does not fit is never sent.
 */
function meteredD1(d1: D1Database, budget: QueryBudget): D1Database {
  const originals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(stmt, {
      get(target, prop) {
        if (prop === 'bind') return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === 'run' || prop === 'all' || prop === 'raw' || prop === 'first') {
          const method = Reflect.get(target, prop, target) as (...args: unknown[]) => unknown;
          return async (...args: unknown[]) => {
            budget.spend(1);
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
          budget.spend(statements.length);
          return target.batch(statements.map((s) => originals.get(s) ?? s));
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `db` with every statement it runs counted against `budget`. */
export function metered(db: Database, budget: QueryBudget): Database {
  return createDb(meteredD1(db.$client, budget));
}
