/**
 * The filters of Plausible's Stats API v2 (docs/ARCHITECTURE.md, "Stats API v2"): trees of
 * `[operator, dimension, clauses, modifiers?]` joined by `and`, `or`, `not`, and the
 * behavioural `has_done` / `has_not_done`, checked and turned into the engine's filters
 * (src/counting/query.ts). Their cost is bounded: so many leaves, clauses and letters folded,
 * patterns of RE2's syntax (src/lib/pattern/pattern.ts: matched in linear time) no longer than so many
 * characters.
 */
import { FILTER_OPERATORS, type FilterNode, type FilterOperator } from '../../../counting/query.ts';
import {
  GOAL,
  isQueryDimension,
  MAX_PROP_NAME,
  propertyName,
  UNANSWERED_DIMENSIONS,
} from '../../../counting/query-dimensions.ts';
import { storedEventName } from '../../../counting/statistics.ts';
import { Pattern, PatternError } from '../../../lib/pattern/pattern.ts';
import {
  foldingsOf,
  MAX_FOLDINGS_PER_QUESTION,
  needsTooManyFoldings,
} from '../../../lib/text/contains-text.ts';
import { isV1FilteredDimension } from '../v1.ts';
import { QueryError } from './query-error.ts';

/** Bounds of one question's filters. */
const MAX_LEAVES = 30;
const MAX_CLAUSES = 100;
const MAX_DEPTH = 6;
const MAX_CLAUSE_LENGTH = 1000;

/**
 * The dimensions a filter may name: those of events and visits, not times; of Sightline's own,
 * those of API v1's filters (`sl:page`…: what a segment saved from the statistics page names).
 */
function isFilterDimension(key: string): boolean {
  return (
    ((key.startsWith('event:') || key.startsWith('visit:')) && isQueryDimension(key)) ||
    (isV1FilteredDimension(key) && isQueryDimension(key))
  );
}

/** Why a dimension that is not one Sightline answers is refused (filters and dimensions alike). */
export function unansweredDimension(key: string): string | null {
  const why = UNANSWERED_DIMENSIONS.get(key);
  if (why) return `Invalid dimension \`${key}\`: ${why}`;
  const property = key.startsWith('event:props:') ? propertyName(key) : null;
  if (key.startsWith('event:props:') && (property === null || property.length > MAX_PROP_NAME))
    return `Invalid dimension \`${key.slice(0, 400)}\`: a custom property's name is 1 to ${MAX_PROP_NAME} characters.`;
  return null;
}

/** What the filters of one question used of its bounds. */
type Budget = { leaves: number; clauses: number; foldings: number };

const shown = (filter: unknown) => JSON.stringify(filter);

