/**
 * A website's goals on its settings page (`/websites/{id}`): the list with a delete button
 * each, and a form to add an event goal or a page goal — through the same domain functions
 * and messages as the API (src/goals/goals.ts).
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import type { GoalRow, WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { createGoal, deleteGoal, goalInput, listGoals } from '../../goals/goals.ts';
import { formText } from '../../http/form.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { FieldError, SettingsSection } from './section.tsx';

/** The goal form's fields as sent, to show them again with the messages. */
export type GoalFormValues = Record<
  'kind' | 'target' | 'display_name' | 'currency' | 'scroll_threshold',
  string
>;

const EMPTY: GoalFormValues = {
  kind: 'event',
  target: '',
  display_name: '',
  currency: '',
  scroll_threshold: '',
};

export const GoalsSection: FC<{
  site: WebsiteRow;
  goals: GoalRow[];
  csrf: string;
  values?: GoalFormValues;
  errors?: FieldErrors;
}> = ({ site, goals, csrf, values = EMPTY, errors = {} }) => (
  <SettingsSection
    id="goals"
    title="Goals"
    hint="A custom event's name (Signup), or a page — a path, or a pattern with * within a segment and ** across (/blog/**), viewed or, with a scroll depth, read that far down. Its conversions show on the statistics page."
    csrf={csrf}
    table={{
      head: ['Goal', 'Counts', 'Currency'],
      rows: goals.map((g) => ({
        cells: [g.displayName, goalCounts(g), g.currency ?? ''],
        remove: { action: `/websites/${site.id}/goals/${g.id}/delete`, what: g.displayName },
      })),
    }}
    empty="No goals yet."
    add={{
      action: `/websites/${site.id}/goals`,
      button: 'Add the goal',
      fields: <GoalFields values={values} errors={errors} />,
    }}
  />
);

/** What a goal counts, in words. */
const goalCounts = (g: GoalRow) =>
  g.eventName !== null
    ? `Event ${g.eventName}`
    : g.scrollThreshold >= 0
      ? `Page ${g.pagePath}, scrolled ${g.scrollThreshold}%`
      : `Page ${g.pagePath}`;

const GoalFields: FC<{ values: GoalFormValues; errors: FieldErrors }> = ({ values, errors }) => (
  <>
    <label>
      Kind{' '}
      <select name="kind">
        <option value="event" selected={values.kind === 'event'}>
          Custom event
        </option>
        <option value="page" selected={values.kind === 'page'}>
          Page
        </option>
      </select>
    </label>
    <label>
      Event name or page <input name="target" value={values.target} required />
    </label>
    <FieldError errors={errors} field="event" />
    <FieldError errors={errors} field="page" />
    <label>
      Name shown (optional) <input name="display_name" value={values.display_name} />
    </label>
    <FieldError errors={errors} field="display_name" />
    <label>
      Revenue currency (optional, event goals: EUR){' '}
      <input name="currency" value={values.currency} />
    </label>
    <FieldError errors={errors} field="currency" />
    <label>
      Scrolled at least, in % (optional, page goals: 75){' '}
      <input
        name="scroll_threshold"
        type="number"
        min="0"
        max="100"
        inputmode="numeric"
        value={values.scroll_threshold}
      />
    </label>
    <FieldError errors={errors} field="scroll_threshold" />
  </>
);

/** The settings page again, with the goal form's values and messages (a 422). */
type Reshow = (values: GoalFormValues, errors: FieldErrors) => Promise<Response>;

/**
 * `POST /websites/:id/goals` (add) and `POST /websites/:id/goals/:goal/delete`, for the
 * website of the path, its owner's and admins' (`siteOf`), each after the form's CSRF check (`formBody`).
 */
export function registerGoalPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  pages.post('/:id/goals', async (c) => {
    const site = await siteOf(c);
    const body = await formBody(c);
    const text = (name: string) => formText(body[name]);
    const values: GoalFormValues = {
      kind: text('kind') === 'page' ? 'page' : 'event',
      target: text('target'),
      display_name: text('display_name'),
      currency: text('currency'),
      scroll_threshold: text('scroll_threshold'),
    };
    try {
      const input = goalInput({
        [values.kind]: values.target,
        display_name: values.display_name,
        currency: values.currency,
        scroll_threshold: values.scroll_threshold,
      });
      await createGoal(createDb(c.env.DB), site.id, input);
      return c.redirect(`/websites/${site.id}?goal=added#goals`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.errors) return reshow(c, site)(values, err.errors);
      throw err;
    }
  });
  pages.post('/:id/goals/:goal/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const id = /^[1-9]\d{0,15}$/.test(c.req.param('goal')) ? Number(c.req.param('goal')) : 0;
    if (!(await deleteGoal(createDb(c.env.DB), site.id, id)))
      throw new ApiError(404, 'There is no such goal.');
    return c.redirect(`/websites/${site.id}?goal=deleted#goals`, 303);
  });
}

/** The goals the settings page lists. */
export const goalsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listGoals(createDb(c.env.DB), site.id);
