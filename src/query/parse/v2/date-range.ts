/**
 * Plausible's `date_range` (shared forms of its Stats API v2; docs/ARCHITECTURE.md, "Stats
 * API v2") in the website's time zone: `day`, `24h`, `<N>d` (the N days before today), `month`
 * and `year` (the whole current one), `<N>mo` (the N whole months before this one), `all`
 * (from the website's first date with data), a pair of dates (whole days, inclusive) or a
 * pair of date-times with their offsets (the instants between them).
 */
import {
  addDays,
  addMonths,
  daysBetween,
  isCalendarDate,
  lastDateOf,
  localDateHour,
  MAX_RANGE_DAYS,
  zonedInstant,
  zonedIso,
} from '../../../lib/time/dates.ts';
import { QueryError } from './query-error.ts';

export type DateRange = {
  from: string;
  to: string;
  /** Instants kept within the dates (`24h`, a pair of date-times). */
  between?: [number, number];
  /** As the response echoes it: two date-times with the website's offset. */
  echo: [string, string];
};

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** The context a range is resolved in: the website's time zone, now, and its first date. */
export type RangeContext = { timeZone: string; now: number; firstDate: string | null };

/** A range of whole local dates. */
function dates(from: string, to: string, tz: string): DateRange {
  return {
    from,
    to,
    echo: [
      zonedIso(zonedInstant(from, '00:00:00', tz), tz),
      zonedIso(zonedInstant(to, '23:59:59', tz), tz),
    ],
  };
}

/** A range of instants, kept within their local dates. */
function instants(from: number, to: number, tz: string): DateRange {
  return {
    from: localDateHour(from, tz).date,
    to: localDateHour(to, tz).date,
    between: [from, to],
    echo: [zonedIso(from, tz), zonedIso(to, tz)],
  };
}

function named(value: string, ctx: RangeContext): DateRange | null {
  const tz = ctx.timeZone;
  const today = localDateHour(ctx.now, tz).date;
  const month = today.slice(0, 7);
  if (value === 'day') return dates(today, today, tz);
  if (value === '24h') return instants(ctx.now - 86_400_000, ctx.now, tz);
  if (value === 'month') return dates(`${month}-01`, lastDateOf(month), tz);
  if (value === 'year')
    return dates(`${today.slice(0, 4)}-01-01`, `${today.slice(0, 4)}-12-31`, tz);
  if (value === 'all') return dates(ctx.firstDate ?? today, today, tz);
  const days = /^([1-9]\d{0,3})d$/.exec(value);
  if (days) return dates(addDays(today, -Number(days[1])), addDays(today, -1), tz);
  const months = /^([1-9]\d?|100)mo$/.exec(value);
  if (months)
    return dates(
      `${addMonths(month, -Number(months[1]))}-01`,
      lastDateOf(addMonths(month, -1)),
      tz,
    );
  return null;
}

/** The range `date_range` names; a `QueryError` saying why not. */
export function resolveDateRange(value: unknown, ctx: RangeContext): DateRange {
  let range: DateRange | null = null;
  if (typeof value === 'string') {
    range = named(value, ctx);
    if (!range) throw new QueryError(`Invalid date_range ${JSON.stringify(value)}`);
  } else if (
    Array.isArray(value) &&
    value.length === 2 &&
    value.every((v) => typeof v === 'string')
  ) {
    const [a, b] = value as [string, string];
    if (isCalendarDate(a) && isCalendarDate(b)) range = dates(a, b, ctx.timeZone);
    else if (
      DATE_TIME.test(a) &&
      DATE_TIME.test(b) &&
      !Number.isNaN(Date.parse(a)) &&
      !Number.isNaN(Date.parse(b))
    )
      range = instants(Date.parse(a), Date.parse(b), ctx.timeZone);
    if (!range || range.from > range.to || (range.between && range.between[0] > range.between[1]))
      throw new QueryError(`Invalid date_range '${JSON.stringify(value)}'.`);
  } else throw new QueryError(`Invalid date_range '${JSON.stringify(value)}'.`);
  if (daysBetween(range.from, range.to) > MAX_RANGE_DAYS)
    throw new QueryError(
      `Invalid date_range '${JSON.stringify(value)}': a range is at most ${MAX_RANGE_DAYS} days.`,
    );
  return range;
}