function leafOf(filter: unknown[], budget: Budget, behavioural: boolean): FilterNode {
  const [op, dimension, clauses, modifiers, ...rest] = filter;
  // Saved segments are replaced by their filters before (src/segments/segments.ts): one
  // here is inside a segment's own filters.
  if (dimension === 'segment')
    throw new QueryError(`Invalid filter '${shown(filter)}': a segment may not name a segment.`);
  if (typeof dimension !== 'string' || !Array.isArray(clauses) || rest.length > 0)
    throw new QueryError(`Invalid filter '${shown(filter)}'.`);
  const unanswered = unansweredDimension(dimension);
  if (unanswered) throw new QueryError(unanswered);
  const goal = dimension === GOAL;
  if (goal && op !== 'is' && op !== 'contains')
    throw new QueryError(
      `Invalid filter '${shown(filter)}': a goal is filtered with is or contains.`,
    );
  if (!goal && !isFilterDimension(dimension))
    throw new QueryError(`Invalid filter '${shown(filter)}'.`);
  if (behavioural && !dimension.startsWith('event:'))
    throw new QueryError(
      'Invalid filters. Behavioral filters (has_done, has_not_done) can only be used with event dimension filters.',
    );
  const pattern = op === 'matches' || op === 'matches_not';
  let caseSensitive = true;
  if (modifiers !== undefined) {
    if (pattern)
      throw new QueryError(
        `Invalid filters. The case_sensitive modifier is not allowed with pattern operators (${shown(filter)}).`,
      );
    const keys = typeof modifiers === 'object' && modifiers !== null ? Object.keys(modifiers) : [];
    const value = (modifiers as { case_sensitive?: unknown } | null)?.case_sensitive;
    if (
      keys.some((k) => k !== 'case_sensitive') ||
      (value !== undefined && typeof value !== 'boolean')
    )
      throw new QueryError(`Invalid filter '${shown(filter)}'.`);
    caseSensitive = value !== false;
  }
  if (
    clauses.length === 0 ||
    !clauses.every((c) => typeof c === 'string' && c.length <= MAX_CLAUSE_LENGTH)
  )
    throw new QueryError(`Invalid filter '${shown(filter)}'.`);
  // An event's name is compared as the log keeps it (`:` as U+A789).
  const values =
    dimension === 'event:name' ? (clauses as string[]).map(storedEventName) : (clauses as string[]);
  if (
    dimension === 'visit:country' &&
    (op === 'is' || op === 'is_not') &&
    !values.every((v) => /^[A-Za-z]{2}$/.test(v))
  )
    throw new QueryError(
      'Invalid visit:country filter, visit:country needs to be a valid 2-letter country code.',
    );
  budget.leaves++;
  budget.clauses += values.length;
  if (budget.leaves > MAX_LEAVES || budget.clauses > MAX_CLAUSES)
    throw new QueryError(
      `Invalid filters. A question may have at most ${MAX_LEAVES} filters and ${MAX_CLAUSES} clauses in all.`,
    );
  for (const value of values) {
    if (pattern) {
      try {
        new Pattern(value);
      } catch (err) {
        if (!(err instanceof PatternError)) throw err;
        throw new QueryError(`Invalid filter '${shown(filter)}': ${err.message}.`);
      }
    } else if (!caseSensitive) {
      budget.foldings += foldingsOf(value);
      if (needsTooManyFoldings(value) || budget.foldings > MAX_FOLDINGS_PER_QUESTION)
        throw new QueryError(
          `Invalid filters. The letters outside ASCII compared in any case are too many (at most ${MAX_FOLDINGS_PER_QUESTION} spellings in all).`,
        );
    }
  }
  return { op: op as FilterOperator, dimension, values, caseSensitive };
}

function nodeOf(filter: unknown, budget: Budget, depth: number, behavioural: boolean): FilterNode {
  if (!Array.isArray(filter) || filter.length === 0)
    throw new QueryError(`Invalid filter '${shown(filter)}'.`);
  if (depth > MAX_DEPTH)
    throw new QueryError(`Invalid filters. Filters may be nested at most ${MAX_DEPTH} deep.`);
  const [op, ...args] = filter;
  if (op === 'and' || op === 'or') {
    const [nodes] = args;
    if (args.length !== 1 || !Array.isArray(nodes) || nodes.length === 0)
      throw new QueryError(`Invalid filter '${shown(filter)}'.`);
    return { op, nodes: nodes.map((n) => nodeOf(n, budget, depth + 1, behavioural)) };
  }
  if (op === 'not') {
    if (args.length !== 1) throw new QueryError(`Invalid filter '${shown(filter)}'.`);
    return { op, node: nodeOf(args[0], budget, depth + 1, behavioural) };
  }
  if (op === 'has_done' || op === 'has_not_done') {
    if (behavioural)
      throw new QueryError(
        'Invalid filters. Behavioral filters (has_done, has_not_done) cannot be nested.',
      );
    if (args.length !== 1) throw new QueryError(`Invalid filter '${shown(filter)}'.`);
    return { op, node: nodeOf(args[0], budget, depth + 1, true) };
  }
  if (typeof op !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(op))
    throw new QueryError(`Unknown operator for filter '${shown(filter)}'.`);
  const leaf = leafOf(filter, budget, behavioural);
  const dimension = (leaf as { dimension: string }).dimension;
  if (depth > 0 && !behavioural && (dimension === 'event:hostname' || dimension === GOAL))
    throw new QueryError(
      `Invalid filters. Dimension \`${dimension}\` can only be filtered at the top level.`,
    );
  return leaf;
}

/** The filters of a question (joined by AND), checked; a `QueryError` saying what is wrong. */
export function parseV2Filters(filters: unknown): FilterNode[] {
  if (filters === undefined) return [];
  if (!Array.isArray(filters)) throw new QueryError(`Invalid filters '${shown(filters)}'.`);
  const budget: Budget = { leaves: 0, clauses: 0, foldings: 0 };
  return filters.map((f) => nodeOf(f, budget, 0, false));
}

/** Whether a question's top-level filters name `event:page` (as some metrics ask). */
export function filtersPage(filters: FilterNode[]): boolean {
  return filters.some((f) => 'dimension' in f && f.dimension === 'event:page');
}
