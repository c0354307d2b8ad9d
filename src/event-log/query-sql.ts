/**
 * The SQL of a question to the log over one chunk of whole local dates (docs/ARCHITECTURE.md,
 * "The query engine" and "Reads that never stall hits"): the rows the filters keep, then for
 * each grouping one or two `GROUP BY`s giving the sums of ./counting/query-metrics.ts per
 * group, all in one statement (`q` tells the groupings apart). Every value is a dictionary id
 * or a number, so the statement binds ids, never text, and takes its SQL from the registries
 * of src/counting, never from a request.
 *
 * How visitors and visits are counted in a group depends on what can split them:
 * - no filter on a hit, no filter on a visit, dimensions of a visitor or a date: a visitor's
 *   first page view of the day counts them (`firsts & 1`), as the roll-ups do;
 * - no filter on a hit, dimensions of a visit, visitor or date: a visit's first page view
 *   counts the visit, the distinct visitors among those the visitors;
 * - otherwise, the distinct visitors and visits among the group's kept hits.
 * The visit metrics (bounces, durations, page views per visit) add up the page views of the
 * group's visits, grouped by the dimensions' `session` SQL; with no filter on a hit those are
 * the kept page views themselves, so one `GROUP BY` gives every sum.
 */

import type { FilterLeaf } from '../counting/query.ts';
import { type QueryDimension, queryDimension } from '../counting/query-dimensions.ts';
import { PARTIALS, type PartialName, SESSION_PARTIALS } from '../counting/query-metrics.ts';

/** A statement and its parameters. */
export type Statement = { text: string; params: (string | number)[] };

/** The ids and dates of a chunk: `id BETWEEN low AND high AND day BETWEEN first AND last`. */
export type Chunk = { low: number; high: number; first: number; last: number };

/** A filter whose leaves are resolved into ids of the dictionary (./query-reads.ts). */
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
  /** Every hit of a visit (no hit the inner filter of `has_done` keeps, under `has_not_done`). */
  | { kind: 'visits' };

/**
 * A grouping as the statement computes it: its index, dimensions and the sums it needs. Its
 * rows have `q` = 2 × the index, or 2 × the index + 1 for the visit sums grouped apart.
 */
export type GroupPlan = { q: number; dimensions: string[]; partials: ReadonlySet<PartialName> };

/** The columns of `log` a statement may read (identifiers in the registries' SQL). */
const LOG_COLUMNS = new Set(
  `id kind time day hour visitor visit firsts page event visit_views previous_page
  visit_seconds visit_hour landing referrer campaign visitor_hour country continent city
  language browser os device resolution hostname name landing_host source channel
  utm_source utm_medium utm_content utm_term browser_version os_version region props revenue
  currency`.split(/\s+/),
);

/** What every sum reads, and what the visits' page views carry for them. */
const SUM_COLUMNS = ['kind', 'day', 'visitor', 'visit', 'firsts', 'event', 'visit_views'];
const VIEW_COLUMNS = ['day', 'visitor', 'visit', 'firsts', 'visit_views', 'visit_seconds'];

const columnsIn = (sql: string | undefined) =>
  (sql?.match(/[a-z_]+/g) ?? []).filter((word) => LOG_COLUMNS.has(word));

/** Joined by AND or OR as a balanced tree (SQLite limits how deep an expression may be). */
function joined(conditions: string[], op: 'AND' | 'OR'): string {
  if (conditions.length === 0) return op === 'AND' ? '1' : '0';
  if (conditions.length === 1) return conditions[0] as string;
  const half = Math.ceil(conditions.length / 2);
  return `(${joined(conditions.slice(0, half), op)} ${op} ${joined(conditions.slice(half), op)})`;
}

/** What the filters make of a statement: its parameters and what they narrow. */
type Context = {
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
  /** The dictionary id of the currency revenue is counted in (0: none). */
  currency: number;
};

