import { describe, expect, it } from 'vitest';
import { storedEventName } from '../../src/counting/statistics.ts';
import { valueLabel } from '../../src/stats/overview.ts';

describe('valueLabel', () => {
  it.each([
    ['event', 'signup', 'signup'],
    ['event', 'purchase:99:USD', 'purchase (99 USD)'],
    ['event', 'download:pdf', 'download (pdf)'],
    // A name's own colons come back as colons; only value and unit are set apart.
    ['event', `${storedEventName('Outbound Link: Click')}:3`, 'Outbound Link: Click (3)'],
    ['country', 'US:United States', 'United States'],
    ['page', '/a:b', '/a:b'],
  ])('%s %j reads %j', (name, value, label) => {
    expect(valueLabel(name, value)).toBe(label);
  });
});
