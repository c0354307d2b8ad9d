/**
 * Questions of how visitors move, asked of a website's event log (docs/ARCHITECTURE.md,
 * "Funnels and journeys"): a funnel's visitors per step, and the paths visits took from or to
 * a page. Both read whole visits: the filters choose the visits that had a hit they keep, and
 * every hit of those visits counts.
 */
import type { FilterNode } from './query.ts';

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
