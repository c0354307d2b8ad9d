/**
 * A request to `POST /api/v2/query` (Plausible's Stats API v2; docs/ARCHITECTURE.md, "Stats
 * API v2") checked and made a question of the query engine: metrics, dimensions (`time`
 * resolved by the range's length), filters, the range in the website's time zone, the order
 * (Plausible's default when none), what to include and the page. Anything malformed is a
 * `QueryError` whose message says what, as Plausible's do.
 */

import type { FilterNode } from '../../../counting/query.ts';
import { GOAL, QUERY_DIMENSIONS } from '../../../counting/query-dimensions.ts';
import { daysBetween } from '../../../lib/time/dates.ts';
import { type ComparisonsInclude, comparisonsOf } from './comparisons.ts';
import { type DateRange, type RangeContext, resolveDateRange } from './date-range.ts';
import { filtersPage, parseV2Filters, unansweredDimension } from './filters.ts';
import { QueryError } from './query-error.ts';

/** The metrics Sightline answers, in Plausible's names. */
export const METRICS = [
  'visitors',
  'visits',
  'pageviews',
  'views_per_visit',
  'bounce_rate',
  'visit_duration',
  'events',
  'percentage',
  'conversion_rate',
  'group_conversion_rate',
  'total_revenue',
  'average_revenue',
  'time_on_page',
  'scroll_depth',
];

/** Metrics of Plausible's that Sightline cannot answer (yet), and why. */
const UNANSWERED_METRICS = new Map([['exit_rate', 'is not measured by Sightline']]);

const SESSION_METRICS = ['bounce_rate', 'visit_duration', 'views_per_visit'];
const EVENT_METRICS = ['pageviews', 'events', 'time_on_page', 'scroll_depth'];
const SESSION_DIMENSIONS = [
  'visit:entry_page',
  'visit:entry_page_hostname',
  'visit:exit_page',
  'visit:exit_page_hostname',
];
/** Event dimensions the visit metrics can be grouped by (a visit by its entry page or host). */
const SESSION_GROUPED_EVENTS = ['event:page', 'event:hostname'];
const TIME_DIMENSIONS = ['time', 'time:hour', 'time:day', 'time:week', 'time:month'];

/**
 * The dimensions a question may ask for: the events' and visits' of the registry, and time
 * (and goals, which need the website's goals: `GOAL`).
 */
export const DIMENSIONS = [
  ...[...QUERY_DIMENSIONS.keys()].filter(
    (d) => (d.startsWith('event:') || d.startsWith('visit:')) && d !== GOAL,
  ),
  ...TIME_DIMENSIONS,
];
const KEYS = [
  'site_id',
  'metrics',
  'date_range',
  'dimensions',
  'filters',
  'order_by',
  'include',
  'pagination',
];
const MAX_DIMENSIONS = 3;
const MAX_LIMIT = 10_000;

type Include = {
  imports?: boolean;
  time_labels?: boolean;
  total_rows?: boolean;
  /** Sightline's answer to Plausible's internal comparisons (./comparisons.ts). */
  comparisons?: ComparisonsInclude;
};

export type V2Query = {
  siteId: string;
  metrics: string[];
  /** As asked (echoed), and with `time` resolved (what the engine groups by). */
  dimensions: string[];
  grouped: string[];
  filters: FilterNode[];
  /** The filters as asked, echoed. */
  asked: unknown[];
  range: DateRange;
  order: [string, 'asc' | 'desc'][];
  include: Include;
  pagination: { offset: number; limit: number };
};

const list = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');

/** `site_id` of a request: the website's domain. */
export function siteIdOf(body: unknown): string {
  const id = (body as { site_id?: unknown } | null)?.site_id;
  if (typeof id !== 'string' || id === '')
    throw new QueryError(
      'Missing site ID. Please provide the required site_id parameter with your request.',
    );
  return id;
}

function metricsOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new QueryError('#/metrics: Expected a list of at least one metric.');
  const metrics: string[] = [];
  for (const m of value) {
    if (typeof m !== 'string') throw new QueryError(`Unknown metric '${JSON.stringify(m)}'.`);
    const why = UNANSWERED_METRICS.get(m);
    if (why) throw new QueryError(`Metric \`${m}\` ${why}.`);
    if (!METRICS.includes(m)) throw new QueryError(`Unknown metric '${JSON.stringify(m)}'.`);
    if (metrics.includes(m)) throw new QueryError(`#/metrics: Metric \`${m}\` is given twice.`);
    metrics.push(m);
  }
  return metrics;
}

function dimensionsOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new QueryError(`Invalid dimensions '${JSON.stringify(value)}'`);
  const dimensions: string[] = [];
  for (const d of value) {
    if (typeof d !== 'string') throw new QueryError(`Invalid dimension ${JSON.stringify(d)}`);
    const why = unansweredDimension(d);
    if (why) throw new QueryError(why);
    if (!DIMENSIONS.includes(d) && !d.startsWith('event:props:') && d !== GOAL)
      throw new QueryError(`Invalid dimension ${JSON.stringify(d)}`);
    if (dimensions.includes(d))
      throw new QueryError(`Invalid dimensions: \`${d}\` is given twice.`);
    dimensions.push(d);
  }
  if (dimensions.length > MAX_DIMENSIONS)
    throw new QueryError(`Invalid dimensions: at most ${MAX_DIMENSIONS} can be combined.`);
  if (dimensions.filter((d) => TIME_DIMENSIONS.includes(d)).length > 1)
    throw new QueryError('Invalid dimensions: at most one time dimension can be used.');
  return dimensions;
}

/** `time` as the range's length asks: by hour up to two days, day, week up to a year, month. */
function resolveTime(range: DateRange): string {
  const days = daysBetween(range.from, range.to);
  return days <= 2
    ? 'time:hour'
    : days <= 40
      ? 'time:day'
      : days <= 364
        ? 'time:week'
        : 'time:month';
}

/** Plausible's combinations that cannot be answered together. */
function checkCombinations(metrics: string[], dimensions: string[], filters: FilterNode[]): void {
  if (metrics.includes('views_per_visit')) {
    if (dimensions.length > 0)
      throw new QueryError('Metric `views_per_visit` cannot be queried with `dimensions`.');
    if (filtersPage(filters))
      throw new QueryError(
        'Metric `views_per_visit` cannot be queried with a filter on `event:page`.',
      );
  }
  const session = metrics.filter((m) => SESSION_METRICS.includes(m));
  const events = dimensions.filter(
    (d) => d.startsWith('event:') && !SESSION_GROUPED_EVENTS.includes(d),
  );
  if (session.length > 0 && events.length > 0)
    throw new QueryError(
      `Session metric(s) ${list(session)} cannot be queried along with event dimension(s) ${list(events)}`,
    );
  for (const m of ['scroll_depth', 'time_on_page'])
    if (metrics.includes(m) && !dimensions.includes('event:page') && !filtersPage(filters))
      throw new QueryError(
        `Metric \`${m}\` can only be queried with event:page filters or dimensions.`,
      );
  const goals =
    dimensions.includes(GOAL) || filters.some((f) => 'dimension' in f && f.dimension === GOAL);
  for (const m of ['conversion_rate', 'group_conversion_rate', 'total_revenue', 'average_revenue'])
    if (metrics.includes(m) && !goals)
      throw new QueryError(
        `Metric \`${m}\` can only be queried with event:goal filters or dimensions.`,
      );
  const eventMetrics = metrics.filter((m) => EVENT_METRICS.includes(m));
  const sessionDims = dimensions.filter((d) => SESSION_DIMENSIONS.includes(d));
  if (eventMetrics.length > 0 && sessionDims.length > 0)
    throw new QueryError(
      `Event metric(s) ${list(eventMetrics)} cannot be queried along with session dimension(s) ${list(sessionDims)}`,
    );
}

