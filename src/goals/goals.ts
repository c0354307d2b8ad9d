/**
 * A website's goals (docs/ARCHITECTURE.md, "Goals"): an event goal — a custom event's name —
 * or a page goal — a path or pattern of page views (`*` any characters within a segment,
 * `**` any across segments) — with the name its statistics show (unique per website) and,
 * for an event goal, the currency its revenue is counted in; for a page goal, the scroll
 * depth its page views must reach (`scroll_threshold`, 0–100: the visit scrolled the page at
 * least that far). Plausible's rules: an event name of 1 to 120 characters; a page goal's
 * path starts with `/`; the name defaults to the event's name, `Visit <path>`, or `Scroll
 * <n>% on <path>`; at most 1,000 goals a website.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type GoalRow, goals } from '../db/schema.ts';
import { type FieldErrors, validationFailed } from '../lib/errors.ts';
import { hasControlCharacter } from '../lib/text/text.ts';

const MAX_GOALS = 1000;
const MAX_EVENT_NAME = 120;
const MAX_PAGE_PATH = 255;
const MAX_DISPLAY_NAME = 120;

/** A goal as the API shows it. */
export type GoalRecord = {
  id: number;
  event: string | null;
  page: string | null;
  display_name: string;
  currency: string | null;
  /** A page goal's scroll depth in percent; null: none. */
  scroll_threshold: number | null;
};

export const toGoalRecord = (row: GoalRow): GoalRecord => ({
  id: row.id,
  event: row.eventName,
  page: row.pagePath,
  display_name: row.displayName,
  currency: row.currency,
  scroll_threshold: row.scrollThreshold < 0 ? null : row.scrollThreshold,
});

/** What a goal is made of, checked. */
export type GoalInput = {
  eventName: string | null;
  pagePath: string | null;
  displayName: string;
  currency: string | null;
  /** -1: none. */
  scrollThreshold: number;
};

/** No scroll threshold (Plausible's -1). */
const NO_THRESHOLD = -1;

