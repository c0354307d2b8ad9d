/**
 * The dimensions a filter may name (src/query/parse/v1.ts), each one of the query
 * engine's (src/counting/query-dimensions.ts) with its level and the SQL over the log it
 * reads: one fixed table, the only source of column names in SQL over the log; a dimension
 * not in it is an error everywhere, never taken for another kind.
 */
import { describe, expect, it } from 'vitest';
import { queryDimension } from '../../src/counting/query-dimensions.ts';
import { FILTER_DIMENSIONS, v1Filters } from '../../src/query/parse/v1.ts';
import { parseV1Filters } from '../../src/query/parse/v1-filters.ts';
import { chunkStatement } from '../../src/website-log/object/read/question-sql.ts';

describe('the dimensions of filters', () => {
  it('each is a dimension of the engine, with a level and a column of the log', () => {
    expect(
      Object.fromEntries(
        FILTER_DIMENSIONS.map((d) => {
          const [leaf] = v1Filters([{ dimension: d, operator: 'is', value: 'x' }]);
          const dimension = queryDimension((leaf as { dimension: string }).dimension);
          return [d, [dimension.level, dimension.sql]];
        }),
      ),
    ).toEqual({
      page: ['hit', 'page'],
      event: ['hit', 'event'],
      landing_page: ['visit', 'landing'],
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
      channel: ['visit', 'channel'],
      source: ['visit', 'source'],
      utm_medium: ['visit', 'utm_medium'],
      utm_source: ['visit', 'utm_source'],
      utm_term: ['visit', 'utm_term'],
      utm_content: ['visit', 'utm_content'],
    });
  });

  it.each(['nope', 'constructor', '__proto__', 'browser) OR (1', 'visit_views'])(
    'an unknown dimension %j is an error, in the statements too',
    (name) => {
      expect(() => queryDimension(name)).toThrow('not a dimension');
      const chunk = { low: 1, high: 10, first: 0, last: 0 };
      const leaf = { op: 'is' as const, dimension: name, values: ['x'], caseSensitive: true };
      expect(() =>
        chunkStatement({ kind: 'leaf', leaf, ids: [1], none: false }, [], chunk),
      ).toThrow('not a dimension');
      expect(() =>
        chunkStatement(null, [{ q: 0, dimensions: [name], partials: new Set(['pv']) }], chunk),
      ).toThrow('not a dimension');
      expect(parseV1Filters(new URLSearchParams([[`filter[${name}]`, 'x']])).filters).toEqual([]);
    },
  );
});
