/**
 * What the goal and funnel builders suggest: the website's real pages and custom events of
 * the last 30 days, most visited first, and its goals, as lists the browser offers while one types
 * (`<datalist>`, no script needed). A website whose log does not answer suggests nothing:
 * the fields still take what is typed.
 */
import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import { resolveRange } from '../../lib/time/dates.ts';
import { isUnavailable, sourceOf } from '../../query/present/numbers.ts';
import { eventParts } from '../../query/present/readable.ts';

/** How many of each the lists offer. */
const SUGGESTED = 50;

export type Suggestions = { pages: string[]; events: string[]; goals: string[] };

/** The website's most visited pages and most sent custom events of the last 30 days, its goals. */
export async function suggestionsOf(c: Context<AppEnv>, site: WebsiteRow): Promise<Suggestions> {
  const range = resolveRange({ range: '30d' }, site.timezone);
  const source = await sourceOf(c.env, createDb(c.env.DB), site.id, []);
  const valuesOf = async (name: 'page' | 'event') => {
    const listed = await source.page({
      name,
      from: range.from,
      to: range.to,
      sortBy: 'count',
      sort: 'desc',
      limit: SUGGESTED,
      offset: 0,
    });
    return isUnavailable(listed) ? [] : listed.rows.map((r) => r.value);
  };
  const [pages, events, goals] = await Promise.all([
    valuesOf('page'),
    valuesOf('event'),
    listGoals(createDb(c.env.DB), site.id),
  ]);
  // An event's stored value carries its value and unit (`purchase:99:USD`): offer its name.
  const names = [...new Set(events.map((stored) => eventParts(stored).name))];
  return { pages, events: names, goals: goals.map((g) => g.displayName) };
}

/** The lists, for the fields that name them (`list="suggested-pages"`, `…-events`, `…-goals`). */
export const SuggestionLists: FC<{ suggestions: Suggestions }> = ({ suggestions }) => (
  <>
    <datalist id="suggested-pages">
      {suggestions.pages.map((page) => (
        <option value={page} />
      ))}
    </datalist>
    <datalist id="suggested-events">
      {suggestions.events.map((event) => (
        <option value={event} />
      ))}
    </datalist>
    <datalist id="suggested-goals">
      {suggestions.goals.map((goal) => (
        <option value={goal} />
      ))}
    </datalist>
  </>
);
