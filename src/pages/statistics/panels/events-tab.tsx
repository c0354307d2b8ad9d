/**
 * The overview's custom events' tab (./panels.tsx): an event a row, its values inside it.
 */
import type { FC } from 'hono/jsx';
import type { Overview } from '../../../query/present/overview.ts';
import { eventParts, formatNumber } from '../../../query/present/readable.ts';
import { type Extra, FilterLink, type View } from '../view.tsx';
import { BarCell, TabActions } from './panel-rows.tsx';

/**
 * The custom events' tab: an event a row — its visitors, events and conversion rate — whose
 * values and units (`purchase` `49` `USD`) open inside it; a value, or a name without any,
 * is a link that filters the overview by it.
 */
export const EventsTab: FC<{ events: Overview['events']; view: View; keep: Extra }> = ({
  events,
  view,
  keep,
}) => {
  if (!events || events.length === 0)
    return (
      <>
        <p class="hint">
          {events === null
            ? 'The event log does not hold this range: choose a more recent one.'
            : 'No custom event in this range.'}
        </p>
        <TabActions name="event" view={view} />
      </>
    );
  const max = Math.max(0, ...events.map((e) => e.visitors));
  return (
    <>
      <table class="events">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col" class="num">
              Visitors
            </th>
            <th scope="col" class="num">
              Events
            </th>
            <th scope="col" class="num" title="Its visitors in percent of the range's">
              Conversion rate
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <EventRows event={e} max={max} view={view} keep={keep} />
          ))}
        </tbody>
      </table>
      <TabActions name="event" view={view} />
    </>
  );
};

/** An event's row, and its values' rows under it when it has values. */
const EventRows: FC<{
  event: NonNullable<Overview['events']>[number];
  max: number;
  view: View;
  keep: Extra;
}> = ({ event, max, view, keep }) => {
  const valued = event.values.filter((v) => eventParts(v.stored).value !== '');
  const plain = valued.length === 0 ? event.values[0]?.stored : undefined;
  return (
    <>
      <tr>
        <BarCell count={event.visitors} max={max}>
          {plain !== undefined ? (
            <FilterLink view={view} keep={keep} dimension="event" value={plain}>
              {event.name}
            </FilterLink>
          ) : (
            <span title={event.name}>{event.name}</span>
          )}
        </BarCell>
        <td class="num">{formatNumber(event.visitors)}</td>
        <td class="num">{formatNumber(event.events)}</td>
        <td class="num">{event.rate}%</td>
      </tr>
      {valued.map((v) => {
        const parts = eventParts(v.stored);
        const text = parts.unit ? `${parts.value} ${parts.unit}` : parts.value;
        return (
          <tr class="event-value">
            <BarCell count={v.visitors} max={max}>
              <FilterLink view={view} keep={keep} dimension="event" value={v.stored}>
                <span class="sr-only">{event.name}: </span>
                {text}
              </FilterLink>
            </BarCell>
            <td class="num">{formatNumber(v.visitors)}</td>
            <td class="num">{formatNumber(v.events)}</td>
            <td class="num" />
          </tr>
        );
      })}
    </>
  );
};