/** A `scroll_threshold` field: none (absent, null, '', -1) or a whole percent 0–100. */
function thresholdOf(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return NO_THRESHOLD;
  const n = typeof raw === 'string' && /^-?\d{1,3}$/.test(raw.trim()) ? Number(raw) : raw;
  if (n === NO_THRESHOLD) return NO_THRESHOLD;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 100 ? n : undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/**
 * The goal that `fields` ask for (`event` or `page`, `display_name`, `currency`), or a 422
 * naming each bad field. `names` maps the API's field names to those the request used
 * (Plausible's `event_name`, `page_path`).
 */
export function goalInput(
  fields: Record<string, unknown>,
  names: { event: string; page: string } = { event: 'event', page: 'page' },
): GoalInput {
  const errors: FieldErrors = {};
  const event = fields[names.event];
  const page = fields[names.page];
  const eventName = text(event);
  const pagePath = text(page);
  const fail = (field: string, message: string) => {
    errors[field] = [message];
  };
  if ((event === undefined || event === null) === (page === undefined || page === null))
    fail(names.event, `A goal has either an ${names.event} or a ${names.page}, not both.`);
  else if (event !== undefined && event !== null) {
    if (eventName === undefined || eventName === '')
      fail(names.event, `The ${names.event} field must be a non-empty string.`);
    else if (eventName === 'pageview')
      fail(names.event, 'A page view is not a custom event: make a page goal of its page.');
    else if (eventName.length > MAX_EVENT_NAME || hasControlCharacter(eventName))
      fail(
        names.event,
        `The ${names.event} field must be at most ${MAX_EVENT_NAME} characters, without control characters.`,
      );
  } else if (
    pagePath === undefined ||
    !pagePath.startsWith('/') ||
    pagePath.length > MAX_PAGE_PATH ||
    hasControlCharacter(pagePath)
  )
    fail(
      names.page,
      `The ${names.page} field must be a path starting with / of at most ${MAX_PAGE_PATH} characters.`,
    );
  const threshold = thresholdOf(fields.scroll_threshold);
  if (threshold === undefined)
    fail(
      'scroll_threshold',
      'The scroll threshold must be a whole percent from 0 to 100, or -1 for none.',
    );
  else if (threshold >= 0 && event !== undefined && event !== null)
    fail('scroll_threshold', 'Only a page goal has a scroll threshold: an event goal has none.');
  const scrollThreshold = threshold ?? NO_THRESHOLD;
  const display = fields.display_name;
  const displayName =
    display === undefined || display === null || display === ''
      ? eventName !== undefined && event !== undefined && event !== null
        ? eventName
        : scrollThreshold >= 0
          ? `Scroll ${scrollThreshold}% on ${pagePath ?? ''}`
          : `Visit ${pagePath ?? ''}`
      : text(display);
  const defaulted = display === undefined || display === null || display === '';
  if (defaulted && Object.keys(errors).length > 0) throw validationFailed(errors);
  if (
    displayName === undefined ||
    displayName === '' ||
    displayName.length > MAX_DISPLAY_NAME ||
    hasControlCharacter(displayName)
  )
    fail(
      'display_name',
      `The display name field must be a string of 1 to ${MAX_DISPLAY_NAME} characters.`,
    );
  const rawCurrency = fields.currency;
  let currency: string | null = null;
  if (rawCurrency !== undefined && rawCurrency !== null && rawCurrency !== '') {
    const code = typeof rawCurrency === 'string' ? rawCurrency.trim().toUpperCase() : '';
    if (!/^[A-Z]{3}$/.test(code))
      fail('currency', 'The currency field must be an ISO 4217 code of three letters (EUR).');
    else if (page !== undefined && page !== null)
      fail('currency', 'Only an event goal counts revenue: a page goal has no currency.');
    else currency = code;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    eventName: event !== undefined && event !== null ? (eventName as string) : null,
    pagePath: page !== undefined && page !== null ? (pagePath as string) : null,
    displayName: displayName as string,
    currency,
    scrollThreshold,
  };
}

/** A website's goals, oldest first. */
export async function listGoals(db: Database, websiteId: number): Promise<GoalRow[]> {
  return db.select().from(goals).where(eq(goals.websiteId, websiteId)).orderBy(asc(goals.id)).all();
}

/** The goal of a website that has this event, or this page and scroll threshold, if any. */
async function sameGoal(db: Database, websiteId: number, input: GoalInput) {
  return db
    .select()
    .from(goals)
    .where(
      and(
        eq(goals.websiteId, websiteId),
        input.eventName !== null
          ? eq(goals.eventName, input.eventName)
          : and(
              eq(goals.pagePath, input.pagePath as string),
              eq(goals.scrollThreshold, input.scrollThreshold),
            ),
      ),
    )
    .get();
}

/**
 * Adds a goal; with `existing: 'return'` (Plausible's idempotent PUT), the goal of the same
 * event or page is answered instead of a 422. A name another goal has, or the 1,001st goal,
 * is a 422.
 */
export async function createGoal(
  db: Database,
  websiteId: number,
  input: GoalInput,
  existing: 'refuse' | 'return' = 'refuse',
  now = Date.now(),
): Promise<{ row: GoalRow; created: boolean }> {
  const same = await sameGoal(db, websiteId, input);
  const field = input.eventName !== null ? 'event' : 'page';
  if (same) {
    if (existing === 'return') return { row: same, created: false };
    throw validationFailed({ [field]: [`The website already has a goal for this ${field}.`] });
  }
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(goals)
    .where(eq(goals.websiteId, websiteId))
    .all();
  if (n >= MAX_GOALS)
    throw validationFailed({ [field]: [`A website has at most ${MAX_GOALS} goals.`] });
  const named = await db
    .select({ id: goals.id })
    .from(goals)
    .where(and(eq(goals.websiteId, websiteId), eq(goals.displayName, input.displayName)))
    .get();
  if (named)
    throw validationFailed({ display_name: ['Another goal of the website has this name.'] });
  const row = await db
    .insert(goals)
    .values({ websiteId, ...input, createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  // A goal added at the same moment by another request: answered as it is.
  if (!row) return createGoal(db, websiteId, input, existing, now);
  return { row, created: true };
}

/** Deletes a goal of a website; false when it has none of that id. */
export async function deleteGoal(db: Database, websiteId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(goals)
    .where(and(eq(goals.id, id), eq(goals.websiteId, websiteId)))
    .returning({ id: goals.id })
    .all();
  return deleted.length > 0;
}
