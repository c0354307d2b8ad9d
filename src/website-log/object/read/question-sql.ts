/**
 * The SQL of a question to the log over one chunk of whole local dates (docs/ARCHITECTURE.md,
 * "The query engine" and "Reads that never stall hits"): the rows the filters keep, then for
 * each grouping one or two `GROUP BY`s giving the sums of src/counting/query-metrics.ts per
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

import { type QueryDimension, queryDimension } from '../../../counting/query-dimensions.ts';
import { PARTIALS, type PartialName, SESSION_PARTIALS } from '../../../counting/query-metrics.ts';
import { LOG_COLUMN_NAMES } from '../tables/columns.ts';
import {
  type Context,
  condition,
  exitsTable,
  joined,
  numbered,
  owns,
  param,
  paramsOf,
  type Resolved,
} from './filters/filter-sql.ts';

/**
 * A visit's key in a statement: a visit's number is its date's own (no two visitors of a
 * date share one), so the date and the number name it — one integer, which SQLite looks up
 * faster than the row value `(day, visitor, visit)`.
 */
const VISIT_KEY = 'day * 4294967296 + visit';

/** A statement and its parameters. */
export type Statement = { text: string; params: (string | number)[] };

/** The ids and dates of a chunk: `id BETWEEN low AND high AND day BETWEEN first AND last`. */
export type Chunk = { low: number; high: number; first: number; last: number };

/**
 * A grouping's goals as the log finds their hits (`event:goal`): the columns a goal's ids are
 * of (a page view's page, a hit's event name…), and each goal's ids of a column with the
 * currency its revenue is counted in and the scroll its page views need (-1: none; entries
 * `[goal, column, id, currency's id, scroll]`).
 */
export type GoalMap = {
  columns: { sql: string; pageViews: boolean }[];
  entries: [goal: number, column: number, id: number, currency: number, scroll: number][];
};

/**
 * A grouping as the statement computes it: its index, dimensions, the sums it needs and, by
 * goals, its goals. Its rows have `q` = 2 × the index, or 2 × the index + 1 for the visit
 * sums grouped apart.
 */
export type GroupPlan = {
  q: number;
  dimensions: string[];
  partials: ReadonlySet<PartialName>;
  goals?: GoalMap;
};

/** What every sum reads, and what the visits' page views carry for them. */
const SUM_COLUMNS = ['kind', 'day', 'visitor', 'visit', 'firsts', 'event', 'visit_views'];
const VIEW_COLUMNS = ['day', 'visitor', 'visit', 'firsts', 'visit_views', 'visit_seconds'];

const columnsIn = (sql: string | undefined) =>
  (sql?.match(/[a-z_]+/g) ?? []).filter((word) => LOG_COLUMN_NAMES.has(word));

