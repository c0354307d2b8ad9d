/**
 * Statistics read from a website's event log rather than D1's roll-ups: what a filtered
 * question needs (docs/ARCHITECTURE.md, "Filters"). Each statistic is counted over the kept
 * hits exactly as the roll-ups count it over all hits (`rollupOf`, ./events.ts), so that
 * with no filter both give the same answer (test/integration/log-query.test.ts proves it):
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
import { containsText } from '../db/contains-text.ts';
import { type Filter, type FilterDimension, levelOf } from '../stats/filters.ts';
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

/** `column` contains `term`, ignoring case, as the Stats API's `search` matches. */
function contains(column: string, term: string): Statement {
  const query = dialect.sqlToQuery(containsText(sql.raw(column), term));
  return { text: query.sql, params: query.params as (string | number)[] };
}

/** The condition a filter puts on the column that holds its dimension's value. */
function condition(column: string, filter: Filter): Statement {
  if (filter.operator === 'contains') {
    const c = contains(column, filter.value);
    return { text: `(${column} IS NOT NULL AND ${c.text})`, params: c.params };
  }
  if (filter.operator === 'not')
    return { text: `(${column} IS NULL OR ${column} != ?)`, params: [filter.value] };
  return { text: `${column} = ?`, params: [filter.value] };
}

/** Where each dimension's value is, in the common table expressions below. */
const COLUMN: Record<FilterDimension, string> = {
  page: 'page',
  event: 'event',
  landing_page: 'page',
  referrer: 'referrer',
  campaign: 'campaign',
  exit_page: 'exit_page',
  country: 'country',
  continent: 'continent',
  city: 'city',
  language: 'language',
  browser: 'browser',
  os: 'os',
  device: 'device',
  resolution: 'resolution',
};

/**
 * The common table expressions every log query starts from, over the events of the dates
 * `from`–`to` whose ids lie in `ids` (the log's day index narrows the scan; the date is
 * checked anyway):
 * - `r`: those events;
 * - `firsts`: each visitor's first page view of the day (its visitor-level values);
 * - `starts`: each visit's first page view (its start, landing page, referrer, campaign);
 * - `ends`: each visit's page views, last instant and last page view's page (`exit_page`);
 * - `kept`: the events the filters keep.
 */
function keptEvents(from: string, to: string, ids: [number, number], filters: Filter[]): Statement {
  const params: (string | number)[] = [ids[0], ids[1], from, to];
  const where: string[] = [];
  for (const filter of filters) {
    const level = levelOf(filter.dimension);
    const c = condition(COLUMN[filter.dimension], filter);
    if (level === 'hit') {
      const kind = filter.dimension === 'page' ? 'pageview' : 'event';
      // `not` keeps every other hit, of either kind.
      where.push(
        filter.operator === 'not'
          ? `NOT (kind = '${kind}' AND ${COLUMN[filter.dimension]} IS NOT NULL AND ${COLUMN[filter.dimension]} = ?)`
          : `(kind = '${kind}' AND ${c.text})`,
      );
      params.push(...(filter.operator === 'not' ? [filter.value] : c.params));
    } else if (level === 'visitor') {
      where.push(`(date, visitor) IN (SELECT date, visitor FROM firsts WHERE ${c.text})`);
      params.push(...c.params);
    } else if (filter.dimension === 'exit_page') {
      where.push(
        `(date, visitor, visit) IN (SELECT date, visitor, visit FROM ends WHERE ${c.text})`,
      );
      params.push(...c.params);
    } else {
      where.push(
        `(date, visitor, visit) IN (SELECT date, visitor, visit FROM starts WHERE ${c.text})`,
      );
      params.push(...c.params);
    }
  }
  const text = `WITH
  r AS (SELECT * FROM events WHERE id BETWEEN ? AND ? AND date BETWEEN ? AND ?),
  firsts AS (SELECT date, visitor, hour, browser, os, device, country, continent, city,
      language, resolution FROM r WHERE kind = 'pageview' AND new_visitor = 1),
  starts AS (SELECT date, visitor, visit, hour, time, page, referrer, campaign
      FROM r WHERE kind = 'pageview' AND new_visit = 1),
  visit_views AS (SELECT date, visitor, visit, count(*) AS views, max(time) AS last,
      max(id) AS last_id FROM r WHERE kind = 'pageview' GROUP BY date, visitor, visit),
  ends AS (SELECT v.date, v.visitor, v.visit, v.views, v.last, x.page AS exit_page
      FROM visit_views v JOIN events x ON x.id = v.last_id),
  kept AS (SELECT * FROM r${where.length ? ` WHERE ${where.join(' AND ')}` : ''})`;
  return { text, params };
}

