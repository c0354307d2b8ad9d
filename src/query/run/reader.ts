/**
 * The query engine (docs/ARCHITECTURE.md, "The query engine"): every number Sightline shows
 * is a grouping of a question — metrics by up to three dimensions, under filters, over a
 * range — answered exactly from the cheapest source that holds it: D1's roll-ups for a
 * grouping they hold with no filter (src/rollups/groupings.ts, once the website's log has flushed into
 * them: read-your-writes), the website's event log otherwise (src/website-log/object/read/question-chunks.ts, in
 * chunks its hits come between). API v1, the statistics page, CSV, the reports and API v2 all
 * ask here.
 */
import { answerOf, type GroupReads, mergeGroupReads } from '../../counting/group-reads.ts';
import type { GroupAnswer, LogQuery } from '../../counting/query.ts';
import type { Env } from '../../env.ts';
import { compactedThrough } from '../../rollups/compaction.ts';
import {
  isVisitorRollup,
  type Rollups,
  statisticAnswer,
  sumsAnswer,
  visitorsCountedFrom,
} from '../../rollups/groupings.ts';
import { type ImportedSegment, importedSegments } from '../../rollups/imported.ts';
import type { PartRead } from '../../website-log/answers.ts';
import { flushBeforeReading, onlyOne, readLog } from '../../website-log/worker/partitions.ts';
import { planOf, type Store } from '../plan/plan.ts';

/** A grouping's page of rows, and the rows its read cost (D1's or the log's, exact). */
export type Answer = GroupAnswer & { rowsRead: number };

/** A question whose range starts before the oldest date the log holds: that date. */
export type Unavailable = { unavailable: true; firstDate: string };

export function isUnavailable(answer: unknown): answer is Unavailable {
  return typeof answer === 'object' && answer !== null && 'unavailable' in answer;
}

/** The log's answer, or the first date it holds when the range starts before it. */
export async function fromLog<T, R>(
  env: Env,
  websiteId: number,
  range: { from: string; to: string },
  read: Parameters<typeof readLog<T, R>>[3],
  merge: Parameters<typeof readLog<T, R>>[4],
  over?: Parameters<typeof readLog<T, R>>[5],
): Promise<R | Unavailable> {
  const answer = await readLog(env, websiteId, range, read, merge, over);
  return answer.ok ? answer.value : { unavailable: true, firstDate: answer.firstDate };
}

/**
 * Where a website's questions are answered. `env`: its log can be asked (and is flushed
 * before its roll-ups are read); without it, only the roll-ups as they are (the reports,
 * which flush first themselves).
 */
export type Reader = {
  db: Rollups['db'];
  websiteId: number;
  env?: Env;
  /** The website's last compacted month, read once by the first read that needs it. */
  through: () => Promise<string | null>;
  /** The first date of the visitors' roll-ups (`visitorsCountedFrom`), read once, after the flush. */
  visitorsFrom: () => Promise<string>;
  /** Flushes the website's log into its roll-ups, once, before the first read of them. */
  flush: () => Promise<void>;
  /**
   * The imported history its roll-up reads add (docs/ARCHITECTURE.md, "Imported history"),
   * read once; none when the reader leaves imports out.
   */
  imported: () => Promise<ImportedSegment[]>;
  /** Whether answers so far included imported history, or left out some that was in range. */
  imports: { included: boolean; skipped: boolean };
  /**
   * Asks the website's log: the groupings of questions asked together (in one turn of the
   * event loop) over the same range and filters share one read, one pass over the log.
   */
  log: (q: LogQuery) => Promise<LogAnswer>;
  /** Every grouping of a question, each from the store the plan names (`answer`). */
  answer: (q: LogQuery) => Promise<Answer[] | Unavailable>;
  /** A read of the website's log of its own (`fromLog`): a funnel, a journey, properties. */
  fromLog: <T, R>(
    range: { from: string; to: string },
    read: Parameters<typeof readLog<T, R>>[3],
    merge: Parameters<typeof readLog<T, R>>[4],
    over?: Parameters<typeof readLog<T, R>>[5],
  ) => Promise<R | Unavailable>;
};

