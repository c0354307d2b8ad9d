/**
 * The dimensions a filter may name, and the columns of the log's events they read
 * (src/stats/filters.ts): one fixed table, the only source of column names in SQL over the
 * log; a dimension not in it is an error everywhere, never taken for another kind.
 */
import { describe, expect, it } from 'vitest';
import {
  columnOf,
  FILTER_DIMENSIONS,
  type FilterDimension,
  levelOf,
} from '../../src/counting/dimensions.ts';
import { chunkStatement } from '../../src/event-log/log-query.ts';
import { parseFilters } from '../../src/stats/filters.ts';

describe('the dimensions of filters', () => {
  it('each has a level and a column of the events, from the fixed table', () => {
    expect(
      Object.fromEntries(FILTER_DIMENSIONS.map((d) => [d, [levelOf(d), columnOf(d)]])),
    ).toEqual({
      page: ['hit', 'page'],
      event: ['hit', 'event'],
      landing_page: ['visit', 'page'],
      exit_page: ['visit', 'page'],
      referrer: ['visit', 'referrer'],
      campaign: ['visit', 'campaign'],
      country: ['visitor', 'country'],
      continent: ['visitor', 'continent'],
      city: ['visitor', 'city'],
      language: ['visitor', 'language'],
      browser: ['visitor', 'browser'],
      os: ['visitor', 'os'],
      device: ['visitor', 'device'],
      resolution: ['visitor', 'resolution'],
    });
  });

  it.each(['nope', 'constructor', '__proto__', 'browser) OR (1', 'visit_views'])(
    'an unknown dimension %j is an error, in the statements too',
    (name) => {
      const dimension = name as FilterDimension;
      expect(() => levelOf(dimension)).toThrow('not a filter dimension');
      expect(() => columnOf(dimension)).toThrow('not a filter dimension');
      expect(() =>
        chunkStatement(
          ['page'],
          [{ filter: { dimension, operator: 'is', value: 'x' }, ids: [1] }],
          {
            low: 1,
            high: 10,
            first: 0,
            last: 0,
          },
        ),
      ).toThrow('not a filter dimension');
      expect(parseFilters(new URLSearchParams([[`filter[${name}]`, 'x']])).filters).toEqual([]);
    },
  );
});
