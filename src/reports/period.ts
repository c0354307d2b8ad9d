/**
 * Report periods in the website's time zone: the last complete week (Monday to Sunday) or
 * calendar month before "now". A period is identified by its interval and first day, which
 * makes "this website's report for this period" a unique key.
 */
import { addDays, localDateHour } from '../lib/time/dates.ts';

export type Interval = 'weekly' | 'monthly';
export type Period = { interval: Interval; from: string; to: string; key: string };

export function intervalOf(setting: string | undefined): Interval {
  return setting === 'monthly' ? 'monthly' : 'weekly';
}

export function lastCompletePeriod(now: number, timeZone: string, interval: Interval): Period {
  const today = localDateHour(now, timeZone).date;
  if (interval === 'monthly') {
    const to = addDays(`${today.slice(0, 8)}01`, -1);
    const from = `${to.slice(0, 8)}01`;
    return { interval, from, to, key: `monthly:${from}` };
  }
  // 0 = Sunday … 6 = Saturday; the current week started on the last Monday.
  const weekday = new Date(`${today}T00:00:00Z`).getUTCDay();
  const thisMonday = addDays(today, -((weekday + 6) % 7));
  const from = addDays(thisMonday, -7);
  return { interval, from, to: addDays(thisMonday, -1), key: `weekly:${from}` };
}
