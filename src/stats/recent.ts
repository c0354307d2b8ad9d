/**
 * A website's last 24 hours, as the websites list shows them: its visitors over the 24 whole
 * hours up to now, and per hour (oldest first) for a small trend line. A question of instants
 * to the query engine (src/stats/engine/engine.ts), which the event log answers, hits of the
 * last minutes included.
 */
import type { Database } from '../db/client.ts';
import type { Env } from '../env.ts';
import { zonedIso } from '../lib/dates.ts';
import { answer, isUnavailable, readerOf } from './engine/engine.ts';

const HOUR = 3_600_000;

export type Recent = { visitors: number; hourly: number[] };

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
  const answers = await answer(readerOf(db, site.id, env, { imports: false }), {
    from: zonedIso(first, site.timezone).slice(0, 10),
    to: zonedIso(now, site.timezone).slice(0, 10),
    between: [first, now],
    filters: [],
    groups: [
      { dimensions: [], metrics: ['visitors'], order: [], limit: 1, offset: 0 },
      {
        dimensions: ['time:hour'],
        metrics: ['visitors'],
        order: [['time:hour', 'asc']],
        limit: 48,
        offset: 0,
      },
    ],
  });
  if (isUnavailable(answers)) return { visitors: 0, hourly: hours.map(() => 0) };
  const byHour = new Map(
    (answers[1]?.rows ?? []).map((r) => [String(r.dimensions[0]), Number(r.metrics[0] ?? 0)]),
  );
  return {
    visitors: Number(answers[0]?.rows[0]?.metrics[0] ?? 0),
    hourly: hours.map((at) => byHour.get(hourLabel(at, site.timezone)) ?? 0),
  };
}
