import { describe, expect, it } from 'vitest';
import { canonicalTimeZone } from '../../src/lib/time/timezone.ts';

describe('canonicalTimeZone: valid zone names', () => {
  it.each([
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['Utc', 'UTC'],
    ['Etc/UTC', 'Etc/UTC'],
    ['GMT', 'UTC'],
    ['Etc/GMT', 'Etc/GMT'],
    ['Europe/Berlin', 'Europe/Berlin'],
    ['europe/berlin', 'Europe/Berlin'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
    ['eUrOpE/bErLiN', 'Europe/Berlin'],
    ['America/New_York', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['america/argentina/buenos_aires', 'America/Buenos_Aires'],
    ['AMERICA/ARGENTINA/BUENOS_AIRES', 'America/Buenos_Aires'],
    ['America/Port-au-Prince', 'America/Port-au-Prince'],
    ['Asia/Tokyo', 'Asia/Tokyo'],
    ['Australia/Lord_Howe', 'Australia/Lord_Howe'],
    ['Pacific/Chatham', 'Pacific/Chatham'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    ['etc/gmt+5', 'Etc/GMT+5'],
    ['Etc/GMT-14', 'Etc/GMT-14'],
    ['EST5EDT', 'EST5EDT'],
  ])('%j → %s', (name, canonical) => {
    expect(canonicalTimeZone(name)).toBe(canonical);
  });

  // Current IANA names must come back as themselves, not as the deprecated spellings that
  // CLDR/ICU still use as its own identifiers (Asia/Calcutta, Europe/Kiev, …).
  it.each([
    'America/Indiana/Indianapolis',
    'America/Nuuk',
    'Asia/Ho_Chi_Minh',
    'Asia/Kathmandu',
    'Asia/Kolkata',
    'Asia/Yangon',
    'Atlantic/Faroe',
    'Europe/Kyiv',
    'Pacific/Kanton',
  ])('keeps the canonical IANA name %s unchanged', (name) => {
    expect(canonicalTimeZone(name)).toBe(name);
  });
});

describe('canonicalTimeZone: offsets are not zone names', () => {
  it.each([
    '+05:00',
    '-03:00',
    '+0500',
    '-0300',
    '+05',
    '-03',
    '+00:00',
    '-00:00',
    '+14:00',
    'Z',
    'z',
    'GMT+5',
    'GMT-3',
    'UTC+5',
    'UTC+05:00',
    'UTC-0300',
    'GMT+05:00',
  ])('%j → null', (name) => {
    expect(canonicalTimeZone(name)).toBeNull();
  });
});

describe('canonicalTimeZone: invalid and hostile names', () => {
  it.each([
    '',
    ' ',
    'Mars/Olympus',
    'Europe/Atlantis',
    'Europe',
    'Berlin',
    'Europe/Berlin; DROP TABLE',
    "Europe/Berlin'; DROP TABLE websites; --",
    '../../etc/passwd',
    '../Europe/Berlin',
    './UTC',
    '/UTC',
    'UTC/',
    '/etc/localtime',
    'Europe//Berlin',
    'Europe/../Europe/Berlin',
    'Europe\\Berlin',
    ' Europe/Berlin',
    'Europe/Berlin ',
    'Europe/Berlin\n',
    '\nEurope/Berlin',
    'Europe/Berlin\u0000',
    'Europe/ Berlin',
    'Europe/Berlin#x',
    'Europe/Berlin?x',
    '<script>alert(1)</script>',
    'Etc/GMT+13',
    'Etc/GMT+14',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'null',
    'undefined',
    'Europe/Berlín',
    'Еurope/Berlin',
    `${'A'.repeat(65)}`,
    `Europe/${'B'.repeat(100)}`,
    'x'.repeat(100_000),
  ])('%j → null', (name) => {
    expect(canonicalTimeZone(name)).toBeNull();
  });
});
