/**
 * The statements of a filtered question over one chunk of the log — whole local dates, a
 * range of ids (docs/ARCHITECTURE.md, "Filters" and "Reads that never stall hits"). Each row
 * of `log` carries its visit's values (landing page, referrer, campaign, the hour it began)
 * and its visitor's (place, language, device, screen, the hour of their first page view), so
 * that a filter on any of them is a condition on the row, and every statistic is counted as
 * the roll-ups count it (`rollupOf`, ./events.ts) over the hits the filters keep:
 *
 * - per hit: `pageviews`, `pageviews_hours`, `page`, `event`;
 * - per visitor of a day, by their values: `visitors`, `visitors_hours`, `browser`, `os`,
 *   `device`, `country`, `continent`, `city`, `language`, `resolution`;
 * - per visit, by its values: `visits`, `visits_hours`, `landing_page`, `referrer`,
 *   `campaign`; and from all its page views, as the roll-ups add them up page view by page
 *   view: `bounces` (+1 at the first, −1 at the second), `visit_duration` (the seconds each
 *   adds), `exit_page` (+1 on its page, −1 on the page before).
 *
 * A visitor or a visit is among the kept hits when any of its hits is kept; with no filter on
 * a hit (a page, an event), the filters keep whole visits and visitors, so a visitor's first
 * page view or a visit's is enough to count it. The exit page is the one value not on a row:
 * a filter on it finds its visits by the same +1/−1 (the visits where they add up to one).
 *
 * Values are ids of the dictionary (./dictionary.ts); a filter's value is looked up there
 * first (`FilterIds`), so the statements bind ids, never text, and no column name comes from
 * a filter (`columnOf`, src/stats/filters.ts).
 */
import { columnOf, type Filter, levelOf } from '../counting/dimensions.ts';
import type { StatName } from '../counting/statistics.ts';

/** A statement and its parameters. */
export type Statement = { text: string; params: (string | number)[] };

/** A filter with the ids of the values it names (`is`, `not`) or matches (`contains`). */
export type FilterIds = { filter: Filter; ids: number[] };

/** The ids and dates of a chunk: `id BETWEEN low AND high AND day BETWEEN first AND last`. */
export type Chunk = { low: number; high: number; first: number; last: number };

/** The column of `log` a statistic's value is read from. */
const VALUE: Record<StatName, string> = {
  pageviews: 'day',
  pageviews_hours: 'hour',
  page: 'page',
  event: 'event',
  visitors: 'day',
  visitors_hours: 'visitor_hour',
  browser: 'browser',
  os: 'os',
  device: 'device',
  country: 'country',
  continent: 'continent',
  city: 'city',
  language: 'language',
  resolution: 'resolution',
  visits: 'day',
  visits_hours: 'visit_hour',
  landing_page: 'landing',
  referrer: 'referrer',
  campaign: 'campaign',
  bounces: 'day',
  visit_duration: 'day',
  exit_page: 'page',
};

/** How a statistic counts: per hit, per visitor, per visit, or from a visit's page views. */
type Counting = 'hit' | 'event' | 'visitor' | 'visit' | 'bounces' | 'visit_duration' | 'exit_page';

const COUNTING: Record<StatName, Counting> = {
  pageviews: 'hit',
  pageviews_hours: 'hit',
  page: 'hit',
  event: 'event',
  visitors: 'visitor',
  visitors_hours: 'visitor',
  browser: 'visitor',
  os: 'visitor',
  device: 'visitor',
  country: 'visitor',
  continent: 'visitor',
  city: 'visitor',
  language: 'visitor',
  resolution: 'visitor',
  visits: 'visit',
  visits_hours: 'visit',
  landing_page: 'visit',
  referrer: 'visit',
  campaign: 'visit',
  bounces: 'bounces',
  visit_duration: 'visit_duration',
  exit_page: 'exit_page',
};

/** The column of `log` a visit- or visitor-level filter's value is on. */
const ROW_COLUMN: Partial<Record<Filter['dimension'], string>> = { landing_page: 'landing' };

/** The range of a chunk, on `log`. */
const RANGE = 'id BETWEEN ?1 AND ?2 AND day BETWEEN ?3 AND ?4';

/**
 * Conditions joined by AND as a balanced tree: SQLite limits how deep an expression may be
 * (100 here), and a chain of ten ANDs is ten deep, a tree four.
 */
function allOf(conditions: string[]): string {
  if (conditions.length === 0) return '1';
  if (conditions.length === 1) return conditions[0] as string;
  const half = Math.ceil(conditions.length / 2);
  return `(${allOf(conditions.slice(0, half))} AND ${allOf(conditions.slice(half))})`;
}

/**
 * What a question's filters make of a chunk: the condition a kept row meets, whether a filter
 * is on a hit (then visits and visitors are kept by any of their hits) and the parameters
 * after the chunk's four, one per filter (`?5`, `?6`, …): its id, or its ids as a JSON array.
 */
