/**
 * The custom properties the statistics page offers (docs/ARCHITECTURE.md, "Custom
 * properties"): the names the range's hits carry under v1's filters, most carried first, read
 * from the website's event log (src/event-log/property-reads.ts) — roll-ups keep no property.
 */
import type { Filter } from '../counting/v1.ts';
import { v1Filters } from '../counting/v1.ts';
import type { Env } from '../env.ts';
import type { PropertyName } from '../event-log/property-reads.ts';

import { fromLog, type Unavailable } from './engine/engine.ts';
import { type Goal, withGoals } from './goals.ts';

/** How many names the page offers at most. */
const SHOWN_NAMES = 20;

/** The property names of a range's hits under `filters` (a goal filter's goals among `goals`). */
export function propertyNamesOf(
  env: Env,
  websiteId: number,
  range: { from: string; to: string },
  filters: Filter[],
  goals: Goal[],
): Promise<PropertyName[] | Unavailable> {
  const question = {
    from: range.from,
    to: range.to,
    filters: withGoals(v1Filters(filters), goals),
    limit: SHOWN_NAMES,
  };
  return fromLog(env, websiteId, (log) => log.propertyNames(question));
}
