/**
 * Filtered statistics worked out from the raw hits of a log, in plain code, as
 * docs/ARCHITECTURE.md ("Filters") defines them: the reference the log's reads are compared
 * with. Nothing here shares code with src/website-log/ but the types.
 */

import type { StatName } from '../../src/counting/statistics.ts';
import type { Filter } from '../../src/query/parse/v1.ts';
import type { LoggedEvent } from '../../src/website-log/events.ts';

type Visit = { start: LoggedEvent; views: LoggedEvent[] };

/** Each visitor of a day's first page view, and each visit's page views, by their keys. */
function groups(events: LoggedEvent[]) {
  const visitors = new Map<string, LoggedEvent>();
  const visits = new Map<string, Visit>();
  for (const e of events) {
    if (e.kind !== 'pageview') continue;
    if (e.newVisitor) visitors.set(`${e.date} ${e.visitor}`, e);
    const key = `${e.date} ${e.visitor} ${e.visit}`;
    const visit = visits.get(key);
    if (e.newVisit) visits.set(key, { start: e, views: [e, ...(visit?.views ?? [])] });
    else if (visit) visit.views.push(e);
    else visits.set(key, { start: e, views: [e] });
  }
  for (const visit of visits.values()) visit.views.sort((a, b) => a.id - b.id);
  return { visitors, visits };
}

const VISITOR_VALUES = [
  'country',
  'continent',
  'city',
  'language',
  'browser',
  'os',
  'device',
  'resolution',
] as const;

/** Whether `value` is what a filter asks (`contains`: in any case, as JavaScript folds it). */
function matches(value: string | null, filter: Filter): boolean {
  const is =
    value !== null &&
    (filter.operator === 'contains'
      ? value.toLowerCase().includes(filter.value.toLowerCase())
      : value === filter.value);
  return filter.operator === 'not' ? !is : is;
}

/**
 * Whether the filters keep a hit of `events` (a hit's visit and visitor are read among
 * them: the events of the range).
 */
export function keptByFilters(
  events: LoggedEvent[],
  filters: Filter[],
): (e: LoggedEvent) => boolean {
  const { visitors, visits } = groups(events);
  const visitOf = (e: LoggedEvent) =>
    e.visit > 0 ? visits.get(`${e.date} ${e.visitor} ${e.visit}`) : undefined;
  const visitorOf = (e: LoggedEvent) =>
    e.visitor > 0 ? visitors.get(`${e.date} ${e.visitor}`) : undefined;
  const keeps = (e: LoggedEvent, f: Filter): boolean => {
    switch (f.dimension) {
      case 'page': {
        const hit =
          e.kind === 'pageview' &&
          matches(e.page, { ...f, operator: f.operator === 'not' ? 'is' : f.operator });
        return f.operator === 'not' ? !hit : hit;
      }
      case 'event': {
        const hit =
          e.kind === 'event' &&
          matches(e.event, { ...f, operator: f.operator === 'not' ? 'is' : f.operator });
        return f.operator === 'not' ? !hit : hit;
      }
      case 'landing_page':
      case 'referrer':
      case 'campaign':
      case 'exit_page': {
        const visit = visitOf(e);
        if (!visit) return false;
        const value =
          f.dimension === 'landing_page'
            ? visit.start.page
            : f.dimension === 'exit_page'
              ? (visit.views.at(-1)?.page ?? null)
              : visit.start[f.dimension];
        return matches(value, f);
      }
      default: {
        const first = visitorOf(e);
        const dimension = f.dimension as Exclude<Filter['dimension'], `props:${string}`>;
        return (
          first !== undefined && matches(first[dimension as keyof typeof first] as string | null, f)
        );
      }
    }
  };
  return (e) => filters.every((f) => keeps(e, f));
}

/** The counts per value of a statistic over the hits of `from`–`to` the filters keep. */
export function referenceStatistic(
  all: LoggedEvent[],
  name: StatName,
  from: string,
  to: string,
  filters: Filter[],
): Record<string, number> {
  const events = all.filter((e) => e.date >= from && e.date <= to);
  const { visitors, visits } = groups(events);
  const visitOf = (e: LoggedEvent) =>
    e.visit > 0 ? visits.get(`${e.date} ${e.visitor} ${e.visit}`) : undefined;
  const visitorOf = (e: LoggedEvent) =>
    e.visitor > 0 ? visitors.get(`${e.date} ${e.visitor}`) : undefined;
  const keeps = keptByFilters(events, filters);
  const kept = events.filter(keeps);
  const out: Record<string, number> = {};
  const add = (value: string | null, by = 1) => {
    if (value === null || value === '') return;
    out[value] = (out[value] ?? 0) + by;
  };
  const keptVisitors = new Map<string, LoggedEvent>();
  const keptVisits = new Map<string, Visit>();
  for (const e of kept) {
    const first = visitorOf(e);
    if (first) keptVisitors.set(`${e.date} ${e.visitor}`, first);
    const visit = visitOf(e);
    if (visit) keptVisits.set(`${e.date} ${e.visitor} ${e.visit}`, visit);
  }
  switch (name) {
    case 'pageviews':
    case 'pageviews_hours':
    case 'page':
      for (const e of kept)
        if (e.kind === 'pageview')
          add(name === 'pageviews' ? e.date : name === 'page' ? e.page : e.hour);
      break;
    case 'event':
      for (const e of kept) if (e.kind === 'event') add(e.event);
      break;
    case 'visitors':
    case 'visitors_hours':
      for (const first of keptVisitors.values()) add(name === 'visitors' ? first.date : first.hour);
      break;
    case 'visits':
    case 'visits_hours':
    case 'landing_page':
    case 'referrer':
    case 'campaign':
      for (const { start } of keptVisits.values())
        add(
          name === 'visits'
            ? start.date
            : name === 'visits_hours'
              ? start.hour
              : name === 'landing_page'
                ? start.page
                : start[name],
        );
      break;
    case 'bounces':
      for (const visit of keptVisits.values()) if (visit.views.length === 1) add(visit.start.date);
      break;
    case 'visit_duration':
      for (const visit of keptVisits.values())
        add(
          visit.start.date,
          visit.views.reduce((sum, v) => sum + v.visitSeconds, 0),
        );
      break;
    case 'exit_page':
      for (const visit of keptVisits.values()) add(visit.views.at(-1)?.page ?? null);
      break;
    default:
      if ((VISITOR_VALUES as readonly string[]).includes(name))
        for (const first of keptVisitors.values())
          add(first[name as (typeof VISITOR_VALUES)[number]]);
  }
  for (const [value, count] of Object.entries(out)) if (count <= 0) delete out[value];
  return out;
}
