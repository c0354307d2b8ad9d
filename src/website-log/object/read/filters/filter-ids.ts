/**
 * Between a question's texts and the log's ids (docs/ARCHITECTURE.md, "Filters"): each value
 * of a filter becomes the ids of the dictionary's texts that read as it (`is`), contain it
 * (`contains`) or match it (`matches`: a page goal is one), before any chunk is read — found
 * in turns of the read lane and remembered (./dictionary-search.ts). Leaves `or`-ed on one
 * dimension become one, so a filter of hundreds of goals binds a list or two.
 */
import {
  type FilterLeaf,
  type FilterNode,
  isLeaf,
  type LogQuery,
} from '../../../../counting/query.ts';
import {
  propertyById,
  propertyName,
  type QueryDimension,
  queryDimension,
} from '../../../../counting/query-dimensions.ts';
import type { Dictionary } from '../../tables/dictionary.ts';
import type { LogDb } from '../../tables/log-db.ts';
import type { Step } from '../lane.ts';
import { containing } from '../question-values.ts';
import { DictionarySearch, type Lookup, patternTest } from './dictionary-search.ts';
import type { Resolved } from './filter-sql.ts';

const same = (a: string, b: string, caseSensitive: boolean) =>
  caseSensitive ? a === b : a.toLowerCase() === b.toLowerCase();

/** The lookups of a leaf's values; exact values of a text as stored are found at once (`exact`). */
function lookupsOf(
  dict: Dictionary,
  leaf: FilterLeaf,
  dimension: QueryDimension,
  exact: Set<number>,
): Lookup[] {
  const label = dimension.label;
  const lookups: Lookup[] = [];
  for (const value of leaf.values) {
    const key = (kind: string) => [kind, leaf.dimension, leaf.caseSensitive, value].join('\u0000');
    if (leaf.op === 'matches' || leaf.op === 'matches_not') {
      lookups.push({
        key: key('matches'),
        pattern: value,
        where: null,
        test: patternTest(value, label),
      });
      continue;
    }
    const contains = leaf.op === 'contains' || leaf.op === 'contains_not';
    if (!contains && !label && leaf.caseSensitive) {
      const id = dict.idOf(value);
      if (id !== null) exact.add(id);
      continue;
    }
    // The stored text holds what the dimension reads (a code, a name, a capital letter
    // aside): found in any case by SQL first, then compared as the leaf asks.
    const where =
      contains && leaf.caseSensitive && !label
        ? { text: 'instr(value, ?) > 0', params: [value] }
        : containing(value);
    const cased = leaf.caseSensitive ? value : value.toLowerCase();
    const test = (stored: string) => {
      const read = label ? label(stored) : stored;
      const found =
        read !== null &&
        (contains
          ? !label || (leaf.caseSensitive ? read : read.toLowerCase()).includes(cased)
          : same(read, value, leaf.caseSensitive));
      return { found, work: 1 };
    };
    // Texts that read as something they do not contain are compared by what they read.
    for (const stored of dimension.renamed?.keys() ?? []) {
      const id = dict.idOf(stored);
      if (id !== null && test(stored).found) exact.add(id);
    }
    lookups.push({ key: key(contains ? 'contains' : 'is'), where, test });
  }
  return lookups;
}

/** The leaves of a filter tree, in order. */
function leavesOf(node: FilterNode): FilterLeaf[] {
  if (isLeaf(node)) return [node];
  if ('nodes' in node) return node.nodes.flatMap(leavesOf);
  return 'node' in node ? leavesOf(node.node) : [];
}

/** A filter resolved, or what it comes to when it keeps every row (true) or none (false). */
type Settled = Resolved | boolean;

/**
 * Resolves a log's filter values into ids, in turns of its read lane, remembering what each
 * value found (one per log: its dictionary's).
 */
export class FilterIds {
  private readonly search: DictionarySearch;

  constructor(
    db: LogDb,
    private readonly dict: Dictionary,
  ) {
    this.search = new DictionarySearch(db, dict);
  }

  /**
   * A question's filters (joined by AND), properties named by their ids, as conditions on
   * ids: null when there are none, false when they keep nothing (then no chunk is read).
   */
  async filters(filters: FilterNode[], step: Step): Promise<Resolved | null | false> {
    const named = await step(() => propertiesById(this.dict, { filters }).filters);
    const leaves = named.flatMap(leavesOf);
    const found = await this.leafIds(leaves, step);
    const settled = await step(() => this.settle({ op: 'and', nodes: named }, found));
    return settled === true ? null : settled;
  }

  /**
   * Each filter resolved alone (funnel steps, a journey's page, a grouping's goals): true
   * when it keeps every hit, false when none.
   */
  async each(filters: FilterNode[], step: Step): Promise<Settled[]> {
    const named = await step(() =>
      filters.map((f) => propertiesById(this.dict, { filters: [f] }).filters[0] as FilterNode),
    );
    const found = await this.leafIds(named.flatMap(leavesOf), step);
    return step(() => named.map((f) => this.settle(f, found)));
  }

  /** The ids of the texts that contain `term` in any case (API v1's `search`). */
  async containing(term: string, step: Step): Promise<Set<number>> {
    const lookup: Lookup = {
      key: ['search', term].join('\u0000'),
      where: containing(term),
      test: () => ({ found: true, work: 1 }),
    };
    const found = await this.search.find([lookup], step);
    return new Set(found.get(lookup.key));
  }

