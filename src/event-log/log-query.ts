/**
 * Statistics read from a website's event log rather than D1's roll-ups: what a filtered
 * question needs (docs/ARCHITECTURE.md, "Filters"). Each statistic is counted over the kept
 * hits exactly as the roll-ups count it over all hits (`rollupOf`, ./events.ts), so that
 * with no filter both give the same answer (test/integration/filters.test.ts proves it):
 *
 * - per hit: `pageviews`, `pageviews_hours`, `page` (page views), `event` (custom events);
 * - per visitor of a day, by their first page view of the day: `visitors`, `visitors_hours`,
 *   `browser`, `os`, `device`, `country`, `continent`, `city`, `language`, `resolution`;
 * - per visit, by its first page view: `visits`, `visits_hours`, `landing_page`,
 *   `referrer`, `campaign`; by all its page views: `bounces` (one page view),
 *   `visit_duration` (whole seconds from its first to its last page view), `exit_page`
 *   (the page of its last page view, in arrival order).
 *
 * A visitor or a visit is among the kept hits when any of its hits is kept. All of a visit's
 * and of a visitor's hits are on one local date, so a range of dates holds them whole.
 *
 * The SQL is built here from fixed fragments; every value is a bound parameter.
 */
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { containsText, foldingsOf, MAX_FOLDINGS_PER_QUESTION } from '../db/contains-text.ts';
import { columnOf, type Filter, levelOf } from '../stats/filters.ts';
import type { StatName } from '../stats/names.ts';

/** A statement and its parameters. */
export type Statement = { text: string; params: (string | number)[] };

export type LogStatsQuery = {
  name: StatName;
  from: string;
  to: string;
  filters: Filter[];
  search?: string | undefined;
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
};

/** The sums a summary's figures are made of (`figuresOf`, src/stats/overview.ts). */
export type LogSums = {
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  visit_duration: number;
  event: number;
};

const dialect = new SQLiteSyncDialect();

/**
 * `column` contains `term`, ignoring case, as the Stats API's `search` matches, folding at
 * most `most` spellings (the question's budget: `MAX_FOLDINGS_PER_QUESTION`).
 */
function contains(column: string, term: string, most: number): Statement {
  const query = dialect.sqlToQuery(containsText(sql.raw(column), term, most));
  return { text: query.sql, params: query.params as (string | number)[] };
}

/**
 * The condition a filter puts on `column`, which holds its dimension's value. A `contains`
 * filter is a probe into the values that match it, `matches` (found once per statement, in
 * a table of their own: each folds the case of every letter, an expression as deep as the
 * term has letters, and SQLite adds the depths of expressions nested in each other).
 */
function condition(
  column: string,
  filter: Filter,
  plan: Plan,
  operator = filter.operator,
): Statement {
  if (operator === 'contains')
    return { text: `${column} IN m${plan.filters.indexOf(filter)}`, params: [] };
  // `IS`: a row without the value (NULL) is never it, so always `not` it.
  return { text: `${operator === 'not' ? 'NOT ' : ''}${column} IS ?`, params: [filter.value] };
}

/**
 * For each `contains` filter, `m<i>` (`i` its place among the filters): the distinct values
 * of its column among the range's events that contain its text in any case.
 */
function matches(plan: Plan): Statement[] {
  let left = MAX_FOLDINGS_PER_QUESTION;
  return plan.filters.flatMap((filter, i) => {
    if (filter.operator !== 'contains') return [];
    const column = columnOf(filter.dimension);
    const c = contains(column, filter.value, left);
    left = Math.max(0, left - foldingsOf(filter.value));
    return [
      {
        text: `m${i} AS MATERIALIZED (SELECT DISTINCT ${column} FROM r WHERE ${column} IS NOT NULL AND ${c.text})`,
        params: c.params,
      },
    ];
  });
}

/**
 * Where a filter's rows are, in the common table expressions below: which rows of `r` it
 * keeps (a hit), or the visits or visitors of a day it keeps, by the column of its value
 * (a landing page is a visit's first page view's `page`).
 */
