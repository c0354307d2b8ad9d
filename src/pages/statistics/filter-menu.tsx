/**
 * The statistics page's filter menu, beside the click-to-filter rows: a dimension, an operator
 * and a value, the value suggested from the range's data as one types (the page's script asks
 * `{base}/{dimension}.json`, ./full-view.tsx, and fills the field's list). A GET form that
 * works without JavaScript: its address names the filter to add (`add_filter`, `add_operator`,
 * `add_value`), which the page turns into the filter's own parameter and redirects to
 * (`addedFilterHref`), so every address of the page still states its filters one way.
 */
import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import { MAX_PROP_NAME } from '../../counting/query-dimensions.ts';
import type { AppEnv } from '../../env.ts';
import type { FilterDimension, V1FilterOperator } from '../../query/parse/v1.ts';
import { filterParam } from '../../query/parse/v1-filters.ts';
import { chosenDimension, FILTER_CHOICES, OPERATOR_LABELS } from './filter-words.ts';
import { type Extra, HiddenFields, type View, viewParams } from './view.tsx';

/** The menu's parameters: what an address that adds a filter holds besides the view. */
const MENU_PARAMS = ['add_filter', 'add_property', 'add_operator', 'add_value'] as const;

/**
 * The address a filter menu's answer redirects to: the page's address with the filter it
 * names written as its own parameter (`filter[utm_source]=newsletter`); null when the address
 * is no menu's answer. A bad dimension, operator or value is the page's to say, as for any
 * filter of an address.
 */
export function addedFilterHref(c: Context<AppEnv>): string | null {
  const url = new URL(c.req.url);
  const chosen = url.searchParams.get('add_filter');
  if (chosen === null) return null;
  // A custom property's filter is `filter[props:<name>]`.
  const dimension = chosenDimension(chosen, url.searchParams.get('add_property') ?? '');
  const operator = url.searchParams.get('add_operator') ?? 'is';
  const value = url.searchParams.get('add_value') ?? '';
  for (const name of MENU_PARAMS) url.searchParams.delete(name);
  const key = filterParam({
    dimension: dimension as FilterDimension,
    operator: operator as V1FilterOperator,
  });
  const added = value.trim();
  // Another value of a filter the view has: "is any of" (a text to contain replaces the other).
  if (added !== '' && operator !== 'contains' && !url.searchParams.getAll(key).includes(added))
    url.searchParams.append(key, added);
  else if (added !== '') url.searchParams.set(key, added);
  return `${url.pathname}?${url.searchParams.toString()}`;
}

/**
 * The menu: closed until opened (a disclosure), then a dimension, an operator and a value with
 * the range's values suggested (`data-suggest`: the address its suggestions start at). It asks
 * the overview, or `action` (a funnel's page), which redirects to the address naming the filter.
 */
export const FilterMenu: FC<{ view: View; keep: Extra; action?: string }> = ({
  view,
  keep,
  action = view.base,
}) => (
  <details class="filter-menu">
    <summary>Add a filter</summary>
    <form method="get" action={action} class="actions" data-suggest={view.base}>
      <HiddenFields params={viewParams(view, keep)} />
      <label for="add-filter">Dimension</label>
      <select id="add-filter" name="add_filter">
        {FILTER_CHOICES.map(([name, label]) => (
          <option value={name}>{label}</option>
        ))}
      </select>
      <label for="add-property" class="property-name">
        Property name <span class="hint">(for a custom property)</span>
      </label>
      <input
        id="add-property"
        name="add_property"
        class="property-name"
        maxlength={MAX_PROP_NAME}
        autocomplete="off"
        placeholder="plan, author, …"
      />
      <label for="add-operator">Operator</label>
      <select id="add-operator" name="add_operator">
        {Object.entries(OPERATOR_LABELS).map(([name, label]) => (
          <option value={name}>{label}</option>
        ))}
      </select>
      <label for="add-value">Value</label>
      <input
        id="add-value"
        name="add_value"
        required
        maxlength={255}
        autocomplete="off"
        list="add-value-list"
        placeholder="Type to see this range's values"
      />
      <datalist id="add-value-list" />
      <button type="submit">Add filter</button>
    </form>
  </details>
);
