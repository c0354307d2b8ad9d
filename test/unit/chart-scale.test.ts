/** The chart's scale: round tick steps and the dates it labels. */
import { describe, expect, it } from 'vitest';
import { labelledIndexes, niceStep } from '../../src/pages/statistics/chart/chart-parts.tsx';

describe('niceStep', () => {
  it.each([
    [1, 1],
    [3, 1],
    [7, 2],
    [10, 5],
    [38, 10],
    [120, 50],
    [1_234, 500],
    [98_765, 50_000],
  ])('about four round ticks up to %i: a step of %i', (max, step) => {
    expect(niceStep(max)).toBe(step);
    const ticks = Math.ceil(max / step);
    expect(ticks).toBeGreaterThanOrEqual(1);
    expect(ticks).toBeLessThanOrEqual(5);
  });
});

describe('labelledIndexes', () => {
  it('labels every point of a short series', () => {
    expect(labelledIndexes(4)).toEqual([0, 1, 2, 3]);
  });
  it('labels six points of a long one, evenly, first and last included', () => {
    expect(labelledIndexes(30)).toEqual([0, 6, 12, 17, 23, 29]);
    expect(labelledIndexes(24)).toEqual([0, 5, 9, 14, 18, 23]);
  });
});
