/**
 * What a traffic alert asks the query engine: a website's visitors over a window of whole
 * hours ending at a cron's hour, with its top pages and sources, and its visitors over the
 * same hours a week before — questions of instants (`askBetween`, src/query/present/recent.ts).
 */
import type { GroupQuery } from '../counting/query.ts';
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { askBetween, VISITORS } from '../query/present/recent.ts';

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

/** A window's visitors, and its top pages and sources (five each). */
export type WindowTraffic = {
  visitors: number;
  topPages: { value: string; count: number }[];
  topSources: { value: string; count: number }[];
};

const top = (dimension: string): GroupQuery => ({
  dimensions: [dimension],
  metrics: ['visitors'],
  order: [['visitors', 'desc']],
  limit: 5,
  offset: 0,
});

/** The instants of the `hours` whole hours before `end` (a whole hour), both inclusive. */
export function windowOf(end: number, hours: number): [number, number] {
  const last = Math.floor(end / HOUR) * HOUR - 1;
  return [last + 1 - hours * HOUR, last];
}

/** Visitors over a window (and its top lists when `tops`); none before the log's first date. */
async function ask(
  env: Env,
  db: Database,
  site: { id: number; timezone: string },
  window: [number, number],
  tops: boolean,
): Promise<WindowTraffic> {
  const groups = tops ? [VISITORS, top('event:page'), top('visit:source')] : [VISITORS];
  const answers = await askBetween(env, db, site, window, groups);
  if (!answers) return { visitors: 0, topPages: [], topSources: [] };
  const rows = (i: number) =>
    (answers[i]?.rows ?? []).map((r) => ({
      value: r.dimensions[0] ?? '',
      count: Number(r.metrics[0] ?? 0),
    }));
  return {
    visitors: Number(answers[0]?.rows[0]?.metrics[0] ?? 0),
    topPages: rows(1),
    topSources: rows(2),
  };
}

/** A website's traffic over the `hours` whole hours before `end`, and a week before. */
export async function trafficOf(
  env: Env,
  db: Database,
  site: { id: number; timezone: string },
  hours: number,
  end: number,
): Promise<WindowTraffic & { weekBefore: number }> {
  const window = windowOf(end, hours);
  const [now, before] = await Promise.all([
    ask(env, db, site, window, true),
    ask(env, db, site, [window[0] - WEEK, window[1] - WEEK], false),
  ]);
  return { ...now, weekBefore: before.visitors };
}
