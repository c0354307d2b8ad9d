/**
 * A grouping's answer from its groups as they read (docs/ARCHITECTURE.md, "The query
 * engine"): each group's dimensions as texts and its sums, from one log or added together
 * from several (the parts of a log that each hold whole local dates: a visit and a visitor
 * lie in one part, so sums of the same group add up exactly). Its metrics are made, it is
 * searched (on a dimension that is no text: texts are searched by the log, on its ids),
 * sorted and paged here, the same way whichever log it came from.
 */
import type { GroupAnswer, GroupQuery, ResultRow } from './query.ts';
import { queryDimension } from './query-dimensions.ts';
import { noPartials, type PartialName, type Partials, queryMetric } from './query-metrics.ts';
import { type Ordered, ranked, sortRows } from './row-order.ts';

/** A group as it reads: its dimensions' texts, its sums, and its goal (by goals). */
export type GroupRead = { dimensions: string[]; sums: Partials; goal?: number };

/** A grouping's groups as a log read them, with the sums `percentage` divides by. */
export type GroupReads = {
  groups: GroupRead[];
  /** The range's sums (for `percentage`). */
  total: Partials;
  /** Each goal's sums (for `percentage` by goals), by the goal's index. */
  byGoal: [goal: number, sums: Partials][];
};

/** Runs a piece of work as one turn (of a log's read lane; at once elsewhere). */
export type Turn = <T>(work: () => T) => Promise<T>;

/** How many groups are made into rows in one turn. */
const PER_TURN = 5_000;

/** `items` in slices of `PER_TURN`, each handed to `work` in a turn of its own. */
export async function inTurns<T>(
  turn: Turn,
  items: T[],
  work: (slice: T[]) => void,
): Promise<void> {
  for (let i = 0; i < items.length; i += PER_TURN) {
    const slice = items.slice(i, i + PER_TURN);
    await turn(() => work(slice));
  }
}

const add = (into: Partials, sums: Partials) => {
  for (const p of Object.keys(into) as PartialName[]) into[p] += sums[p];
};

/** What makes two groups of a grouping one: their dimensions' texts. */
const keyOf = (group: GroupRead) => group.dimensions.join('\u0000');

/** The goals' sums of several reads added together. */
function byGoalOf(parts: GroupReads[]): [goal: number, sums: Partials][] {
  const byGoal = new Map<number, Partials>();
  for (const part of parts)
    for (const [goal, sums] of part.byGoal) {
      const known = byGoal.get(goal);
      if (known) add(known, sums);
      else byGoal.set(goal, { ...sums });
    }
  return [...byGoal];
}

/**
 * The groups of several logs' reads of the same grouping added together: groups that read
 * alike are one group, and the totals add up.
 */
export function mergeGroupReads(parts: GroupReads[]): GroupReads {
  const merged = new Map<string, GroupRead>();
  const total = noPartials();
  for (const part of parts) {
    add(total, part.total);
    for (const group of part.groups) {
      const key = keyOf(group);
      const known = merged.get(key);
      if (known) add(known.sums, group.sums);
      else merged.set(key, { ...group, sums: { ...group.sums } });
    }
  }
  return { groups: [...merged.values()], total, byGoal: byGoalOf(parts) };
}

/** Reads added together once, with where each group is: what more reads are added to. */
export type IndexedGroupReads = { reads: GroupReads; at: Map<string, number> };

export const indexed = (reads: GroupReads): IndexedGroupReads => ({
  reads,
  at: new Map(reads.groups.map((group, i) => [keyOf(group), i])),
});

/**
 * `base` with `more` added, as `mergeGroupReads([base, more])` answers it (the same groups in
 * the same order) but copying only the groups `more` adds to: what the open partition does
 * with the closed partitions' groups it keeps (src/website-log/object/read/methods.ts), many, and its own.
 */
export function addedTo(base: IndexedGroupReads, more: GroupReads): GroupReads {
  const groups = base.reads.groups.slice();
  const total = { ...base.reads.total };
  add(total, more.total);
  for (const group of more.groups) {
    const at = base.at.get(keyOf(group));
    const known = at === undefined ? undefined : groups[at];
    if (at === undefined || !known) groups.push(group);
    else {
      const sums = { ...known.sums };
      add(sums, group.sums);
      groups[at] = { ...known, sums };
    }
  }
  return { groups, total, byGoal: byGoalOf([base.reads, more]) };
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
 * A grouping's answer from its groups: a group whose sums the metrics need are all zero has
 * no row (a grouping by nothing has its one row, zeros and all); the metrics are made,
 * searched on a dimension that is no text, sorted and paged, a few thousand groups a turn.
 */
export async function answerOf(g: GroupQuery, reads: GroupReads, turn: Turn): Promise<GroupAnswer> {
  const dimensions = g.dimensions.map((key) => queryDimension(key));
  const needs = [...new Set(g.metrics.flatMap((m) => queryMetric(m).needs))];
  const values = g.metrics.map((m) => queryMetric(m).value);
  const byGoal = new Map(reads.byGoal);
  const total = (goal?: number) =>
    goal === undefined ? reads.total : (byGoal.get(goal) ?? noPartials());
  const groups =
    dimensions.length === 0 && reads.groups.length === 0
      ? [{ dimensions: [], sums: noPartials() }]
      : reads.groups;
  let rows: ResultRow[] = [];
  await inTurns(turn, groups, (slice) => {
    for (const group of slice)
      if (dimensions.length === 0 || needs.some((p) => group.sums[p] !== 0))
        rows.push({
          dimensions: group.dimensions,
          metrics: values.map((v) => v(group.sums, total(group.goal))),
        });
  });
  const [first] = dimensions;
  if (g.search && first && first.kind !== 'text') {
    const term = g.exact ? g.search : g.search.toLowerCase();
    rows = rows.filter((row) =>
      g.exact
        ? row.dimensions[0] === term
        : (row.dimensions[0] as string).toLowerCase().includes(term),
    );
  }
  const goalAt = dimensions.findIndex((d) => d.kind === 'goal');
  const page = await turn(() =>
    goalAt < 0
      ? pageOf(g, rows, g.offset, g.limit)
      : pagesByGoal(g, rows, goalAt, g.offset, g.limit),
  );
  return { rows: page, total: rows.length };
}
