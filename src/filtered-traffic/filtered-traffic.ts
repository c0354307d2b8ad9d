/**
 * What a website's pipeline and log kept out (docs/ARCHITECTURE.md, "Filtered traffic"): its
 * dropped hits per local date, by reason and, for bots, by name and kind — read from the
 * counters in D1 (src/rollups/dropped-hits.ts) once its log has written those it holds
 * (read-your-writes, as every reader flushes first). The API
 * (`GET /api/v1/websites/{id}/filtered`, ./routes.ts) and the Filtered traffic page
 * (src/pages/filtered/filtered-section.tsx) show this one answer.
 */
import type { Env } from '../env.ts';
import { checkDateOrder, validationFailed } from '../lib/errors.ts';
import { addDays, daysBetween, MAX_RANGE_DAYS } from '../lib/time/dates.ts';
import { type DroppedRow, droppedCountsOf } from '../rollups/dropped-hits.ts';
import { flushBeforeReading } from '../website-log/worker/partitions.ts';

/** The reasons a website's dropped hits are counted under, in the pipeline's order. */
export const COUNTED_REASONS = [
  'host_mismatch',
  'bot',
  'datacenter',
  'excluded_ip',
  'dnt',
  'too_fast',
  'rate_limited',
] as const;

/** Hits of a reason. */
type ReasonHits = { reason: string; hits: number };
/** Hits of a bot: its name and kind (both null: a bot not on the known crawlers' list). */
type BotHits = { name: string | null; kind: string | null; hits: number };
/** A date's dropped hits: all of them, by reason, and the bots'. */
export type FilteredDay = { date: string; total: number; reasons: ReasonHits[]; bots: BotHits[] };

export type FilteredTraffic = {
  from: string;
  to: string;
  total: number;
  reasons: ReasonHits[];
  bots: BotHits[];
  /** Every date of the range, oldest first (a date without a dropped hit: 0). */
  days: FilteredDay[];
};

/** The 422 of a range whose `to` is before its `from`, or that is longer than the API allows. */
export function checkedRange(range: { from: string; to: string }): { from: string; to: string } {
  checkDateOrder(range.from, range.to);
  if (daysBetween(range.from, range.to) > MAX_RANGE_DAYS)
    throw validationFailed({
      to: [
        `The range must be at most ${MAX_RANGE_DAYS} days: to must be ${addDays(range.from, MAX_RANGE_DAYS - 1)} or earlier.`,
      ],
    });
  return range;
}

/** The website's dropped hits over `from`–`to`, its log's counters written first. */
export async function filteredTrafficOf(
  env: Env,
  websiteId: number,
  range: { from: string; to: string },
): Promise<FilteredTraffic> {
  await flushBeforeReading(env, websiteId);
  return filteredTraffic(range, await droppedCountsOf(env.DB, websiteId, range));
}

/** The counters of a range as the answer has them: per date, and over the range. */
function filteredTraffic(range: { from: string; to: string }, rows: DroppedRow[]): FilteredTraffic {
  const byDate = new Map<string, DroppedRow[]>();
  for (const row of rows) byDate.set(row.date, [...(byDate.get(row.date) ?? []), row]);
  const days: FilteredDay[] = [];
  for (let date = range.from; date <= range.to; date = addDays(date, 1))
    days.push({ date, ...sums(byDate.get(date) ?? []) });
  return { from: range.from, to: range.to, ...sums(rows), days };
}

/** The hits of `rows` in all, by reason and by bot, each most first. */
function sums(rows: DroppedRow[]): Omit<FilteredDay, 'date'> {
  const reasons = new Map<string, number>();
  const bots = new Map<string, BotHits>();
  let total = 0;
  for (const row of rows) {
    total += row.hits;
    reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + row.hits);
    if (row.reason !== 'bot') continue;
    const key = `${row.name}\n${row.kind}`;
    const bot = bots.get(key) ?? { name: row.name || null, kind: row.kind || null, hits: 0 };
    bot.hits += row.hits;
    bots.set(key, bot);
  }
  const order = (reason: string) => {
    const at = (COUNTED_REASONS as readonly string[]).indexOf(reason);
    return at < 0 ? COUNTED_REASONS.length : at;
  };
  return {
    total,
    reasons: [...reasons]
      .map(([reason, hits]) => ({ reason, hits }))
      .sort((a, b) => b.hits - a.hits || order(a.reason) - order(b.reason)),
    bots: [...bots.values()].sort(
      (a, b) => b.hits - a.hits || (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff'),
    ),
  };
}