function filterSet(filter: Filter, plan: Plan): Statement {
  const { dimension, operator } = filter;
  const level = levelOf(dimension);
  const column = columnOf(dimension);
  if (level === 'hit') {
    // `not` keeps every hit but those that match: custom events under a page filter too.
    const kind = dimension === 'page' ? 'pageview' : 'event';
    const c = condition(column, filter, plan, operator === 'not' ? 'is' : operator);
    const text = `(kind = '${kind}' AND ${c.text})`;
    return { text: operator === 'not' ? `NOT ${text}` : text, params: c.params };
  }
  const c = condition(dimension === 'exit_page' ? 'exit_page' : column, filter, plan);
  const [key, table] =
    level === 'visitor'
      ? ['date, visitor', 'firsts']
      : ['date, visitor, visit', dimension === 'exit_page' ? 'ends' : 'starts'];
  return { text: `(${key}) IN (SELECT ${key} FROM ${table} WHERE ${c.text})`, params: c.params };
}

/**
 * The statement with every `?` numbered (`?1`, `?2`, …) after its distinct values, each bound
 * once: however often a filter's value recurs (in the kept events, visitors and visits, and
 * in each statistic's own pass), the statement binds at most a few dozen values, under the
 * object's SQLite limit of 100 (ten filters, repeated, went past it). `?` never appears in
 * the statements' literals ('pageview', 'event', '' and the letters of `containsText`).
 */
function numbered(statement: Statement): Statement {
  const values: (string | number)[] = [];
  const index = new Map<string, number>();
  let next = 0;
  const text = statement.text.replace(/\?/g, () => {
    const value = statement.params[next++] as string | number;
    const key = `${typeof value}:${value}`;
    let n = index.get(key);
    if (n === undefined) {
      values.push(value);
      n = values.length;
      index.set(key, n);
    }
    return `?${n}`;
  });
  if (next !== statement.params.length) throw new Error('parameters and placeholders differ');
  return { text, params: values };
}

/**
 * Conditions joined by AND as a balanced tree, their parameters in order: SQLite limits how
 * deep an expression may be (100 here), and a chain of ten ANDs is ten deep, a tree four.
 */
function allOf(conditions: Statement[]): Statement {
  if (conditions.length <= 1) return conditions[0] ?? { text: '', params: [] };
  const half = Math.ceil(conditions.length / 2);
  const left = allOf(conditions.slice(0, half));
  const right = allOf(conditions.slice(half));
  return { text: `(${left.text} AND ${right.text})`, params: [...left.params, ...right.params] };
}

/** `WHERE` and the conditions, or nothing when there are none. */
function whereAll(conditions: Statement[]): Statement {
  const all = allOf(conditions);
  return { text: conditions.length ? ` WHERE ${all.text}` : '', params: all.params };
}

/**
 * How a query's filters are applied. Every filter keeps its events in `kept`. A statistic
 * that counts visitors applies the visitor-level filters (browser, country…) to each
 * visitor's own first page view, in the pass that counts them, instead of finding the
 * visitors they keep in a pass of their own: a visitor is among the kept events exactly when
 * it has the filtered values and one of its events is kept by the other filters. Likewise a
 * statistic that counts visits applies the visit-level filters (landing page, referrer,
 * campaign, exit page) to each visit. When no other filter is left, no other pass is made at
 * all. `fold: false` applies every filter in `kept` (the reference the folded statements are
 * tested against).
 */
type Plan = {
  filters: Filter[];
  /** The filters each kind of statistic applies in its own pass. */
  visitor: Filter[];
  visit: Filter[];
  /** Visit statistics read `ends` (with the exit page) even when they need only `starts`. */
  ends: boolean;
};

function planOf(filters: Filter[], fold: boolean): Plan {
  const at = (level: 'visitor' | 'visit') =>
    fold ? filters.filter((f) => levelOf(f.dimension) === level) : [];
  const visit = at('visit');
  return {
    filters,
    visitor: at('visitor'),
    visit,
    ends: visit.some((f) => f.dimension === 'exit_page'),
  };
}