/** What the log answered a question's groupings, or the first date it holds. */
type LogAnswer =
  | { ok: true; value: GroupAnswer[]; rowsRead: number }
  | { ok: false; firstDate: string };

/** The questions asked of one reader's log in this turn, by their range and filters. */
type Batch = {
  q: LogQuery;
  callers: {
    from: number;
    count: number;
    done: (a: LogAnswer) => void;
    fail: (e: unknown) => void;
  }[];
};

/**
 * A question's groupings from several partitions' groups (src/counting/group-reads.ts): each
 * grouping's groups added together, then made into its rows.
 */
function mergeAnswers(q: LogQuery, parts: GroupReads[][]): Promise<GroupAnswer[]> {
  const now = <T>(work: () => T) => Promise.resolve(work());
  return Promise.all(
    q.groups.map((g, i) =>
      answerOf(g, mergeGroupReads(parts.map((part) => part[i] as GroupReads)), now),
    ),
  );
}

/** A reader's asks of its log, put together: one read per range and filters. */
function logAsker(env: Env | undefined, websiteId: number): (q: LogQuery) => Promise<LogAnswer> {
  let batches: Map<string, Batch> | undefined;
  const run = async (batch: Batch) => {
    try {
      if (!env) throw new Error('only the roll-ups can be read here');
      // One partition answers the rows; several, their groups, added up here — or by the
      // open partition, with the closed ones' it keeps (src/website-log/worker/partitions.ts).
      type Parts = PartRead<GroupAnswer[] | GroupReads[]>;
      type Over = PartRead<
        { answer: GroupAnswer[] } | { own: GroupAnswer[] | GroupReads[]; keep: boolean }
      >;
      const q = batch.q;
      const read = await readLog(
        env,
        websiteId,
        q,
        (log, many) => (many ? log.groupReads(q) : log.query(q)) as Promise<Parts>,
        (values, many) =>
          many ? mergeAnswers(q, values as GroupReads[][]) : (onlyOne(values) as GroupAnswer[]),
        {
          ask: (open, closed) => open.overClosed(q, closed) as Promise<Over>,
          keep: (open, closed, added) => open.keepClosed(q, closed, added as GroupReads[]),
          add: (values) =>
            q.groups.map((_, i) =>
              mergeGroupReads((values as GroupReads[][]).map((v) => v[i] as GroupReads)),
            ),
        },
      );
      for (const c of batch.callers)
        c.done(read.ok ? { ...read, value: read.value.slice(c.from, c.from + c.count) } : read);
    } catch (err) {
      for (const c of batch.callers) c.fail(err);
    }
  };
  return (q) =>
    new Promise<LogAnswer>((done, fail) => {
      if (!batches) {
        const asked = new Map<string, Batch>();
        batches = asked;
        // Once everything asked in this turn has been asked.
        queueMicrotask(() => {
          batches = undefined;
          for (const batch of asked.values()) void run(batch);
        });
      }
      const key = JSON.stringify([q.from, q.to, q.between ?? null, q.filters, q.currency ?? null]);
      const batch = batches.get(key) ?? { q: { ...q, groups: [] }, callers: [] };
      batch.callers.push({ from: batch.q.groups.length, count: q.groups.length, done, fail });
      batch.q.groups.push(...q.groups);
      batches.set(key, batch);
    });
}

/**
 * A website's reader, its last compacted month read once; with `imports` false (API v2's
 * `include.imports`), its answers leave imported history out.
 */
