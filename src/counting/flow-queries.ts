/**
 * Questions of how visitors move, asked of a website's event log (docs/ARCHITECTURE.md,
 * "Funnels and journeys"): a funnel's visitors per step, and the paths visits took from or to
 * a page. Both read whole visits: the filters choose the visits that had a hit they keep, and
 * every hit of those visits counts.
 */
import type { FilterNode } from './query.ts';
import { byCodePoint } from './row-order.ts';

/** A saved funnel's step: a page or pattern (`*` within a segment, `**` across), a custom event, a goal. */
export type FunnelStep = { page: string } | { event: string } | { goal: string };

/** The most steps a funnel has, and the fewest. */
export const FUNNEL_STEPS = { min: 2, max: 8 } as const;

/**
 * A funnel: each step is the hits that take it (a page pattern's page views, a custom event,
 * a goal's conversions). A visitor of a day takes step k when, that day, they took steps
 * 1…k in that order, in any of their visits the filters keep.
 */
export type FunnelQuery = {
  /** Local dates, inclusive. */
  from: string;
  to: string;
  /** Joined by AND. */
  filters: FilterNode[];
  steps: FilterNode[];
};

/** The most pages a journey follows beyond its own. */
export const JOURNEY_STEPS = 3;

/** What a path shows past a visit's last page view, or before its first. */
export const EXIT = '(exit)';
export const ENTRANCE = '(entrance)';

/**
 * The paths of the visits that viewed `page`, from the first time they viewed it: the
 * `steps` pages they viewed next (or before, for `previous`), cut at the visit's end.
 */
export type JourneyQuery = {
  from: string;
  to: string;
  filters: FilterNode[];
  page: string;
  direction: 'next' | 'previous';
  /** 1 to `JOURNEY_STEPS`. */
  steps: number;
  /** By visits (ties by path) or by path, as API v1's statistics sort (`count`, `value`). */
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
};

/** A path, in the order the visits walked it, and how many visits took it. */
export type JourneyRow = { path: string[]; visits: number };

/** A page of paths, and how many paths there are in all. */
export type JourneyAnswer = { rows: JourneyRow[]; total: number };

/** A journey's rows sorted as it asks (by visits, ties by path; or by path) and paged. */
export function pageOfJourneys(q: JourneyQuery, rows: JourneyRow[]): JourneyAnswer {
  const keys = new Map(rows.map((row) => [row, row.path.join('\u0000')]));
  const sign = q.sort === 'asc' ? 1 : -1;
  const byPath = (a: JourneyRow, b: JourneyRow) =>
    byCodePoint(keys.get(a) as string, keys.get(b) as string);
  rows.sort((a, b) =>
    q.sortBy === 'value' ? sign * byPath(a, b) : sign * (a.visits - b.visits) || byPath(a, b),
  );
  return { rows: rows.slice(q.offset, q.offset + q.limit), total: rows.length };
}

/**
 * A journey's paths from several partitions of a log (each answered whole: offset 0, every
 * row), added together by path — a visit lies in one partition — then sorted and paged.
 */
export function mergeJourneys(q: JourneyQuery, parts: JourneyAnswer[]): JourneyAnswer {
  const paths = new Map<string, JourneyRow>();
  for (const part of parts)
    for (const row of part.rows) {
      const key = row.path.join('\u0000');
      const known = paths.get(key);
      if (known) known.visits += row.visits;
      else paths.set(key, { path: row.path, visits: row.visits });
    }
  return pageOfJourneys(q, [...paths.values()]);
}

/** A funnel's visitors per step from several partitions: a visitor-day lies in one. */
export const mergeFunnels = (parts: number[][]): number[] =>
  (parts[0] ?? []).map((_, step) => parts.reduce((n, part) => n + (part[step] ?? 0), 0));
