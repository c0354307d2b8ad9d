/**
 * A filter as SQL over a chunk's rows of `log` (docs/ARCHITECTURE.md, "Filters" and "The
 * query engine"): its leaves resolved into dictionary ids (./filter-ids.ts), each a condition
 * on a column the registries of src/counting name, its ids bound as parameters — never a text
 * of the request. The statements of ../question-sql.ts, ../flow-sql.ts and ../property-names.ts
 * put these conditions on their rows.
 */
import type { FilterLeaf } from '../../../../counting/query.ts';
import { queryDimension } from '../../../../counting/query-dimensions.ts';

/** A filter whose leaves are resolved into ids of the dictionary (./filter-ids.ts). */
export type Resolved =
  | {
      kind: 'leaf';
      leaf: FilterLeaf;
      ids: number[];
      /** The rows without a value match too (`(not set)`, `Direct / None`). */
      none: boolean;
    }
  | { kind: 'and' | 'or'; nodes: Resolved[] }
  | { kind: 'not'; node: Resolved }
  | { kind: 'has_done' | 'has_not_done'; node: Resolved }
  /** The page views whose visit scrolled their page at least `at` percent. */
  | { kind: 'scrolled'; at: number }
  /** Every hit of a visit (no hit the inner filter of `has_done` keeps, under `has_not_done`). */
  | { kind: 'visits' };

/** Joined by AND or OR as a balanced tree (SQLite limits how deep an expression may be). */
export function joined(conditions: string[], op: 'AND' | 'OR'): string {
  if (conditions.length === 0) return op === 'AND' ? '1' : '0';
  if (conditions.length === 1) return conditions[0] as string;
  const half = Math.ceil(conditions.length / 2);
  return `(${joined(conditions.slice(0, half), op)} ${op} ${joined(conditions.slice(half), op)})`;
}

/** What the filters make of a statement: its parameters and what they narrow. */
export type Context = {
  params: (string | number)[];
  /** The first parameter number after the chunk's. */
  first: number;
  range: string;
  onHit: boolean;
  onVisit: boolean;
  /** A filter reads each visit's last page view (`exits`). */
  exits: boolean;
  /** Every kept row has a visitor and a visit (a condition of the filters says so). */
  owned: boolean;
  /** The currency revenue is counted in: its dictionary id (0: none), or a column's SQL. */
  currency: number | string;
  /**
   * Values bound beyond `MAX_PARAMS`: one JSON array, bound last (`PACKED`), each read by its
   * place in it.
   */
  packed: (string | number)[];
};

/**
 * The parameters a statement binds one by one (SQLite allows 100); those past it are packed
 * into one JSON array, so that no number of filters or goals makes a statement SQLite refuses.
 */
const MAX_PARAMS = 90;
/** Where the packed values' parameter goes, numbered once the statement is written. */
const PACKED = '?packed';

export function param(ctx: Context, value: string | number): string {
  if (ctx.first + ctx.params.length <= MAX_PARAMS) {
    ctx.params.push(value);
    return `?${ctx.first + ctx.params.length - 1}`;
  }
  ctx.packed.push(value);
  return `json_extract(${PACKED}, '$[${ctx.packed.length - 1}]')`;
}

/** SQL of the context with the packed values' parameter numbered: after the others. */
export const numbered = (ctx: Context, text: string) =>
  ctx.packed.length === 0 ? text : text.replaceAll(PACKED, `?${ctx.first + ctx.params.length}`);

/** The context's parameters, the packed values last. */
export const paramsOf = (ctx: Context) =>
  ctx.packed.length === 0 ? ctx.params : [...ctx.params, JSON.stringify(ctx.packed)];

/** `column` holds one of `ids` (or no value, with `none`); never NULL. */
function holds(ctx: Context, column: string, ids: number[], none: boolean): string {
  const parts: string[] = [];
  if (ids.length === 1) parts.push(`${column} = ${param(ctx, ids[0] as number)}`);
  else if (ids.length > 1)
    parts.push(`${column} IN (SELECT value FROM json_each(${param(ctx, JSON.stringify(ids))}))`);
  if (none) parts.push(`${column} IS NULL`);
  return parts.length === 0 ? '0' : `coalesce(${joined(parts, 'OR')}, 0)`;
}

