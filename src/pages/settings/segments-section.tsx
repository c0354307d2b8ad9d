/**
 * A website's saved segments on its settings page (`/websites/{id}/segments`): those the
 * signed-in person sees (the website's site segments and their own personal ones, as the API
 * lists them), each with its filters in words and who sees it, and — for those they may
 * change: a site segment as the owner or an admin, a personal one their own — an inline form
 * to change its name, its filters and who sees it, and a delete that asks first. Through the
 * same domain functions and messages as the API (src/segments/segments.ts).
 *
 * The form opens in place (a disclosure, no script needed). Each filter is a row of a
 * dimension, an operator and a value, as the filter menu of the statistics page makes them,
 * with a box that removes it, and an empty row adds one; rows of one dimension and operator
 * (`is`, `is not`) take any of their values, as two values of one filter do on the page. A
 * filter the page does not write (made through the API: a tree, a pattern) is kept as it is,
 * said in words, and may be removed.
 *
 * @example
 * // A row as sent: filter_dim[]=country, filter_prop[]=, filter_op[]=is, filter_value[]=DE:Germany
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { MAX_PROP_NAME } from '../../counting/query-dimensions.ts';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { SegmentRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { MAX_FILTER_LENGTH } from '../../query/parse/v1.ts';
import {
  deleteSegment,
  listSegments,
  mayKeep,
  segmentInput,
  segmentOf,
  updateSegment,
} from '../../segments/segments.ts';
import { listSharedLinks } from '../../sharing/links.ts';
import { mayActAs, type Role, type WebsiteAccess, websiteFor } from '../../websites/queries.ts';
import {
  FILTER_CHOICES,
  type FilterRow,
  filtersOfRows,
  OPERATOR_LABELS,
  rowsOfSaved,
  savedFiltersWords,
} from '../statistics/filter-words.ts';
import { FieldError, SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** What the section shows: the segments the person sees, who they are there, the links. */
export type SegmentsData = {
  segments: SegmentRow[];
  personId: number;
  /** The website's owner or an admin, who keeps site segments. */
  admin: boolean;
  /** The names of the shared links limited to each segment (for those who keep site segments). */
  links: Map<number, string[]>;
};

/** The form's fields as sent (or as the segment holds them), to show them again. */
export type SegmentFormValues = {
  name: string;
  type: string;
  /** The filters no row can show, each as its JSON. */
  kept: string[];
  rows: FilterRow[];
};

const EMPTY_ROW: FilterRow = { dimension: 'page', property: '', operator: 'is', value: '' };

/** A segment's fields as its form shows them. */
const segmentFormValues = (s: SegmentRow): SegmentFormValues => ({
  name: s.name,
  type: s.type,
  ...rowsOfSaved(JSON.parse(s.filters) as unknown[]),
});

/** A segment's form sent back with its messages (a 422): which segment, what was sent. */
export type SegmentFormState = { id: number; values: SegmentFormValues; errors: FieldErrors };

/** Whether the person may change a segment: a site one as an admin, a personal one theirs. */
const mayChange = (data: SegmentsData, s: SegmentRow) =>
  s.type === 'site' ? data.admin : s.ownerId === data.personId;

/** Who sees a segment, in words (a personal one the person sees is theirs). */
const seenBy = (s: SegmentRow) =>
  s.type === 'site' ? 'Everyone with access to the site' : 'Only me';

export const SegmentsSection: FC<{
  site: WebsiteRow;
  data: SegmentsData;
  csrf: string;
  state?: SegmentFormState | undefined;
}> = ({ site, data, csrf, state }) => (
  <SettingsSection
    id="segments"
    title="Segments"
    hint={
      data.admin
        ? 'Filters saved under a name, applied on the statistics page as one filter. Save the filters you chose there as a segment, for yourself or for everyone with access to the site; change it here. A shared link may be limited to a segment for everyone.'
        : "Filters saved under a name, applied on the statistics page as one filter. Save the filters you chose there as a segment for yourself, and change it here; the website's owner and admins keep those for everyone."
    }
    csrf={csrf}
    table={{
      head: ['Segment', 'Filters', 'Who sees it'],
      rows: data.segments.map((s) => {
        const words = savedFiltersWords(JSON.parse(s.filters) as unknown[]);
        const changes = mayChange(data, s);
        const links = data.links.get(s.id) ?? [];
        return {
          cells: [s.name, words.join(' · '), seenBy(s)],
          ...(changes
            ? {
                remove: {
                  action: `/websites/${site.id}/segments/${s.id}/delete`,
                  what: s.name,
                  fields:
                    links.length > 0 ? (
                      <p class="hint">
                        The shared links limited to it go with it: {links.join(', ')}.
                      </p>
                    ) : undefined,
                },
              }
            : {}),
        };
      }),
    }}
    empty="No segments yet. Choose filters on the statistics page, then save them there as a segment."
  >
    {data.segments
      .filter((s) => mayChange(data, s))
      .map((s) => (
        <SegmentForm
          action={`/websites/${site.id}/segments/${s.id}`}
          csrf={csrf}
          name={s.name}
          admin={data.admin}
          mine={s.ownerId === data.personId}
          values={state?.id === s.id ? state.values : segmentFormValues(s)}
          errors={state?.id === s.id ? state.errors : {}}
          open={state?.id === s.id}
        />
      ))}
  </SettingsSection>
);

