/**
 * From the log's ids back to a question's texts (docs/ARCHITECTURE.md, "The query engine"):
 * a grouping's sums per ids become its groups as they read, searched on their texts; their
 * rows are made by src/counting/group-reads.ts. (The way there, a filter's values to ids, is ./filters/filter-ids.ts.)
 */
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { type GroupRead, inTurns } from '../../../counting/group-reads.ts';
import type { GroupQuery } from '../../../counting/query.ts';
import { queryDimension } from '../../../counting/query-dimensions.ts';
import {
  type PartialName,
  type Partials,
  queryMetric,
  SESSION_PARTIALS,
} from '../../../counting/query-metrics.ts';
import { containsText } from '../../../lib/text/contains-text.ts';
import { dateOfDay, dayNumber, pad2 } from '../../../lib/time/dates.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { Step } from './lane.ts';

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

/** What a grouping's groups are read with besides their sums. */
export type ReadsOf = {
  range: { from: string; to: string };
  step: Step;
  /** The ids of the texts that contain a term in any case (`search`). */
  searched: (term: string) => Promise<Set<number>>;
};

/**
 * A grouping's groups as they read, from its sums: each group read as its dimensions read (a
 * group whose value has no text is left out, those that read alike are added together) and
 * searched on a text dimension (by the ids that contain the term). The work is done a few
 * thousand groups at a time, each a turn of the read lane (`step`), so that a grouping of
 * tens of thousands of groups does not hold up the object's hits either. Its rows are made
 * from them by `answerOf` (src/counting/group-reads.ts).
 */
export async function groupReads(
  dict: Dictionary,
  g: GroupQuery,
  groups: Group[],
  { range, step, searched }: ReadsOf,
): Promise<GroupRead[]> {
  const dimensions = g.dimensions.map((key) => ({ key, ...queryDimension(key) }));
  const needs = [...new Set(g.metrics.flatMap((m) => queryMetric(m).needs))];
  // A grouping that counts hits has a row per group of hits: visits grouped by their values
  // (a visit's entry page for a page) join those rows, they make none of their own.
  const hitSide = needs.some((p) => !SESSION_PARTIALS.has(p));
  let found = hitSide ? groups.filter((group) => group.hits) : groups;
  const first = dimensions[0];
  if (g.search && first?.kind === 'text') {
    const matching = g.exact ? new Set([dict.idOf(g.search)]) : await searched(g.search);
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
  await inTurns(step, [...ids], (slice) => {
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
  const merged = new Map<string, GroupRead>();
  const read: GroupRead[] = [];
  await inTurns(step, found, (slice) => {
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
        read.push({ dimensions: names, sums: group.sums, ...(goal === undefined ? {} : { goal }) });
        continue;
      }
      const id = names.join('\u0000');
      const row = merged.get(id);
      if (row) for (const p of Object.keys(row.sums) as PartialName[]) row.sums[p] += group.sums[p];
      else
        merged.set(id, {
          dimensions: names,
          sums: { ...group.sums },
          ...(goal === undefined ? {} : { goal }),
        });
    }
  });
  read.push(...merged.values());
  return read;
}
