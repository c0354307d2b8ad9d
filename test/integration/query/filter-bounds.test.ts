/**
 * What a filtered question may cost (src/query/parse/v1-filters.ts, src/website-log/object/read/question-chunks.ts): the
 * letters it compares in any case are bounded for the whole question — its filters and its
 * search together — and anything within the bound runs (a question the object's SQLite
 * refuses would answer 503 for good: no retry could succeed). Beyond it, the API answers 422
 * naming the filter or search that goes past it, and the statistics page leaves that filter
 * out and says so.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import {
  foldingsOf,
  MAX_FOLDED_LETTERS,
  MAX_FOLDINGS_PER_QUESTION,
} from '../../../src/lib/text/contains-text.ts';
import { FILTER_DIMENSIONS, type Filter, MAX_FILTERS } from '../../../src/query/parse/v1.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, errorOf } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';
import { v1Reads } from '../../support/log-reads.ts';
import { DAY, threeVisitors } from '../../support/three-visitors.ts';

/** `n` different Cyrillic letters (each with one other-case spelling), from the `from`th. */
const cyrillic = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x430 + ((from + i) % 32))).join('');
/** `n` different Latin letters outside ASCII (ā, ă, ą, …), each with one other-case spelling. */
const latin = (n: number) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x101 + 2 * i)).join('');

describe('contains filters with many letters outside ASCII', () => {
  it('two of 25 letters each, or three: answered, never 503', async () => {
    const s = await threeVisitors({ privacy: '0' });
    for (const dims of [
      ['page', 'referrer'],
      ['page', 'referrer', 'browser'],
      ['landing_page', 'country'],
    ]) {
      const q = dims
        .map((d) => `filter[${d}][contains]=${encodeURIComponent(latin(25))}`)
        .join('&');
      for (const path of [
        `/api/v1/stats/${s.id}?name=browser&from=${DAY}&to=${DAY}&${q}`,
        `/api/v1/stats/${s.id}?name=exit_page&from=${DAY}&to=${DAY}&${q}`,
        `/api/v1/stats/${s.id}/summary?from=${DAY}&to=${DAY}&${q}`,
      ]) {
        const res = await call(path, { key: s.key });
        expect(res.status, `${path}: ${res.text}`).toBe(200);
      }
      const page = await call(`/stats/${s.domain}?from=${DAY}&to=${DAY}&${q}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('class="totals"');
    }
  });

  it('past the bound of the question: 422 naming the filter or the search beyond it', async () => {
    const s = await threeVisitors({ privacy: '0' });
    const each = MAX_FOLDINGS_PER_QUESTION / 4;
    const dims = ['page', 'referrer', 'browser', 'os', 'country'];
    const q = dims
      .map((d, i) => `filter[${d}][contains]=${encodeURIComponent(cyrillic(each, i * 3))}`)
      .join('&');
    const res = await call(`/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&${q}`, {
      key: s.key,
    });
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual(['filter[country][contains]']);
    // Within the bound but for the search: the search is named.
    const within = dims
      .slice(0, 4)
      .map((d, i) => `filter[${d}][contains]=${encodeURIComponent(cyrillic(each, i * 3))}`)
      .join('&');
    const searched = await call(
      `/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&${within}&search=${encodeURIComponent(cyrillic(2))}`,
      { key: s.key },
    );
    expect(searched.status).toBe(422);
    expect(Object.keys(errorOf(searched).errors)).toEqual(['search']);
    // Unfiltered, the search alone is read from the roll-ups with its own bound.
    const unfiltered = await call(
      `/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&search=${encodeURIComponent(cyrillic(MAX_FOLDED_LETTERS))}`,
      { key: s.key },
    );
    expect(unfiltered.status).toBe(200);
    // One filter alone with more letters than any text may have.
    const long = await call(
      `/api/v1/stats/${s.id}?name=page&from=${DAY}&to=${DAY}&filter[page][contains]=${encodeURIComponent(`${cyrillic(32)}${latin(9)}`)}`,
      { key: s.key },
    );
    expect(Object.keys(errorOf(long).errors)).toEqual(['filter[page][contains]']);
    // The statistics page leaves the filter out and names it.
    const page = await call(`/stats/${s.domain}?from=${DAY}&to=${DAY}&${q}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('filter[country][contains]');
    expect(page.text).toContain('class="totals"');
  });
});

describe('every question within the bounds runs', () => {
  /** Filters of any dimensions and operators, at most the bound of letters in all. */
  const question = fc
    .record({
      filters: fc.uniqueArray(
        fc.record({
          dimension: fc.constantFrom(...FILTER_DIMENSIONS),
          operator: fc.constantFrom('is' as const, 'not' as const, 'contains' as const),
          letters: fc.integer({ min: 1, max: MAX_FOLDED_LETTERS }),
          from: fc.nat(31),
        }),
        { maxLength: MAX_FILTERS, selector: (f) => `${f.dimension}${f.operator}` },
      ),
      search: fc.option(fc.integer({ min: 1, max: MAX_FOLDED_LETTERS })),
    })
    .map(({ filters, search }) => {
      let left = MAX_FOLDINGS_PER_QUESTION;
      const take = (n: number, from: number) => {
        const text = cyrillic(Math.max(1, Math.min(n, left)), from);
        left -= foldingsOf(text);
        return text;
      };
      return {
        filters: filters.map(
          (f): Filter => ({
            dimension: f.dimension,
            operator: f.operator,
            value: f.operator === 'contains' && left > 0 ? take(f.letters, f.from) : 'x',
          }),
        ),
        search: search !== null && left > 0 ? take(search, 7) : undefined,
      };
    });

  it('every statistic, the sums and the panels, with any filters and search in the bound', async () => {
    const s = await site('filter-bounds');
    const log = websiteLog(env, s.id);
    await record(log, logHit(s.id));
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(question, async ({ filters, search }) => {
        const q = { from: '2026-03-10', to: '2026-03-10', filters };
        for (const name of STAT_NAMES) {
          const read = await v1Reads(log).statistic({
            ...q,
            name,
            search,
            sortBy: 'count',
            sort: 'desc',
            limit: 10,
            offset: 0,
          });
          expect(read.ok).toBe(true);
        }
        expect((await v1Reads(log).sums(q)).ok).toBe(true);
        expect((await v1Reads(log).topValues({ ...q, names: [...STAT_NAMES], limit: 10 })).ok).toBe(
          true,
        );
        ran++;
      }),
      { numRuns: 25, seed: 29 },
    );
    // The widest: ten filters, the bound spent on the two deepest.
    const widest: Filter[] = FILTER_DIMENSIONS.slice(0, MAX_FILTERS).map((dimension, i) => ({
      dimension,
      operator: 'contains',
      value: i < 2 ? cyrillic(MAX_FOLDINGS_PER_QUESTION / 2, i * 9) : 'x',
    }));
    const read = await v1Reads(log).topValues({
      from: '2026-03-10',
      to: '2026-03-10',
      filters: widest,
      names: [...STAT_NAMES],
      limit: 10,
    });
    expect(read.ok).toBe(true);
    expect(ran).toBe(25);
  });
});
