/**
 * Funnels and journeys as API v1 and the statistics page answer them (docs/ARCHITECTURE.md,
 * "Funnels and journeys"): a saved funnel's steps made filters of the hits that take them (a
 * page pattern's page views, a custom event, a goal's conversions: src/query/parse/goal-filters.ts), asked of the
 * website's event log under v1's filters, which choose the visits; the log counts
 * (src/website-log/object/read/flows.ts), the rates are worked out here.
 */

import {
  type FunnelQuery,
  type FunnelStep,
  type JourneyAnswer,
  type JourneyQuery,
  mergeFunnels,
  mergeJourneys,
} from '../counting/flow-queries.ts';
import type { FilterNode } from '../counting/query.ts';
import { percentOf } from '../counting/query-metrics.ts';
import type { Env } from '../env.ts';
import {
  eventFilter,
  type Goal,
  goalFilter,
  NO_HIT,
  pageFilter,
  withGoals,
} from '../query/parse/goal-filters.ts';
import { type Filter, v1Filters } from '../query/parse/v1.ts';
import { fromLog, type Unavailable } from '../query/run/reader.ts';
import type { PartRead } from '../website-log/answers.ts';
import { onlyOne, type websiteLog } from '../website-log/worker/partitions.ts';

type Dates = { from: string; to: string };

/** The hits that take a step; a goal the website no longer has is taken by none. */
function stepFilter(step: FunnelStep, goals: Goal[]): FilterNode {
  if ('page' in step) return pageFilter(step.page);
  if ('event' in step) return eventFilter(step.event);
  const goal = goals.find((g) => g.displayName === step.goal);
  return goal ? goalFilter(goal) : NO_HIT;
}

/** What a step shows: its page pattern, its event's name or its goal's. */
const stepLabel = (step: FunnelStep): string =>
  'page' in step ? step.page : 'event' in step ? step.event : step.goal;

/** A step of a funnel's answer. */
export type FunnelStepAnswer = {
  step: number;
  label: string;
  visitors: number;
  /** Percent of the first step's visitors, to two decimals. */
  conversion_rate: number;
  /** Visitors of the step before who did not take this one, and their percent of them. */
  dropoff: number;
  dropoff_rate: number;
};

/** A funnel's steps with their visitors, conversion and drop-off. */
function funnelSteps(steps: FunnelStep[], visitors: number[]): FunnelStepAnswer[] {
  const first = visitors[0] ?? 0;
  return steps.map((step, i) => {
    const here = visitors[i] ?? 0;
    const before = i === 0 ? here : (visitors[i - 1] ?? 0);
    return {
      step: i + 1,
      label: stepLabel(step),
      visitors: here,
      conversion_rate: i === 0 ? (first > 0 ? 100 : 0) : percentOf(here, first, 2),
      dropoff: before - here,
      dropoff_rate: percentOf(before - here, before, 2),
    };
  });
}

/** A funnel's question to the log: its steps and v1's filters as the engine's. */
export function funnelQuestion(
  steps: FunnelStep[],
  range: Dates,
  filters: Filter[],
  goals: Goal[],
): FunnelQuery {
  return {
    from: range.from,
    to: range.to,
    filters: withGoals(v1Filters(filters), goals),
    steps: steps.map((step) => stepFilter(step, goals)),
  };
}

/** A funnel's steps over a range under v1's filters (a goal filter's goals among `goals`). */
export async function funnelOf(
  env: Env,
  websiteId: number,
  funnel: { steps: FunnelStep[] },
  range: Dates,
  filters: Filter[],
  goals: Goal[],
): Promise<FunnelStepAnswer[] | Unavailable> {
  const q = funnelQuestion(funnel.steps, range, filters, goals);
  const visitors = await fromLog(
    env,
    websiteId,
    range,
    (log) => log.funnel(q),
    (parts) => mergeFunnels(parts),
  );
  return Array.isArray(visitors) ? funnelSteps(funnel.steps, visitors) : visitors;
}

/**
 * How a journey is asked of a website's log: each partition's paths (a visit lies in one),
 * added up and paged — by the open partition itself, with the closed ones' paths it keeps,
 * for a journey asked again (src/website-log/worker/partitions.ts).
 */
export function journeyReads(question: JourneyQuery) {
  const whole = { ...question, offset: 0, limit: Number.MAX_SAFE_INTEGER };
  type Over = PartRead<{ answer: JourneyAnswer } | { own: JourneyAnswer; keep: boolean }>;
  return {
    read: (log: ReturnType<typeof websiteLog>, many: boolean) =>
      log.journeys(many ? whole : question),
    merge: (parts: JourneyAnswer[], many: boolean) =>
      many ? mergeJourneys(question, parts) : onlyOne(parts),
    over: {
      ask: (open: ReturnType<typeof websiteLog>, closed: string) =>
        open.journeysOverClosed(question, closed) as Promise<Over>,
      keep: (open: ReturnType<typeof websiteLog>, closed: string, paths: JourneyAnswer) =>
        open.keepClosedJourneys(question, closed, paths),
      add: (parts: JourneyAnswer[]) => mergeJourneys(whole, parts),
    },
  };
}

/** A page of the paths visits took from or to a page, under v1's filters. */
export function journeysOf(
  env: Env,
  websiteId: number,
  q: Omit<JourneyQuery, 'filters'>,
  filters: Filter[],
  goals: Goal[],
): Promise<JourneyAnswer | Unavailable> {
  const { read, merge, over } = journeyReads({
    ...q,
    filters: withGoals(v1Filters(filters), goals),
  });
  return fromLog(env, websiteId, q, read, merge, over);
}