function orderOf(value: unknown, q: Pick<V2Query, 'metrics' | 'dimensions' | 'grouped'>) {
  const time = q.grouped.find((d) => d.startsWith('time:'));
  if (value === undefined) {
    const first: [string, 'asc' | 'desc'] = [q.metrics[0] as string, 'desc'];
    return time ? [[time, 'asc'] as [string, 'asc' | 'desc'], first] : [first];
  }
  if (!Array.isArray(value)) throw new QueryError(`Invalid order_by '${JSON.stringify(value)}'.`);
  return value.map((entry): [string, 'asc' | 'desc'] => {
    const [key, direction] = Array.isArray(entry) ? entry : [];
    if (
      !Array.isArray(entry) ||
      entry.length !== 2 ||
      typeof key !== 'string' ||
      (direction !== 'asc' && direction !== 'desc')
    )
      throw new QueryError(`Invalid order_by entry '${JSON.stringify(entry)}'.`);
    const at = q.dimensions.indexOf(key);
    if (!q.metrics.includes(key) && at < 0)
      throw new QueryError(
        `Invalid order_by entry '${JSON.stringify(entry)}'. Entry is not a queried metric or dimension.`,
      );
    return [at >= 0 ? (q.grouped[at] as string) : key, direction];
  });
}

function includeOf(value: unknown, grouped: string[]): Include {
  if (value === undefined) return {};
  const keys = ['imports', 'time_labels', 'total_rows'];
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    Object.entries(value).some(
      ([k, v]) => k !== 'comparisons' && (!keys.includes(k) || typeof v !== 'boolean'),
    )
  )
    throw new QueryError(`Invalid include '${JSON.stringify(value)}'.`);
  const include = { ...value } as Include;
  const comparisons = (value as { comparisons?: unknown }).comparisons;
  if (comparisons !== undefined) include.comparisons = comparisonsOf(comparisons, grouped);
  if (include.time_labels && !grouped.some((d) => d.startsWith('time:')))
    throw new QueryError('Invalid include.time_labels: requires a time dimension.');
  return include;
}

function paginationOf(value: unknown): { offset: number; limit: number } {
  if (value === undefined) return { offset: 0, limit: MAX_LIMIT };
  const p = value as { limit?: unknown; offset?: unknown };
  const limit = p?.limit ?? MAX_LIMIT;
  const offset = p?.offset ?? 0;
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.keys(value).some((k) => k !== 'limit' && k !== 'offset') ||
    !Number.isInteger(limit) ||
    (limit as number) < 1 ||
    (limit as number) > MAX_LIMIT ||
    !Number.isInteger(offset) ||
    (offset as number) < 0
  )
    throw new QueryError(
      `Invalid pagination '${JSON.stringify(value)}': limit is 1 to ${MAX_LIMIT}, offset 0 or more.`,
    );
  return { offset: offset as number, limit: limit as number };
}

/** A request body checked and resolved in the website's context. */
export function parseQuery(body: unknown, ctx: RangeContext): V2Query {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new QueryError('Invalid request: the body must be a JSON object.');
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  if (unknown) throw new QueryError(`Invalid request: unknown key ${JSON.stringify(unknown)}.`);
  const b = body as Record<string, unknown>;
  const siteId = siteIdOf(b);
  const metrics = metricsOf(b.metrics);
  if (b.date_range === undefined)
    throw new QueryError('#/date_range: Required property is missing.');
  const range = resolveDateRange(b.date_range, ctx);
  const dimensions = dimensionsOf(b.dimensions);
  const grouped = dimensions.map((d) => (d === 'time' ? resolveTime(range) : d));
  const filters = parseV2Filters(b.filters);
  checkCombinations(metrics, grouped, filters);
  const shape = { metrics, dimensions, grouped };
  return {
    siteId,
    metrics,
    dimensions,
    grouped,
    filters,
    asked: (b.filters as unknown[] | undefined) ?? [],
    range,
    order: orderOf(b.order_by, shape),
    include: includeOf(b.include, grouped),
    pagination: paginationOf(b.pagination),
  };
}
