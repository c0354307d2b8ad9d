import { describe, expect, it } from 'vitest';
import { storedEventName } from '../../src/counting/statistics.ts';
import { eventParts, valueLabel } from '../../src/stats/overview.ts';

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
