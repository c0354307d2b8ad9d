/**
 * A website's funnels: a name unique to the website and 2 to 8 steps, each a page (a path,
 * or a pattern as a page goal's: `*` any characters within a segment, `**` any across), a
 * custom event by its name, or one of the website's goals by its display name
 * (src/goals/goals.ts). A page and an event step follow a page goal's and an event goal's
 * rules, so that a funnel's step and a goal of the same page or event mean the same thing.
 * At most 100 funnels a website. Steps are kept and answered as given (trimmed).
 */

import { and, asc, count, eq } from 'drizzle-orm';
import { FUNNEL_STEPS, type FunnelStep } from '../counting/flow-queries.ts';
import { type Database, isUniqueConflict } from '../db/client.ts';
import { type FunnelRow, funnels, goals } from '../db/schema.ts';
import { type FieldErrors, validationFailed } from '../lib/errors.ts';
import { hasControlCharacter } from '../lib/text/text.ts';
import { apiTimestamp } from '../lib/time/dates.ts';

const MAX_FUNNELS = 100;
const MAX_NAME = 120;
const MAX_EVENT_NAME = 120;
const MAX_PAGE_PATH = 255;

const STEP_SHAPE = 'A step has either a page, an event or a goal.';
const NAME_TAKEN = 'Another funnel of the website has this name.';

/** A funnel as the API shows it. */
export type FunnelRecord = { id: number; name: string; steps: FunnelStep[]; created_at: string };

/** What a funnel is made of, checked. */
type FunnelInput = { name: string; steps: FunnelStep[] };

type Fail = (field: string, message: string) => undefined;

const toFunnelRecord = (row: FunnelRow): FunnelRecord => ({
  id: row.id,
  name: row.name,
  steps: JSON.parse(row.steps) as FunnelStep[],
  created_at: apiTimestamp(row.createdAt),
});

function checkName(raw: unknown, fail: Fail): string | undefined {
  if (raw === undefined || raw === null || raw === '')
    return fail('name', 'The name field is required.');
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name === '' || name.length > MAX_NAME || hasControlCharacter(name))
    return fail(
      'name',
      `The name field must be a string of 1 to ${MAX_NAME} characters, without control characters.`,
    );
  return name;
}

function checkPage(path: string | undefined, field: string, fail: Fail) {
  if (
    path === undefined ||
    !path.startsWith('/') ||
    path.length > MAX_PAGE_PATH ||
    hasControlCharacter(path) ||
    /\s/.test(path)
  )
    return fail(
      field,
      `A page is a path starting with / of at most ${MAX_PAGE_PATH} characters, without spaces.`,
    );
  // `*` and `**` are the only wildcards: a third star in a row means neither.
  if (path.includes('***'))
    return fail(
      field,
      'A page pattern has * (within a segment) or ** (across segments), never three stars in a row.',
    );
  return { page: path };
}

function checkEvent(name: string | undefined, field: string, fail: Fail) {
  if (name === undefined || name === '')
    return fail(field, "An event is a custom event's name: a non-empty string.");
  if (name === 'pageview')
    return fail(field, 'A page view is not a custom event: make a page step of its page.');
  if (name.length > MAX_EVENT_NAME || hasControlCharacter(name))
    return fail(
      field,
      `An event's name has at most ${MAX_EVENT_NAME} characters, without control characters.`,
    );
  return { event: name };
}

