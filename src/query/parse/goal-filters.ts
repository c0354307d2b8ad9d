/**
 * Goals as questions of the query engine (docs/ARCHITECTURE.md, "Goals"): the hits that
 * complete a goal are a filter — an event goal's custom events of its name, a page goal's
 * page views of the pages its pattern matches — so that a goal's conversions are any metric
 * under that filter, by any dimension, under any other filter.
 */

import { type FilterNode, type GoalSplit, isLeaf } from '../../counting/query.ts';
import { GOAL } from '../../counting/query-dimensions.ts';
import { storedEventName } from '../../counting/statistics.ts';
import type { GoalRow } from '../../db/schema.ts';

/** A goal's definition, as questions read it. */
export type Goal = Pick<
  GoalRow,
  'eventName' | 'pagePath' | 'displayName' | 'currency' | 'scrollThreshold'
>;

/**
 * A page goal's path as an RE2 pattern over recorded pages (a path with its query): `**` any
 * characters, `*` any within a segment, everything else as written; a query after the path
 * still matches (`/pricing` matches `/pricing?plan=pro`).
 */
function pagePattern(path: string): string {
  const parts = path.split(/(\*\*|\*)/);
  const body = parts
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/?]*' : part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'),
    )
    .join('');
  return `^${body}(\\?.*)?$`;
}

/** A custom event's hits of this name. */
export const eventFilter = (name: string): FilterNode => ({
  op: 'is',
  dimension: 'event:name',
  values: [storedEventName(name)],
  caseSensitive: true,
});

/** The page views of the pages a path or pattern matches (`*`, `**`: `pagePattern`). */
export const pageFilter = (path: string): FilterNode => ({
  op: 'matches',
  dimension: 'sl:page',
  values: [pagePattern(path)],
  caseSensitive: true,
});

/** No hit at all. */
export const NO_HIT: FilterNode = {
  op: 'is',
  dimension: 'event:name',
  values: [],
  caseSensitive: true,
};

/**
 * The hits that complete `goal`: its custom events; its page views — scrolled at least its
 * threshold, when it has one.
 */
export function goalFilter(goal: Goal): FilterNode {
  if (goal.eventName !== null) return eventFilter(goal.eventName);
  const viewed = pageFilter(goal.pagePath ?? '');
  return goal.scrollThreshold >= 0
    ? { op: 'and', nodes: [viewed, { op: 'scrolled', at: goal.scrollThreshold }] }
    : viewed;
}

/** Goals as a grouping by goals splits its hits (`GroupQuery.goals`). */
export const goalSplits = (goals: Goal[]): GoalSplit[] =>
  goals.map((g) => ({
    name: g.displayName,
    filter: goalFilter(g),
    ...(g.currency ? { currency: g.currency } : {}),
  }));

/** A goal filter names a goal the website does not have. */
export class UnknownGoal extends Error {
  constructor(readonly goal: string) {
    super(`The goal \`${goal}\` is not configured for this site.`);
  }
}

/**
 * Whether a goal filter's value names `goal`: `is` its name (in any case when not
 * case-sensitive), `contains` a part of it in any case.
 */
export function namesGoal(
  goal: Goal,
  filter: { op: string; caseSensitive: boolean },
  value: string,
): boolean {
  const name = goal.displayName;
  if (filter.op === 'contains') return name.toLowerCase().includes(value.toLowerCase());
  return filter.caseSensitive ? name === value : name.toLowerCase() === value.toLowerCase();
}

/**
 * The filters with each `event:goal` leaf made the hits that complete the goals it names
 * (`is`: by their names, each one configured, else `UnknownGoal`; `contains`: those whose
 * names contain the text, in any case), `or`-ed together.
 */
export function withGoals(filters: FilterNode[], goals: Goal[]): FilterNode[] {
  const node = (n: FilterNode): FilterNode => {
    if (isLeaf(n)) {
      if (n.dimension !== GOAL) return n;
      if (n.op === 'is')
        for (const v of n.values)
          if (!goals.some((g) => namesGoal(g, n, v))) throw new UnknownGoal(v);
      const named = goals.filter((g) => n.values.some((v) => namesGoal(g, n, v)));
      // No goal named: the hits of no goal (none).
      if (named.length === 0) return NO_HIT;
      const conditions = named.map(goalFilter);
      return conditions.length === 1
        ? (conditions[0] as FilterNode)
        : { op: 'or', nodes: conditions };
    }
    if ('nodes' in n) return { ...n, nodes: n.nodes.map(node) };
    return 'node' in n ? { ...n, node: node(n.node) } : n;
  };
  return filters.map(node);
}

/** The goals a question's top-level `event:goal` filters name (revenue is counted in theirs). */
export function goalsNamed(filters: FilterNode[], goals: Goal[]): Goal[] {
  const leaves = filters.filter((f) => isLeaf(f) && f.dimension === GOAL);
  return goals.filter((g) =>
    leaves.some((f) => isLeaf(f) && f.values.some((v) => namesGoal(g, f, v))),
  );
}

/** The filters but the top-level ones on goals and properties (a conversion rate's base). */
export function withoutGoals(filters: FilterNode[]): FilterNode[] {
  return filters.filter(
    (f) => !(isLeaf(f) && (f.dimension === GOAL || f.dimension.startsWith('event:props:'))),
  );
}
