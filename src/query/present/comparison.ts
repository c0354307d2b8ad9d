/**
 * What a range's figures are compared with (docs/ARCHITECTURE.md, "Comparisons"): the period
 * of equal length just before it (`previous`, the default), the same dates a year before
 * (`year`: 29 February's is the 28th), or any range (`custom`, `compare_from`–`compare_to`).
 * API v1's summary and the statistics page take the same parameters.
 */

import type { FieldErrors } from '../../lib/errors.ts';
import {
  addMonths,
  daysBetween,
  isCalendarDate,
  lastDateOf,
  localDateHour,
  MAX_RANGE_DAYS,
  previousPeriod,
  zonedInstant,
} from '../../lib/time/dates.ts';

export const COMPARE_MODES = ['previous', 'year', 'custom'] as const;
type CompareMode = (typeof COMPARE_MODES)[number];

/**
 * A comparison: how it was chosen, and its dates; `between`: only these instants of them (the
 * same hours as today's so far: `sameHoursAsToday`).
 */
export type Comparison = {
  mode: CompareMode;
  from: string;
  to: string;
  between?: [number, number];
};

/**
 * Today, a day not yet over, compared with a whole day would always look like a fall: a
 * comparison of one day with today is narrowed to the same hours of that day, midnight to
 * the time of day it is now (`timeZone`'s). Any other comparison is as it was.
 */
export function sameHoursAsToday(
  compared: Comparison,
  range: { from: string; to: string },
  now: number,
  timeZone: string,
): Comparison {
  const today = localDateHour(now, timeZone).date;
  if (range.from !== today || range.to !== today || compared.from !== compared.to) return compared;
  const sinceMidnight = now - zonedInstant(today, '00:00:00', timeZone);
  const start = zonedInstant(compared.from, '00:00:00', timeZone);
  return { ...compared, between: [start, start + sinceMidnight] };
}

/**
 * The period before a range, like for like, as the statistics page compares a named range: a
 * month so far with the same days of the month before (December 1–6 with November 1–6), a
 * whole month with the whole month before, a year so far with the same dates a year before;
 * any other range with the period of equal length just before it. A day of the month the
 * month before does not have is its last (March 31 compares with February 28).
 */
function periodBefore(range: { name?: string; from: string; to: string }): {
  from: string;
  to: string;
} {
  const month = range.from.slice(0, 7);
  const previousMonth = addMonths(month, -1);
  if (range.name === 'this_month') {
    const last = lastDateOf(previousMonth);
    const day = `${previousMonth}-${range.to.slice(8, 10)}`;
    return { from: `${previousMonth}-01`, to: day > last || !isCalendarDate(day) ? last : day };
  }
  if (range.name === 'last_month')
    return { from: `${previousMonth}-01`, to: lastDateOf(previousMonth) };
  if (range.name === 'this_year') return { from: yearBefore(range.from), to: yearBefore(range.to) };
  return previousPeriod(range);
}

/** The same date a year before; 29 February's is the 28th. */
export function yearBefore(date: string): string {
  const earlier = `${String(Number(date.slice(0, 4)) - 1).padStart(4, '0')}${date.slice(4)}`;
  return isCalendarDate(earlier) ? earlier : `${earlier.slice(0, 8)}28`;
}

/**
 * The comparison `asked` (`compare`, `compare_from`, `compare_to` as given) for `range`, or
 * the errors naming each bad parameter. No `compare`: the period before — like for like when
 * the range is named (`periodBefore`: the statistics page's), else of equal length (API v1).
 */
export function comparisonOf(
  range: { name?: string; from: string; to: string },
  asked: { compare?: string | undefined; from?: string | undefined; to?: string | undefined },
): Comparison | { errors: FieldErrors } {
  const mode = asked.compare ?? 'previous';
  if (!(COMPARE_MODES as readonly string[]).includes(mode))
    return { errors: { compare: ['The compare field must be previous, year or custom.'] } };
  if (mode === 'previous') return { mode, ...periodBefore(range) };
  if (mode === 'year') return { mode, from: yearBefore(range.from), to: yearBefore(range.to) };
  const errors: FieldErrors = {};
  for (const [name, value] of [
    ['compare_from', asked.from],
    ['compare_to', asked.to],
  ] as const)
    if (!value || !isCalendarDate(value))
      errors[name] = [`The ${name} field must be a date (YYYY-MM-DD) when compare is custom.`];
  if (Object.keys(errors).length > 0) return { errors };
  const from = asked.from as string;
  const to = asked.to as string;
  if (from > to)
    return { errors: { compare_to: ['The compare_to field must be compare_from or later.'] } };
  if (daysBetween(from, to) > MAX_RANGE_DAYS)
    return {
      errors: { compare_to: [`The compared range must be at most ${MAX_RANGE_DAYS} days.`] },
    };
  return { mode: 'custom', from, to };
}
