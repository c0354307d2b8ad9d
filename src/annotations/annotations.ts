/**
 * Annotations (docs/ARCHITECTURE.md, "Annotations"): dated notes on a website's statistics —
 * "launched pricing v2", "newsletter sent" — on a local date of the website, or from one date
 * to another. Every reader of the website sees them (on the chart, under it, in the CSV and the
 * e-mail reports of their period); its owner and admins write them.
 */
import { and, asc, count, eq, gte, isNull, lte, or } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type AnnotationRow, annotations } from '../db/sharing-schema.ts';
import { type FieldErrors, validationFailed } from '../lib/errors.ts';
import { hasControlCharacter } from '../lib/text/text.ts';
import { apiTimestamp, isCalendarDate } from '../lib/time/dates.ts';

/** At most this many annotations a website, of this many characters each. */
const MAX_ANNOTATIONS = 5_000;
const MAX_TEXT = 500;

/** An annotation as the API shows it. */
export type AnnotationRecord = {
  id: number;
  date: string;
  end_date: string | null;
  text: string;
  created_at: string;
};

export const toAnnotationRecord = (row: AnnotationRow): AnnotationRecord => ({
  id: row.id,
  date: row.date,
  end_date: row.endDate,
  text: row.text,
  created_at: apiTimestamp(row.createdAt),
});

/** What an annotation is made of, checked: all of it, or (`partial`) the fields given. */
export type AnnotationInput = { date?: string; endDate?: string | null; text?: string };

/**
 * Checks an annotation's fields: a date (YYYY-MM-DD, a real one), an optional end date not
 * before it, a text of 1–500 characters. Every bad field is named (422).
 */
export function annotationInput(
  fields: Record<string, unknown>,
  partial = false,
  current?: AnnotationRow,
): AnnotationInput {
  const errors: FieldErrors = {};
  const input: AnnotationInput = {};
  if (fields.date !== undefined || !partial) {
    if (typeof fields.date !== 'string' || !isCalendarDate(fields.date))
      errors.date = ['The date must be a date: YYYY-MM-DD.'];
    else input.date = fields.date;
  }
  const end = fields.end_date;
  if (end === null || end === '') input.endDate = null;
  else if (end !== undefined) {
    if (typeof end !== 'string' || !isCalendarDate(end))
      errors.end_date = ['The end_date must be a date: YYYY-MM-DD.'];
    else input.endDate = end;
  }
  const from = input.date ?? current?.date;
  const to = input.endDate === undefined ? current?.endDate : input.endDate;
  if (!errors.date && !errors.end_date && from && to && to < from)
    errors.end_date = ['The end_date must be the date or later.'];
  if (fields.text !== undefined || !partial) {
    const text = typeof fields.text === 'string' ? fields.text.trim() : '';
    if (text === '') errors.text = ['The text field is required.'];
    else if (text.length > MAX_TEXT)
      errors.text = [`The text may not be greater than ${MAX_TEXT} characters.`];
    else if (hasControlCharacter(text)) errors.text = ['The text may not hold control characters.'];
    else input.text = text;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return input;
}

/** The annotations of a website that touch `from`–`to` (every one without a range), by date. */
export async function listAnnotations(
  db: Database,
  websiteId: number,
  range?: { from: string; to: string },
): Promise<AnnotationRow[]> {
  const within = range
    ? and(
        lte(annotations.date, range.to),
        or(
          gte(annotations.endDate, range.from),
          and(isNull(annotations.endDate), gte(annotations.date, range.from)),
        ),
      )
    : undefined;
  return db
    .select()
    .from(annotations)
    .where(and(eq(annotations.websiteId, websiteId), within))
    .orderBy(asc(annotations.date), asc(annotations.id))
    .all();
}

/** Annotation `id` of a website. */
export async function annotationOf(
  db: Database,
  websiteId: number,
  id: number,
): Promise<AnnotationRow | undefined> {
  return db
    .select()
    .from(annotations)
    .where(and(eq(annotations.id, id), eq(annotations.websiteId, websiteId)))
    .get();
}

/** Writes a website's annotation, by `personId`. */
export async function createAnnotation(
  db: Database,
  websiteId: number,
  personId: number,
  input: AnnotationInput,
  now = Date.now(),
): Promise<AnnotationRow> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(annotations)
    .where(eq(annotations.websiteId, websiteId))
    .all();
  if (n >= MAX_ANNOTATIONS)
    throw validationFailed({ text: [`A website has at most ${MAX_ANNOTATIONS} annotations.`] });
  return db
    .insert(annotations)
    .values({
      websiteId,
      date: input.date as string,
      endDate: input.endDate ?? null,
      text: input.text as string,
      createdBy: personId,
      createdAt: now,
    })
    .returning()
    .get();
}

/** Changes what `input` names of an annotation; undefined when the website has no such one. */
export async function updateAnnotation(
  db: Database,
  websiteId: number,
  id: number,
  input: AnnotationInput,
): Promise<AnnotationRow | undefined> {
  if (Object.keys(input).length === 0) return annotationOf(db, websiteId, id);
  return db
    .update(annotations)
    .set(input)
    .where(and(eq(annotations.id, id), eq(annotations.websiteId, websiteId)))
    .returning()
    .get();
}

/** Deletes an annotation; false when the website has no such one. */
export async function deleteAnnotation(
  db: Database,
  websiteId: number,
  id: number,
): Promise<boolean> {
  const result = await db
    .delete(annotations)
    .where(and(eq(annotations.id, id), eq(annotations.websiteId, websiteId)))
    .run();
  return (result.meta.changes ?? 0) > 0;
}
