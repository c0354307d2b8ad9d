/**
 * Dates in one place: calendar dates (`YYYY-MM-DD`), an instant's date and hour in a
 * website's time zone, the date ranges the statistics are asked for, and the API's
 * timestamps.
 */

const DAY = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The dates Sightline takes, everywhere a date is asked for: from the epoch to the last day
 * whose month, previous and next months every computation here can still write as `YYYY`
 * (month arithmetic past December 9999 would reach the year 10000).
 */
export const MIN_DATE = '1970-01-01';
export const MAX_DATE = '9998-12-31';

/** True for a real calendar date written `YYYY-MM-DD` (so `2024-02-30` is false), any year. */
export function isWrittenDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** True for a date Sightline takes: a real calendar date from `MIN_DATE` to `MAX_DATE`. */
export function isCalendarDate(value: string): boolean {
  return isWrittenDate(value) && value >= MIN_DATE && value <= MAX_DATE;
}

/** The UTC date (`YYYY-MM-DD`) of an instant. */
export function utcDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` plus `days` (negative to go back). */
export function addDays(date: string, days: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) + days * DAY);
}

/** The website-local date (`YYYY-MM-DD`) and hour (`00`–`23`) of an instant. */
export function localDateHour(epochMs: number, timeZone: string): { date: string; hour: string } {
  const wall = new Date(wallClock(epochMs, timeZone)).toISOString();
  return { date: wall.slice(0, 10), hour: wall.slice(11, 13) };
}

/** A date as the days since 1970-01-01 (how the event log keeps it: 1970-01-02 is 1). */
export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY);
}

/** The date of a day number (`dayNumber`'s inverse). */
export function dateOfDay(day: number): string {
  return utcDate(day * DAY);
}

/** A number as two digits (an hour, a month, a day): `7` is `07`. */
export const pad2 = (n: number) => String(n).padStart(2, '0');

/** The earlier of two `YYYY-MM-DD` dates. */
export const earlierDate = (a: string, b: string) => (a < b ? a : b);
/** The later of two `YYYY-MM-DD` dates. */
export const laterDate = (a: string, b: string) => (a > b ? a : b);

/** How many dates `from`–`to` holds, both included. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY) + 1;
}

/**
 * The named date ranges of the statistics page, and `custom` (`from`/`to`); `realtime`, the
 * last 30 minutes of the overview, is today's dates for every other page.
 */
export const RANGES = [
  'realtime',
  'today',
  'yesterday',
  '7d',
  '30d',
  'this_month',
  'last_month',
  '12mo',
  'this_year',
  'all',
  'custom',
] as const;
export type RangeName = (typeof RANGES)[number];
export type Range = { name: RangeName; from: string; to: string };

/** Longest range a request may ask for, in days (about ten years): the API and the pages. */
export const MAX_RANGE_DAYS = 3660;

/** A range as a request asked for it; `invalid` when it named dates that could not be used. */
export type RequestedRange = Range & { invalid?: true };

/**
 * The range a request asks for, in the website's time zone. `from`/`to` without a `range`
 * name are a custom range (people type and share such URLs). Invalid input falls back to
 * the last 30 days; when it named dates, the result says so (`invalid`), so the page can.
 */
export function resolveRange(
  query: { range?: string | undefined; from?: string | undefined; to?: string | undefined },
  timeZone: string,
  now = Date.now(),
  /** `all`: the website's oldest date with data (none: today). */
  firstDate: string | null = null,
): RequestedRange {
  const today = localDateHour(now, timeZone).date;
  const named = (RANGES as readonly string[]).includes(query.range ?? '');
  const datesGiven = query.from !== undefined || query.to !== undefined;
  const name: RangeName = named
    ? (query.range as RangeName)
    : query.range === undefined && datesGiven
      ? 'custom'
      : '30d';
  const monthStart = `${today.slice(0, 8)}01`;
  switch (name) {
    case 'realtime':
    case 'today':
      return { name, from: today, to: today };
    case 'yesterday':
      return { name, from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { name, from: addDays(today, -6), to: today };
    case 'this_month':
      return { name, from: monthStart, to: today };
    case 'last_month': {
      const end = addDays(monthStart, -1);
      return { name, from: `${end.slice(0, 8)}01`, to: end };
    }
    case '12mo':
      // The eleven months before this one, and this one so far.
      return { name, from: `${addMonths(today.slice(0, 7), -11)}-01`, to: today };
    case 'this_year':
      return { name, from: `${today.slice(0, 4)}-01-01`, to: today };
    case 'all':
      return { name, from: firstDate && firstDate < today ? firstDate : today, to: today };
    case 'custom': {
      const { from = '', to = '' } = query;
      if (
        isCalendarDate(from) &&
        isCalendarDate(to) &&
        from <= to &&
        daysBetween(from, to) <= MAX_RANGE_DAYS
      ) {
        return { name, from, to };
      }
      return { name: '30d', from: addDays(today, -29), to: today, invalid: true };
    }
    default:
      return { name: '30d', from: addDays(today, -29), to: today };
  }
}

/**
 * What one point of a range's chart sums: by default an hour for one day, a day up to about
 * three months, a week (from Monday) up to two years, a month beyond; so no chart has more
 * than about a hundred and twenty points, however long its range. One may choose another of
 * `seriesUnitsOf` (`asked`: the statistics page's `interval`).
 */
export type SeriesUnit = 'hour' | 'day' | 'week' | 'month';

export function seriesUnitOf(range: { from: string; to: string }, asked?: string): SeriesUnit {
  const chosen = seriesUnitsOf(range).find((unit) => unit === asked);
  if (chosen) return chosen;
  const days = daysBetween(range.from, range.to);
  if (days === 1) return 'hour';
  if (days <= 92) return 'day';
  if (days <= 731) return 'week';
  return 'month';
}

/**
 * The units a range's chart can be drawn in: hours for one day; days up to a year, weeks from
 * two weeks, months from eight weeks (so a chart has from two to about four hundred points).
 */
export function seriesUnitsOf(range: { from: string; to: string }): SeriesUnit[] {
  const days = daysBetween(range.from, range.to);
  if (days === 1) return ['hour'];
  const units: SeriesUnit[] = [];
  if (days <= 366) units.push('day');
  if (days >= 14) units.push('week');
  if (days >= 56) units.push('month');
  return units;
}

/** The label of the chart point a date falls in: itself, its week's first date in the range, its month. */
export function seriesLabel(date: string, unit: SeriesUnit, from: string): string {
  if (unit === 'month') return date.slice(0, 7);
  if (unit !== 'week') return date;
  // 1970-01-05 was a Monday.
  const monday = addDays(date, -((((daysBetween('1970-01-05', date) - 1) % 7) + 7) % 7));
  return monday < from ? from : monday;
}

/** The period of equal length just before a range. */
export function previousPeriod(range: { from: string; to: string }): { from: string; to: string } {
  const length = daysBetween(range.from, range.to);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

/** How many months `from`–`to` (`YYYY-MM`) holds, both included. */
export function monthsBetween(from: string, to: string): number {
  const index = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7));
  return index(to) - index(from) + 1;
}

/** The month (`YYYY-MM`) `months` after `month` (negative to go back). */
export function addMonths(month: string, months: number): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The last date of a month (`YYYY-MM`). */
export function lastDateOf(month: string): string {
  return addDays(`${addMonths(month, 1)}-01`, -1);
}

/**
 * A range cut into the fewest pieces the roll-ups hold (docs/ARCHITECTURE.md, "Long
 * ranges"): whole years and whole months inside it, days at its ends. Only months up to
 * `compactedThrough` (`YYYY-MM`, or null: none) have month rows; a year's row holds its
 * months up to then, so a year is a piece when the range holds all of those. Each piece is
 * an inclusive range of its table's keys; the pieces cover the range exactly once.
 */
export type RangePieces = {
  days: { from: string; to: string }[];
  months: { from: string; to: string }[];
  years: { from: string; to: string }[];
};

export function piecesOf(
  range: { from: string; to: string },
  compactedThrough: string | null,
): RangePieces {
  const pieces: RangePieces = { days: [], months: [], years: [] };
  const firstMonth = range.from.endsWith('-01')
    ? range.from.slice(0, 7)
    : addMonths(range.from.slice(0, 7), 1);
  let lastMonth =
    lastDateOf(range.to.slice(0, 7)) === range.to
      ? range.to.slice(0, 7)
      : addMonths(range.to.slice(0, 7), -1);
  if (compactedThrough === null || compactedThrough < lastMonth) lastMonth = compactedThrough ?? '';
  if (firstMonth > lastMonth) {
    pieces.days.push({ from: range.from, to: range.to });
    return pieces;
  }
  if (range.from < `${firstMonth}-01`)
    pieces.days.push({ from: range.from, to: addDays(`${firstMonth}-01`, -1) });
  // A year is whole here when the range holds January and the last month its row holds.
  const whole = (year: number) => {
    const y = String(year).padStart(4, '0');
    const last =
      `${y}-12` < (compactedThrough as string) ? `${y}-12` : (compactedThrough as string);
    return firstMonth <= `${y}-01` && last <= lastMonth;
  };
  let month = firstMonth;
  while (month <= lastMonth) {
    const year = Number(month.slice(0, 4));
    if (month.endsWith('-01') && whole(year)) {
      let until = year;
      while (`${String(until + 1).padStart(4, '0')}-01` <= lastMonth && whole(until + 1)) until++;
      pieces.years.push({
        from: String(year).padStart(4, '0'),
        to: String(until).padStart(4, '0'),
      });
      month = `${String(until + 1).padStart(4, '0')}-01`;
      continue;
    }
    const end = `${month.slice(0, 4)}-12` < lastMonth ? `${month.slice(0, 4)}-12` : lastMonth;
    const previous = pieces.months.at(-1);
    if (previous && addMonths(previous.to, 1) === month) previous.to = end;
    else pieces.months.push({ from: month, to: end });
    month = addMonths(end, 1);
  }
  if (lastDateOf(lastMonth) < range.to)
    pieces.days.push({ from: addDays(lastDateOf(lastMonth), 1), to: range.to });
  return pieces;
}

/**
 * Formats epoch milliseconds the way phpAnalytics' API (Laravel) serialises timestamps:
 * `2026-11-22T09:30:00.000000Z`, so existing clients parse them unchanged.
 */
export function apiTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of a whole second in a time zone, as if it were UTC (epoch ms), formatted. */
function formattedWallClock(epochMs: number, timeZone: string): number {
  let format = zonedFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    zonedFormats.set(timeZone, format);
  }
  const p: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(epochMs))) p[part.type] = part.value;
  return Date.parse(`${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}Z`);
}

/**
 * Since 1990 every zone's offset is whole quarter hours and changes at a local quarter hour,
 * so at a UTC quarter hour: within one the offset holds, and each zone's latest is kept —
 * a hit's local date costs a formatting once a quarter hour, not once a hit.
 */
const QUARTER_HOUR = 900_000;
const QUARTERS_FROM = Date.UTC(1990, 0, 1);
const latestOffsets = new Map<string, { quarter: number; offset: number }>();

/** The wall-clock time of an instant in a time zone, as if it were UTC (epoch ms, whole seconds). */
function wallClock(epochMs: number, timeZone: string): number {
  const whole = Math.floor(epochMs / 1000) * 1000;
  if (epochMs < QUARTERS_FROM) return formattedWallClock(whole, timeZone);
  const quarter = Math.floor(epochMs / QUARTER_HOUR) * QUARTER_HOUR;
  const latest = latestOffsets.get(timeZone);
  if (latest?.quarter === quarter) return whole + latest.offset;
  const offset = formattedWallClock(quarter, timeZone) - quarter;
  latestOffsets.set(timeZone, { quarter, offset });
  return whole + offset;
}

/** The instant a website-local date and time (`HH:MM:SS`) names in a time zone. */
export function zonedInstant(date: string, time: string, timeZone: string): number {
  const guess = Date.parse(`${date}T${time}Z`);
  const first = guess - (wallClock(guess, timeZone) - guess);
  // Across a change of offset the first guess is an hour off: one more step settles it.
  return guess - (wallClock(first, timeZone) - first);
}

/** An instant as ISO 8601 in a time zone, with its offset: `2024-09-04T00:00:00+02:00`. */
export function zonedIso(epochMs: number, timeZone: string): string {
  const whole = Math.floor(epochMs / 1000) * 1000;
  const wall = wallClock(whole, timeZone);
  const offset = Math.round((wall - whole) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${new Date(wall).toISOString().slice(0, 19)}${sign}${hhmm}`;
}
