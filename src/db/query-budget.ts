/**
 * The cron's query budget. D1 lets one Worker invocation run a limited number of queries
 * (1,000 on the paid plan); past it every further query fails, and the rest of the run with
 * it. The hourly run therefore counts every statement it sends against a budget well under
 * that limit, and each step stops where its share ends; the next run continues.
 */

import { createDb, type Database } from './client.ts';
import { countStatements } from './count-statements.ts';

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

/** `db` with every statement it runs counted against `budget`. */
export function metered(db: Database, budget: QueryBudget): Database {
  return createDb(countStatements(db.$client, (n) => budget.spend(n)));
}
