/**
 * A website's funnels on their settings page (`/websites/{id}/funnels`): the list, each with a
 * link to its statistics and a delete button, and a form to add one — a name and its steps,
 * built step by step (or written one a line) — through the same domain functions and
 * messages as the API (src/flows/funnels.ts).
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { FUNNEL_STEPS, type FunnelStep } from '../../counting/flow-queries.ts';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import {
  createFunnel,
  deleteFunnel,
  type FunnelRecord,
  funnelSteps,
  listFunnels,
} from '../../flows/funnels.ts';
import { funnelOf } from '../../flows/questions.ts';
import { listGoals } from '../../goals/goals.ts';
import { formText } from '../../http/form.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { resolveRange } from '../../lib/time/dates.ts';
import { formatNumber, rangeLabel } from '../../query/present/readable.ts';
import { Field } from '../layout/layout.tsx';
import { SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';
import { SuggestionLists, type Suggestions } from './suggestions.tsx';

/** A step of the builder as sent: what it is, and its page, event or goal. */
type StepRow = { kind: 'page' | 'event' | 'goal'; value: string };

/** The funnel form's fields as sent, to show them again with the messages. */
export type FunnelFormValues = { name: string; steps: string; rows: StepRow[] };

const EMPTY: FunnelFormValues = { name: '', steps: '', rows: [] };

const KINDS = [
  ['page', 'Page visit', 'suggested-pages'],
  ['event', 'Custom event', 'suggested-events'],
  ['goal', 'Goal', 'suggested-goals'],
] as const;

const LINE_FORMAT = 'start it with / for a page, event: for a custom event or goal: for a goal.';

/** A step as the list shows it: `/pricing`, `event Signup`, `goal Sign-ups`. */
const stepLabel = (step: FunnelStep) =>
  'page' in step ? step.page : 'event' in step ? `event ${step.event}` : `goal ${step.goal}`;

/**
 * The textarea's lines as steps (blank lines skipped): a line starting with `/` is a page,
 * `event:Name` a custom event, `goal:Name` a goal; any other line is kept as its text,
 * which the checks refuse as a step (`steps.N`).
 */
function stepsOfLines(text: string): unknown[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      if (line.startsWith('/')) return { page: line };
      const prefixed = /^(event|goal)\s*:(.*)$/i.exec(line);
      if (!prefixed) return line;
      return { [(prefixed[1] as string).toLowerCase()]: (prefixed[2] as string).trim() };
    });
}

/** The messages about the steps, by the textarea: `steps`, then each step's (`Step 2: …`). */
function stepMessages(errors: FieldErrors): string[] {
  return Object.entries(errors).flatMap(([field, messages]) => {
    if (field === 'steps') return messages;
    const step = /^steps\.(\d+)(?:\.|$)/.exec(field)?.[1];
    return step ? messages.map((m) => `Step ${step}: ${m}`) : [];
  });
}

export const FunnelsSection: FC<{
  site: WebsiteRow;
  funnels: FunnelRecord[];
  csrf: string;
  suggestions: Suggestions;
  values?: FunnelFormValues;
  errors?: FieldErrors;
}> = ({ site, funnels, csrf, suggestions, values = EMPTY, errors = {} }) => (
  <SettingsSection
    id="funnels"
    title="Funnels"
    hint="A funnel follows visitors through the steps you choose — pages, custom events or goals, 2 to 8 of them — and shows how many go on at each step."
    csrf={csrf}
    table={{
      head: ['Funnel', 'Steps'],
      rows: funnels.map((f) => ({
        cells: [f.name, f.steps.map(stepLabel).join(' → ')],
        actions: (
          <a href={`/stats/${site.domain}/funnels/${f.id}`}>
            View<span class="sr-only"> {f.name}</span>
          </a>
        ),
        remove: { action: `/websites/${site.id}/funnels/${f.id}/delete`, what: f.name },
      })),
    }}
    empty="No funnels yet."
    add={{
      action: `/websites/${site.id}/funnels`,
      button: 'Add the funnel',
      class: 'stack',
      fields: (
        <>
          <Field label="Name" name="name" error={errors.name}>
            <input id="name" name="name" value={values.name} required />
          </Field>
          <StepRows site={site} rows={values.rows} errors={errors} />
          <details class="steps-as-text" open={values.steps.trim() !== ''}>
            <summary>Or write the steps as text</summary>
            <Field
              label="Steps, one per line"
              name="steps"
              hint="/pricing for a page (* and ** as patterns), event:Signup for a custom event, goal:Sign-ups for a goal. When this holds steps, they are used instead of the ones above."
            >
              <textarea id="steps" name="steps" rows={4}>
                {values.steps}
              </textarea>
            </Field>
          </details>
          {values.steps.trim() !== ''
            ? stepMessages(errors).map((m) => <p class="error">{m}</p>)
            : null}
          <SuggestionLists suggestions={suggestions} />
        </>
      ),
    }}
  />
);

/**
 * The builder's steps: each a kind and its page, event or goal (the website's own offered as
 * one types), with its message. The settings' script (../assets/funnel-script.ts) shows the
 * rows in use and one more, moves a step up or down, and counts each step's visitors of the
 * last 30 days as the funnel is built (`…/funnels/preview.json`); without it every row shows.
 */
