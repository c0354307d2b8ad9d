import { describe, expect, it } from 'vitest';
import {
  addMonths,
  apiTimestamp,
  isCalendarDate,
  isWrittenDate,
  lastDateOf,
  MAX_DATE,
  MIN_DATE,
  monthsBetween,
  resolveRange,
  seriesLabel,
  seriesUnitOf,
} from '../../src/lib/time/dates.ts';

describe('monthsBetween', () => {
  it('counts the months of a range, both included', () => {
    expect(monthsBetween('2026-01', '2026-01')).toBe(1);
    expect(monthsBetween('2025-11', '2026-02')).toBe(4);
    expect(monthsBetween('1970-01', '9998-12')).toBe(12 * 8029);
  });
});

describe('isCalendarDate', () => {
  it.each([
    '1970-01-01',
    '1970-12-31',
    '2000-02-29',
    '2024-02-29',
    '2024-01-01',
    '2024-01-31',
    '2024-03-31',
    '2024-04-30',
    '2024-06-30',
    '2024-12-31',
    '2023-02-28',
    '2038-01-19',
    '2100-02-28',
    '2400-02-29',
    '9998-12-31',
  ])('%j is a calendar date', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });

  it.each([
    '2023-02-29',
    '2024-02-30',
    '2024-02-31',
    '2100-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-06-31',
    '2024-09-31',
    '2024-11-31',
    '2024-01-32',
    '2024-12-32',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '2024-00-00',
    '2024-99-99',
    '1969-12-31',
    '1900-01-01',
    '0000-01-01',
    '0001-01-01',
    '9999-01-01',
    '9999-12-31',
  ])('%j is not a real date from 1970 to 9998', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });

  it('takes every date from MIN_DATE to MAX_DATE; the others, however well written, are not taken', () => {
    expect([MIN_DATE, MAX_DATE].map(isCalendarDate)).toEqual([true, true]);
    expect(['1969-12-31', '9999-01-01'].map(isCalendarDate)).toEqual([false, false]);
    expect(['1969-12-31', '9999-12-31'].map(isWrittenDate)).toEqual([true, true]);
  });

  it.each([
    '',
    ' ',
    '2024-1-01',
    '2024-01-1',
    '24-01-01',
    '02024-01-01',
    '+02024-01-01',
    '-2024-01-01',
    '10000-01-01',
    '2024-001-01',
    '2024-01-001',
    '2024/01/01',
    '2024.01.01',
    '20240101',
    '2024-01',
    '2024',
    '01-01-2024',
    '2024-01-01T00:00',
    '2024-01-01T00:00:00Z',
    '2024-01-01 00:00:00',
    '2024-01-01Z',
    ' 2024-01-01',
    '2024-01-01 ',
    '2024-01-01\n',
    '\n2024-01-01',
    '2024-01-01\u0000',
    '2024-01-01\r\n',
    '2024-01-01\n2024-01-02',
    '２０２４-０１-０１',
    '٢٠٢٤-٠١-٠١',
    '2024-0x1-01',
    '2024-1e-01',
    '2024-+1-01',
    '2024--1-01',
    '2024-01-01; DROP TABLE',
    'yyyy-mm-dd',
    'today',
    'NaN',
    'Invalid Date',
  ])('%j is not in YYYY-MM-DD form', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });

  it('checks every day of a leap year and a common year', () => {
    const leap = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    const common = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    for (const [year, lengths] of [
      [2024, leap],
      [2023, common],
    ] as const) {
      for (let month = 1; month <= 12; month++) {
        const length = lengths[month - 1] ?? 0;
        for (let day = 1; day <= 31; day++) {
          const value = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          expect(isCalendarDate(value), value).toBe(day <= length);
        }
      }
    }
  });
});

