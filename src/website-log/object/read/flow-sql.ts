/**
 * The SQL of funnels and journeys over one chunk of whole local dates (docs/ARCHITECTURE.md,
 * "Funnels and journeys"): the rows of the visits the filters keep — a visit is kept whole
 * when the filters keep any of its hits — that the questions read. As ./question-sql.ts, every
 * value is bound, and the conditions come from the registries of src/counting.
 */
import { conditionsOf, type Resolved } from './filters/filter-sql.ts';
import type { Chunk, Statement } from './question-sql.ts';

/** The condition on a chunk's rows and its parameters `?1`…`?4`. */
function chunkRange(chunk: Chunk) {
  return {
    range: 'id BETWEEN ?1 AND ?2 AND day BETWEEN ?3 AND ?4',
    params: [chunk.low, chunk.high, chunk.first, chunk.last],
  };
}

/**
 * A condition for every step (`0` for a step no hit takes: its page or event never seen),
 * and one for the visits the filter keeps (every visit without one).
 */
function conditions(range: string, filter: Resolved | null, steps: (Resolved | false)[]) {
  const taken = steps.filter((s): s is Resolved => s !== false);
  const built = conditionsOf(
    range,
    5,
    filter ? [...taken, { kind: 'has_done', node: filter }] : taken,
  );
  const sql = [...built.sql];
  return {
    steps: steps.map((s) => (s === false ? '0' : (sql.shift() as string))),
    visits: filter ? (sql.shift() as string) : '1',
    params: built.params,
    with: built.tables.length > 0 ? `WITH ${built.tables.join(',\n')}\n` : '',
  };
}

/**
 * A funnel's rows of a chunk, in the log's order: each hit of a kept visit that takes a step,
 * with its visitor of the day and the steps it takes (bit k−1 for step k).
 */
export function funnelStatement(
  filter: Resolved | null,
  steps: (Resolved | false)[],
  chunk: Chunk,
): Statement {
  const { range, params } = chunkRange(chunk);
  const c = conditions(range, filter, steps);
  const mask = c.steps.map((sql, i) => `((${sql}) << ${i})`).join(' | ');
  return {
    text: `${c.with}SELECT day, visitor, (${mask}) AS steps FROM log
      WHERE ${range} AND visitor > 0 AND ${c.visits} AND steps <> 0 ORDER BY id`,
    params: [...params, ...c.params],
  };
}

/**
 * A journey's paths in a chunk: the kept visits that viewed a page of `page` (`id` a resolved
 * leaf on pages), from the first time, with the `steps` pages viewed next (`lead`) or before
 * (`lag`); -1 past the visit's last page view or before its first. Rows: the page, each step's
 * page, the visits.
 */
export function journeyStatement(
  filter: Resolved | null,
  page: Resolved,
  direction: 'next' | 'previous',
  steps: number,
  chunk: Chunk,
): Statement {
  const { range, params } = chunkRange(chunk);
  const c = conditions(range, filter, [page]);
  const onPage = c.steps[0] as string;
  const by = direction === 'next' ? 'lead' : 'lag';
  const columns = Array.from(
    { length: steps },
    (_, i) => `${by}(page, ${i + 1}, -1) OVER o AS s${i + 1}`,
  );
  const keys = Array.from({ length: steps }, (_, i) => `s${i + 1}`);
  return {
    text: `${c.with}SELECT page, ${keys.join(', ')}, count(*) AS visits FROM (
        SELECT page, ${columns.join(', ')},
          sum(${onPage}) OVER (o ROWS UNBOUNDED PRECEDING) AS seen, ${onPage} AS here
        FROM log WHERE ${range} AND kind = 0 AND visit > 0 AND ${c.visits}
          AND (day, visitor, visit) IN (SELECT day, visitor, visit FROM log
            WHERE ${range} AND kind = 0 AND visit > 0 AND ${onPage})
        WINDOW o AS (PARTITION BY day, visitor, visit ORDER BY id))
      WHERE here AND seen = 1 GROUP BY page, ${keys.join(', ')}`,
    params: [...params, ...c.params],
  };
}
