/**
 * Goals as questions of the query engine (docs/ARCHITECTURE.md, "Goals"): the hits that
 * complete a goal are a filter — an event goal's custom events of its name, a page goal's
 * page views of the pages its pattern matches — so that a goal's conversions are any metric
 * under that filter, by any dimension, under any other filter.
 */

import type { FilterNode } from '../counting/query.ts';
import { storedEventName } from '../counting/statistics.ts';
import type { GoalRow } from '../db/schema.ts';

/** A goal's definition, as questions read it. */
export type Goal = Pick<GoalRow, 'eventName' | 'pagePath' | 'displayName' | 'currency'>;

/**
 * A page goal's path as an RE2 pattern over recorded pages (a path with its query): `**` any
 * characters, `*` any within a segment, everything else as written; a query after the path
 * still matches (`/pricing` matches `/pricing?plan=pro`).
 */
export function pagePattern(path: string): string {
  const parts = path.split(/(\*\*|\*)/);
  const body = parts
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/?]*' : part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'),
    )
    .join('');
  return `^${body}(\\?.*)?$`;
}

/** The hits that complete `goal`. */
export function goalFilter(goal: Goal): FilterNode {
  return goal.eventName !== null
    ? {
        op: 'is',
        dimension: 'event:name',
        values: [storedEventName(goal.eventName)],
        caseSensitive: true,
      }
    : {
        op: 'matches',
        dimension: 'sl:page',
        values: [pagePattern(goal.pagePath ?? '')],
        caseSensitive: true,
      };
}
