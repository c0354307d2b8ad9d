import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDateHour } from '../../src/lib/time/dates.ts';

const at = (iso: string) => Date.parse(iso);

describe('localDateHour: UTC', () => {
  it.each([
    ['2026-01-01T00:00:00.000Z', '2026-01-01', '00'],
    ['2026-01-01T00:59:59.999Z', '2026-01-01', '00'],
    ['2026-06-15T10:30:00.000Z', '2026-06-15', '10'],
    ['2025-12-31T23:59:59.999Z', '2025-12-31', '23'],
    ['2028-02-29T12:00:00.000Z', '2028-02-29', '12'],
    ['1970-01-01T00:00:00.000Z', '1970-01-01', '00'],
  ])('%s → %s %s', (iso, date, hour) => {
    expect(localDateHour(at(iso), 'UTC')).toEqual({ date, hour });
  });

  it.each(Array.from({ length: 24 }, (_, h) => h))('hour %i is two digits', (h) => {
    expect(localDateHour(Date.UTC(2026, 4, 1, h, 30), 'UTC')).toEqual({
      date: '2026-05-01',
      hour: String(h).padStart(2, '0'),
    });
  });
});

describe('localDateHour: America/New_York across DST', () => {
  it.each([
    // Spring forward, Sunday 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z).
    ['2026-03-08T04:59:00Z', '2026-03-07', '23'],
    ['2026-03-08T05:00:00Z', '2026-03-08', '00'],
    ['2026-03-08T06:00:00Z', '2026-03-08', '01'],
    ['2026-03-08T06:59:59Z', '2026-03-08', '01'],
    ['2026-03-08T07:00:00Z', '2026-03-08', '03'],
    ['2026-03-08T07:30:00Z', '2026-03-08', '03'],
    ['2026-03-09T03:59:00Z', '2026-03-08', '23'],
    ['2026-03-09T04:00:00Z', '2026-03-09', '00'],
    // Fall back, Sunday 2026-11-01: 02:00 EDT falls back to 01:00 EST (06:00Z); 01 happens twice.
    ['2026-11-01T03:59:00Z', '2026-10-31', '23'],
    ['2026-11-01T04:00:00Z', '2026-11-01', '00'],
    ['2026-11-01T05:30:00Z', '2026-11-01', '01'],
    ['2026-11-01T06:30:00Z', '2026-11-01', '01'],
    ['2026-11-01T07:00:00Z', '2026-11-01', '02'],
    ['2026-11-02T04:59:00Z', '2026-11-01', '23'],
    ['2026-11-02T05:00:00Z', '2026-11-02', '00'],
    // Plain winter and summer days.
    ['2026-01-15T17:00:00Z', '2026-01-15', '12'],
    ['2026-07-15T16:00:00Z', '2026-07-15', '12'],
  ])('%s → %s %s', (iso, date, hour) => {
    expect(localDateHour(at(iso), 'America/New_York')).toEqual({ date, hour });
  });

  it('never produces hour 02 on the spring-forward day', () => {
    const start = at('2026-03-08T05:00:00Z');
    const hours = Array.from(
      { length: 24 * 4 },
      (_, i) => localDateHour(start + i * 15 * 60_000, 'America/New_York').hour,
    );
    expect(hours).not.toContain('02');
    expect(hours).not.toContain('24');
  });
});

