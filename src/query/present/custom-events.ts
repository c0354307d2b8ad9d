/**
 * A range's custom events as the statistics page shows them (docs/ARCHITECTURE.md, "The
 * statistics page"): by name, each with its values, and the visitors a custom property's
 * values are shares of — questions of the query engine over the log (./numbers.ts `Source`).
 */
import type { FilterNode, GroupQuery } from '../../counting/query.ts';
import { type Answer, isUnavailable, type Unavailable } from '../run/reader.ts';
import { eventParts } from './readable.ts';

/**
 * A custom event's name (as people read it: `:` and all) with its visitors and events, and
 * the same of each of its values (`name:value:unit` as stored: the filters' value), most
 * visitors first.
 */
export type EventName = {
  name: string;
  visitors: number;
  events: number;
  values: { stored: string; visitors: number; events: number }[];
};

/** How many of a name's values the statistics page shows inside its row. */
const EVENT_VALUES = 5;

/** The hits that carry a custom property (as Plausible's `is_not (none)`). */
export const carried = (property: string): FilterNode => ({
  op: 'is_not',
  dimension: `event:props:${property}`,
  values: ['(none)'],
  caseSensitive: true,
});

/** Page views are no custom event: `pageview` is their name. */
const PAGE_VIEWS = 'pageview';

const CUSTOM_EVENTS: FilterNode = {
  op: 'is_not',
  dimension: 'event:name',
  values: [PAGE_VIEWS],
  caseSensitive: true,
};

/**
 * A range's custom events by name (`Source.events`), asked with `ask`: the names by visitors,
 * and each name's values (`name:value:unit`) in the same pass. Under the view's filters
 * (`filtered`) they are asked under those alone, page views' name left out of the answer, so
 * that they share the log's one pass with the view's other questions; without any, under a
 * filter of their own, which leaves the page views out before they are grouped.
 */
export async function eventsOf(
  ask: (groups: GroupQuery[], more: FilterNode[]) => Promise<Answer[] | Unavailable>,
  limit: number,
  filtered: boolean,
): Promise<EventName[] | Unavailable> {
  const counted = ['visitors', 'events'];
  const byVisitors: GroupQuery['order'] = [['visitors', 'desc']];
  const answers = await ask(
    [
      // One more: page views may be among the first.
      {
        dimensions: ['event:name'],
        metrics: counted,
        order: byVisitors,
        limit: limit + 1,
        offset: 0,
      },
      {
        dimensions: ['event:name', 'sl:event'],
        metrics: counted,
        order: byVisitors,
        limit: 1_000,
        offset: 0,
      },
    ],
    filtered ? [] : [CUSTOM_EVENTS],
  );
  if (isUnavailable(answers)) return answers;
  const [byName, byValue] = answers;
  const named = (byName?.rows ?? []).filter((row) => row.dimensions[0] !== PAGE_VIEWS);
  return named.slice(0, limit).map((row) => {
    const stored = row.dimensions[0] as string;
    const [visitors = 0, events = 0] = row.metrics.map((m) => m ?? 0);
    const of = (byValue?.rows ?? []).filter((r) => r.dimensions[0] === stored);
    return {
      name: eventParts(stored).name,
      visitors,
      events,
      values: of.slice(0, EVENT_VALUES).map((r) => ({
        stored: r.dimensions[1] as string,
        visitors: r.metrics[0] ?? 0,
        events: r.metrics[1] ?? 0,
      })),
    };
  });
}