/** The sums of a grouping, as SQL over the rows it reads. */
type SumSql = Partial<Record<PartialName, string>>;

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
    eng: 'coalesce(sum(engaged), 0)',
    sds: 'coalesce(sum(scroll), 0)',
    sdn: 'count(scroll)',
    rvn: `sum(currency = ${ctx.currency} AND revenue IS NOT NULL)`,
    vst: wholeVisits
      ? 'sum(kind = 0 AND firsts & 2 = 2)'
      : ctx.owned
        ? `count(DISTINCT ${VISIT_KEY})`
        : `count(DISTINCT CASE WHEN visit > 0 THEN ${VISIT_KEY} END)`,
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
function groupArms(outer: Context, shape: Shape, plan: GroupPlan): Arms {
  const dimensions = plan.dimensions.map(queryDimension);
  const wanted = plan.partials;
  const hitSide = [...wanted].filter((p) => !SESSION_PARTIALS.has(p));
  const visitSide = [...wanted].filter((p) => SESSION_PARTIALS.has(p));
  // A grouping by goals reads the hits that complete them, as a filter on a hit would keep
  // them, each goal's revenue in its currency.
  const ctx: Context = plan.goals ? { ...outer, onHit: true, currency: 'goal_currency' } : outer;
  const hits = plan.goals ? `goal_hits${plan.q}` : 'kept';
  if (plan.goals && visitSide.length > 0) throw new Error('the visit metrics cannot be by goals');
  const keysOf = (side: 'sql' | 'session') =>
    dimensions.map((d) => {
      if (d.exit) return d.exit === 'page' ? 'exit_page' : 'exit_hostname';
      const sql = side === 'sql' ? d.sql : d.session;
      if (sql === undefined) throw new Error('the visit metrics cannot be grouped so');
      return sql;
    });
  const withExits = (table: string) =>
    dimensions.some((d) => d.exit) ? `${table} JOIN exits USING (day, visitor, visit)` : table;
  // A row without a value of a dimension that has no `none` makes no group: it is left out
  // before grouping (most page views carry no UTM tag, no property…).
  const valued = (keys: string[], where?: string) => {
    const kept = dimensions.flatMap((d, i) =>
      d.kind === 'text' && d.none === undefined && !d.exit ? [`${keys[i]} IS NOT NULL`] : [],
    );
    return kept.length === 0 ? where : [...(where ? [`(${where})`] : []), ...kept].join(' AND ');
  };
  // Each row says its grouping and side: `q` = 2 × the grouping + 1 for the visit sums alone
  // (grouped by the visits' values: their rows make no group of their own).
  const armOf = (from: string, keys: string[], sums: SumSql, where?: string, visits = false) =>
    arm(shape, 2 * plan.q + (visits ? 1 : 0), from, keys, sums, valued(keys, where));
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
    // sum and no dimension reads a custom event (its name, its properties), they are left out
    // before grouping.
    const sums = only({ ...hitSums(ctx, dimensions), ...VIEW_SUMS }, wanted);
    const firstViews =
      wholeVisitsOf(ctx, dimensions) && [...wanted].every((p) => FIRST_VIEWS_SUMS.has(p));
    const ofEvents = wanted.has('ev') || wanted.has('ce') || dimensions.some((d) => d.events);
    const views = firstViews
      ? 'kind = 0 AND (firsts <> 0 OR visit_views <= 2)'
      : ofEvents
        ? undefined
        : 'kind = 0';
    return {
      arms: [armOf(withExits('kept'), keysOf('sql'), sums, views)],
      reads: { kept: 1, views: 0 },
    };
  }
  const arms: string[] = [];
  const reads = { kept: 0, views: 0 };
  if (hitSide.length > 0 || visitSide.length === 0) {
    arms.push(armOf(withExits(hits), keysOf('sql'), only(hitSums(ctx, dimensions), wanted)));
    if (!plan.goals) reads.kept++;
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

/**
 * A grouping's goals and the kept hits that complete each (`goal_hits<q>`: a row per hit and
 * goal, with the goal and its currency): the goals' ids bound as one JSON array, the hits of
 * any goal found first by their columns' ids, then joined with the goals they complete.
 */
function goalTables(ctx: Context, plan: GroupPlan & { goals: GoalMap }): string[] {
  const { q, goals } = plan;
  const columns = goals.columns.map((c, i) => ({ ...c, i }));
  if (columns.length === 0)
    return [`goal_hits${q} AS (SELECT *, 0 AS goal, 0 AS goal_currency FROM kept WHERE 0)`];
  const list = param(ctx, JSON.stringify(goals.entries));
  const scrolled = goals.entries.some((e) => e[4] >= 0);
  const hits = (c: (typeof columns)[number]) =>
    `${c.pageViews ? 'kind = 0 AND ' : ''}${c.sql} IN (SELECT id FROM goals${q} WHERE col = ${c.i})`;
  const join = (c: (typeof columns)[number]) =>
    `SELECT goal_rows${q}.*, goals${q}.goal, goals${q}.goal_currency FROM goals${q}
      JOIN goal_rows${q} ON goals${q}.col = ${c.i} AND goals${q}.id = goal_rows${q}.${c.sql}${
        c.pageViews ? ` AND goal_rows${q}.kind = 0` : ''
      }${scrolled ? ` AND coalesce(goal_rows${q}.scroll, -1) >= goals${q}.scroll` : ''}`;
  return [
    `goals${q} AS MATERIALIZED (SELECT json_extract(value, '$[0]') AS goal,
      json_extract(value, '$[1]') AS col, json_extract(value, '$[2]') AS id,
      json_extract(value, '$[3]') AS goal_currency, json_extract(value, '$[4]') AS scroll
      FROM json_each(${list}))`,
    // Materialized even when read once: in the join below, SQLite would otherwise scan the
    // chunk's rows again for each of the goals' ids.
    `goal_rows${q} AS MATERIALIZED (SELECT * FROM kept WHERE ${joined(columns.map(hits), 'OR')})`,
    `goal_hits${q} AS (${unionAll(columns.map(join))})`,
  ];
}

/**
 * The statement of a chunk: the kept rows (`kept`: only the columns the groupings read), the
 * page views of their visits when a filter is on a hit (`views`), the visits' last page views
 * when an exit is asked about (`exits`), the hits of each grouping's goals, then every
 * grouping's SELECTs.
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
    packed: [],
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
  // The visits' page views are found from the kept rows: one more read of them; so are the
  // hits of each grouping's goals.
  if (reads.views > 0) reads.kept++;
  const byGoals = groups.filter((g): g is GroupPlan & { goals: GoalMap } => g.goals !== undefined);
  reads.kept += byGoals.length;
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
    ...(groups.some((g) => g.partials.has('eng')) ? ['engaged'] : []),
    ...(groups.some((g) => g.partials.has('sds')) ? ['scroll'] : []),
    ...byGoals.flatMap((g) => g.goals.columns.flatMap((c) => columnsIn(c.sql))),
    ...(byGoals.some((g) => g.goals.entries.some((e) => e[4] >= 0)) ? ['scroll'] : []),
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
      WHERE ${range} AND kind = 0 AND ${VISIT_KEY} IN (SELECT ${VISIT_KEY} FROM kept WHERE visit > 0))`
        : `views AS ${materialized(reads.views)}(SELECT ${select} FROM kept WHERE kind = 0 AND visit > 0)`,
    );
  }
  tables.push(...byGoals.flatMap((g) => goalTables(ctx, g)));
  const text = `WITH ${tables.join(',\n')}\n${unionAll(built.flatMap((b) => b.arms))}`;
  return { text: numbered(ctx, text), params: [...chunkParams, ...paramsOf(ctx)] };
}