describe('localDateHour: Asia/Kolkata (+05:30)', () => {
  it.each([
    ['2026-01-01T18:29:00.000Z', '2026-01-01', '23'],
    ['2026-01-01T18:29:59.999Z', '2026-01-01', '23'],
    ['2026-01-01T18:30:00.000Z', '2026-01-02', '00'],
    ['2026-01-01T19:29:59.999Z', '2026-01-02', '00'],
    ['2026-01-01T19:30:00.000Z', '2026-01-02', '01'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01', '05'],
    ['2025-12-31T18:30:00.000Z', '2026-01-01', '00'],
  ])('%s → %s %s', (iso, date, hour) => {
    expect(localDateHour(at(iso), 'Asia/Kolkata')).toEqual({ date, hour });
  });
});

describe('localDateHour: the extremes of the date line', () => {
  it.each([
    ['2026-06-15T10:00:00Z', 'Pacific/Kiritimati', '2026-06-16', '00'],
    ['2026-06-15T10:00:00Z', 'Pacific/Pago_Pago', '2026-06-14', '23'],
    ['2026-06-15T10:00:00Z', 'UTC', '2026-06-15', '10'],
    ['2026-01-01T00:00:00Z', 'Pacific/Kiritimati', '2026-01-01', '14'],
    ['2026-01-01T00:00:00Z', 'Pacific/Pago_Pago', '2025-12-31', '13'],
    ['2026-01-01T12:00:00Z', 'Pacific/Kiritimati', '2026-01-02', '02'],
    ['2025-12-31T09:59:59Z', 'Pacific/Kiritimati', '2025-12-31', '23'],
    ['2025-12-31T10:00:00Z', 'Pacific/Kiritimati', '2026-01-01', '00'],
    ['2026-01-01T10:59:59Z', 'Pacific/Pago_Pago', '2025-12-31', '23'],
    ['2026-01-01T11:00:00Z', 'Pacific/Pago_Pago', '2026-01-01', '00'],
  ])('%s in %s → %s %s', (iso, timeZone, date, hour) => {
    expect(localDateHour(at(iso), timeZone)).toEqual({ date, hour });
  });

  it('the same instant is two dates apart between +14 and −11', () => {
    const instant = at('2026-06-15T10:30:00Z');
    expect(localDateHour(instant, 'Pacific/Kiritimati').date).toBe('2026-06-16');
    expect(localDateHour(instant, 'Pacific/Pago_Pago').date).toBe('2026-06-14');
  });
});

describe('localDateHour: hour format', () => {
  it.each([
    'UTC',
    'America/New_York',
    'Asia/Kolkata',
    'Pacific/Kiritimati',
    'Pacific/Pago_Pago',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Europe/Berlin',
  ])('every hour of 2026-03-08..09 in %s is 00–23 and the date is YYYY-MM-DD', (timeZone) => {
    const start = at('2026-03-08T00:00:00Z');
    for (let i = 0; i < 48 * 4; i++) {
      const { date, hour } = localDateHour(start + i * 15 * 60_000, timeZone);
      expect(hour).toMatch(/^(0\d|1\d|2[0-3])$/);
      expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('local midnight is hour 00, never 24', () => {
    expect(localDateHour(at('2026-03-10T04:00:00Z'), 'America/New_York')).toEqual({
      date: '2026-03-10',
      hour: '00',
    });
    expect(localDateHour(at('2026-07-01T22:00:00Z'), 'Europe/Berlin')).toEqual({
      date: '2026-07-02',
      hour: '00',
    });
  });
});

describe("a hit's local date and hour: each zone's latest offset kept a quarter hour", () => {
  const ZONES = [
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'America/St_Johns',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'Australia/Lord_Howe',
    'Asia/Kolkata',
    'America/Santiago',
    'Pacific/Apia',
  ];
  /** The date and hour as Intl formats them, each instant on its own. */
  const formats = new Map(
    ZONES.map((timeZone) => [
      timeZone,
      new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        hourCycle: 'h23',
      }),
    ]),
  );
  const formatted = (ms: number, timeZone: string) => {
    const p: Record<string, string> = {};
    const format = formats.get(timeZone) as Intl.DateTimeFormat;
    for (const part of format.formatToParts(new Date(ms))) p[part.type] = part.value;
    return { date: `${p.year}-${p.month}-${p.day}`, hour: p.hour };
  };

  it('equals the formatted date and hour around every change of offset, in any order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(...ZONES),
            fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2035, 0, 1) }),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        (instants) => {
          for (const [zone, ms] of instants) {
            // Each instant and its neighbours a few minutes on either side.
            for (const at of [ms, ms - 60_000, ms + 61_000, ms + 899_999])
              expect(localDateHour(at, zone)).toEqual(formatted(at, zone));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds across the changes of offset of 2026, minute by minute', () => {
    for (const zone of ZONES) {
      for (const [from, to] of [
        [Date.UTC(2026, 2, 7), Date.UTC(2026, 3, 7)],
        [Date.UTC(2026, 8, 25), Date.UTC(2026, 10, 3)],
      ] as const) {
        for (let at = from; at < to; at += 17 * 60_000 + 13_000)
          expect(localDateHour(at, zone)).toEqual(formatted(at, zone));
      }
    }
  });
});