/** The filters, but those a kind of statistic applies in its own pass. */
const others = (plan: Plan, folded: Filter[]) => plan.filters.filter((f) => !folded.includes(f));

/**
 * The common table expressions every log query starts from, over the events of the dates
 * `from`–`to` whose ids lie in `ids` (the log's day index narrows the scan; the date is
 * checked anyway):
 * - `r`: those events;
 * - `firsts`: each visitor's first page view of the day (its visitor-level values);
 * - `starts`: each visit's first page view (its start, landing page, referrer, campaign);
 * - `ends`: each visit's page views, last instant, first page view's id and last page
 *   view's page (`exit_page`);
 * - `kept`: the events the filters keep; `kept_visitors` and `kept_visits` (of a day): the
 *   keys of the visitors and visits among the events kept by the filters that visitor and
 *   visit statistics do not apply themselves (`Plan`), computed once however often a
 *   statement asks (a CTE that is not used is not computed at all).
 */
function keptEvents(from: string, to: string, ids: [number, number], plan: Plan): Statement {
  const where = (filters: Filter[], ...more: string[]) =>
    whereAll([
      ...more.map((text) => ({ text, params: [] })),
      ...filters.map((filter) => filterSet(filter, plan)),
    ]);
  const kept = where(plan.filters);
  const visitors = where(others(plan, plan.visitor), 'visitor > 0');
  const visits = where(others(plan, plan.visit), 'visit > 0');
  const found = matches(plan);
  const text = `WITH
  r AS (SELECT * FROM events WHERE id BETWEEN ? AND ? AND date BETWEEN ? AND ?),${found.map((m) => `\n  ${m.text},`).join('')}
  firsts AS (SELECT date, visitor, hour, browser, os, device, country, continent, city,
      language, resolution FROM r WHERE kind = 'pageview' AND new_visitor = 1),
  starts AS (SELECT date, visitor, visit, hour, time, page, referrer, campaign
      FROM r WHERE kind = 'pageview' AND new_visit = 1),
  visit_views AS (SELECT date, visitor, visit, count(*) AS views, max(time) AS last,
      min(id) AS first_id, max(id) AS last_id FROM r WHERE kind = 'pageview'
      GROUP BY date, visitor, visit),
  ends AS (SELECT v.date, v.visitor, v.visit, v.views, v.last, v.first_id, x.page AS exit_page
      FROM visit_views v JOIN events x ON x.id = v.last_id),
  kept AS (SELECT * FROM r${kept.text}),
  kept_visitors AS MATERIALIZED (SELECT DISTINCT date, visitor FROM r${visitors.text}),
  kept_visits AS MATERIALIZED (SELECT DISTINCT date, visitor, visit FROM r${visits.text})`;
  return {
    text,
    params: [
      ids[0],
      ids[1],
      from,
      to,
      ...found.flatMap((m) => m.params),
      ...kept.params,
      ...visitors.params,
      ...visits.params,
    ],
  };
}

/**
 * The visitors (of a day) among the kept events, with their first page view's values as `f`:
 * those with the values of the visitor-level filters the plan applies here and, when other
 * filters remain, probed into the set of kept keys (`IN`: one scan of `firsts`, one index of
 * the kept keys), never joined row by row.
 */
function keptVisitors(plan: Plan): Statement {
  const conditions = plan.visitor.map((f) => condition(`f.${columnOf(f.dimension)}`, f, plan));
  if (others(plan, plan.visitor).length)
    conditions.push({
      text: '(f.date, f.visitor) IN (SELECT date, visitor FROM kept_visitors)',
      params: [],
    });
  const where = whereAll(conditions);
  return { text: `firsts f${where.text}`, params: where.params };
}

/** The column of a visit-level filter's value: on the visit's start `s` or its end `e`. */
const VISIT_COLUMN: Record<string, string> = {
  landing_page: 's.page',
  referrer: 's.referrer',
  campaign: 's.campaign',
  exit_page: 'e.exit_page',
};