/** The condition a leaf puts on a row. */
function leafCondition(ctx: Context, r: Extract<Resolved, { kind: 'leaf' }>): string {
  const dimension = queryDimension(r.leaf.dimension);
  if (dimension.kind !== 'text') throw new Error(`not a filter dimension: ${r.leaf.dimension}`);
  const negated = r.leaf.op.endsWith('_not');
  let match: string;
  if (dimension.exit === 'page') {
    // The visits whose page views add up to one exit on a matching page: +1 on each page
    // view's page, −1 on the page before it (docs/ARCHITECTURE.md, "Filters").
    const page = holds(ctx, 'page', r.ids, false);
    const before = holds(ctx, 'previous_page', r.ids, false);
    match = `(day, visitor, visit) IN (SELECT day, visitor, visit FROM log
      WHERE ${ctx.range} AND kind = 0 AND (${page} OR ${before})
      GROUP BY day, visitor, visit HAVING sum(${page}) > sum(${before}))`;
  } else if (dimension.exit === 'hostname') {
    ctx.exits = true;
    match = `(day, visitor, visit) IN (SELECT day, visitor, visit FROM exits
      WHERE ${holds(ctx, 'exit_hostname', r.ids, r.none)})`;
  } else match = holds(ctx, dimension.sql, r.ids, r.none);
  if (dimension.pageViews) match = `(kind = 0 AND ${match})`;
  if (dimension.level === 'hit') {
    ctx.onHit = true;
    return negated ? `NOT ${match}` : match;
  }
  if (dimension.level === 'visit') ctx.onVisit = true;
  // A hit without a visitor (an event before any page view of the day) is never kept.
  const owner = dimension.level === 'visitor' ? 'visitor > 0' : 'visit > 0';
  return `(${owner} AND ${negated ? 'NOT ' : ''}${match})`;
}

/** The condition a filter puts on a row. */
export function condition(ctx: Context, r: Resolved): string {
  switch (r.kind) {
    case 'leaf':
      return leafCondition(ctx, r);
    case 'and':
      return joined(
        r.nodes.map((node) => condition(ctx, node)),
        'AND',
      );
    case 'or':
      return joined(
        r.nodes.map((node) => condition(ctx, node)),
        'OR',
      );
    case 'not':
      return `NOT ${condition(ctx, r.node)}`;
    case 'visits':
      ctx.onVisit = true;
      return 'visit > 0';
    case 'scrolled':
      ctx.onHit = true;
      return `(kind = 0 AND scroll >= ${param(ctx, r.at)})`;
    default: {
      // The visits that had (or had not) a hit the inner filter keeps: whole visits.
      const inner: Context = { ...ctx, onHit: false, onVisit: false, owned: false };
      const kept = condition(inner, r.node);
      ctx.exits ||= inner.exits;
      ctx.onVisit = true;
      const visits = `(day, visitor, visit) IN (SELECT day, visitor, visit FROM log
        WHERE ${ctx.range} AND visit > 0 AND ${kept})`;
      return `(visit > 0 AND ${r.kind === 'has_not_done' ? 'NOT ' : ''}${visits})`;
    }
  }
}

/**
 * Whether a filter keeps only rows that have a visit (so a visitor): one of its conditions
 * joined by AND is on a visit's or a visitor's value, or on visits (their guard is `visit >
 * 0`, `visitor > 0`).
 */
export function owns(r: Resolved): boolean {
  if (r.kind === 'and') return r.nodes.some(owns);
  if (r.kind === 'visits' || r.kind === 'has_done' || r.kind === 'has_not_done') return true;
  return r.kind === 'leaf' && queryDimension(r.leaf.dimension).level !== 'hit';
}

/** Each visit's last page view: its page and host (`exit_page`, `exit_hostname`). */
export const exitsTable = (range: string) =>
  `exits AS MATERIALIZED (SELECT day, visitor, visit, page AS exit_page,
      hostname AS exit_hostname, max(id) FROM log WHERE ${range} AND kind = 0 AND visit > 0
      GROUP BY day, visitor, visit)`;

/**
 * The SQL of resolved filters on a chunk's rows (`range`: the chunk's condition, its
 * parameters `?1`…), each a condition of its own, their parameters numbered from `first`;
 * with the table of the visits' last page views (`exits`) when a condition reads it. For the
 * reads of ../flow-sql.ts.
 */
export function conditionsOf(
  range: string,
  first: number,
  filters: Resolved[],
): { sql: string[]; params: (string | number)[]; tables: string[] } {
  const ctx: Context = {
    params: [],
    first,
    range,
    onHit: false,
    onVisit: false,
    exits: false,
    owned: false,
    currency: 0,
    packed: [],
  };
  const sql = filters.map((f) => condition(ctx, f)).map((text) => numbered(ctx, text));
  return { sql, params: paramsOf(ctx), tables: ctx.exits ? [exitsTable(range)] : [] };
}
