/**
 * Saved segments on the statistics page (src/segments/): for the website's owner and members,
 * a menu of the segments they see — each applies as one chip (`filter[segment]=<id>`) that
 * combines with further filters — and a form that saves the filters chosen as a segment
 * (theirs alone, or, for an owner or admin, everyone's). A shared link limited to a segment
 * shows its chip without a way to remove it (./gate.tsx `viewOf`).
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Database } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { SegmentRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formParams, formText } from '../../http/form.ts';
import { csrfToken, formBody } from '../../http/session.ts';
import { ApiError } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { SEGMENT_FILTER, v1FilterTree } from '../../query/parse/v1.ts';
import { parseV1Filters } from '../../query/parse/v1-filters.ts';
import { withSavedSegments } from '../../query/parse/v2/saved-segments.ts';
import {
  createSegment,
  deleteSegment,
  listSegments,
  segmentInput,
} from '../../segments/segments.ts';
import { DeleteButton } from '../layout/layout.tsx';
import { notFound } from '../sharing/link-access.tsx';
import { readableSite } from './gate.tsx';
import { type Extra, type View, viewHref, viewParams, withFilter } from './view.tsx';

/** What the menu shows a reader: the segments they see, and whether they keep everyone's. */
export type SegmentMenuData = {
  segments: SegmentRow[];
  admin: boolean;
  csrf: string;
  /** The reader, who may delete their own personal segments (and, as an admin, site ones). */
  personId: number;
};

/** The segment menu of the page's reader, when they are the website's owner or a member. */
export async function segmentMenuOf(
  c: Context<AppEnv>,
  db: Database,
  site: WebsiteRow,
): Promise<SegmentMenuData | null> {
  const reader = c.get('teamReader');
  if (!reader || c.get('statsBase')) return null;
  const segments = await listSegments(db, site.id, reader.id);
  return { segments, admin: reader.admin, csrf: await csrfToken(c), personId: reader.id };
}

/**
 * The menu: each segment a link that applies it to the page at `path` (the overview, a
 * funnel's page); saving and deleting are the overview's (`{base}/segments`).
 */
export const SegmentMenu: FC<{
  path: string;
  view: View;
  keep: Extra;
  menu: SegmentMenuData;
}> = ({ path, view, keep, menu }) => (
  <details class="segments">
    <summary>Segments</summary>
    {menu.segments.length > 0 ? (
      <ul>
        {menu.segments.map((s) => (
          <li>
            <a
              href={viewHref(
                path,
                withFilter(view, {
                  dimension: SEGMENT_FILTER,
                  operator: 'is',
                  value: String(s.id),
                }),
                keep,
              )}
            >
              {s.name}
            </a>{' '}
            <span class="hint">{s.type === 'site' ? 'everyone' : 'only you'}</span>
            {(s.type === 'site' ? menu.admin : s.ownerId === menu.personId) ? (
              <DeleteButton
                action={`${view.base}/segments/${s.id}/delete?${new URLSearchParams(viewParams(view))}`}
                csrf={menu.csrf}
                what={`the segment ${s.name}`}
              />
            ) : null}
          </li>
        ))}
      </ul>
    ) : (
      <p class="hint">No saved segments yet.</p>
    )}
    {view.filters.length > 0 ? (
      <form method="post" action={`${view.base}/segments`}>
        <input type="hidden" name="_csrf" value={menu.csrf} />
        {viewParams(view).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <label>
          Name <input name="name" required maxlength={255} />
        </label>
        {menu.admin ? (
          <label>
            <input type="checkbox" name="type" value="site" /> For everyone who reads this website
          </label>
        ) : null}
        <button type="submit">Save these filters as a segment</button>
      </form>
    ) : (
      <p class="hint">Choose filters, then save them here as a segment.</p>
    )}
  </details>
);

/**
 * `POST /stats/{domain}/segments`: saves the filters the form carries (those of the view it
 * was on, a segment among them as its own filters) and shows the view with the new segment
 * in their place. The owner's and members', after the form's CSRF check.
 */
async function saveSegment(c: Context<AppEnv>) {
  // Only the website's owner and members save segments: anyone else, the 404 of no website.
  const found = await readableSite(c);
  const reader = c.get('teamReader');
  if (found instanceof Response || !reader || c.get('statsBase')) throw notFound();
  const { site, db } = found;
  const body = await formBody(c);
  const params = formParams(body);
  const { filters } = await withSavedSegments(
    db,
    site.id,
    reader.id,
    parseV1Filters(params).filters,
  );
  const input = segmentInput({
    name: formText(body.name),
    type: body.type === 'site' ? 'site' : 'personal',
    filters: v1FilterTree(filters),
  });
  const asker = { personId: reader.id, admin: reader.admin };
  const segment = await createSegment(db, site.id, asker, input);
  const shown = new URLSearchParams();
  for (const name of ['range', 'from', 'to']) {
    const value = params.get(name);
    if (value) shown.set(name, value);
  }
  shown.set(`filter[${SEGMENT_FILTER}]`, String(segment.id));
  return c.redirect(`/stats/${site.domain}?${shown.toString()}`, 303);
}

/**
 * `POST /stats/{domain}/segments/{segment}/delete`: deletes a segment the reader may change
 * (src/segments/segments.ts `deleteSegment`: their own, or a site segment as an admin), and shows the
 * view it was on without it.
 */
async function removeSegment(c: Context<AppEnv>) {
  const found = await readableSite(c);
  const reader = c.get('teamReader');
  if (found instanceof Response || !reader || c.get('statsBase')) throw notFound();
  await formBody(c);
  const id = parseId(c.req.param('segment'));
  if (id === null) throw new ApiError(404, 'There is no such segment.');
  await deleteSegment(found.db, found.site.id, { personId: reader.id, admin: reader.admin }, id);
  const params = new URL(c.req.url).searchParams;
  const kept = new URLSearchParams(
    [...params].filter(([name, value]) => !(name === 'filter[segment]' && value === String(id))),
  );
  return c.redirect(`/stats/${found.site.domain}?${kept.toString()}`, 303);
}

export function registerSegmentPages(pages: Hono<AppEnv>) {
  pages.post('/:domain/segments', saveSegment);
  pages.post('/:domain/segments/:segment/delete', removeSegment);
}