/** The kept visitors (of a day) and visits, joined to what the statistics read of them. */
const KEPT_VISITORS = `(SELECT DISTINCT date, visitor FROM kept WHERE visitor > 0) k
  JOIN firsts f ON f.date = k.date AND f.visitor = k.visitor`;
const KEPT_VISITS = `(SELECT DISTINCT date, visitor, visit FROM kept WHERE visit > 0) k
  JOIN starts s ON s.date = k.date AND s.visitor = k.visitor AND s.visit = k.visit
  JOIN ends e ON e.date = k.date AND e.visitor = k.visitor AND e.visit = k.visit`;

/** Whole seconds from a visit's first page view to its last. */
const DURATION = '(e.last - s.time) / 1000';

/** Each statistic as `value`, `n` rows over the kept events (values of 0 dropped later). */
const STATISTIC: Record<StatName, string> = {
  pageviews: `SELECT date AS value, count(*) AS n FROM kept WHERE kind = 'pageview' GROUP BY 1`,
  pageviews_hours: `SELECT hour AS value, count(*) AS n FROM kept WHERE kind = 'pageview' GROUP BY 1`,
  page: `SELECT page AS value, count(*) AS n FROM kept WHERE kind = 'pageview' GROUP BY 1`,
  event: `SELECT event AS value, count(*) AS n FROM kept WHERE kind = 'event' GROUP BY 1`,
  visitors: `SELECT date AS value, count(DISTINCT visitor) AS n FROM kept WHERE visitor > 0 GROUP BY 1`,
  visitors_hours: `SELECT f.hour AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  browser: `SELECT f.browser AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  os: `SELECT f.os AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  device: `SELECT f.device AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  country: `SELECT f.country AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  continent: `SELECT f.continent AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  city: `SELECT f.city AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  language: `SELECT f.language AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  resolution: `SELECT f.resolution AS value, count(*) AS n FROM ${KEPT_VISITORS} GROUP BY 1`,
  visits: `SELECT s.date AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  visits_hours: `SELECT s.hour AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  landing_page: `SELECT s.page AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  referrer: `SELECT s.referrer AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  campaign: `SELECT s.campaign AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  bounces: `SELECT s.date AS value, count(*) AS n FROM ${KEPT_VISITS} WHERE e.views = 1 GROUP BY 1`,
  visit_duration: `SELECT s.date AS value, sum(${DURATION}) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
  exit_page: `SELECT e.exit_page AS value, count(*) AS n FROM ${KEPT_VISITS} GROUP BY 1`,
};

/**
 * One statistic over the kept events, every value with its count, sorted as the Stats API
 * sorts (ties by value); values that are empty, absent or counted 0 left out, as in the
 * roll-ups.
 */
export function statisticStatement(q: LogStatsQuery, ids: [number, number]): Statement {
  const base = keptEvents(q.from, q.to, ids, q.filters);
  const params = [...base.params];
  let where = "value IS NOT NULL AND value != '' AND n > 0";
  if (q.search) {
    const c = contains('value', q.search);
    where += ` AND ${c.text}`;
    params.push(...c.params);
  }
  const direction = q.sort === 'asc' ? 'ASC' : 'DESC';
  const order = q.sortBy === 'value' ? `value ${direction}` : `n ${direction}, value ASC`;
  return {
    text: `${base.text}
SELECT value, n AS count FROM (${STATISTIC[q.name]}) WHERE ${where} ORDER BY ${order}`,
    params,
  };
}

/** The sums of a summary's figures over the kept events. */
export function sumsStatement(
  q: Pick<LogStatsQuery, 'from' | 'to' | 'filters'>,
  ids: [number, number],
): Statement {
  const base = keptEvents(q.from, q.to, ids, q.filters);
  return {
    text: `${base.text}
SELECT
  (SELECT count(*) FROM (SELECT DISTINCT date, visitor FROM kept WHERE visitor > 0)) AS visitors,
  (SELECT count(*) FROM kept WHERE kind = 'pageview') AS pageviews,
  (SELECT count(*) FROM kept WHERE kind = 'event' AND event IS NOT NULL AND event != '') AS event,
  visits, bounces, visit_duration
FROM (SELECT count(*) AS visits, coalesce(sum(e.views = 1), 0) AS bounces,
  coalesce(sum(${DURATION}), 0) AS visit_duration FROM ${KEPT_VISITS})`,
    params: base.params,
  };
}
