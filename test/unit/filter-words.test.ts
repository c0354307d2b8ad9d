/**
 * Filters in words (src/pages/statistics/filter-words.ts): a saved segment's filters said as
 * the statistics page's chips say them, those the page does not write as near as words go,
 * and the page's filters as a form's rows and back to the very JSON they were saved as.
 */
import { describe, expect, it } from 'vitest';
import type { FieldErrors } from '../../src/lib/errors.ts';
import {
  filtersOfRows,
  filterWords,
  rowsOfSaved,
  savedFiltersWords,
} from '../../src/pages/statistics/filter-words.ts';
import { v1FilterTree } from '../../src/query/parse/v1.ts';

/** Filters as the statistics page saves them: a country, a text, an event, a property, a goal. */
const PAGE_FILTERS = v1FilterTree([
  {
    dimension: 'country',
    operator: 'is',
    value: 'DE:Germany',
    values: ['DE:Germany', 'AT:Austria'],
  },
  { dimension: 'page', operator: 'contains', value: '/blog' },
  { dimension: 'event', operator: 'not', value: 'purchase:99:USD' },
  { dimension: 'props:plan', operator: 'is', value: 'pro' },
  { dimension: 'goal', operator: 'contains', value: 'Sign' },
]);

describe('a saved segment in words', () => {
  it("says the page's filters as their chips do", () => {
    expect(savedFiltersWords(PAGE_FILTERS)).toEqual([
      'Country is Germany or Austria',
      'Page contains /blog',
      'Event is not purchase (99 USD)',
      'Property plan is pro',
      'Goal contains Sign',
    ]);
    expect(
      filterWords({
        dimension: 'segment',
        operator: 'is',
        value: '3',
        segment: { name: 'German blog readers', nodes: [], saved: PAGE_FILTERS.slice(0, 2) },
      }),
    ).toBe('German blog readers: Country is Germany or Austria · Page contains /blog');
  });

  it("says the API's filters as near as words go, however deep", () => {
    expect(
      savedFiltersWords([
        ['is', 'visit:device', ['Mobile']],
        [
          'or',
          [
            ['is', 'visit:country', ['DE']],
            ['matches', 'event:page', ['^/blog/']],
          ],
        ],
        ['not', ['contains', 'sl:page', ['/docs']]],
        ['has_not_done', ['is', 'event:goal', ['Signup']]],
        ['is', 'visit:region', ['DE-BE']],
      ]),
    ).toEqual([
      'Device is Mobile',
      '(Country is DE or Page matches ^/blog/)',
      // A case-sensitive text is not the page's `contains` (which ignores case).
      'not (Page contains /docs)',
      'has not done Goal is Signup',
      'visit:region is DE-BE',
    ]);
    let deep: unknown = ['is', 'visit:device', ['Mobile']];
    for (let i = 0; i < 5000; i++) deep = ['not', deep];
    expect(savedFiltersWords([deep])[0]).toMatch(/^not \(not \(.*…\)+$/);
  });
});

describe("a saved segment's rows", () => {
  it('are a row for each value of the filters the page writes, the others kept as JSON', () => {
    const api = ['is', 'visit:device', ['Mobile']];
    const { kept, rows } = rowsOfSaved([api, ...PAGE_FILTERS]);
    expect(kept).toEqual([JSON.stringify(api)]);
    expect(rows).toEqual([
      { dimension: 'country', property: '', operator: 'is', value: 'DE:Germany' },
      { dimension: 'country', property: '', operator: 'is', value: 'AT:Austria' },
      { dimension: 'page', property: '', operator: 'contains', value: '/blog' },
      { dimension: 'event', property: '', operator: 'not', value: 'purchase:99:USD' },
      { dimension: 'property', property: 'plan', operator: 'is', value: 'pro' },
      { dimension: 'goal', property: '', operator: 'contains', value: 'Sign' },
    ]);
    // And back: the very filters they were.
    const errors: FieldErrors = {};
    expect(filtersOfRows(rows, errors)).toEqual(PAGE_FILTERS);
    expect(errors).toEqual({});
  });

  it('name what is wrong with a row, by its place', () => {
    const errors: FieldErrors = {};
    const row = (dimension: string, operator: string, value: string) => ({
      dimension,
      property: '',
      operator,
      value,
    });
    filtersOfRows(
      [row('page', 'is', '/'), row('segment', 'is', '1'), row('goal', 'not', 'Signup')],
      errors,
    );
    expect(errors).toEqual({
      'filter.1': ['Choose one of the dimensions listed.'],
      'filter.2': ["The filter[goal][not] filter takes a goal's name, or [contains]."],
    });
    const twice: FieldErrors = {};
    filtersOfRows([row('page', 'contains', 'a'), row('page', 'contains', 'b')], twice);
    expect(twice).toEqual({
      'filter.1': ['The filter[page][contains] filter is given more than once.'],
    });
    const custom: FieldErrors = {};
    filtersOfRows([{ dimension: 'property', property: ' ', operator: 'is', value: 'x' }], custom);
    expect(Object.keys(custom)).toEqual(['filter.0']);
  });
});