/** A segment's Edit disclosure under the table, and its form. */
const SegmentForm: FC<{
  action: string;
  csrf: string;
  name: string;
  admin: boolean;
  /** Whether the person is the one who made it (a personal segment is its maker's). */
  mine: boolean;
  values: SegmentFormValues;
  errors: FieldErrors;
  open: boolean;
}> = ({ action, csrf, name, admin, mine, values, errors, open }) => (
  <details class="segment-edit" open={open}>
    <summary>Edit {name}…</summary>
    <form method="post" action={action} class="stack">
      <input type="hidden" name="_csrf" value={csrf} />
      <label>
        Name <input name="name" value={values.name} required maxlength={255} />
      </label>
      <FieldError errors={errors} field="name" />
      <WhoSeesIt admin={admin} mine={mine} type={values.type} />
      <FieldError errors={errors} field="type" />
      <FilterRows values={values} errors={errors} />
      <FieldError errors={errors} field="filters" />
      <button type="submit">Save {name}</button>
    </form>
  </details>
);

/** Who sees the segment: a choice for the owner and admins, only its maker for a viewer. */
const WhoSeesIt: FC<{ admin: boolean; mine: boolean; type: string }> = ({ admin, mine, type }) =>
  admin ? (
    <fieldset>
      <legend>Who sees it</legend>
      <label class="check">
        <input type="radio" name="type" value="personal" checked={type === 'personal'} />{' '}
        {mine ? 'Only me' : 'Only the person who made it'}
      </label>
      <label class="check">
        <input type="radio" name="type" value="site" checked={type !== 'personal'} /> Everyone with
        access to the site
      </label>
    </fieldset>
  ) : (
    <p>
      Who sees it: only me <input type="hidden" name="type" value="personal" />
    </p>
  );

/** The filters: those kept as they are, a row for each of the others, an empty row to add one. */
const FilterRows: FC<{ values: SegmentFormValues; errors: FieldErrors }> = ({ values, errors }) => (
  <fieldset>
    <legend>Filters</legend>
    <p class="hint">
      Every filter applies. Rows of one dimension with “is” (or “is not”) take any of their values
      (none of them). A place is written with its code: DE:Germany.
    </p>
    {values.kept.map((json, i) => (
      <p class="actions">
        <input type="hidden" name="filter_kept[]" value={json} />
        <span>{savedFiltersWords([JSON.parse(json)])[0]}</span>
        <label class="check">
          <input type="checkbox" name="filter_kept_remove[]" value={String(i)} /> Remove this filter
        </label>
      </p>
    ))}
    {[...values.rows, EMPTY_ROW].map((row, i) => (
      <>
        {i === values.rows.length ? <p class="hint">Add a filter:</p> : null}
        <RowFields row={row} index={i} last={i === values.rows.length} />
        <FieldError errors={errors} field={`filter.${i}`} />
      </>
    ))}
  </fieldset>
);

/** One row's fields: a dimension (a custom property named beside), an operator, a value. */
const RowFields: FC<{ row: FilterRow; index: number; last: boolean }> = ({ row, index, last }) => (
  <div class="actions filter-row">
    <label>
      Dimension
      <select name="filter_dim[]">
        {FILTER_CHOICES.map(([value, label]) => (
          <option value={value} selected={row.dimension === value}>
            {label}
          </option>
        ))}
      </select>
    </label>
    <label>
      Property name <span class="hint">(for a custom property)</span>
      <input name="filter_prop[]" value={row.property} maxlength={MAX_PROP_NAME} />
    </label>
    <label>
      Operator
      <select name="filter_op[]">
        {Object.entries(OPERATOR_LABELS).map(([value, label]) => (
          <option value={value} selected={row.operator === value}>
            {label}
          </option>
        ))}
      </select>
    </label>
    <label>
      Value <input name="filter_value[]" value={row.value} maxlength={MAX_FILTER_LENGTH} />
    </label>
    {last ? null : (
      <label class="check">
        <input type="checkbox" name="filter_remove[]" value={String(index)} /> Remove this filter
      </label>
    )}
  </div>
);

