/**
 * The scale runs' reads (`npm run bench -- --scale`, scripts/bench/scale.ts), inside the
 * benchmark's Worker: a question asked of a website whose log is spread over partitions, three
 * ways, each `runs` times.
 *
 * - `cold`: the whole answer as the Worker gets it (every partition the range touches asked in
 *   parallel, their answers merged: the engine's `answer`, and `readLog` with the funnel's and
 *   the journey's merges as src/flows/questions.ts has them), each partition's kept answers
 *   forgotten before each run, so that every run reads the events.
 * - `again`: the same, the kept answers left: the question asked again (a dashboard reloaded).
 * - `parts`: the critical path a deployed website sees, where partitions run on separate
 *   machines: each partition asked alone, one after the other (so none waits for a core here),
 *   the slowest one's time plus the merge of their answers, measured.
 *
 * Each answers the rows read (all partitions'), and every run's milliseconds; `parts` also the
 * slowest partition's and the merge's, and the bytes of the partitions' answers (what the merge
 * holds).
 */
import type { FunnelStep, JourneyQuery } from '../../src/counting/flow-queries.ts';
import { type JourneyAnswer, mergeFunnels } from '../../src/counting/flow-queries.ts';
import { answerOf, type GroupReads, mergeGroupReads } from '../../src/counting/group-reads.ts';
import type { LogQuery } from '../../src/counting/query.ts';
import { createDb } from '../../src/db/client.ts';
import type { Env } from '../../src/env.ts';
import { funnelQuestion, journeyReads } from '../../src/flows/questions.ts';
import { answer, isUnavailable, readerOf } from '../../src/query/run/reader.ts';
import type { PartRead } from '../../src/website-log/answers.ts';
import {
  type OverClosed,
  onlyOne,
  readLog,
  websiteLog,
} from '../../src/website-log/worker/partitions.ts';

export type ScaleAsk = {
  websiteId: number;
  mode: 'cold' | 'again' | 'parts';
  runs: number;
} & (
  | { engine: LogQuery }
  | { funnel: { steps: FunnelStep[]; from: string; to: string } }
  | { journey: JourneyQuery }
);

type Log = ReturnType<typeof websiteLog>;

/** A question's read of one partition and the merge of several, as the Worker's code does. */
function questionOf(ask: ScaleAsk) {
  if ('engine' in ask) {
    const q = ask.engine;
    return {
      range: q,
      read: (log: Log) => log.groupReads(q) as Promise<PartRead<unknown>>,
      merge: (values: unknown[]) => {
        const now = <T>(work: () => T) => Promise.resolve(work());
        return Promise.all(
          q.groups.map((g, i) =>
            answerOf(
              g,
              mergeGroupReads((values as GroupReads[][]).map((p) => p[i] as GroupReads)),
              now,
            ),
          ),
        );
      },
    };
  }
  if ('funnel' in ask) {
    const { steps, from, to } = ask.funnel;
    const q = funnelQuestion(steps, { from, to }, [], []);
    return {
      range: { from, to },
      read: (log: Log) => log.funnel(q) as Promise<PartRead<unknown>>,
      merge: (values: unknown[]) => mergeFunnels(values as number[][]),
    };
  }
  // As src/flows/questions.ts asks a journey (the open partition adds up the closed ones'
  // paths it keeps, asked again).
  const { read, merge, over } = journeyReads(ask.journey);
  return {
    range: ask.journey,
    read: (log: Log, many = true) => read(log, many) as Promise<PartRead<unknown>>,
    merge: (values: unknown[]) => merge(values as JourneyAnswer[], true),
    over: over as unknown as OverClosed<unknown, unknown>,
  };
}

/** The website's partitions, as the directory lists them. */
async function partitionsOf(env: Env, websiteId: number): Promise<number[]> {
  const { results } = await env.DB.prepare(
    'SELECT partition FROM log_positions WHERE website_id = ? ORDER BY partition',
  )
    .bind(websiteId)
    .all<{ partition: number }>();
  return results.map((r) => r.partition);
}

/**
 * Answers `ask`; `forgetKept` forgets what a partition keeps (the benchmark's object,
 * ./worker.ts).
 */
export async function scaleRead(
  env: Env,
  ask: ScaleAsk,
  forgetKept: (websiteId: number, partition: number) => Promise<void>,
): Promise<Response> {
  const partitions = await partitionsOf(env, ask.websiteId);
  const forget = () => Promise.all(partitions.map((n) => forgetKept(ask.websiteId, n)));
  const question = questionOf(ask);
  const { range, read, merge } = question;
  const samples: number[] = [];
  const slowest: number[] = [];
  const merges: number[] = [];
  let rowsRead = 0;
  let mergeBytes = 0;
  if (ask.mode === 'again') await whole(); // the answers kept by a first read
  for (let i = 0; i < ask.runs; i++) {
    if (ask.mode !== 'again') await forget();
    if (ask.mode === 'parts') {
      const values: unknown[] = [];
      let slow = 0;
      rowsRead = 0;
      for (const n of partitions) {
        const started = performance.now();
        const r = await read(websiteLog(env, ask.websiteId, n));
        slow = Math.max(slow, performance.now() - started);
        if (!r.ok) throw new Error(`partition ${n} did not answer`);
        values.push(r.value);
        rowsRead += r.rowsRead;
      }
      mergeBytes = JSON.stringify(values).length;
      const started = performance.now();
      await merge(values);
      const merged = performance.now() - started;
      slowest.push(slow);
      merges.push(merged);
      samples.push(slow + merged);
    } else {
      const started = performance.now();
      rowsRead = await whole();
      samples.push(performance.now() - started);
    }
  }
  return Response.json({
    partitions: partitions.length,
    rowsRead,
    samples,
    slowest,
    merges,
    mergeBytes,
  });

  /** The whole answer through the Worker's own code; its rows read. */
  async function whole(): Promise<number> {
    if ('engine' in ask) {
      const answered = await answer(readerOf(createDb(env.DB), ask.websiteId, env), ask.engine);
      if (isUnavailable(answered)) throw new Error('the engine did not answer');
      return answered[0]?.rowsRead ?? 0;
    }
    const r = await readLog(
      env,
      ask.websiteId,
      range,
      read as (l: Log, many: boolean) => Promise<PartRead<unknown>>,
      (values, many) => (many ? merge(values) : onlyOne(values)),
      'over' in question ? question.over : undefined,
    );
    if (!r.ok) throw new Error('the log did not answer');
    return r.rowsRead;
  }
}