function param(ctx: Context, value: string | number): string {
  ctx.params.push(value);
  return `?${ctx.first + ctx.params.length - 1}`;
}

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
function condition(ctx: Context, r: Resolved): string {
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
function owns(r: Resolved): boolean {
  if (r.kind === 'and') return r.nodes.some(owns);
  if (r.kind === 'visits' || r.kind === 'has_done' || r.kind === 'has_not_done') return true;
  return r.kind === 'leaf' && queryDimension(r.leaf.dimension).level !== 'hit';
}

/** The sums of a grouping, as SQL over the rows it reads. */
type SumSql = Partial<Record<PartialName, string>>;

/** How a grouping's visitors and visits are counted (see the module's comment). */
/** No filter and no dimension splits a visit: each visit's rows are all in one group. */
const wholeVisitsOf = (ctx: Context, dimensions: QueryDimension[]) =>
  !ctx.onHit && dimensions.every((d) => d.level !== 'hit');

/**
 * The sums that, where visits are whole, read only a visit's first two page views and a
 * visitor's first of the day (`firsts <> 0 OR visit_views <= 2`): the others are left out
 * before grouping, so that the sources' or countries' visitors, visits and bounce rate sort
 * a fraction of the page views.
 */
const FIRST_VIEWS_SUMS: ReadonlySet<PartialName> = new Set(['vis', 'vst', 'svst', 'bnc']);

function hitSums(ctx: Context, dimensions: QueryDimension[]): SumSql {
  const levels = dimensions.map((d) => d.level);
  const wholeVisits = wholeVisitsOf(ctx, dimensions);
  const firstOfDay =
    wholeVisits && !ctx.onVisit && levels.every((level) => level === 'visitor' || level === 'date');
  const visitor = 'day * 4294967296 + visitor';
  return {
    pv: 'sum(kind = 0)',
    ev: 'count(*)',
    ce: 'sum(kind = 1 AND event IS NOT NULL)',
    vis: firstOfDay
      ? 'sum(kind = 0 AND firsts & 1 = 1)'
      : wholeVisits
        ? `count(DISTINCT CASE WHEN kind = 0 AND firsts & 2 = 2 THEN ${visitor} END)`
        : ctx.owned
          ? `count(DISTINCT ${visitor})`
          : `count(DISTINCT CASE WHEN visitor > 0 THEN ${visitor} END)`,
    rev: `sum(CASE WHEN currency = ${ctx.currency} THEN revenue ELSE 0 END)`,
    rvn: `sum(currency = ${ctx.currency} AND revenue IS NOT NULL)`,
    vst: wholeVisits
      ? 'sum(kind = 0 AND firsts & 2 = 2)'
      : ctx.owned
        ? 'count(DISTINCT day * 4294967296 + visit)'
        : 'count(DISTINCT CASE WHEN visit > 0 THEN day * 4294967296 + visit END)',
  };
}

/** The visit sums over page views of visits (`views`, or the kept rows holding them). */
const VIEW_SUMS: SumSql = {
  svst: 'sum(kind = 0 AND visit > 0 AND firsts & 2 = 2)',
  bnc: 'sum(CASE visit_views WHEN 1 THEN 1 WHEN 2 THEN -1 ELSE 0 END)',
  dur: 'sum(visit_seconds)',
  vpv: 'sum(kind = 0 AND visit > 0)',
};

/** The shape every SELECT of a statement has: its dimensions' count and the sums it gives. */
type Shape = { dimensions: number; sums: PartialName[] };

/** One SELECT of a grouping: its rows `q, d0, …` and the statement's sums (0 where not counted). */
function arm(
  shape: Shape,
  q: number,
  from: string,
  keys: string[],
  sums: SumSql,
  where?: string,
): string {
  const dims = Array.from({ length: shape.dimensions }, (_, i) => `${keys[i] ?? 'NULL'} AS d${i}`);
  const values = shape.sums.map((p) => `${sums[p] ?? '0'} AS ${p}`);
  const group = keys.length > 0 ? ` GROUP BY ${keys.map((_, i) => i + 2).join(', ')}` : '';
  return `SELECT ${[`${q} AS q`, ...dims, ...values].join(', ')} FROM ${from}${where ? ` WHERE ${where}` : ''}${group}`;
}

/** Keeps the sums a grouping asked for. */
const only = (sums: SumSql, wanted: ReadonlySet<PartialName>): SumSql =>
  Object.fromEntries(Object.entries(sums).filter(([p]) => wanted.has(p as PartialName)));

/** What a grouping reads: its SELECTs, and how many of them read each table. */
type Arms = {
  arms: string[];
  reads: { kept: number; views: number };
  /** The exit pages alone: the visits' page views are read for their pages only. */
  exitsOnly?: true;
};

/** The SELECTs of a grouping. */
function groupArms(ctx: Context, shape: Shape, plan: GroupPlan): Arms {
  const dimensions = plan.dimensions.map(queryDimension);
  const wanted = plan.partials;
  const hitSide = [...wanted].filter((p) => !SESSION_PARTIALS.has(p));
  const visitSide = [...wanted].filter((p) => SESSION_PARTIALS.has(p));
  const keysOf = (side: 'sql' | 'session') =>
    dimensions.map((d) => {
      if (d.exit) return d.exit === 'page' ? 'exit_page' : 'exit_hostname';
      const sql = side === 'sql' ? d.sql : d.session;
      if (sql === undefined) throw new Error('the visit metrics cannot be grouped so');
      return sql;
    });
  const withExits = (table: string) =>
    dimensions.some((d) => d.exit) ? `${table} JOIN exits USING (day, visitor, visit)` : table;
  // Each row says its grouping and side: `q` = 2 × the grouping + 1 for the visit sums alone
  // (grouped by the visits' values: their rows make no group of their own).
  const armOf = (from: string, keys: string[], sums: SumSql, where?: string, visits = false) =>
    arm(shape, 2 * plan.q + (visits ? 1 : 0), from, keys, sums, where);
  // Exit pages alone, counted as the roll-ups count them: +1 on each page view's page, −1 on
  // the page before it (a visit begun before the log kept its views counts no exit).
  if (
    dimensions.length === 1 &&
    dimensions[0]?.exit === 'page' &&
    hitSide.every((p) => p === 'vst') &&
    visitSide.length === 0
  ) {
    const exits = `(SELECT page AS v, 1 AS c FROM views WHERE visit_views IS NOT NULL
      UNION ALL SELECT previous_page, -1 FROM views WHERE previous_page IS NOT NULL)`;
    return {
      arms: [`SELECT * FROM (${armOf(exits, ['v'], { vst: 'sum(c)' })}) WHERE vst <> 0`],
      reads: { kept: 0, views: 2 },
      exitsOnly: true,
    };
  }
  const sameKeys = visitSide.length === 0 || keysOf('sql').join() === keysOf('session').join();
  if (!ctx.onHit && sameKeys) {
    // One GROUP BY gives every sum: the kept page views are the visits' page views. When no
    // sum reads a custom event, they are left out before grouping.
    const sums = only({ ...hitSums(ctx, dimensions), ...VIEW_SUMS }, wanted);
    const firstViews =
      wholeVisitsOf(ctx, dimensions) && [...wanted].every((p) => FIRST_VIEWS_SUMS.has(p));
    const views = firstViews
      ? 'kind = 0 AND (firsts <> 0 OR visit_views <= 2)'
      : !wanted.has('ev') && !wanted.has('ce')
        ? 'kind = 0'
        : undefined;
    return {
      arms: [armOf(withExits('kept'), keysOf('sql'), sums, views)],
      reads: { kept: 1, views: 0 },
    };
  }
  const arms: string[] = [];
  const reads = { kept: 0, views: 0 };
  if (hitSide.length > 0 || visitSide.length === 0) {
    arms.push(armOf(withExits('kept'), keysOf('sql'), only(hitSums(ctx, dimensions), wanted)));
    reads.kept++;
  }
  if (visitSide.length > 0) {
    arms.push(
      armOf(withExits('views'), keysOf('session'), only(VIEW_SUMS, wanted), undefined, true),
    );
    reads.views++;
  }
  return { arms, reads };
}

/**
 * Terms joined by `UNION ALL`, nested so that no compound SELECT has more than four of them
 * (the object's SQLite refuses long compounds).
 */
function unionAll(terms: string[]): string {
  if (terms.length <= 4) return terms.join('\nUNION ALL\n');
  const groups: string[] = [];
  for (let i = 0; i < terms.length; i += 4)
    groups.push(`SELECT * FROM (${terms.slice(i, i + 4).join('\nUNION ALL\n')})`);
  return unionAll(groups);
}

/** Each visit's last page view: its page and host (`exit_page`, `exit_hostname`). */
const exitsTable = (range: string) =>
  `exits AS MATERIALIZED (SELECT day, visitor, visit, page AS exit_page,
      hostname AS exit_hostname, max(id) FROM log WHERE ${range} AND kind = 0 AND visit > 0
      GROUP BY day, visitor, visit)`;

/**
 * The statement of a chunk: the kept rows (`kept`: only the columns the groupings read), the
 * page views of their visits when a filter is on a hit (`views`), the visits' last page views
 * when an exit is asked about (`exits`), then every grouping's SELECTs.
 */
export function chunkStatement(
  filter: Resolved | null,
  groups: GroupPlan[],
  chunk: Chunk,
  between?: [number, number],
  currency = 0,
): Statement {
  const range = `id BETWEEN ?1 AND ?2 AND day BETWEEN ?3 AND ?4${between ? ' AND time BETWEEN ?5 AND ?6' : ''}`;
  const chunkParams: (string | number)[] = [chunk.low, chunk.high, chunk.first, chunk.last];
  if (between) chunkParams.push(between[0], between[1]);
  const ctx: Context = {
    params: [],
    first: chunkParams.length + 1,
    range,
    onHit: false,
    onVisit: false,
    exits: false,
    owned: filter !== null && owns(filter),
    currency,
  };
  const where = filter ? condition(ctx, filter) : '1';
  const dimensions = groups.flatMap((g) => g.dimensions.map(queryDimension));
  const exits = ctx.exits || dimensions.some((d) => d.exit);
  const shape: Shape = {
    dimensions: Math.max(0, ...groups.map((g) => g.dimensions.length)),
    sums: PARTIALS.filter((p) => groups.some((g) => g.partials.has(p))),
  };
  const built = groups.map((g) => groupArms(ctx, shape, g));
  const reads = built.reduce(
    (n, b) => ({ kept: n.kept + b.reads.kept, views: n.views + b.reads.views }),
    { kept: 0, views: 0 },
  );
  // The visits' page views are found from the kept rows: one more read of them.
  if (reads.views > 0) reads.kept++;
  // Every page view of the kept visits carries what the visit sums read; for exit pages
  // alone, the pages.
  const exitsAlone = built.every((b) => b.exitsOnly);
  const viewColumns = new Set(
    exitsAlone
      ? ['page', 'previous_page', 'visit_views']
      : [
          ...VIEW_COLUMNS,
          'kind',
          ...dimensions.flatMap((d) => (d.exit ? [] : columnsIn(d.session))),
          ...(dimensions.some((d) => d.exit === 'page') ? ['page', 'previous_page'] : []),
        ],
  );
  const wanted = new Set([
    ...SUM_COLUMNS,
    ...dimensions.flatMap((d) => (d.exit ? [] : [...columnsIn(d.sql), ...columnsIn(d.session)])),
    ...(reads.views > 0 && !ctx.onHit ? viewColumns : []),
    ...(groups.some((g) => g.partials.has('dur')) ? ['visit_seconds'] : []),
    ...(groups.some((g) => g.partials.has('rev')) ? ['revenue', 'currency'] : []),
  ]);
  const materialized = (n: number) => (n > 1 ? 'MATERIALIZED ' : '');
  const tables = [
    `kept AS ${materialized(reads.kept)}(SELECT ${[...wanted].join(', ')} FROM log WHERE ${range} AND ${where})`,
  ];
  if (exits) tables.unshift(exitsTable(range));
  if (reads.views > 0) {
    // Every page view of the kept visits: the kept page views themselves, unless a filter on a
    // hit kept only some of a visit's hits.
    const select = [...viewColumns].join(', ');
    tables.push(
      ctx.onHit
        ? `views AS ${materialized(reads.views)}(SELECT ${select} FROM log
      WHERE ${range} AND kind = 0 AND (day, visitor, visit) IN (SELECT day, visitor, visit FROM kept WHERE visit > 0))`
        : `views AS ${materialized(reads.views)}(SELECT ${select} FROM kept WHERE kind = 0 AND visit > 0)`,
    );
  }
  return {
    text: `WITH ${tables.join(',\n')}\n${unionAll(built.flatMap((b) => b.arms))}`,
    params: [...chunkParams, ...ctx.params],
  };
}

/**
 * The SQL of resolved filters on a chunk's rows (`range`: the chunk's condition, its
 * parameters `?1`…), each a condition of its own, their parameters numbered from `first`;
 * with the table of the visits' last page views (`exits`) when a condition reads it. For the
 * reads of ./flow-sql.ts.
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
  };
  const sql = filters.map((f) => condition(ctx, f));
  return { sql, params: ctx.params, tables: ctx.exits ? [exitsTable(range)] : [] };
}