type Kept = { where: string; onHit: boolean; onVisit: boolean; params: (string | number)[] };

function keptBy(filters: FilterIds[]): Kept {
  const params: (string | number)[] = [];
  const conditions = filters.map(({ filter, ids }) => {
    // One id is compared as it is (the commonest: `is` and `not`), several probed as a set.
    const one = ids.length === 1 ? (ids[0] as number) : null;
    params.push(one ?? JSON.stringify(ids));
    const param = `?${4 + params.length}`;
    return conditionOf(
      filter,
      one === null ? { set: `(SELECT value FROM json_each(${param}))` } : { one: param },
    );
  });
  return {
    where: allOf(conditions),
    onHit: filters.some(({ filter }) => levelOf(filter.dimension) === 'hit'),
    onVisit: filters.some(({ filter }) => levelOf(filter.dimension) === 'visit'),
    params,
  };
}

/** The ids a filter names or matches, in a statement: one parameter, or a set of them. */
type Ids = { one: string } | { set: string };

/** `column` holds one of `ids` (NULL when the column is NULL, as `IN`). */
const inIds = (column: string, ids: Ids) =>
  'one' in ids ? `${column} = ${ids.one}` : `${column} IN ${ids.set}`;

/** The condition a filter puts on a row, `ids` the ids it names or matches. */
function conditionOf(filter: Filter, ids: Ids): string {
  const { dimension, operator } = filter;
  const level = levelOf(dimension);
  if (level === 'hit') {
    // `not` keeps every hit but those that match: custom events under a page filter too.
    const hit =
      dimension === 'page'
        ? `(kind = 0 AND ${inIds('page', ids)})`
        : `(kind = 1 AND ${inIds('event', ids)})`;
    return operator === 'not' ? `NOT ${hit}` : hit;
  }
  // A hit without a visitor (an event before any page view of the day) is never kept.
  const owner = level === 'visitor' ? 'visitor > 0' : 'visit > 0';
  if (dimension === 'exit_page') {
    const visits = `(day, visitor, visit) IN (SELECT day, visitor, visit FROM log
      WHERE ${RANGE} AND kind = 0 AND (${inIds('page', ids)} OR ${inIds('previous_page', ids)})
      GROUP BY day, visitor, visit
      HAVING sum(${inIds('page', ids)}) > sum(coalesce(${inIds('previous_page', ids)}, 0)))`;
    return `(${owner} AND ${operator === 'not' ? 'NOT ' : ''}${visits})`;
  }
  const column = ROW_COLUMN[dimension] ?? columnOf(dimension);
  // `not` keeps the rows without the value (NULL included), as `is` leaves them out.
  const match = `coalesce(${inIds(column, ids)}, 0)`;
  return `(${owner} AND ${match} = ${operator === 'not' ? 0 : 1})`;
}

/**
 * The rows whose value and count one statistic adds up to over a chunk, as `SELECT v, n`
 * (ids, day numbers or hours; counts may be negative, summed by the caller), reading the
 * kept rows from `kept` (a table of the statement).
 */