describe('apiTimestamp', () => {
  it.each([
    [Date.UTC(2026, 10, 22, 9, 30, 0, 123), '2026-11-22T09:30:00.123000Z'],
    [Date.UTC(2026, 10, 22, 9, 30, 0, 0), '2026-11-22T09:30:00.000000Z'],
    [Date.UTC(2026, 10, 22, 9, 30, 0, 1), '2026-11-22T09:30:00.001000Z'],
    [Date.UTC(2026, 10, 22, 9, 30, 0, 999), '2026-11-22T09:30:00.999000Z'],
    [Date.UTC(2024, 1, 29, 23, 59, 59, 999), '2024-02-29T23:59:59.999000Z'],
    [0, '1970-01-01T00:00:00.000000Z'],
    [1, '1970-01-01T00:00:00.001000Z'],
    [1_700_000_000_000, '2023-11-14T22:13:20.000000Z'],
    [Date.UTC(9999, 11, 31, 23, 59, 59, 999), '9999-12-31T23:59:59.999000Z'],
  ])('apiTimestamp(%i) → %s', (ms, expected) => {
    expect(apiTimestamp(ms)).toBe(expected);
  });

  it('drops fractions of a millisecond', () => {
    expect(apiTimestamp(Date.UTC(2026, 10, 22, 9, 30, 0, 123) + 0.9)).toBe(
      '2026-11-22T09:30:00.123000Z',
    );
  });

  it('always uses UTC with six fractional digits', () => {
    const ms = Date.UTC(2025, 5, 15, 12, 0, 0, 42);
    const result = apiTimestamp(ms);
    expect(result).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(Date.parse(result)).toBe(ms);
  });
});

describe('long ranges', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('resolves the last 12 months, this year and all time', () => {
    expect(resolveRange({ range: '12mo' }, 'UTC', now)).toEqual({
      name: '12mo',
      from: '2025-12-01',
      to: '2026-11-23',
    });
    expect(resolveRange({ range: 'this_year' }, 'UTC', now)).toEqual({
      name: 'this_year',
      from: '2026-01-01',
      to: '2026-11-23',
    });
    expect(resolveRange({ range: 'all' }, 'UTC', now, '2019-03-04')).toEqual({
      name: 'all',
      from: '2019-03-04',
      to: '2026-11-23',
    });
    // A website without data: all time is today.
    expect(resolveRange({ range: 'all' }, 'UTC', now, null).from).toBe('2026-11-23');
  });

  it('charts hours, days, weeks or months by the length of the range', () => {
    expect(seriesUnitOf({ from: '2026-11-23', to: '2026-11-23' })).toBe('hour');
    expect(seriesUnitOf({ from: '2026-08-24', to: '2026-11-23' })).toBe('day');
    expect(seriesUnitOf({ from: '2026-08-23', to: '2026-11-23' })).toBe('week');
    expect(seriesUnitOf({ from: '2024-11-23', to: '2026-11-23' })).toBe('week');
    expect(seriesUnitOf({ from: '2024-11-22', to: '2026-11-23' })).toBe('month');
  });

  it('labels a date by its week (from Monday, cut at the range) or month', () => {
    expect(seriesLabel('2026-11-29', 'week', '2026-01-01')).toBe('2026-11-23');
    expect(seriesLabel('2026-11-30', 'week', '2026-01-01')).toBe('2026-11-30');
    expect(seriesLabel('2026-01-02', 'week', '2026-01-01')).toBe('2026-01-01');
    expect(seriesLabel('2026-01-02', 'month', '2025-01-01')).toBe('2026-01');
    expect(seriesLabel('2026-01-02', 'day', '2025-01-01')).toBe('2026-01-02');
  });

  it('counts months across years', () => {
    expect(addMonths('2026-11', 2)).toBe('2027-01');
    expect(addMonths('2026-01', -13)).toBe('2024-12');
    expect(lastDateOf('2024-02')).toBe('2024-02-29');
    expect(lastDateOf('2026-12')).toBe('2026-12-31');
  });
});
