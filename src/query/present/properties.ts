/**
 * The custom properties the statistics page offers (docs/ARCHITECTURE.md, "Custom
 * properties"): the names the range's hits carry under v1's filters, most carried first, read
 * from the website's event log (src/website-log/object/read/property-names.ts) — roll-ups keep no property.
 */
import { byCodePoint } from '../../counting/row-order.ts';
import type { PropertyName } from '../../website-log/object/read/property-names.ts';
import { onlyOne } from '../../website-log/worker/partitions.ts';
import { type Goal, withGoals } from '../parse/goal-filters.ts';
import { type Filter, v1Filters } from '../parse/v1.ts';
import type { Reader, Unavailable } from '../run/reader.ts';

/** How many names the page offers at most. */
const SHOWN_NAMES = 20;

/** The property names of a range's hits under `filters` (a goal filter's goals among `goals`). */
export function propertyNamesOf(
  reader: Pick<Reader, 'fromLog'>,
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
  // Several partitions answer every name (with its hits), added up and cut here.
  const whole = { ...question, limit: Number.MAX_SAFE_INTEGER };
  return reader.fromLog(
    range,
    (log, many) => log.propertyNames(many ? whole : question),
    (parts, many) => (many ? topNames(parts.flat(), SHOWN_NAMES) : onlyOne(parts)),
  );
}

/** Names of several partitions' answers added up: the most hits first, then by name. */
function topNames(names: PropertyName[], limit: number): PropertyName[] {
  const hits = new Map<string, number>();
  for (const { name, hits: n } of names) hits.set(name, (hits.get(name) ?? 0) + n);
  return [...hits]
    .map(([name, n]) => ({ name, hits: n }))
    .sort((a, b) => b.hits - a.hits || byCodePoint(a.name, b.name))
    .slice(0, limit);
}
