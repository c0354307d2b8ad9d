/**
 * Questions of instants to the query engine (src/query/run/reader.ts) — which the event
 * log answers, hits of the last minutes included, imported history (which has no hours) left
 * out — and the one the websites list asks: a website's last 24 hours, its visitors over the
 * 24 whole hours up to now and per hour (oldest first) for a small trend line. Traffic alerts
 * ask theirs through `askBetween` too (src/alerts/traffic.ts).
 */
import type { FilterNode, GroupQuery } from '../../counting/query.ts';
import type { Database } from '../../db/client.ts';
import type { Env } from '../../env.ts';
import { localDateHour, zonedIso } from '../../lib/time/dates.ts';
import { type Answer, answer, isUnavailable, readerOf } from '../run/reader.ts';

const HOUR = 3_600_000;

export type Recent = { visitors: number; hourly: number[] };

/** A grouping of every kept hit: the visitors. */
export const VISITORS: GroupQuery = {
  dimensions: [],
  metrics: ['visitors'],
  order: [],
  limit: 1,
  offset: 0,
};

/**
 * The website's answers to `groups` over the instants `from`–`to` (inclusive); null when they
 * start before the oldest date its log holds.
 */
export async function askBetween(
  env: Env,
  db: Database,
  site: { id: number; timezone: string },
  [from, to]: [number, number],
  groups: GroupQuery[],
  filters: FilterNode[] = [],
): Promise<Answer[] | null> {
  const answers = await answer(readerOf(db, site.id, env, { imports: false }), {
    from: localDateHour(from, site.timezone).date,
    to: localDateHour(to, site.timezone).date,
    between: [from, to],
    filters,
    groups,
  });
  return isUnavailable(answers) ? null : answers;
}

/** The local label of the hour an instant is in, as `time:hour` groups read: `2026-11-29 13:00:00`. */
const hourLabel = (at: number, timeZone: string) =>
  `${zonedIso(at, timeZone).slice(0, 13).replace('T', ' ')}:00:00`;

export async function recentTraffic(
  env: Env,
  db: Database,
  site: { id: number; timezone: string },
  now = Date.now(),
): Promise<Recent> {
  const first = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
  const hours = Array.from({ length: 24 }, (_, i) => first + i * HOUR);
  const answers = await askBetween(
    env,
    db,
    site,
    [first, now],
    [
      VISITORS,
      {
        dimensions: ['time:hour'],
        metrics: ['visitors'],
        order: [['time:hour', 'asc']],
        limit: 48,
        offset: 0,
      },
    ],
  );
  if (!answers) return { visitors: 0, hourly: hours.map(() => 0) };
  const byHour = new Map(
    (answers[1]?.rows ?? []).map((r) => [String(r.dimensions[0]), Number(r.metrics[0] ?? 0)]),
  );
  return {
    visitors: Number(answers[0]?.rows[0]?.metrics[0] ?? 0),
    hourly: hours.map((at) => byHour.get(hourLabel(at, site.timezone)) ?? 0),
  };
}

/** The minutes the realtime view looks back over, as Plausible's does. */
export const REALTIME_MINUTES = 30;

/** A value of the realtime view's lists and its visitors. */
type Counted = { value: string; count: number };

/** The last `REALTIME_MINUTES` as the realtime view shows them. */
export type Realtime = {
  visitors: number;
  pageviews: number;
  pages: Counted[];
  sources: Counted[];
  countries: Counted[];
};

/** The top values of a dimension by visitors: the realtime view's lists. */
const topByVisitors = (dimension: string): GroupQuery => ({
  dimensions: [dimension],
  metrics: ['visitors'],
  order: [['visitors', 'desc']],
  limit: 10,
  offset: 0,
});

/**
 * A website's last `REALTIME_MINUTES` up to `now` under `filters`: its visitors and page
 * views, and its pages, sources and countries by visitors (the log's, as every instant is).
 */
export async function realtimeOf(
  env: Env,
  db: Database,
  site: { id: number; timezone: string },
  filters: FilterNode[],
  now = Date.now(),
): Promise<Realtime> {
  const answers = await askBetween(
    env,
    db,
    site,
    [now - REALTIME_MINUTES * 60_000, now],
    [
      { ...VISITORS, metrics: ['visitors', 'pageviews'] },
      topByVisitors('sl:page'),
      topByVisitors('visit:source'),
      topByVisitors('sl:country'),
    ],
    filters,
  );
  const rows = (i: number) =>
    (answers?.[i]?.rows ?? []).map((r) => ({
      value: String(r.dimensions[0]),
      count: Number(r.metrics[0] ?? 0),
    }));
  const [visitors = 0, pageviews = 0] = answers?.[0]?.rows[0]?.metrics ?? [];
  return {
    visitors: visitors ?? 0,
    pageviews: pageviews ?? 0,
    pages: rows(1),
    sources: rows(2),
    countries: rows(3),
  };
}
