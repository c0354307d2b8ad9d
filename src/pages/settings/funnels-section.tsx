/**
 * A website's funnels on its settings page (`/websites/{id}`): the list, each with a link to
 * its statistics and a delete button, and a form to add one — a name and its steps, one a
 * line — through the same domain functions and messages as the API (src/flows/funnels.ts).
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { FunnelStep } from '../../counting/flow-queries.ts';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { createFunnel, deleteFunnel, type FunnelRecord, listFunnels } from '../../flows/funnels.ts';
import { formText } from '../../http/form.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { FieldError, SettingsSection } from './section.tsx';

/** The funnel form's fields as sent, to show them again with the messages. */
export type FunnelFormValues = Record<'name' | 'steps', string>;

const EMPTY: FunnelFormValues = { name: '', steps: '' };

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
  values?: FunnelFormValues;
  errors?: FieldErrors;
}> = ({ site, funnels, csrf, values = EMPTY, errors = {} }) => (
  <SettingsSection
    id="funnels"
    title="Funnels"
    hint="The steps a visitor takes, in order — 2 to 8 pages (a path, or a pattern with * within a segment and ** across), custom events or goals — and how many go on at each."
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
      button: 'Add a funnel',
      fields: (
        <>
          <label>
            Name <input name="name" value={values.name} required />
          </label>
          <FieldError errors={errors} field="name" />
          <label>
            Steps, one per line (/pricing, event:Signup, goal:Sign-ups){' '}
            <textarea name="steps" rows={4} required>
              {values.steps}
            </textarea>
          </label>
          {stepMessages(errors).map((m) => (
            <p class="error">{m}</p>
          ))}
        </>
      ),
    }}
  />
);

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
    const values: FunnelFormValues = { name: text('name'), steps: text('steps') };
    const steps = stepsOfLines(values.steps);
    try {
      await createFunnel(createDb(c.env.DB), site.id, { name: values.name, steps });
      return c.redirect(`/websites/${site.id}?funnel=added#funnels`, 303);
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
  pages.post('/:id/funnels/:funnel/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const id = parseId(c.req.param('funnel'));
    if (id === null || !(await deleteFunnel(createDb(c.env.DB), site.id, id)))
      throw new ApiError(404, 'There is no such funnel.');
    return c.redirect(`/websites/${site.id}?funnel=deleted#funnels`, 303);
  });
}

/** The funnels the settings page lists. */
export const funnelsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listFunnels(createDb(c.env.DB), site.id);
