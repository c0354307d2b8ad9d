import { describe, expect, it } from 'vitest';
import { storedEventName } from '../../src/counting/statistics.ts';
import { eventParts, formatMoney, valueLabel } from '../../src/query/present/readable.ts';

describe('valueLabel', () => {
  it.each([
    ['event', 'signup', 'signup'],
    ['event', 'purchase:99:USD', 'purchase (99 USD)'],
    ['event', 'download:pdf', 'download (pdf)'],
    // A name's own colons come back as colons; only value and unit are set apart.
    ['event', `${storedEventName('Outbound Link: Click')}:3`, 'Outbound Link: Click (3)'],
    ['country', 'US:United States', 'United States'],
    ['page', '/a:b', '/a:b'],
    // A value without a unit (as the tracker stores it: `purchase:99:`).
    ['event', 'purchase:99:', 'purchase (99)'],
  ])('%s %j reads %j', (name, value, label) => {
    expect(valueLabel(name, value)).toBe(label);
  });
});

describe('eventParts', () => {
  it.each([
    ['signup', { name: 'signup', value: '', unit: '' }],
    ['purchase:99:USD', { name: 'purchase', value: '99', unit: 'USD' }],
    ['purchase:99:', { name: 'purchase', value: '99', unit: '' }],
    [`${storedEventName('a:b')}::kg`, { name: 'a:b', value: '', unit: 'kg' }],
  ])('%j is %j', (stored, parts) => {
    expect(eventParts(stored)).toEqual(parts);
  });
});

describe('formatMoney', () => {
  it.each([
    [99, false, '$99.00'],
    [1923, false, '$1,923.00'],
    [1923, true, '$1,923'],
    [999.5, true, '$999.50'],
    [123_456, true, '$123.5K'],
    [2_500_000, true, '$2.5M'],
  ])('%d (short: %s) reads %j', (amount, short, read) => {
    expect(formatMoney(amount, 'USD', short)).toBe(read);
  });
});
