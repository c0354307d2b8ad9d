/**
 * Funnels and journeys read from a website's log (docs/ARCHITECTURE.md, "Funnels and
 * journeys"), in the chunks of whole local dates every read of the log takes, each a turn of
 * the read lane (./question-chunks.ts): a visitor of a day and their visits never cross a date, so
 * each chunk's visitors and paths are whole and add up exactly. A funnel follows each visitor
 * of the day through the hits that take its steps, in the log's order; a journey's paths are
 * counted by the chunk's statement, one per visit, and named here.
 */
import {
  ENTRANCE,
  EXIT,
  type FunnelQuery,
  type JourneyAnswer,
  type JourneyQuery,
  type JourneyRow,
  pageOfJourneys,
} from '../../../counting/flow-queries.ts';
import type { LogRead } from '../../answers.ts';
import type { Dictionary } from '../tables/dictionary.ts';
import type { LogDb } from '../tables/log-db.ts';
import type { Resolved } from './filters/filter-sql.ts';
import { funnelStatement, journeyStatement } from './flow-sql.ts';
import type { ReadLane, Step } from './lane.ts';
import type { LogReader } from './question-chunks.ts';

/** A step that every hit of a visit takes (a filter of no condition): `visit > 0`. */
const EVERY_HIT: Resolved = { kind: 'visits' };

export class FlowReader {
  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
    private readonly lane: ReadLane,
    private readonly reader: LogReader,
  ) {}

  /** The visitors of the day who took each step of the funnel, on a date of the range. */
  funnel(q: FunnelQuery): Promise<LogRead<number[]>> {
    return this.reader.counted(q, async (tally) => {
      const reached = q.steps.map(() => 0);
      const step: Step = (work) => this.lane.run(work);
      const filter = await this.reader.ids.filters(q.filters, step);
      const steps = (await this.reader.ids.each(q.steps, step)).map((s) =>
        s === true ? EVERY_HIT : s,
      );
      if (filter === false || steps[0] === false) return reached;
      const last = steps.length;
      await this.reader.eachChunk(q, tally, (chunk) => {
        const statement = funnelStatement(filter, steps, chunk);
        const rows = this.db.arrays(statement.text, ...statement.params);
        // Each visitor's steps so far: a hit takes the next step when it is one of its hits
        // (taking the earliest hit of each step leaves the most room for the steps after).
        const taken = new Map<number, number>();
        for (const row of rows) {
          const visitor = (row[0] as number) * 4_294_967_296 + (row[1] as number);
          const k = taken.get(visitor) ?? 0;
          if (k < last && ((row[2] as number) >> k) & 1) taken.set(visitor, k + 1);
        }
        for (const k of taken.values()) for (let i = 0; i < k; i++) (reached[i] as number)++;
        return rows.length;
      });
      return reached;
    });
  }

  /** A page of the paths visits took from (or to) the page, sorted as asked. */
  journeys(q: JourneyQuery): Promise<LogRead<JourneyAnswer>> {
    return this.reader.counted(q, async (tally) => {
      const step: Step = (work) => this.lane.run(work);
      const filter = await this.reader.ids.filters(q.filters, step);
      const [page] = await this.reader.ids.each(
        [{ op: 'is', dimension: 'sl:page', values: [q.page], caseSensitive: true }],
        step,
      );
      const paths = new Map<string, { ids: number[]; visits: number }>();
      if (filter !== false && page !== undefined && typeof page !== 'boolean') {
        await this.reader.eachChunk(q, tally, (chunk) => {
          const statement = journeyStatement(filter, page, q.direction, q.steps, chunk);
          const rows = this.db.arrays(statement.text, ...statement.params);
          for (const row of rows) {
            // The page, then each step's page until the visit's end (-1).
            const ids: number[] = [];
            for (let i = 0; i <= q.steps; i++) {
              const id = (row[i] as number | null) ?? -1;
              ids.push(id);
              if (id === -1) break;
            }
            const key = ids.join(',');
            const path = paths.get(key);
            const visits = row[q.steps + 1] as number;
            if (path) path.visits += visits;
            else paths.set(key, { ids, visits });
          }
          return rows.length;
        });
      }
      return this.lane.run(() => this.named(q, [...paths.values()]));
    });
  }

  /** The paths with their pages' values, in the order walked, sorted and paged. */
  private named(q: JourneyQuery, paths: { ids: number[]; visits: number }[]): JourneyAnswer {
    const values = this.dict.decodeAll(new Set(paths.flatMap((p) => p.ids.filter((id) => id > 0))));
    const end = q.direction === 'next' ? EXIT : ENTRANCE;
    const rows: JourneyRow[] = paths.map(({ ids, visits }) => {
      const path = ids.map((id) => (id === -1 ? end : (values.get(id) ?? '')));
      return { path: q.direction === 'next' ? path : path.reverse(), visits };
    });
    return pageOfJourneys(q, rows);
  }
}
