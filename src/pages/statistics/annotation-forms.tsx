/**
 * Annotations on the statistics page (src/annotations/): those of the range listed under the
 * chart for every reader (shared links included), marked on the chart (`NoteMarks`, drawn by
 * ./chart/chart.tsx);
 * for the website's owner and admins, a form that annotates a date — a click on a point of the
 * chart fills it in (../assets/page-script.ts) — and a delete button each.
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import {
  annotationInput,
  createAnnotation,
  deleteAnnotation,
} from '../../annotations/annotations.ts';
import type { AnnotationRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formParams, formText } from '../../http/form.ts';
import { csrfToken, formBody } from '../../http/session.ts';
import { ApiError } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { type SeriesUnit, seriesLabel } from '../../lib/time/dates.ts';
import type { SeriesPoint } from '../../query/present/figures.ts';
import { DeleteButton } from '../layout/layout.tsx';
import { notFound } from '../sharing/link-access.tsx';
import { readableSite } from './gate.tsx';
import { type View, viewParams } from './view.tsx';

/** The writing part of the section: for the owner and admins on the website's own pages. */
export async function annotatorOf(c: Context<AppEnv>): Promise<{ csrf: string } | null> {
  const reader = c.get('teamReader');
  if (!reader?.admin || c.get('statsBase')) return null;
  return { csrf: await csrfToken(c) };
}

/** The view's own parameters, for a form to come back to it. */
const ViewFields: FC<{ view: View }> = ({ view }) => (
  <>
    {viewParams(view).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
  </>
);

export const AnnotationsSection: FC<{
  path: string;
  view: View;
  notes: AnnotationRow[];
  annotator: { csrf: string } | null;
}> = ({ path, view, notes, annotator }) =>
  notes.length === 0 && !annotator ? null : (
    <section class="annotations" aria-labelledby="annotations-title">
      <h2 id="annotations-title">Annotations</h2>
      {notes.length > 0 ? (
        <ul>
          {notes.map((n) => (
            <li>
              <time datetime={n.date}>{n.date}</time>
              {n.endDate ? (
                <>
                  {' – '}
                  <time datetime={n.endDate}>{n.endDate}</time>
                </>
              ) : null}
              : {n.text}
              {annotator ? (
                <DeleteButton
                  action={`${path}/annotations/${n.id}/delete?${new URLSearchParams(viewParams(view))}`}
                  csrf={annotator.csrf}
                  what={`the annotation of ${n.date}`}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No annotations in this range.</p>
      )}
      {annotator ? (
        // A small dialog under the chart; a point of the chart opens it on its date.
        <details class="annotate-dialog" id="annotate">
          <summary>Annotate a date</summary>
          <form method="post" action={`${path}/annotations`} class="annotate">
            <input type="hidden" name="_csrf" value={annotator.csrf} />
            <ViewFields view={view} />
            <label>
              Date <input type="date" name="date" value={view.range.to} required />
            </label>
            <label>
              Until (optional) <input type="date" name="end_date" />
            </label>
            <label>
              Note <input name="text" required maxlength={500} />
            </label>
            <button type="submit">Annotate</button>
          </form>
        </details>
      ) : null}
    </section>
  );

/** Back to the view a form came from (its parameters in the form, or the query). */
function backTo(domain: string, params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [name, value] of params)
    if (name === 'range' || name === 'from' || name === 'to' || name.startsWith('filter['))
      kept.append(name, value);
  return `/stats/${domain}?${kept.toString()}#annotations-title`;
}

/** The website of the path, for its owner or an admin (a 404 for anyone else). */
async function annotatedSite(c: Context<AppEnv>) {
  const found = await readableSite(c);
  if (found instanceof Response || !c.get('teamReader')?.admin || c.get('statsBase'))
    throw notFound();
  return found;
}

/**
 * `POST /stats/{domain}/annotations` (annotate) and `…/annotations/{id}/delete`, the owner's
 * and admins', after the form's CSRF check; both go back to the view they were sent from.
 */
export function registerAnnotationPages(pages: Hono<AppEnv>) {
  pages.post('/:domain/annotations', async (c) => {
    const found = await annotatedSite(c);
    const body = await formBody(c);
    const input = annotationInput({
      date: formText(body.date),
      end_date: formText(body.end_date),
      text: formText(body.text),
    });
    const reader = c.get('teamReader') as { id: number };
    await createAnnotation(found.db, found.site.id, reader.id, input);
    return c.redirect(backTo(found.site.domain, formParams(body)), 303);
  });
  pages.post('/:domain/annotations/:annotation/delete', async (c) => {
    const found = await annotatedSite(c);
    await formBody(c);
    const id = parseId(c.req.param('annotation'));
    if (id === null || !(await deleteAnnotation(found.db, found.site.id, id)))
      throw new ApiError(404, 'There is no such annotation.');
    return c.redirect(backTo(found.site.domain, new URL(c.req.url).searchParams), 303);
  });
}

/** An annotation on the chart: the point it marks, and what it says. */
export type ChartNote = { index: number; text: string };

/**
 * Where annotations go on the chart of `from`–`to`: each at the point that holds its first
 * date within the range (a period begun before it, at the first point).
 */
export function chartNotes(
  notes: { date: string; endDate: string | null; text: string }[],
  points: SeriesPoint[],
  unit: SeriesUnit,
  range: { from: string; to: string },
): ChartNote[] {
  const labels = points.map((p) => p.label);
  return notes.flatMap((n) => {
    const [, first = n.date] = [n.date, range.from].sort();
    const index = unit === 'hour' ? 0 : labels.indexOf(seriesLabel(first, unit, range.from));
    const when = n.endDate ? `${n.date} – ${n.endDate}` : n.date;
    return index < 0 ? [] : [{ index, text: `${when}: ${n.text}` }];
  });
}

/** Annotations on the chart: a mark each, its text on hover and on keyboard focus. */
export const NoteMarks: FC<{
  notes: ChartNote[];
  x: (i: number) => number;
  top: number;
  bottom: number;
  width: number;
  /** What its ids begin with (the chart is drawn twice: ./chart/chart.tsx). */
  idPrefix?: string;
}> = ({ notes, x, top, bottom, width, idPrefix = '' }) => (
  <>
    {notes.map((n, k) => (
      // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: an annotation's mark is an image of its text that keyboard users reach by focus; it does nothing when activated
      <g class="note" tabindex={0} role="img" aria-labelledby={`${idPrefix}note${k}`}>
        <line x1={x(n.index).toFixed(1)} y1={top} x2={x(n.index).toFixed(1)} y2={bottom} />
        <circle cx={x(n.index).toFixed(1)} cy={top - 12} r="6" />
        <text
          id={`${idPrefix}note${k}`}
          class={x(n.index) > width / 2 ? 'val end' : 'val'}
          x={(x(n.index) + (x(n.index) > width / 2 ? -10 : 10)).toFixed(1)}
          y={top - 8}
        >
          {n.text}
        </text>
      </g>
    ))}
  </>
);
