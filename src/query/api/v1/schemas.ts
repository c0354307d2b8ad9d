/** Stats API parameters and response, used to validate requests and to generate OpenAPI. */

import { MAX_PROP_NAME } from '../../../counting/query-dimensions.ts';
import { STAT_NAMES } from '../../../counting/statistics.ts';
import { FILTER_DIMENSIONS, LOG_LISTINGS, type LogListing } from '../../parse/v1.ts';

const LOG_NAMES = Object.keys(LOG_LISTINGS) as LogListing[];

import { pageField, perPageField } from '../../../http/pagination.ts';
import { field, searchField, stringChoice, textField } from '../../../lib/fields.ts';
import { Schema, s } from '../../../lib/json-schema.ts';
import { isCalendarDate, isWrittenDate, MAX_DATE, MIN_DATE } from '../../../lib/time/dates.ts';
import { COMPARE_MODES } from '../../present/comparison.ts';

export const dateField = (name: 'from' | 'to') =>
  field<string>(
    {
      type: 'string',
      description: `${name === 'from' ? 'First' : 'Last'} day of the range (YYYY-MM-DD, website time zone), inclusive.`,
      example: name === 'from' ? '2026-11-01' : '2026-11-30',
    },
    (raw) =>
      typeof raw === 'string' && isCalendarDate(raw)
        ? { ok: true, value: raw }
        : {
            ok: false,
            message:
              typeof raw === 'string' && isWrittenDate(raw)
                ? `The ${name} field must be a date from ${MIN_DATE} to ${MAX_DATE}.`
                : `The ${name} field must be a valid date in the format YYYY-MM-DD.`,
          },
  );

/**
 * `filter[<dimension>]`, documented as one deepObject parameter. The filters themselves are
 * parsed from the raw query string (../../parse/v1-filters.ts, which also takes `[not]` and `[contains]`);
 * a bare `filter=…`, which names no dimension, is a 422.
 */
export const filterParameter = new Schema<never>(
  () => ({
    type: 'object',
    properties: Object.fromEntries(FILTER_DIMENSIONS.map((name) => [name, { type: 'string' }])),
  }),
  () => ({
    ok: false,
    message: 'The filter field must be written as filter[<dimension>]=<value>.',
  }),
)
  .optional()
  .openapi({
    param: { style: 'deepObject', explode: true },
    description:
      'Filters, e.g. `filter[referrer]=www.google.com`; `filter[<dimension>][not]=<value>` excludes, `filter[<dimension>][contains]=<text>` matches any case. See the description above.',
    example: { referrer: 'www.google.com' },
  });

export const statsQuerySchema = s.object({
  name: stringChoice(
    'name',
    [...STAT_NAMES, ...LOG_NAMES, 'property', 'goal'],
    "The statistic to return; `property`: the values of the custom property named by `property`, each with its page views and custom events; `goal`: each goal's name and its converting visitors; `time_on_page`, `scroll_depth`: each page's seconds seen per visitor and average deepest scroll in percent (the figure in `count`); `channel`, `source`, `utm_medium`, `utm_source`, `utm_term`, `utm_content`: the visits of each channel, source or UTM tag (`campaign` is `utm_campaign`).",
  ),
  property: textField(
    'property',
    MAX_PROP_NAME,
    'With name=property: the custom property whose values to return.',
  ).optional(),
  from: dateField('from'),
  to: dateField('to'),
  search: searchField(
    'Substring of the value, in any case of any letter (`%` and `_` are literal); at most 255 characters.',
  ).optional(),
  search_by: stringChoice(
    'search_by',
    ['value', 'url'],
    'Field to search: value (default); url is an alias of value.',
  ).optional(),
  sort_by: stringChoice(
    'sort_by',
    ['count', 'value'],
    'Sort by count (default) or value.',
  ).optional(),
  sort: stringChoice(
    'sort',
    ['desc', 'asc'],
    'Sort direction. Defaults to desc. Ties are broken by value ascending.',
  ).optional(),
  per_page: perPageField(25),
  page: pageField,
  filter: filterParameter,
});

export const statsResponseSchema = s
  .object({
    current_page: s.number().int().openapi({ example: 1 }),
    data: s.array(
      s.object({
        value: s.string().openapi({ example: 'Chrome' }),
        count: s.number().int().openapi({ example: 123 }),
      }),
    ),
    first_page_url: s.string().url(),
    from: s.number().int().nullable().openapi({ example: 1 }),
    last_page: s.number().int().openapi({ example: 1 }),
    last_page_url: s.string().url(),
    next_page_url: s.string().url().nullable(),
    path: s.string().url(),
    per_page: s.number().int().openapi({ example: 25 }),
    prev_page_url: s.string().url().nullable(),
    to: s.number().int().nullable().openapi({ example: 3 }),
    total: s.number().int().openapi({ example: 3 }),
    status: s.number().int().openapi({ example: 200 }),
  })
  .openapi('Stats');

/** A date of the compared range (`compare=custom`), checked with the comparison. */
const comparedDate = (name: string) =>
  field<string>(
    {
      type: 'string',
      description: `With \`compare=custom\`: the compared range's ${name === 'compare_from' ? 'first' : 'last'} day (YYYY-MM-DD).`,
    },
    (raw) =>
      typeof raw === 'string'
        ? { ok: true, value: raw }
        : { ok: false, message: `The ${name} field must be a date.` },
  ).optional();

export const summaryQuerySchema = s.object({
  from: dateField('from'),
  to: dateField('to'),
  filter: filterParameter,
  compare: stringChoice(
    'compare',
    COMPARE_MODES,
    '`previous` (default): the period of equal length just before; `year`: the same dates a year before; `custom`: `compare_from`–`compare_to`.',
  ).optional(),
  compare_from: comparedDate('compare_from'),
  compare_to: comparedDate('compare_to'),
});

const figuresSchema = s
  .object({
    visitors: s.number().int().openapi({
      description:
        'Visitors, counted once a day and summed over the days (as the `visitors` statistic).',
      example: 1840,
    }),
    visits: s.number().int().openapi({ example: 2315 }),
    pageviews: s.number().int().openapi({ example: 5349 }),
    views_per_visit: s
      .number()
      .openapi({ description: 'Page views ÷ visits, two decimals.', example: 2.31 }),
    bounce_rate: s.number().int().openapi({
      description: 'Visits with exactly one page view, in whole percent of the visits.',
      example: 48,
    }),
    visit_duration: s.number().int().openapi({
      description:
        'Average length of a visit: from its first to its last page view, and as long as the last was seen (its engagement), in whole seconds.',
      example: 65,
    }),
    events: s.number().int().openapi({ description: 'Custom events.', example: 120 }),
    conversion_rate: s.number().optional().openapi({
      description:
        'Only under a goal filter (`filter[goal]`): the visitors ÷ the visitors of the other filters, in percent, one decimal.',
      example: 4.2,
    }),
  })
  .openapi('Figures');

export const summaryResponseSchema = s
  .object({
    data: figuresSchema,
    previous: figuresSchema.openapi({
      description:
        'The same figures for the compared range: by default the period of equal length just before `from`.',
    }),
    compared: s
      .object({
        mode: s.enum(COMPARE_MODES),
        from: s.string().openapi({ example: '2026-10-02' }),
        to: s.string().openapi({ example: '2026-10-31' }),
      })
      .openapi({ description: 'The range `previous` is of, and how it was chosen.' }),
    status: s.number().int().openapi({ example: 200 }),
  })
  .openapi('Summary');
