/**
 * One section of a website's settings (`/websites/{id}`): a heading, a word of what it is, the
 * things it holds in a table — each with its delete (or revoke) button, a POST after the
 * form's CSRF check — or a line saying there are none, and the form that adds one. Goals,
 * funnels, imports, members, shared links, traffic alerts and storage are each one.
 *
 * @example
 * <SettingsSection id="goals" title="Goals" hint="…" csrf={csrf}
 *   table={{ head: ['Goal', 'Counts'], rows: goals.map((g) => ({ cells: [g.displayName, …],
 *     remove: { action: `/websites/1/goals/${g.id}/delete`, what: g.displayName } })) }}
 *   empty="No goals yet." add={{ action: '/websites/1/goals', button: 'Add the goal', fields: … }} />
 */
import type { Child, FC } from 'hono/jsx';
import type { FieldErrors } from '../../lib/errors.ts';
import { DeleteButton } from '../layout/layout.tsx';

/** A row of the section's table: its cells, and the POST that deletes what it shows. */
export type SectionRow = {
  cells: Child[];
  /** What else can be done with it, before its delete button (a link to view it). */
  actions?: Child;
  remove?: { action: string; what: string; label?: string; fields?: Child };
};

/** The form that adds one: where it posts, its fields, its button. */
type AddForm = {
  action: string;
  button: string;
  fields: Child;
  /** `stack`: fields one under another. */
  class?: string;
  /** A file's upload: sent as `multipart/form-data`, its progress shown by the page script. */
  upload?: boolean;
};

/** A column of the section's table: its heading, numbers aligned as numbers (`num`). */
type Column = string | { label: string; num: true };

export const SettingsSection: FC<{
  id: string;
  title: string;
  hint?: Child;
  /** The session's form token (a section that deletes or adds nothing needs none). */
  csrf?: string;
  /** The things it holds (none: no table, `empty` instead). */
  table?: { head: Column[]; rows: SectionRow[] };
  empty?: string;
  add?: AddForm;
  /** Whatever it shows besides its table and form, after them. */
  children?: Child;
}> = ({ id, title, hint, csrf = '', table, empty, add, children }) => (
  <section aria-labelledby={id}>
    <h2 id={id}>{title}</h2>
    {hint ? <p class="hint">{hint}</p> : null}
    {table && table.rows.length > 0 ? (
      <SectionTable head={table.head} rows={table.rows} csrf={csrf} />
    ) : empty ? (
      <p class="hint">{empty}</p>
    ) : null}
    {add ? (
      <form
        method="post"
        action={add.action}
        {...(add.upload ? { enctype: 'multipart/form-data' as const, 'data-upload': true } : {})}
        {...(add.class ? { class: add.class } : {})}
      >
        <input type="hidden" name="_csrf" value={csrf} />
        {add.fields}
        <button type="submit">{add.button}</button>
      </form>
    ) : null}
    {children}
  </section>
);

const SectionTable: FC<{ head: Column[]; rows: SectionRow[]; csrf: string }> = ({
  head,
  rows,
  csrf,
}) => {
  const removable = rows.some((r) => r.remove || r.actions);
  const num = head.map((h) => typeof h !== 'string');
  // Each cell but the first (the card's title) names its column, which a phone shows before
  // it (the table as cards).
  const labels = head.map((h, i) => (i === 0 ? undefined : typeof h === 'string' ? h : h.label));
  return (
    <table>
      <thead>
        <tr>
          {head.map((h) =>
            typeof h === 'string' ? (
              <th scope="col">{h}</th>
            ) : (
              <th scope="col" class="num">
                {h.label}
              </th>
            ),
          )}
          {removable ? (
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            {row.cells.map((cell, i) =>
              num[i] ? (
                <td class="num" data-label={labels[i]}>
                  {cell}
                </td>
              ) : (
                <td data-label={labels[i]}>{cell}</td>
              ),
            )}
            {removable ? (
              <td class="actions">
                {row.actions}
                {row.remove ? (
                  <DeleteButton
                    action={row.remove.action}
                    csrf={csrf}
                    what={row.remove.what}
                    {...(row.remove.label ? { label: row.remove.label } : {})}
                  >
                    {row.remove.fields}
                  </DeleteButton>
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
};

/** A field's first message, as the section's form shows it under the field. */
export const FieldError: FC<{ errors: FieldErrors | undefined; field: string }> = ({
  errors,
  field,
}) => (errors?.[field]?.[0] ? <p class="error">{errors[field]?.[0]}</p> : null);
