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
import { DeleteButton } from '../layout/layout.tsx';

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
}> = ({ site, goals, csrf, values = EMPTY, errors = {} }) => {
  const message = (field: string) =>
    errors[field]?.[0] ? <p class="error">{errors[field]?.[0]}</p> : null;
  return (
    <section aria-labelledby="goals">
      <h2 id="goals">Goals</h2>
      <p class="hint">
        A custom event's name (Signup), or a page — a path, or a pattern with * within a segment and
        ** across (/blog/**), viewed or, with a scroll depth, read that far down. Its conversions
        show on the statistics page.
      </p>
      {goals.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col">Counts</th>
              <th scope="col">Currency</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {goals.map((g) => (
              <tr>
                <td>{g.displayName}</td>
                <td>
                  {g.eventName !== null
                    ? `Event ${g.eventName}`
                    : g.scrollThreshold >= 0
                      ? `Page ${g.pagePath}, scrolled ${g.scrollThreshold}%`
                      : `Page ${g.pagePath}`}
                </td>
                <td>{g.currency ?? ''}</td>
                <td class="actions">
                  <DeleteButton
                    action={`/websites/${site.id}/goals/${g.id}/delete`}
                    csrf={csrf}
                    what={g.displayName}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="hint">No goals yet.</p>
      )}
      <form method="post" action={`/websites/${site.id}/goals`}>
        <input type="hidden" name="_csrf" value={csrf} />
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
        {message('event')}
        {message('page')}
        <label>
          Name shown (optional) <input name="display_name" value={values.display_name} />
        </label>
        {message('display_name')}
        <label>
          Revenue currency (optional, event goals: EUR){' '}
          <input name="currency" value={values.currency} />
        </label>
        {message('currency')}
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
        {message('scroll_threshold')}
        <button type="submit">Add the goal</button>
      </form>
    </section>
  );
};

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