/**
 * The visits among the kept events, with their first page view's values as `s` and, when a
 * statistic or a filter needs them (`ends`), their page views, last instant and exit page as
 * `e` (then `s` is found from `e` by its id: a visit's first page view is its first by
 * arrival, the one marked `new_visit`; `CROSS JOIN` keeps `ends` the outer loop). Visits are
 * those with the values of the visit-level filters the plan applies here and, when other
 * filters remain, probed into the set of kept keys, never joined to another table by their
 * key (the planner may then index the wrong side).
 */
function keptVisits(plan: Plan, needsEnds: boolean): Statement {
  const ends = needsEnds || plan.ends;
  const conditions = plan.visit.map((f) => condition(VISIT_COLUMN[f.dimension] as string, f, plan));
  const key = ends ? 'e' : 's';
  if (others(plan, plan.visit).length)
    conditions.push({
      text: `(${key}.date, ${key}.visitor, ${key}.visit) IN (SELECT date, visitor, visit FROM kept_visits)`,
      params: [],
    });
  const where = whereAll(conditions);
  const from = ends ? 'ends e CROSS JOIN events s ON s.id = e.first_id' : 'starts s';
  return { text: `${from}${where.text}`, params: where.params };
}

/** Whole seconds from a visit's first page view to its last. */
const DURATION = '(e.last - s.time) / 1000';

/** A count per hit of one kind, per visitor of a day, per visit: `value`, `n` rows. */
const perHit = (value: string, kind: 'pageview' | 'event') => (): Statement => ({
  text: `SELECT ${value} AS value, count(*) AS n FROM kept WHERE kind = '${kind}' GROUP BY 1`,
  params: [],
});
const perVisitor =
  (column: string) =>
  (plan: Plan): Statement => {
    const from = keptVisitors(plan);
    return {
      text: `SELECT f.${column} AS value, count(*) AS n FROM ${from.text} GROUP BY 1`,
      params: from.params,
    };
  };
// Conditions on a visit's page views are inside the aggregate, never in WHERE: a constraint
// there lets the planner index `ends` by it instead of by the visit, and probe it once per visit.
const perVisit =
  (value: string, n = 'count(*)', ends = false) =>
  (plan: Plan): Statement => {
    const from = keptVisits(plan, ends);
    return {
      text: `SELECT ${value} AS value, ${n} AS n FROM ${from.text} GROUP BY 1`,
      params: from.params,
    };
  };

/** Each statistic as `value`, `n` rows over the kept events (values of 0 dropped later). */
const STATISTIC: Record<StatName, (plan: Plan) => Statement> = {
  pageviews: perHit('date', 'pageview'),
  pageviews_hours: perHit('hour', 'pageview'),
  page: perHit('page', 'pageview'),
  event: perHit('event', 'event'),
  visitors: perVisitor('date'),
  visitors_hours: perVisitor('hour'),
  browser: perVisitor('browser'),
  os: perVisitor('os'),
  device: perVisitor('device'),
  country: perVisitor('country'),
  continent: perVisitor('continent'),
  city: perVisitor('city'),
  language: perVisitor('language'),
  resolution: perVisitor('resolution'),
  visits: perVisit('s.date'),
  visits_hours: perVisit('s.hour'),
  landing_page: perVisit('s.page'),
  referrer: perVisit('s.referrer'),
  campaign: perVisit('s.campaign'),
  bounces: perVisit('s.date', 'sum(e.views = 1)', true),
  visit_duration: perVisit('s.date', `sum(${DURATION})`, true),
  exit_page: perVisit('e.exit_page', 'count(*)', true),
};

/** How a statement applies its filters (`Plan`); folded unless said otherwise. */
export type Folding = { fold?: boolean };

/**
 * One statistic over the kept events, every value with its count, sorted as the Stats API
 * sorts (ties by value); values that are empty, absent or counted 0 left out, as in the
 * roll-ups.
 */