/** A form field's values, whether sent once or more (`name[]`). */
function listOf(body: Record<string, unknown>, name: string): string[] {
  const value = body[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(formText);
}

/**
 * The form as sent: its values to show again, the filters they make (kept ones first, then
 * the rows', as the statistics page saves them: `v1FilterTree`), and the rows' messages
 * (`filter.<row>`; `filters` for the form's own). Removed and empty rows are left out.
 */
function filtersOfForm(body: Record<string, unknown>): {
  values: SegmentFormValues;
  filters: unknown[];
  errors: FieldErrors;
} {
  const errors: FieldErrors = {};
  const keptRemoved = new Set(listOf(body, 'filter_kept_remove[]'));
  const kept: string[] = [];
  const keptFilters: unknown[] = [];
  listOf(body, 'filter_kept[]').forEach((json, i) => {
    if (keptRemoved.has(String(i))) return;
    try {
      keptFilters.push(JSON.parse(json));
      kept.push(json);
    } catch {
      errors.filters = ['A filter of the form could not be read: open the form again.'];
    }
  });
  const [dims, props, ops, texts] = ['dim', 'prop', 'op', 'value'].map((n) =>
    listOf(body, `filter_${n}[]`),
  ) as [string[], string[], string[], string[]];
  const removed = new Set(listOf(body, 'filter_remove[]'));
  const rows = dims
    .map((dimension, i) => ({
      dimension,
      property: (props[i] ?? '').trim(),
      operator: ops[i] ?? 'is',
      value: (texts[i] ?? '').trim(),
      removed: removed.has(String(i)),
    }))
    .filter((r) => !r.removed && r.value !== '')
    .map(({ removed: _, ...row }) => row);
  const values: SegmentFormValues = {
    name: formText(body.name),
    type: formText(body.type),
    kept,
    rows,
  };
  return { values, filters: [...keptFilters, ...filtersOfRows(rows, errors)], errors };
}

/** The signed-in person's role on the website, with the website. */
type AccessOf = (c: Context<AppEnv>, need: Role) => Promise<WebsiteAccess>;

/** The settings page again, with a segment's form, what it sent and its messages (a 422). */
type Reshow = (state: SegmentFormState) => Promise<Response>;

/**
 * `POST /websites/:id/segments/:segment` (its name, filters and who sees it) and
 * `POST /websites/:id/segments/:segment/delete`, for any reader of the website who may
 * change the segment, as in the API (`accessOf`: their role there; a site segment is an
 * admin's, a personal one its maker's), each after the form's CSRF check (`formBody`).
 */
export function registerSegmentPages(
  pages: Hono<AppEnv>,
  accessOf: AccessOf,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  /** The website, the asker, and the segment of the path they see (else a 404). */
  const target = async (c: Context<AppEnv>) => {
    const { website: site, role } = await accessOf(c, 'viewer');
    const asker = { personId: signedInOwner(c).id, admin: mayActAs(role, 'admin') };
    const id = parseId(c.req.param('segment'));
    const db = createDb(c.env.DB);
    const row = id === null ? undefined : await segmentOf(db, site.id, asker.personId, id);
    if (!row) throw new ApiError(404, 'There is no such segment.');
    mayKeep(asker, row.type);
    return { site, asker, db, row };
  };
  pages.post('/:id/segments/:segment', async (c) => {
    const { site, asker, db, row } = await target(c);
    const body = await formBody(c);
    const { values, filters, errors } = filtersOfForm(body);
    const rowsWrong = Object.keys(errors).length > 0;
    const show = (more: FieldErrors) =>
      reshow(c, site)({ id: row.id, values, errors: { ...more, ...errors } });
    try {
      const input = segmentInput({ name: values.name, type: values.type, filters });
      if (rowsWrong) return show({});
      await updateSegment(db, site.id, asker, row.id, input);
      return c.redirect(settingsPath(site.id, 'segments', 'segment=saved'), 303);
    } catch (err) {
      if (!(err instanceof ApiError && err.errors)) throw err;
      // Rows said wrong are left out of the filters: what is said of those is theirs.
      const { filters: _, ...others } = err.errors;
      return show(rowsWrong ? others : err.errors);
    }
  });
  pages.post('/:id/segments/:segment/delete', async (c) => {
    const { site, asker, db, row } = await target(c);
    await formBody(c);
    await deleteSegment(db, site.id, asker, row.id);
    return c.redirect(settingsPath(site.id, 'segments', 'segment=deleted'), 303);
  });
}

/** The segments the settings page lists for the signed-in person, and what they may do. */
export async function segmentsOf(c: Context<AppEnv>, site: WebsiteRow): Promise<SegmentsData> {
  const db = createDb(c.env.DB);
  const personId = signedInOwner(c).id;
  const { role } = await websiteFor(db, personId, site.id, 'viewer');
  const admin = mayActAs(role, 'admin');
  const segments = await listSegments(db, site.id, personId);
  const links = new Map<number, string[]>();
  if (admin)
    for (const link of await listSharedLinks(db, site.id))
      if (link.segment_id !== null)
        links.set(link.segment_id, [...(links.get(link.segment_id) ?? []), link.name]);
  return { segments, personId, admin, links };
}