  /** The ids each leaf's values name, contain or match. */
  private async leafIds(leaves: FilterLeaf[], step: Step): Promise<Map<FilterLeaf, number[]>> {
    const plans = await step(() =>
      leaves.map((leaf) => {
        const exact = new Set<number>();
        const lookups = lookupsOf(this.dict, leaf, queryDimension(leaf.dimension), exact);
        return { leaf, exact, lookups };
      }),
    );
    const found = await this.search.find(
      plans.flatMap((p) => p.lookups),
      step,
    );
    return new Map(
      plans.map(({ leaf, exact, lookups }) => {
        const ids = new Set(exact);
        for (const l of lookups) for (const id of found.get(l.key) ?? []) ids.add(id);
        return [leaf, [...ids]];
      }),
    );
  }

  /** A filter as conditions on ids, from the ids its leaves found. */
  private settle(node: FilterNode, found: Map<FilterLeaf, number[]>): Settled {
    if (isLeaf(node)) return this.settleLeaf(node, found.get(node) ?? []);
    switch (node.op) {
      case 'and':
      case 'or': {
        const nodes = node.nodes.map((n) => this.settle(n, found));
        const absorbing = node.op !== 'and';
        if (nodes.includes(absorbing)) return absorbing;
        let kept = nodes.filter((n): n is Resolved => typeof n !== 'boolean');
        if (node.op === 'or') kept = mergedLeaves(kept);
        if (kept.length === 0) return !absorbing;
        return kept.length === 1 ? (kept[0] as Resolved) : { kind: node.op, nodes: kept };
      }
      case 'not': {
        const inner = this.settle(node.node, found);
        return typeof inner === 'boolean' ? !inner : { kind: 'not', node: inner };
      }
      case 'scrolled':
        return { kind: 'scrolled', at: node.at };
      default: {
        const inner = this.settle(node.node, found);
        // No visit had a hit the inner filter keeps: none did it, all did not.
        if (inner === false) return node.op === 'has_not_done' ? { kind: 'visits' } : false;
        if (inner === true) return node.op === 'has_done' ? { kind: 'visits' } : false;
        return { kind: node.op, node: inner };
      }
    }
  }

  private settleLeaf(node: FilterLeaf, found: number[]): Settled {
    const dimension = queryDimension(node.dimension);
    const ids = [...found];
    const exact = node.op === 'is' || node.op === 'is_not';
    const none = exact && node.values.some((v) => v === '' || v === dimension.none);
    // No value: no text at all, or an empty one (a visit without a source keeps '').
    const empty = none ? this.dict.idOf('') : null;
    if (empty !== null && !ids.includes(empty)) ids.push(empty);
    const negated = node.op.endsWith('_not');
    if (ids.length === 0 && !none) {
      // Naming nothing the log holds: an `is` keeps nothing; an `is_not` of a hit's value
      // keeps every hit (of a visit's or visitor's, every hit that has a visit or visitor).
      if (!negated) return false;
      if (dimension.level === 'hit') return true;
    }
    return { kind: 'leaf', leaf: node, ids, none };
  }
}

/**
 * Leaves `or`-ed on one dimension, none negated, as one leaf of all their ids: a row has one
 * of the values of any of them exactly when it has one of all of them (the exit page's +1/−1
 * sums likewise). So a filter of hundreds of goals binds two lists, not hundreds.
 */
function mergedLeaves(nodes: Resolved[]): Resolved[] {
  const byDimension = new Map<string, Extract<Resolved, { kind: 'leaf' }>>();
  const out: Resolved[] = [];
  for (const node of nodes) {
    if (node.kind !== 'leaf' || node.leaf.op.endsWith('_not')) {
      out.push(node);
      continue;
    }
    const into = byDimension.get(node.leaf.dimension);
    if (!into) {
      const copy = { ...node, ids: [...node.ids] };
      byDimension.set(node.leaf.dimension, copy);
      out.push(copy);
      continue;
    }
    const ids = new Set(into.ids);
    for (const id of node.ids) if (!ids.has(id)) into.ids.push(id);
    into.none ||= node.none;
  }
  return out;
}

/**
 * A question whose custom properties are named by their names' ids in the dictionary
 * (src/counting/query-dimensions.ts): a name the log never held takes id 0, which no hit has.
 */
export function propertiesById<Q extends Pick<LogQuery, 'filters'> & Partial<LogQuery>>(
  dict: Dictionary,
  q: Q,
): Q {
  const byId = (key: string) => {
    const name = propertyName(key);
    return name === null ? key : propertyById(key, dict.idOf(name) ?? 0);
  };
  const node = (n: FilterNode): FilterNode => {
    if (isLeaf(n)) return { ...n, dimension: byId(n.dimension) };
    if ('nodes' in n) return { ...n, nodes: n.nodes.map(node) };
    return 'node' in n ? { ...n, node: node(n.node) } : n;
  };
  return {
    ...q,
    filters: q.filters.map(node),
    ...(q.groups
      ? {
          groups: q.groups.map((g) => ({
            ...g,
            dimensions: g.dimensions.map(byId),
            order: g.order.map(([key, direction]): [string, 'asc' | 'desc'] => [
              byId(key),
              direction,
            ]),
          })),
        }
      : {}),
  };
}