const StepRows: FC<{ site: WebsiteRow; rows: StepRow[]; errors: FieldErrors }> = ({
  site,
  rows,
  errors,
}) => (
  <fieldset class="funnel-steps" data-funnel-builder={`/websites/${site.id}/funnels/preview.json`}>
    <legend>Steps, in the order visitors take them</legend>
    <ol>
      {Array.from({ length: FUNNEL_STEPS.max }, (_, i) => {
        const row = rows[i] ?? { kind: 'page', value: '' };
        const n = i + 1;
        const message = rows.length > 0 ? stepMessage(errors, n) : undefined;
        return (
          <li data-step>
            <label for={`step_kind_${n}`} class="step-number">
              Step {n}
            </label>
            <select id={`step_kind_${n}`} name={`step_kind_${n}`}>
              {KINDS.map(([kind, label]) => (
                <option value={kind} selected={row.kind === kind}>
                  {label}
                </option>
              ))}
            </select>
            <label for={`step_value_${n}`} class="sr-only">
              Step {n}
              {n > FUNNEL_STEPS.min ? ' (optional)' : ''}: its page, event or goal
            </label>
            <input
              id={`step_value_${n}`}
              name={`step_value_${n}`}
              value={row.value}
              list={KINDS.find(([kind]) => kind === row.kind)?.[2]}
              placeholder={n > FUNNEL_STEPS.min ? 'Optional' : '/pricing'}
            />
            <span class="step-moves" hidden>
              <button type="button" class="secondary" data-move="-1">
                ↑<span class="sr-only"> Move step {n} up</span>
              </button>
              <button type="button" class="secondary" data-move="1">
                ↓<span class="sr-only"> Move step {n} down</span>
              </button>
            </span>
            <output class="step-count" />
            {message ? <p class="error">{message}</p> : null}
          </li>
        );
      })}
    </ol>
    <p class="actions">
      <button type="button" class="secondary" data-add-step hidden>
        Add a step
      </button>
      <span class="hint" data-preview aria-live="polite" />
    </p>
    {rows.length > 0 && errors.steps ? <p class="error">{errors.steps[0]}</p> : null}
  </fieldset>
);

/** The message of the `n`th step (`steps.N` or `steps.N.page|event|goal`). */
const stepMessage = (errors: FieldErrors, n: number) =>
  Object.entries(errors).find(([field]) =>
    new RegExp(`^steps\\.${n}(?:\\.|$)`).test(field),
  )?.[1][0];

/** The settings page again, with the funnel form's values and messages (a 422). */
type Reshow = (values: FunnelFormValues, errors: FieldErrors) => Promise<Response>;

/**
 * `POST /websites/:id/funnels` (add) and `POST /websites/:id/funnels/:funnel/delete`, for
 * the website of the path, its owner's and admins' (`siteOf`), each after the form's CSRF check (`formBody`).
 */
export function registerFunnelPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  pages.post('/:id/funnels', async (c) => {
    const site = await siteOf(c);
    const body = await formBody(c);
    const text = (name: string) => formText(body[name]);
    const rows = rowsOf(text);
    const values: FunnelFormValues = { name: text('name'), steps: text('steps'), rows };
    const fromText = values.steps.trim() !== '';
    const steps = fromText ? stepsOfLines(values.steps) : rows.map((r) => ({ [r.kind]: r.value }));
    try {
      await createFunnel(createDb(c.env.DB), site.id, { name: values.name, steps });
      return c.redirect(settingsPath(site.id, 'funnels', 'funnel=added'), 303);
    } catch (err) {
      if (!(err instanceof ApiError && err.errors)) throw err;
      // A line that is none of the three kinds: say how a line is written.
      const errors = { ...err.errors };
      steps.forEach((step, i) => {
        if (typeof step === 'string' && errors[`steps.${i + 1}`])
          errors[`steps.${i + 1}`] = [`"${step}" is not a step: ${LINE_FORMAT}`];
      });
      return reshow(c, site)(values, errors);
    }
  });
  pages.get('/:id/funnels/preview.json', async (c) => {
    const site = await siteOf(c);
    const db = createDb(c.env.DB);
    let steps: FunnelStep[];
    try {
      steps = await funnelSteps(db, site.id, c.req.query('steps') ?? '');
    } catch (err) {
      if (!(err instanceof ApiError && err.errors)) throw err;
      return c.json({ error: stepMessages(err.errors)[0] ?? err.message }, 422);
    }
    const range = resolveRange({ range: '30d' }, site.timezone);
    const answer = await funnelOf(
      c.env,
      site.id,
      { steps },
      range,
      [],
      await listGoals(db, site.id),
    );
    if (!Array.isArray(answer)) return c.json({ error: 'The counts are not available now.' }, 503);
    return c.json({
      range: rangeLabel(range),
      steps: answer.map((step) => ({
        visitors: step.visitors,
        label: `${formatNumber(step.visitors)} ${step.visitors === 1 ? 'visitor' : 'visitors'}${step.step > 1 ? ` (${step.conversion_rate}%)` : ''}`,
      })),
    });
  });
  pages.post('/:id/funnels/:funnel/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const id = parseId(c.req.param('funnel'));
    if (id === null || !(await deleteFunnel(createDb(c.env.DB), site.id, id)))
      throw new ApiError(404, 'There is no such funnel.');
    return c.redirect(settingsPath(site.id, 'funnels', 'funnel=deleted'), 303);
  });
}

/** The builder's rows as sent, the empty ones left out (so that step N is row N). */
function rowsOf(text: (name: string) => string): StepRow[] {
  return Array.from({ length: FUNNEL_STEPS.max }, (_, i): StepRow => {
    const kind = text(`step_kind_${i + 1}`);
    return {
      kind: kind === 'event' || kind === 'goal' ? kind : 'page',
      value: text(`step_value_${i + 1}`),
    };
  }).filter((row) => row.value !== '');
}

/** The funnels the settings page lists. */
export const funnelsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listFunnels(createDb(c.env.DB), site.id);