/** The `index`th step (from 1), or undefined after saying what is wrong with it. */
function checkStep(
  raw: unknown,
  index: number,
  goalNames: ReadonlySet<string>,
  fail: Fail,
): FunnelStep | undefined {
  const field = `steps.${index}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail(field, STEP_SHAPE);
  const [kind, ...others] = Object.keys(raw);
  if (others.length > 0 || (kind !== 'page' && kind !== 'event' && kind !== 'goal'))
    return fail(field, STEP_SHAPE);
  const value = (raw as Record<string, unknown>)[kind];
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (kind === 'page') return checkPage(text, `${field}.page`, fail);
  if (kind === 'event') return checkEvent(text, `${field}.event`, fail);
  if (text === undefined || !goalNames.has(text))
    return fail(`${field}.goal`, 'The website has no goal of this name.');
  return { goal: text };
}

/** The steps as sent: a list, or from a form the JSON text of one. */
function stepsOf(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The display names of the website's goals, which goal steps name. */
async function goalNamesOf(db: Database, websiteId: number): Promise<Set<string>> {
  const rows = await db
    .select({ name: goals.displayName })
    .from(goals)
    .where(eq(goals.websiteId, websiteId))
    .all();
  return new Set(rows.map((r) => r.name));
}

/** The steps of `raw` (a list, or a form's JSON text of one), each checked; `fail` for each wrong. */
async function stepsChecked(
  db: Database,
  websiteId: number,
  given: unknown,
  fail: Fail,
): Promise<FunnelStep[]> {
  const raw = stepsOf(given);
  const steps: FunnelStep[] = [];
  if (!Array.isArray(raw) || raw.length < FUNNEL_STEPS.min || raw.length > FUNNEL_STEPS.max)
    fail(
      'steps',
      `The steps field must be a list of ${FUNNEL_STEPS.min} to ${FUNNEL_STEPS.max} steps.`,
    );
  else {
    const usesGoals = raw.some((s) => s !== null && typeof s === 'object' && 'goal' in s);
    const goalNames = usesGoals ? await goalNamesOf(db, websiteId) : new Set<string>();
    raw.forEach((s, i) => {
      const step = checkStep(s, i + 1, goalNames, fail);
      if (step) steps.push(step);
    });
  }
  return steps;
}

/**
 * The steps of a funnel being built (the settings' preview), checked as a saved funnel's
 * are, or a 422 naming each bad one.
 */
export async function funnelSteps(
  db: Database,
  websiteId: number,
  given: unknown,
): Promise<FunnelStep[]> {
  const errors: FieldErrors = {};
  const steps = await stepsChecked(db, websiteId, given, (field, message) => {
    errors[field] = [message];
    return undefined;
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return steps;
}

/**
 * The funnel that `fields` ask for (`name`, `steps`), or a 422 naming each bad field:
 * `name`, `steps` (not a list of 2 to 8), `steps.N` (a step that is not exactly one of a
 * page, an event or a goal) or `steps.N.page|event|goal`, N counted from 1. `funnelId` is
 * the funnel being changed, whose own name is not another's.
 */
async function checkFunnel(
  db: Database,
  websiteId: number,
  fields: Record<string, unknown>,
  funnelId?: number,
): Promise<FunnelInput> {
  const errors: FieldErrors = {};
  const fail: Fail = (field, message) => {
    errors[field] = [message];
    return undefined;
  };
  const name = checkName(fields.name, fail);
  if (name !== undefined) {
    const named = await db
      .select({ id: funnels.id })
      .from(funnels)
      .where(and(eq(funnels.websiteId, websiteId), eq(funnels.name, name)))
      .get();
    if (named && named.id !== funnelId) fail('name', NAME_TAKEN);
  }
  const steps = await stepsChecked(db, websiteId, fields.steps, fail);
  if (Object.keys(errors).length > 0 || name === undefined) throw validationFailed(errors);
  return { name, steps };
}

/** A website's funnels, oldest first. */
export async function listFunnels(db: Database, websiteId: number): Promise<FunnelRecord[]> {
  const rows = await db
    .select()
    .from(funnels)
    .where(eq(funnels.websiteId, websiteId))
    .orderBy(asc(funnels.id))
    .all();
  return rows.map(toFunnelRecord);
}

/** One page of a website's funnels, oldest first, and how many it has in all. */
export async function pageOfFunnels(
  db: Database,
  websiteId: number,
  limit: number,
  offset: number,
): Promise<{ rows: FunnelRecord[]; total: number }> {
  const mine = eq(funnels.websiteId, websiteId);
  const [rows, totals] = await db.batch([
    db.select().from(funnels).where(mine).orderBy(asc(funnels.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(funnels).where(mine),
  ]);
  return { rows: rows.map(toFunnelRecord), total: totals[0]?.total ?? 0 };
}

/** The funnel of a website with this id, if it has one. */
export async function findFunnel(
  db: Database,
  websiteId: number,
  funnelId: number,
): Promise<FunnelRecord | undefined> {
  const row = await db
    .select()
    .from(funnels)
    .where(and(eq(funnels.id, funnelId), eq(funnels.websiteId, websiteId)))
    .get();
  return row && toFunnelRecord(row);
}

/** Adds a funnel from the fields sent; a 422 for bad fields, a taken name or the 101st funnel. */
export async function createFunnel(
  db: Database,
  websiteId: number,
  fields: Record<string, unknown>,
  now = Date.now(),
): Promise<FunnelRecord> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(funnels)
    .where(eq(funnels.websiteId, websiteId))
    .all();
  if (n >= MAX_FUNNELS)
    throw validationFailed({ name: [`A website has at most ${MAX_FUNNELS} funnels.`] });
  const input = await checkFunnel(db, websiteId, fields);
  const row = await db
    .insert(funnels)
    .values({ websiteId, name: input.name, steps: JSON.stringify(input.steps), createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  // The name was taken by a funnel added at the same moment by another request.
  if (!row) throw validationFailed({ name: [NAME_TAKEN] });
  return toFunnelRecord(row);
}

/**
 * Replaces a funnel's name and steps (the same checks as a new one's); undefined when the
 * website has no funnel of that id, which is said before anything about the fields.
 */
export async function updateFunnel(
  db: Database,
  websiteId: number,
  funnelId: number,
  fields: Record<string, unknown>,
): Promise<FunnelRecord | undefined> {
  if (!(await findFunnel(db, websiteId, funnelId))) return undefined;
  const input = await checkFunnel(db, websiteId, fields, funnelId);
  try {
    const row = await db
      .update(funnels)
      .set({ name: input.name, steps: JSON.stringify(input.steps) })
      .where(and(eq(funnels.id, funnelId), eq(funnels.websiteId, websiteId)))
      .returning()
      .get();
    return row && toFunnelRecord(row);
  } catch (err) {
    if (isUniqueConflict(err, 'funnels.website_id, funnels.name'))
      throw validationFailed({ name: [NAME_TAKEN] });
    throw err;
  }
}

/** Deletes a funnel of a website; false when it has none of that id. */
export async function deleteFunnel(
  db: Database,
  websiteId: number,
  funnelId: number,
): Promise<boolean> {
  const deleted = await db
    .delete(funnels)
    .where(and(eq(funnels.id, funnelId), eq(funnels.websiteId, websiteId)))
    .returning({ id: funnels.id })
    .all();
  return deleted.length > 0;
}
