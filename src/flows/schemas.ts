/** Funnel and journey answers' parameters and responses (./routes.ts), for validation and OpenAPI. */

import { JOURNEY_STEPS } from '../counting/flow-queries.ts';
import { pageField, perPageField } from '../http/pagination.ts';
import { field, stringChoice, textField } from '../lib/fields.ts';
import { s } from '../lib/json-schema.ts';
import { dateField, filterParameter } from '../query/api/v1/schemas.ts';
import { MAX_FILTER_LENGTH } from '../query/parse/v1.ts';

const stepSchema = s
  .object({
    step: s.number().int().openapi({ example: 2 }),
    label: s.string().openapi({ example: '/signup/**' }),
    visitors: s.number().int().openapi({
      description: 'Visitors of a day who took steps 1 to this one, in order, that day.',
      example: 204,
    }),
    conversion_rate: s.number().openapi({
      description: "Percent of the first step's visitors, two decimals.",
      example: 25.12,
    }),
    dropoff: s.number().int().openapi({
      description: 'Visitors of the step before who did not take this one.',
      example: 608,
    }),
    dropoff_rate: s.number().openapi({
      description: 'The drop-off in percent of the step before, two decimals.',
      example: 74.88,
    }),
  })
  .openapi('FunnelStepResult');

export const funnelResponseSchema = s
  .object({
    data: s.object({
      funnel: s.object({ id: s.number().int(), name: s.string() }),
      steps: s.array(stepSchema),
    }),
    status: s.number().int().openapi({ example: 200 }),
  })
  .openapi('FunnelResult');

export const journeyQuerySchema = s.object({
  page: textField(
    'page',
    MAX_FILTER_LENGTH,
    'The page the paths go from or to, as `name=page` shows it.',
  ),
  direction: stringChoice(
    'direction',
    ['next', 'previous'],
    '`next` (default): the pages viewed after it; `previous`: those viewed before it.',
  ).optional(),
  steps: field<number>(
    {
      type: 'integer',
      minimum: 1,
      maximum: JOURNEY_STEPS,
      description: `Pages to follow beyond it, 1 (default) to ${JOURNEY_STEPS}.`,
    },
    (raw) => {
      const n = typeof raw === 'string' && /^\d$/.test(raw) ? Number(raw) : Number.NaN;
      return n >= 1 && n <= JOURNEY_STEPS
        ? { ok: true, value: n }
        : { ok: false, message: `The steps field must be an integer from 1 to ${JOURNEY_STEPS}.` };
    },
  ).optional(),
  from: dateField('from'),
  to: dateField('to'),
  sort_by: stringChoice(
    'sort_by',
    ['count', 'value'],
    'Sort by visits (count, default) or by path (value).',
  ).optional(),
  sort: stringChoice('sort', ['desc', 'asc'], 'Sort direction. Defaults to desc.').optional(),
  per_page: perPageField(25),
  page_number: pageField.openapi({
    description: 'The page of paths to return. Defaults to 1 (`page` is the page they go from).',
  }),
  filter: filterParameter,
});

export const journeyResponseSchema = s
  .object({
    current_page: s.number().int(),
    data: s.array(
      s.object({
        path: s.array(s.string()).openapi({ example: ['/pricing', '/signup', '/welcome'] }),
        visits: s.number().int().openapi({ example: 41 }),
      }),
    ),
    first_page_url: s.string().url(),
    from: s.number().int().nullable(),
    last_page: s.number().int(),
    last_page_url: s.string().url(),
    next_page_url: s.string().url().nullable(),
    path: s.string().url(),
    per_page: s.number().int(),
    prev_page_url: s.string().url().nullable(),
    to: s.number().int().nullable(),
    total: s.number().int(),
    status: s.number().int().openapi({ example: 200 }),
  })
  .openapi('Journeys');

const funnelStepSchema = s
  .union([
    s.object({
      page: s.string().openapi({
        description:
          'A path starting with / (at most 255 characters, no spaces), or a pattern: `*` any characters within a segment, `**` across.',
        example: '/signup/**',
      }),
    }),
    s.object({
      event: s.string().openapi({
        description: "A custom event's name (1–120 characters, not `pageview`).",
        example: 'Signup',
      }),
    }),
    s.object({
      goal: s.string().openapi({
        description: "The display name of one of the website's goals.",
        example: 'Sign-ups',
      }),
    }),
  ])
  .openapi('FunnelStep', { description: 'Exactly one of `page`, `event` or `goal`.' });

export const funnelSchema = s
  .object({
    id: s.number().int().openapi({ example: 2 }),
    name: s.string().openapi({ example: 'Signup' }),
    steps: s.array(funnelStepSchema).openapi({
      example: [{ page: '/pricing' }, { page: '/signup/**' }, { event: 'Signup' }],
    }),
    created_at: s.string().openapi({ example: '2026-11-22T09:30:00.000000Z' }),
  })
  .openapi('Funnel');

const funnelInputSchema = s
  .object({
    name: s.string().openapi({ description: 'Unique to the website; 1–120 characters.' }),
    steps: s
      .array(funnelStepSchema)
      .min(2)
      .max(8)
      .openapi({ description: '2 to 8 steps, in order.' }),
  })
  .openapi('FunnelInput');

export const funnelBodyContent = {
  'application/json': { schema: funnelInputSchema },
  'application/x-www-form-urlencoded': {
    schema: s.object({
      name: s.string(),
      steps: s.string().openapi({ description: 'The list of steps as JSON text.' }),
    }),
  },
};
