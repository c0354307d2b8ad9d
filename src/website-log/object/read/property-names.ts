/**
 * The names of the custom properties a website's hits carry (docs/ARCHITECTURE.md, "Custom
 * properties"), read from its log in the chunks every read takes (./question-chunks.ts): for a range
 * under filters, each name with the hits that carry it, most carried first — what the
 * statistics page offers to show. A hit keeps its properties as `{"<name's id>": <value's
 * id>}`, so a chunk's names are counted from those keys and decoded once at the end.
 */
import type { FilterNode } from '../../../counting/query.ts';
import { byCodePoint } from '../../../counting/row-order.ts';
import type { LogRead } from '../../answers.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { LogDb } from '../tables/log-db.ts';
import { conditionsOf, type Resolved } from './filters/filter-sql.ts';
import type { ReadLane } from './lane.ts';
import type { LogReader } from './question-chunks.ts';
import type { Chunk, Statement } from './question-sql.ts';

/** A question for the names: a range of local dates, filters, and how many names at most. */
export type PropertyNamesQuery = {
  from: string;
  to: string;
  filters: FilterNode[];
  limit: number;
};

/** A property's name and the hits of the range that carry it. */
export type PropertyName = { name: string; hits: number };

/** A chunk's property names (their ids) with the hits the filter keeps that carry each. */
function propertyNamesStatement(filter: Resolved | null, chunk: Chunk): Statement {
  const range = 'id BETWEEN ?1 AND ?2 AND day BETWEEN ?3 AND ?4';
  const built = conditionsOf(range, 5, filter ? [filter] : []);
  const kept = built.sql[0] ?? '1';
  const tables = built.tables.length > 0 ? `WITH ${built.tables.join(',\n')}\n` : '';
  return {
    // The rows first, then their keys: `json_each` has columns of its own (`id`, …).
    text: `${tables}SELECT p.key, count(*) FROM
        (SELECT props FROM log WHERE ${range} AND props IS NOT NULL AND ${kept}) AS l,
        json_each(l.props) AS p
      GROUP BY p.key`,
    params: [chunk.low, chunk.high, chunk.first, chunk.last, ...built.params],
  };
}

export class PropertyReader {
  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
    private readonly lane: ReadLane,
    private readonly reader: LogReader,
  ) {}

  /** The names the range's kept hits carry, most hits first (ties by name), at most `limit`. */
  names(q: PropertyNamesQuery): Promise<LogRead<PropertyName[]>> {
    return this.reader.counted(q, async (tally) => {
      const filter = await this.reader.ids.filters(q.filters, (work) => this.lane.run(work));
      const hits = new Map<number, number>();
      if (filter !== false) {
        await this.reader.eachChunk(q, tally, (chunk) => {
          const statement = propertyNamesStatement(filter, chunk);
          const rows = this.db.arrays(statement.text, ...statement.params);
          for (const [key, count] of rows) {
            const id = Number(key);
            hits.set(id, (hits.get(id) ?? 0) + Number(count));
          }
          return rows.length;
        });
      }
      return this.lane.run(() => {
        const names = this.dict.decodeAll(hits.keys());
        return [...hits]
          .flatMap(([id, n]) => {
            const name = names.get(id);
            return name === undefined ? [] : [{ name, hits: n }];
          })
          .sort((a, b) => b.hits - a.hits || byCodePoint(a.name, b.name))
          .slice(0, q.limit);
      });
    });
  }
}
