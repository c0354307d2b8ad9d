/**
 * A question to a website's event log, as the query engine (src/query/run/reader.ts) hands it over
 * (docs/ARCHITECTURE.md, "The query engine"): a range of local dates (within instants, for a
 * range of date-times), filters, and one or more groupings of the hits the filters keep —
 * each its dimensions (./query-dimensions.ts), metrics (./query-metrics.ts), order and page.
 * Several groupings share one pass over the log (the statistics page's panels).
 */

export const FILTER_OPERATORS = [
  'is',
  'is_not',
  'contains',
  'contains_not',
  'matches',
  'matches_not',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** A condition on one dimension: true when its value is (or contains, matches) any of `values`. */
export type FilterLeaf = {
  op: FilterOperator;
  dimension: string;
  values: string[];
  /** `is` and `contains` compare letters in any case when false. */
  caseSensitive: boolean;
};

/**
 * A filter: a leaf; leaves joined by `and` / `or`; `not` one; the visits that did
 * (`has_done`) or did not (`has_not_done`) have a hit that the inner filter keeps; or the page
 * views scrolled far enough (`Scrolled`).
 */
export type FilterNode =
  | FilterLeaf
  | { op: 'and' | 'or'; nodes: FilterNode[] }
  | { op: 'not'; node: FilterNode }
  | { op: 'has_done' | 'has_not_done'; node: FilterNode }
  | Scrolled;

/**
 * The page views whose visit scrolled their page at least `at` percent (a page goal's scroll
 * threshold: src/query/parse/goal-filters.ts; the deepest scroll is the visit's first view's,
 * src/website-log/object/write/engagement.ts). Made by goals only: no request names it.
 */
type Scrolled = { op: 'scrolled'; at: number };

export const isLeaf = (node: FilterNode): node is FilterLeaf =>
  (FILTER_OPERATORS as readonly string[]).includes(node.op);

/** One grouping of the kept hits: its rows sorted by `order`, then paged. */
export type GroupQuery = {
  /** At most three. */
  dimensions: string[];
  metrics: string[];
  /** Metric or dimension keys; rows tied on all of them come in the order of their dimensions. */
  order: [key: string, direction: 'asc' | 'desc'][];
  limit: number;
  offset: number;
  /** API v1's `search`: the rows whose first dimension's value contains it, in any case. */
  search?: string;
  /**
   * `search` is a whole value, in its case: the row of that value alone (the roll-ups read its
   * rows only, by their key: how a typed filter value is first looked up).
   */
  exact?: boolean;
  /**
   * With `event:goal` among the dimensions: the goals its rows are split by. A hit's goals are
   * those whose filter keeps it (a hit may complete several); each goal's revenue is counted in
   * its own currency. Its rows are paged goal by goal — `offset` and `limit` within each goal's
   * rows, as if each goal were a question of its own — and `total` counts every goal's rows.
   */
  goals?: GoalSplit[];
};

/** A goal a grouping splits its hits by: its name, the hits that complete it, its currency. */
export type GoalSplit = { name: string; filter: FilterNode; currency?: string };

export type LogQuery = {
  /** Local dates, inclusive. */
  from: string;
  to: string;
  /** Instants (ms) a range of date-times keeps within its dates. */
  between?: [from: number, to: number];
  /** Joined by AND. */
  filters: FilterNode[];
  groups: GroupQuery[];
  /** The currency (ISO 4217) revenue is counted in; other currencies' revenue is not. */
  currency?: string;
};

/** A row: its dimensions' values as they read, its metrics in the order asked for. */
export type ResultRow = { dimensions: string[]; metrics: (number | null)[] };

/** A page of a grouping's rows, and how many rows there are in all. */
export type GroupAnswer = { rows: ResultRow[]; total: number };
