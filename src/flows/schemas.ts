/** Funnel and journey answers' parameters and responses (./routes.ts), for validation and OpenAPI. */
import { z } from '@hono/zod-openapi';
import { pageField, perPageField } from '../api/pagination.ts';
import { MAX_FILTER_LENGTH } from '../counting/dimensions.ts';
import { JOURNEY_STEPS } from '../counting/flows.ts';
import { field, stringChoice, textField } from '../lib/fields.ts';
import { dateField, filterParameter } from '../stats/schemas.ts';

const stepSchema = z
  .object({
    step: z.number().int().openapi({ example: 2 }),
    label: z.string().openapi({ example: '/signup/**' }),
    visitors: z.number().int().openapi({
      description: 'Visitors of a day who took steps 1 to this one, in order, that day.',
      example: 204,
    }),
    conversion_rate: z.number().openapi({
      description: "Percent of the first step's visitors, two decimals.",
      example: 25.12,
    }),
    dropoff: z.number().int().openapi({
      description: 'Visitors of the step before who did not take this one.',
      example: 608,
    }),
    dropoff_rate: z.number().openapi({
      description: 'The drop-off in percent of the step before, two decimals.',
      example: 74.88,
    }),
  })
  .openapi('FunnelStepResult');

export const funnelResponseSchema = z
  .object({
    data: z.object({
      funnel: z.object({ id: z.number().int(), name: z.string() }),
      steps: z.array(stepSchema),
    }),
    status: z.number().int().openapi({ example: 200 }),
  })
  .openapi('FunnelResult');

export const journeyQuerySchema = z.object({
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

export const journeyResponseSchema = z
  .object({
    current_page: z.number().int(),
    data: z.array(
      z.object({
        path: z.array(z.string()).openapi({ example: ['/pricing', '/signup', '/welcome'] }),
        visits: z.number().int().openapi({ example: 41 }),
      }),
    ),
    first_page_url: z.string().url(),
    from: z.number().int().nullable(),
    last_page: z.number().int(),
    last_page_url: z.string().url(),
    next_page_url: z.string().url().nullable(),
    path: z.string().url(),
    per_page: z.number().int(),
    prev_page_url: z.string().url().nullable(),
    to: z.number().int().nullable(),
    total: z.number().int(),
    status: z.number().int().openapi({ example: 200 }),
  })
  .openapi('Journeys');