function statisticOf(name: StatName, { onHit, onVisit }: Kept, kept: string): string {
  const v = VALUE[name];
  switch (COUNTING[name]) {
    case 'hit':
      return `SELECT ${v} AS v, count(*) AS n FROM ${kept} WHERE kind = 0 GROUP BY 1`;
    case 'event':
      return `SELECT event AS v, count(*) AS n FROM ${kept} WHERE kind = 1 AND event IS NOT NULL GROUP BY 1`;
    case 'visitor':
      // Kept by a hit: any of its hits; by a visit: any of its visits' first page views; by
      // nothing but its own values: its first page view of the day.
      if (onHit)
        return `SELECT v, count(*) AS n FROM (SELECT DISTINCT day, visitor, ${v} AS v FROM ${kept} WHERE visitor > 0) GROUP BY 1`;
      if (onVisit)
        return `SELECT v, count(*) AS n FROM (SELECT DISTINCT day, visitor, ${v} AS v FROM ${kept} WHERE kind = 0 AND firsts & 2) GROUP BY 1`;
      return `SELECT ${v} AS v, count(*) AS n FROM ${kept} WHERE kind = 0 AND firsts & 1 GROUP BY 1`;
    case 'visit':
      return onHit
        ? `SELECT v, count(*) AS n FROM (SELECT DISTINCT day, visitor, visit, ${v} AS v FROM ${kept} WHERE visit > 0) GROUP BY 1`
        : `SELECT ${v} AS v, count(*) AS n FROM ${kept} WHERE kind = 0 AND firsts & 2 GROUP BY 1`;
    case 'bounces':
      return `SELECT day AS v, sum(CASE visit_views WHEN 1 THEN 1 WHEN 2 THEN -1 ELSE 0 END) AS n FROM views GROUP BY 1`;
    case 'visit_duration':
      return 'SELECT day AS v, sum(visit_seconds) AS n FROM views GROUP BY 1';
    case 'exit_page':
      return `SELECT v, sum(c) AS n FROM (
        SELECT page AS v, 1 AS c FROM views WHERE visit_views IS NOT NULL
        UNION ALL SELECT previous_page, -1 FROM views WHERE previous_page IS NOT NULL) GROUP BY 1 HAVING n <> 0`;
  }
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

/** Whether a statistic adds up its visits' page views (and so reads `views`). */
const readsViews = (name: StatName) =>
  ['bounces', 'visit_duration', 'exit_page'].includes(COUNTING[name]);

/** The columns of `log` every statement reads, and those of visits' page views. */
const BASE_COLUMNS = ['kind', 'day', 'visitor', 'visit', 'firsts', 'event'];
const VIEW_COLUMNS = ['page', 'previous_page', 'visit_views', 'visit_seconds'];

/**
 * The tables every statement of a chunk starts from: `kept`, the rows the filters keep (the
 * columns the statistics `names` read, no others: a table SQLite writes out holds less);
 * and, for the statistics that add up visits' page views, `views`: every page view of the
 * visits among the kept rows (with no filter on a hit, the kept page views themselves: the
 * filters keep whole visits).
 */
function tables(kept: Kept, names: readonly StatName[]): string {
  const views = names.some(readsViews);
  const columns = new Set([...BASE_COLUMNS, ...names.map((name) => VALUE[name])]);
  if (views) for (const column of VIEW_COLUMNS) columns.add(column);
  // A table read more than once is written out once (MATERIALIZED); one read once is read
  // where its rows are. The exit page reads the visits' page views twice.
  const keptReads = names.filter((name) => !readsViews(name)).length + (views ? 1 : 0);
  const viewReads = names.reduce(
    (n, name) => n + (name === 'exit_page' ? 2 : +readsViews(name)),
    0,
  );
  const once = (reads: number) => (reads > 1 ? 'MATERIALIZED ' : '');
  const parts = [
    `kept AS ${once(keptReads)}(SELECT ${[...columns].join(', ')} FROM log WHERE ${RANGE} AND ${kept.where})`,
  ];
  if (views)
    parts.push(
      kept.onHit
        ? `views AS MATERIALIZED (SELECT day, page, previous_page, visit_views, visit_seconds FROM log
            WHERE ${RANGE} AND kind = 0 AND (day, visitor, visit) IN (SELECT day, visitor, visit FROM kept WHERE visit > 0))`
        : `views AS ${once(viewReads)}(SELECT day, page, previous_page, visit_views, visit_seconds FROM kept WHERE kind = 0 AND visit > 0)`,
    );
  return `WITH ${parts.join(',\n')}`;
}

/** The parameters of a chunk's statement: its range, then the filters' ids. */
const paramsOf = (chunk: Chunk, kept: Kept) => [
  chunk.low,
  chunk.high,
  chunk.first,
  chunk.last,
  ...kept.params,
];

/**
 * Several statistics over one chunk, in one statement that finds the kept rows once: rows
 * `q` (the statistic's index in `names`), `v`, `n`.
 */
export function chunkStatement(
  names: readonly StatName[],
  filters: FilterIds[],
  chunk: Chunk,
): Statement {
  const kept = keptBy(filters);
  const each = names.map(
    (name, q) => `SELECT ${q} AS q, v, n FROM (${statisticOf(name, kept, 'kept')})`,
  );
  return {
    text: `${tables(kept, names)}\n${unionAll(each)}`,
    params: paramsOf(chunk, kept),
  };
}

/** The statistics the sums read: the kept rows' visitors and visits, their visits' page views. */
const SUMMED_NAMES: readonly StatName[] = ['visitors', 'visits', 'bounces', 'visit_duration'];

/** The sums of a summary's figures (./log-reads.ts `LogSums`) over one chunk. */
export function sumsStatement(filters: FilterIds[], chunk: Chunk): Statement {
  const kept = keptBy(filters);
  const visitors = statisticOf('visitors', kept, 'kept');
  const visits = statisticOf('visits', kept, 'kept');
  return {
    text: `${tables(kept, SUMMED_NAMES)}
SELECT
  (SELECT coalesce(sum(n), 0) FROM (${visitors})) AS visitors,
  (SELECT coalesce(sum(n), 0) FROM (${visits})) AS visits,
  (SELECT count(*) FROM kept WHERE kind = 0) AS pageviews,
  (SELECT count(*) FROM kept WHERE kind = 1 AND event IS NOT NULL) AS event,
  (SELECT coalesce(sum(CASE visit_views WHEN 1 THEN 1 WHEN 2 THEN -1 ELSE 0 END), 0) FROM views) AS bounces,
  (SELECT coalesce(sum(visit_seconds), 0) FROM views) AS visit_duration`,
    params: paramsOf(chunk, kept),
  };
}