export function readerOf(
  db: Rollups['db'],
  websiteId: number,
  env?: Env,
  { imports = true }: { imports?: boolean } = {},
): Reader {
  let through: Promise<string | null> | undefined;
  let visitorsFrom: Promise<string> | undefined;
  let flushed: Promise<void> | undefined;
  let imported: Promise<ImportedSegment[]> | undefined;
  const reader: Reader = {
    log: logAsker(env, websiteId),
    flush: () => {
      flushed ??= env ? flushBeforeReading(env, websiteId) : Promise.resolve();
      return flushed;
    },
    fromLog: (range, read, merge, over) => {
      if (!env) throw new Error('only the roll-ups can be read here');
      return fromLog(env, websiteId, range, read, merge, over);
    },
    imported: () => {
      imported ??= imports ? importedSegments(db, websiteId) : Promise.resolve([]);
      return imported;
    },
    imports: { included: false, skipped: false },
    db,
    websiteId,
    ...(env ? { env } : {}),
    through: () => {
      through ??= compactedThrough(db, websiteId);
      return through;
    },
    visitorsFrom: () => {
      visitorsFrom ??= reader.flush().then(() => visitorsCountedFrom(db, websiteId));
      return visitorsFrom;
    },
    answer: (q) => answer(reader, q),
  };
  return reader;
}

/**
 * Every grouping of a question, in order, each from the store its plan names (../plan/plan.ts);
 * the first date the log holds when it must say so. The log's groupings are asked at once, so
 * that questions asked together share its one read; the roll-ups' once the log has flushed
 * into them. A grouping of the visitors' roll-ups over a range that starts before D1 holds
 * them all (a log older than them counts them from its first flush after:
 * src/website-log/object/flush.ts) is the log's after all.
 */
export async function answer(reader: Reader, q: LogQuery): Promise<Answer[] | Unavailable> {
  const plan = planOf(q);
  const answers: (Answer | undefined)[] = q.groups.map(() => undefined);
  const imported = (await reader.imported()).filter((s) => s.from <= q.to && s.to >= q.from);
  const logged = plan.map((p) => p.store === 'log');
  const [unavailable, left] = await Promise.all([
    fromLogInto(reader, q, logged, answers),
    fromRollupsInto(reader, q, plan, imported, answers),
  ]);
  if (unavailable) return unavailable;
  const late = await fromLogInto(reader, q, left, answers);
  if (late) return late;
  if (imported.length > 0) {
    const rolled = plan.map((_, i) => !logged[i] && !left[i]);
    if (rolled.some(Boolean)) reader.imports.included = true;
    if (rolled.some((r) => !r)) reader.imports.skipped = true;
  }
  return answers as Answer[];
}

/** Answers from the log the groupings `which` marks, into `answers`. */
async function fromLogInto(
  reader: Reader,
  q: LogQuery,
  which: boolean[],
  answers: (Answer | undefined)[],
): Promise<Unavailable | null> {
  const groups = q.groups.filter((_, i) => which[i]);
  if (groups.length === 0) return null;
  const read = await reader.log({ ...q, groups });
  if (!read.ok) return { unavailable: true, firstDate: read.firstDate };
  let next = 0;
  q.groups.forEach((_, i) => {
    if (!which[i]) return;
    // The rows read are those of the one read that answered them all.
    answers[i] = { ...(read.value[next++] as GroupAnswer), rowsRead: read.rowsRead };
  });
  return null;
}

/**
 * Answers from the roll-ups, once the log has flushed into them, the groupings the plan sends
 * there, into `answers`; marks those of the visitors' roll-ups they do not hold yet.
 */
async function fromRollupsInto(
  reader: Reader,
  q: LogQuery,
  plan: Store[],
  imported: ImportedSegment[],
  answers: (Answer | undefined)[],
): Promise<boolean[]> {
  const left = plan.map(() => false);
  if (plan.every((p) => p.store === 'log')) return left;
  await reader.flush();
  const ofVisitors = (p: Store) => p.store === 'statistic' && isVisitorRollup(p.name);
  const visitorsFrom = plan.some(ofVisitors) ? await reader.visitorsFrom() : '';
  const rollups: Rollups = {
    db: reader.db,
    websiteId: reader.websiteId,
    through: await reader.through(),
    imported,
  };
  await Promise.all(
    q.groups.map(async (g, i) => {
      const p = plan[i] as Store;
      if (ofVisitors(p) && q.from < visitorsFrom) left[i] = true;
      else if (p.store === 'statistic') answers[i] = await statisticAnswer(rollups, p.name, g, q);
      else if (p.store === 'sums') answers[i] = await sumsAnswer(rollups, g, q);
    }),
  );
  return left;
}