export function statisticStatement(
  q: LogStatsQuery,
  ids: [number, number],
  { fold = true }: Folding = {},
): Statement {
  const plan = planOf(q.filters, fold);
  const base = keptEvents(q.from, q.to, ids, plan);
  const statistic = STATISTIC[q.name](plan);
  const params = [...base.params, ...statistic.params];
  let where = "value IS NOT NULL AND value != '' AND n > 0";
  if (q.search) {
    const used = q.filters
      .filter((f) => f.operator === 'contains')
      .reduce((n, f) => n + foldingsOf(f.value), 0);
    const c = contains('value', q.search, MAX_FOLDINGS_PER_QUESTION - used);
    where += ` AND ${c.text}`;
    params.push(...c.params);
  }
  const direction = q.sort === 'asc' ? 'ASC' : 'DESC';
  const order = q.sortBy === 'value' ? `value ${direction}` : `n ${direction}, value ASC`;
  return numbered({
    text: `${base.text}
SELECT value, n AS count FROM (${statistic.text}) WHERE ${where} ORDER BY ${order}`,
    params,
  });
}

/** The sums of a summary's figures over the kept events. */
export function sumsStatement(
  q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>,
  ids: [number, number],
  { fold = true }: Folding = {},
): Statement {
  const plan = planOf(q.filters, fold);
  const base = keptEvents(q.from, q.to, ids, plan);
  const visitors = keptVisitors(plan);
  const visits = keptVisits(plan, true);
  return numbered({
    text: `${base.text}
SELECT
  (SELECT count(*) FROM ${visitors.text}) AS visitors,
  (SELECT count(*) FROM kept WHERE kind = 'pageview') AS pageviews,
  (SELECT count(*) FROM kept WHERE kind = 'event' AND event IS NOT NULL AND event != '') AS event,
  visits, bounces, visit_duration
FROM (SELECT count(*) AS visits, coalesce(sum(e.views = 1), 0) AS bounces,
  coalesce(sum(${DURATION}), 0) AS visit_duration FROM ${visits.text})`,
    params: [...base.params, ...visitors.params, ...visits.params],
  });
}

/**
 * Terms joined by `UNION ALL`, nested so that no compound SELECT has more than
 * `COMPOUND_TERMS` of them (the object's SQLite refuses long compounds).
 */
function unionAll(terms: string[]): string {
  if (terms.length <= COMPOUND_TERMS) return terms.join('\nUNION ALL\n');
  const groups: string[] = [];
  for (let i = 0; i < terms.length; i += COMPOUND_TERMS)
    groups.push(`SELECT * FROM (${terms.slice(i, i + COMPOUND_TERMS).join('\nUNION ALL\n')})`);
  return unionAll(groups);
}

/** The most terms one compound SELECT is given. */
const COMPOUND_TERMS = 4;

/**
 * The first `limit` values by count (ties by value), or by value, of several statistics over
 * the same kept events, with each one's number of values, in one statement: the events,
 * visits and visitors the filters keep are computed once for all of them (the statistics
 * page's panels; its chart's series).
 * Rows carry `q`, the statistic's index in `names`.
 */
export function topValuesStatement(
  q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'> & {
    names: StatName[];
    limit: number;
    /** `value`: the first values in ascending order instead (a chart's dates or hours). */
    sortBy?: 'count' | 'value';
  },
  ids: [number, number],
  { fold = true }: Folding = {},
): Statement {
  const order = q.sortBy === 'value' ? 'value ASC' : 'n DESC, value ASC';
  const plan = planOf(q.filters, fold);
  const base = keptEvents(q.from, q.to, ids, plan);
  const statistics = q.names.map((name) => STATISTIC[name](plan));
  const each = statistics.map(
    (statistic, i) =>
      `SELECT ${i} AS q, value, n FROM (${statistic.text}) WHERE value IS NOT NULL AND value != '' AND n > 0`,
  );
  return numbered({
    text: `${base.text}
SELECT q, value, n AS count, total FROM (
  SELECT q, value, n, row_number() OVER (PARTITION BY q ORDER BY ${order}) AS place,
    count(*) OVER (PARTITION BY q) AS total
  FROM (${unionAll(each)}))
WHERE place <= ? ORDER BY q, place`,
    params: [...base.params, ...statistics.flatMap((s) => s.params), q.limit],
  });
}
