/**
 * From the log's ids back to a question's texts (docs/ARCHITECTURE.md, "The query engine"):
 * a grouping's sums per ids become its rows, read as the dimensions read, searched, sorted
 * and paged. (The way there, a filter's values to ids, is ./filter-ids.ts.)
 */
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { GroupAnswer, GroupQuery, ResultRow } from '../counting/query.ts';
import { queryDimension } from '../counting/query-dimensions.ts';
import {
  noPartials,
  type PartialName,
  type Partials,
  queryMetric,
  SESSION_PARTIALS,
} from '../counting/query-metrics.ts';
import { type Ordered, ranked, sortRows } from '../counting/rows.ts';
import { containsText } from '../lib/contains-text.ts';
import { dateOfDay, dayNumber } from '../lib/dates.ts';
import type { Dictionary } from './dictionary.ts';
import type { Step } from './read-lane.ts';

/** A group of a grouping: its dimensions' raw values (ids, days, hours) and its sums. */
export type Group = {
  key: (number | null)[];
  sums: Partials;
  /** Some of the grouping's hits are in it (not only visits grouped by their values). */
  hits: boolean;
};

const dialect = new SQLiteSyncDialect();

/** SQL over `dict.value`: it contains `term` in any case (as the Stats API's `search`). */
export function containing(term: string) {
  const query = dialect.sqlToQuery(containsText(sql.raw('value'), term));
  return { text: query.sql, params: query.params as (string | number)[] };
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** How a dimension's number reads: a date, a week's or month's first day, an hour. */
function timeLabel(key: string, n: number, range: { from: string }): string {
  switch (key) {
    case 'time:day':
      return dateOfDay(n);
    case 'time:week': {
      // 1970-01-01 was a Thursday: a week begins on the Monday, or on the range's first day.
      const monday = n - ((n + 3) % 7);
      return dateOfDay(Math.max(monday, dayNumber(range.from)));
    }
    case 'time:month':
      return `${dateOfDay(n).slice(0, 8)}01`;
    case 'time:hour':
      return `${dateOfDay(Math.floor(n / 24))} ${pad2(n % 24)}:00:00`;
    default:
      return pad2(n);
  }
}

/**
 * The rows `first`–`first + count` of a grouping in its order. When the order starts with a
 * metric and the page is a small part of many rows, only the rows that can be on it are
 * sorted: those whose first metric is at least the page's last row's (its value found by
 * sorting the numbers alone).
 */
function pageOf(g: Ordered, rows: ResultRow[], first: number, count: number): ResultRow[] {
  const [lead] = g.order;
  const metric = lead ? g.metrics.indexOf(lead[0]) : -1;
  const end = first + count;
  if (metric < 0 || end * 4 >= rows.length) {
    sortRows(g, rows);
    return rows.slice(first, end);
  }
  const sign = lead?.[1] === 'asc' ? 1 : -1;
  const values = Float64Array.from(rows, (row) => sign * ranked(row.metrics[metric]));
  const sorted = Float64Array.from(values).sort();
  const bound = sorted[end - 1] as number;
  const candidates = rows.filter((_, i) => (values[i] as number) <= bound);
  sortRows(g, candidates);
  return candidates.slice(first, end);
}

/** How many ids are read from the dictionary, or groups read, in one turn of the lane. */
const PER_STEP = 5_000;

/** `items` in slices of `PER_STEP`, each handed to `work` in a turn of its own. */
async function inSteps<T>(step: Step, items: T[], work: (slice: T[]) => void): Promise<void> {
  for (let i = 0; i < items.length; i += PER_STEP) {
    const slice = items.slice(i, i + PER_STEP);
    await step(() => work(slice));
  }
}

/** What a grouping's rows are made with besides its sums. */
export type RowsOf = {
  /** The sums `percentage` divides by: the range's, or a goal's (by goals). */
  total: (goal?: number) => Partials;
  range: { from: string; to: string };
  step: Step;
  /** The ids of the texts that contain a term in any case (`search`). */
  searched: (term: string) => Promise<Set<number>>;
};

/**
 * The rows `first`–`first + count` of each goal's rows in a grouping's order (a grouping by
 * goals is paged goal by goal: `GroupQuery.goals`).
 */
function pagesByGoal(g: Ordered, rows: ResultRow[], at: number, first: number, count: number) {
  sortRows(g, rows);
  const seen = new Map<string, number>();
  return rows.filter((row) => {
    const goal = row.dimensions[at] as string;
    const n = seen.get(goal) ?? 0;
    seen.set(goal, n + 1);
    return n >= first && n < first + count;
  });
}

/**
 * A grouping's rows from its sums: each group read as its dimensions read (a group whose
 * value has no row is left out, those that read alike are added together), searched, its
 * metrics made, sorted and paged. A group whose sums are all zero has no row. The work is
 * done a few thousand groups at a time, each a turn of the read lane (`step`), so that a
 * grouping of tens of thousands of groups does not hold up the object's hits either.
 */
export async function groupRows(
  dict: Dictionary,
  g: GroupQuery,
  groups: Group[],
  { total, range, step, searched }: RowsOf,
): Promise<GroupAnswer> {
  const dimensions = g.dimensions.map((key) => ({ key, ...queryDimension(key) }));
  const needs = [...new Set(g.metrics.flatMap((m) => queryMetric(m).needs))];
  const values = g.metrics.map((m) => queryMetric(m).value);
  // A grouping that counts hits has a row per group of hits: visits grouped by their values
  // (a visit's entry page for a page) join those rows, they make none of their own.
  const hitSide = needs.some((p) => !SESSION_PARTIALS.has(p));
  let found = hitSide ? groups.filter((group) => group.hits) : groups;
  const first = dimensions[0];
  const search = g.search;
  if (search && first?.kind === 'text') {
    const matching = await searched(search);
    found = found.filter((group) => group.key[0] !== null && matching.has(group.key[0] as number));
  }
  // Each text dimension's values read once per id, not once per group.
  const labels = dimensions.map(() => new Map<number, string | null>());
  const ids = new Set<number>();
  for (const group of found)
    for (let i = 0; i < dimensions.length; i++) {
      const id = group.key[i];
      if (dimensions[i]?.kind === 'text' && typeof id === 'number') ids.add(id);
    }
  await inSteps(step, [...ids], (slice) => {
    for (const [id, text] of dict.decodeAll(slice))
      dimensions.forEach((d, i) => {
        if (d.kind === 'text') labels[i]?.set(id, d.label ? d.label(text) : text);
      });
  });
  const labelOf = (i: number, value: number | null): string | null => {
    const d = dimensions[i] as (typeof dimensions)[number];
    if (d.kind === 'number') return value === null ? null : timeLabel(d.key, value, range);
    if (d.kind === 'goal') return value === null ? null : (g.goals?.[value]?.name ?? null);
    const label = value === null ? null : (labels[i]?.get(value) ?? null);
    return label ?? d.none ?? null;
  };
  // Groups that read alike are added together where a dimension may read so (`merges`).
  const goalAt = dimensions.findIndex((d) => d.kind === 'goal');
  const merges = dimensions.some((d) => d.merges);
  type Read = { dimensions: string[]; sums: Partials; goal?: number };
  const merged = new Map<string, Read>();
  const read: Read[] = [];
  await inSteps(step, found, (slice) => {
    for (const group of slice) {
      const names: string[] = [];
      for (let i = 0; i < dimensions.length; i++) {
        const label = labelOf(i, group.key[i] ?? null);
        if (label === null) break;
        names.push(label);
      }
      if (names.length < dimensions.length) continue;
      const goal = goalAt < 0 ? undefined : (group.key[goalAt] as number);
      if (!merges) {
        read.push({ dimensions: names, sums: group.sums, goal });
        continue;
      }
      const id = names.join('\u0000');
      const row = merged.get(id);
      if (row) for (const p of Object.keys(row.sums) as PartialName[]) row.sums[p] += group.sums[p];
      else merged.set(id, { dimensions: names, sums: { ...group.sums }, goal });
    }
  });
  read.push(...merged.values());
  // A grouping by nothing has its one row, zeros and all.
  if (dimensions.length === 0 && read.length === 0)
    read.push({ dimensions: [], sums: noPartials() });
  let rows: ResultRow[] = [];
  await inSteps(step, read, (slice) => {
    for (const row of slice)
      if (dimensions.length === 0 || needs.some((p) => row.sums[p] !== 0))
        rows.push({
          dimensions: row.dimensions,
          metrics: values.map((v) => v(row.sums, total(row.goal))),
        });
  });
  if (search && first && first.kind !== 'text') {
    const term = search.toLowerCase();
    rows = rows.filter((row) => (row.dimensions[0] as string).toLowerCase().includes(term));
  }
  const page = await step(() =>
    goalAt < 0
      ? pageOf(g, rows, g.offset, g.limit)
      : pagesByGoal(g, rows, goalAt, g.offset, g.limit),
  );
  return { rows: page, total: rows.length };
}
