/**
 * A website's goals on their settings page (`/websites/{id}/goals`): the list with a delete
 * button each, and a form to add an event goal or a page goal — through the same domain functions
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
import { Field } from '../layout/layout.tsx';
import { SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';
import { SuggestionLists, type Suggestions } from './suggestions.tsx';

/** The goal form's fields as sent, to show them again with the messages. */
export type GoalFormValues = Record<
  'kind' | 'event' | 'page' | 'display_name' | 'currency' | 'scroll_threshold',
  string
>;

const EMPTY: GoalFormValues = {
  kind: 'event',
  event: '',
  page: '',
  display_name: '',
  currency: '',
  scroll_threshold: '',
};

export const GoalsSection: FC<{
  site: WebsiteRow;
  goals: GoalRow[];
  csrf: string;
  suggestions: Suggestions;
  values?: GoalFormValues;
  errors?: FieldErrors;
}> = ({ site, goals, csrf, suggestions, values = EMPTY, errors = {} }) => (
  <SettingsSection
    id="goals"
    title="Goals"
    hint="A goal counts the visitors who did something that matters to you: sent a custom event (a sign-up) or visited a page (a thank-you page). The statistics page shows how many converted."
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
      class: 'stack',
      fields: <GoalFields values={values} errors={errors} suggestions={suggestions} />,
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

/**
 * The goal form: its kind first, then only the fields of that kind (the settings' script hides
 * the others; without it they all show, and the kind chooses which are read), the website's
 * real event names and pages offered as one types.
 */
const GoalFields: FC<{ values: GoalFormValues; errors: FieldErrors; suggestions: Suggestions }> = ({
  values,
  errors,
  suggestions,
}) => (
  <>
    <label>
      Counts{' '}
      <select name="kind">
        <option value="event" selected={values.kind === 'event'}>
          A custom event
        </option>
        <option value="page" selected={values.kind === 'page'}>
          A page visit
        </option>
      </select>
    </label>
    <Field label="Event name" name="event" error={errors.event} shownIf="kind=event">
      <input id="event" name="event" value={values.event} list="suggested-events" />
    </Field>
    <Field
      label="Page"
      name="page"
      error={errors.page}
      hint="A path (/pricing), or a pattern: * within a part, ** across parts (/blog/**)."
      shownIf="kind=page"
    >
      <input id="page" name="page" value={values.page} list="suggested-pages" />
    </Field>
    <Field
      label="Name shown (optional)"
      name="display_name"
      error={errors.display_name}
      hint="How the goal is listed: the event name or page if left empty."
    >
      <input id="display_name" name="display_name" value={values.display_name} />
    </Field>
    <Field
      label="Revenue currency (optional)"
      name="currency"
      error={errors.currency}
      hint="For a purchase event that sends its amount: EUR, USD, …"
      shownIf="kind=event"
    >
      <input id="currency" name="currency" value={values.currency} maxlength={3} />
    </Field>
    <Field
      label="Scrolled at least, in % (optional)"
      name="scroll_threshold"
      error={errors.scroll_threshold}
      hint="Counts a visit only once it has scrolled that far down the page."
      shownIf="kind=page"
    >
      <input
        id="scroll_threshold"
        name="scroll_threshold"
        type="number"
        min="0"
        max="100"
        inputmode="numeric"
        value={values.scroll_threshold}
      />
    </Field>
    <SuggestionLists suggestions={suggestions} />
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
    const kind = text('kind') === 'page' ? 'page' : 'event';
    const values: GoalFormValues = {
      kind,
      event: text('event'),
      page: text('page'),
      display_name: text('display_name'),
      currency: text('currency'),
      scroll_threshold: text('scroll_threshold'),
    };
    try {
      const input = goalInput({
        [kind]: values[kind],
        display_name: values.display_name,
        ...(kind === 'event'
          ? { currency: values.currency }
          : { scroll_threshold: values.scroll_threshold }),
      });
      await createGoal(createDb(c.env.DB), site.id, input);
      return c.redirect(settingsPath(site.id, 'goals', 'goal=added'), 303);
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
    return c.redirect(settingsPath(site.id, 'goals', 'goal=deleted'), 303);
  });
}

/** The goals the settings page lists. */
export const goalsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listGoals(createDb(c.env.DB), site.id);
