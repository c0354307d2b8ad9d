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
import { columnOf, type Filter, levelOf } from '../stats/filters.ts';
import type { StatName } from '../stats/names.ts';

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
 * after the chunk's four: each filter's ids, as one JSON array (`?5`, `?6`, …).
 */
type Kept = { where: string; onHit: boolean; onVisit: boolean; params: string[] };

function keptBy(filters: FilterIds[]): Kept {
  const params: string[] = [];
  const conditions = filters.map(({ filter, ids }) => {
    params.push(JSON.stringify(ids));
    return conditionOf(filter, `(SELECT value FROM json_each(?${4 + params.length}))`);
  });
  return {
    where: allOf(conditions),
    onHit: filters.some(({ filter }) => levelOf(filter.dimension) === 'hit'),
    onVisit: filters.some(({ filter }) => levelOf(filter.dimension) === 'visit'),
    params,
  };
}

/** The condition a filter puts on a row, `set` the ids it names or matches. */
function conditionOf(filter: Filter, set: string): string {
  const { dimension, operator } = filter;
  const level = levelOf(dimension);
  if (level === 'hit') {
    // `not` keeps every hit but those that match: custom events under a page filter too.
    const hit =
      dimension === 'page' ? `(kind = 0 AND page IN ${set})` : `(kind = 1 AND event IN ${set})`;
    return operator === 'not' ? `NOT ${hit}` : hit;
  }
  // A hit without a visitor (an event before any page view of the day) is never kept.
  const owner = level === 'visitor' ? 'visitor > 0' : 'visit > 0';
  if (dimension === 'exit_page') {
    const visits = `(day, visitor, visit) IN (SELECT day, visitor, visit FROM log
      WHERE ${RANGE} AND kind = 0 AND (page IN ${set} OR previous_page IN ${set})
      GROUP BY day, visitor, visit
      HAVING sum(page IN ${set}) > sum(coalesce(previous_page IN ${set}, 0)))`;
    return `(${owner} AND ${operator === 'not' ? 'NOT ' : ''}${visits})`;
  }
  const column = ROW_COLUMN[dimension] ?? columnOf(dimension);
  // `not` keeps the rows without the value (NULL included), as `is` leaves them out.
  const match = `coalesce(${column} IN ${set}, 0)`;
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
        UNION ALL SELECT previous_page, -1 FROM views WHERE previous_page IS NOT NULL) GROUP BY 1`;
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

/**
 * The tables every statement of a chunk starts from: `kept`, the rows the filters keep; and,
 * for the statistics that add up visits' page views, `views`: every page view of the visits
 * among the kept rows (with no filter on a hit, the kept page views themselves: the filters
 * keep whole visits).
 */
function tables(kept: Kept, views: boolean, once: boolean): string {
  // Read once (one statistic, no visits' page views), SQLite reads the rows where they are.
  const materialized = once && !views ? '' : 'MATERIALIZED ';
  const parts = [`kept AS ${materialized}(SELECT * FROM log WHERE ${RANGE} AND ${kept.where})`];
  if (views)
    parts.push(
      kept.onHit
        ? `views AS MATERIALIZED (SELECT day, page, previous_page, visit_views, visit_seconds FROM log
            WHERE ${RANGE} AND kind = 0 AND (day, visitor, visit) IN (SELECT day, visitor, visit FROM kept WHERE visit > 0))`
        : 'views AS (SELECT day, page, previous_page, visit_views, visit_seconds FROM kept WHERE kind = 0 AND visit > 0)',
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
    text: `${tables(kept, names.some(readsViews), names.length === 1)}\n${unionAll(each)}`,
    params: paramsOf(chunk, kept),
  };
}

/** The sums of a summary's figures (./log-reads.ts `LogSums`) over one chunk. */
export function sumsStatement(filters: FilterIds[], chunk: Chunk): Statement {
  const kept = keptBy(filters);
  const visitors = statisticOf('visitors', kept, 'kept');
  const visits = statisticOf('visits', kept, 'kept');
  return {
    text: `${tables(kept, true, false)}
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
