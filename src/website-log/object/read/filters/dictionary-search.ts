/**
 * Searching the log's dictionary for the texts a filter's values name, contain or match
 * (docs/ARCHITECTURE.md, "Reads that never stall hits"): every value of a question in one
 * pass over the dictionary, a page of texts at a time, each turn of the read lane of bounded
 * work (`TURN_WORK`), a cheap test of what every match of a pattern has before the pattern. What a
 * value found is remembered and kept true as the dictionary grows: the texts added since
 * (`Dictionary.addedSince`) are compared with it, never the whole dictionary again.
 */
import type { QueryDimension } from '../../../../counting/query-dimensions.ts';
import { Pattern } from '../../../../lib/pattern/pattern.ts';
import type { Dictionary } from '../../tables/dictionary.ts';
import type { LogDb } from '../../tables/log-db.ts';
import type { Step } from '../lane.ts';

/**
 * The work of one turn: the states a pattern's automaton visits (src/lib/pattern/pattern.ts `steps`:
 * some 170 million a second here, so a turn is some 6 ms, and at most some 25 ms when its
 * last text is the longest under the largest program), a text a cheap test rules out
 * counting one, and a text an SQL condition reads `SQL_TEXT_WORK`.
 */
const TURN_WORK = 1_000_000;
const SQL_TEXT_WORK = 20;
/**
 * The patterns' work one search may take, at most (20 turns, some 0.12 s of the object's time;
 * a plain pattern over some 80,000 texts): past it the question is refused, naming the
 * costliest pattern, so that four readers asking the costliest patterns at once are each
 * answered or refused within 2 s (docs/SECURITY.md).
 */
export const PATTERN_WORK = 20 * TURN_WORK;
/** Texts read from the dictionary at a time (fewer when many SQL conditions read each). */
const PAGE = 2_000;
/** The ids all remembered values may hold together, and the values remembered at most. */
const REMEMBERED_IDS = 500_000;
const REMEMBERED_VALUES = 10_000;

/** One value of a leaf, compared with the dictionary's texts as its dimension reads them. */
export type Lookup = {
  key: string;
  /** A `matches` value's pattern: its work counts against `PATTERN_WORK`. */
  pattern?: string;
  /** SQL over `dict.value` that keeps every text found (and maybe more); null: no SQL. */
  where: { text: string; params: (string | number)[] } | null;
  /** Whether a text (as stored) is found, and the work of finding it out. */
  test: (stored: string) => { found: boolean; work: number };
};

/** Characters that are not literal in RE2's syntax. */
const SPECIAL = '\\^$.|?*+()[]{}';

/** Whether a pattern has an alternation outside any group (so nothing is needed of every match). */
function alternates(pattern: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/**
 * What every text a pattern matches has, read off the pattern: the literal text it starts
 * with (after `^`) and, for a pattern made of literal characters, `.*`, `[^/?]*` and a closing
 * `(\?.*)?` (a page goal's: src/query/parse/goal-filters.ts), each literal run. A cheap test before the pattern's.
 */
export function necessities(pattern: string): { prefix: string; runs: string[] } | null {
  if (!pattern.startsWith('^') || alternates(pattern)) return null;
  const runs: string[] = [];
  let prefix: string | null = null;
  let run = '';
  const cut = () => {
    prefix ??= run;
    if (run) runs.push(run);
    run = '';
  };
  for (let i = 1; i < pattern.length; ) {
    const c = pattern[i] as string;
    const next = pattern[i + 1];
    if (c === '\\' && next !== undefined && !/[0-9A-Za-z]/.test(next)) {
      run += next;
      i += 2;
    } else if (!SPECIAL.includes(c)) {
      run += c;
      i++;
    } else if (pattern.startsWith('.*', i) || pattern.startsWith('[^/?]*', i)) {
      cut();
      i += c === '.' ? 2 : 6;
    } else if (pattern.slice(i) === '$' || pattern.slice(i) === '(\\?.*)?$') {
      cut();
      return { prefix: prefix ?? '', runs };
    } else {
      // Anything else ends what can be read: a quantifier takes the character before it,
      // and so may one after flags (`(?i)*`).
      if ('?*+{'.includes(c) || pattern.startsWith('(?', i)) run = run.slice(0, -1);
      prefix ??= run;
      return prefix ? { prefix, runs: [] } : null;
    }
  }
  cut();
  return { prefix: prefix ?? '', runs };
}

/** A `matches` value: its pattern (src/lib/pattern/pattern.ts), after a cheap test of what every match has; compiled when first needed. */
export function patternTest(pattern: string, label: QueryDimension['label']) {
  let re: Pattern | undefined;
  let needs: ReturnType<typeof necessities> | undefined;
  return (stored: string) => {
    const read = label ? label(stored) : stored;
    if (read === null) return { found: false, work: 1 };
    if (needs === undefined) needs = necessities(pattern);
    if (needs && !(read.startsWith(needs.prefix) && needs.runs.every((r) => read.includes(r))))
      return { found: false, work: 1 };
    re ??= new Pattern(pattern);
    const found = re.test(read);
    return { found, work: re.steps + 1 };
  };
}

/** A question whose patterns would take more work than a search may (`PATTERN_WORK`). */
export class TooCostly extends Error {
  constructor(pattern: string) {
    super(
      `The pattern '${pattern}' takes more work than a question may over this website's texts. Make it simpler: fewer or smaller repetitions, or a literal start after ^.`,
    );
  }
}

/** The pattern of the lookup that has taken the most work. */
function costliest(lookups: Lookup[], spent: Map<string, number>): string {
  let most: Lookup | undefined;
  for (const l of lookups)
    if (
      l.pattern !== undefined &&
      (spent.get(l.key) ?? 0) > (most ? (spent.get(most.key) ?? 0) : -1)
    )
      most = l;
  return most?.pattern ?? '';
}

/** A value found, and where the dictionary's note of added texts stood when it was. */
type Remembered = { mark: { epoch: number; at: number }; ids: number[] };

export class DictionarySearch {
  private readonly remembered = new Map<string, Remembered>();
  private rememberedIds = 0;

  constructor(
    private readonly db: LogDb,
    private readonly dict: Dictionary,
  ) {}

  /**
   * What each lookup finds: remembered ones compared with the texts added since, the others
   * in one pass over the dictionary, then the texts added meanwhile — each in turns.
   */
  async find(all: Lookup[], step: Step): Promise<Map<string, number[]>> {
    const lookups = [...new Map(all.map((l) => [l.key, l])).values()];
    const found = new Map<string, Set<number>>();
    const cold: Lookup[] = [];
    // From where the texts added are compared: the oldest mark of a remembered value.
    const marks: { epoch: number; at: number }[] = [];
    for (const l of lookups) {
      const memo = this.remembered.get(l.key);
      if (!memo || !this.dict.addedSince(memo.mark)) {
        cold.push(l);
        found.set(l.key, new Set());
        continue;
      }
      found.set(l.key, new Set(memo.ids));
      marks.push(memo.mark);
      // Used again: the most recently used are forgotten last.
      this.remembered.delete(l.key);
      this.remembered.set(l.key, memo);
    }
    // Each page's SQL conditions read its texts once each: pages are as small as a turn needs.
    const sql = lookups.filter((l) => l.where !== null).length;
    const size = Math.max(100, Math.min(PAGE, Math.floor(TURN_WORK / (SQL_TEXT_WORK * sql))));
    const work = new Map<string, number>();
    if (cold.length > 0) {
      // Texts added while the pass goes on are compared after it.
      marks.push(this.dict.notedAt());
      await this.pass(cold, found, step, this.dictionaryPages(size), work);
    }
    const upTo = this.dict.notedAt();
    const start = marks.reduce<(typeof marks)[number] | undefined>(
      (oldest, mark) => (oldest && oldest.at <= mark.at ? oldest : mark),
      undefined,
    );
    const added = start ? this.dict.addedSince(start) : [];
    if (added && added.length > 0)
      await this.pass(lookups, found, step, this.pagesOf(added, size), work);
    const out = new Map<string, number[]>();
    for (const l of lookups) {
      const ids = [...(found.get(l.key) ?? [])];
      out.set(l.key, ids);
      // A note started over meanwhile (a rolled-back hit, many texts added): what was found
      // may miss some, so it is not remembered.
      if (added) this.remember(l.key, { mark: upTo, ids });
      else this.forgetKey(l.key);
    }
    return out;
  }

  /** The dictionary's texts, a page at a time, in the order of their ids. */
  private dictionaryPages(size: number): () => { id: number; value: string }[] {
    let after = -1;
    return () => {
      const page = this.db.rows<{ id: number; value: string }>(
        'SELECT id, value FROM dict WHERE id > ? ORDER BY id LIMIT ?',
        after,
        size,
      );
      after = page.at(-1)?.id ?? after;
      return page;
    };
  }

  /** The texts of these ids, a page at a time. */
  private pagesOf(ids: number[], size: number): () => { id: number; value: string }[] {
    let at = 0;
    return () => {
      const slice = ids.slice(at, at + size);
      at += size;
      return [...this.dict.decodeAll(slice)].map(([id, value]) => ({ id, value }));
    };
  }

  /**
   * Compares the texts of `pages` with `lookups`, adding what each finds to `found`: each
   * page's SQL conditions in the turn that reads it, its texts compared until the turn's work
   * is done, the rest in the turns after. The patterns' work is added up in `spent`; past
   * `PATTERN_WORK` the search stops, refused (`TooCostly`).
   */
  private async pass(
    lookups: Lookup[],
    found: Map<string, Set<number>>,
    step: Step,
    pages: () => { id: number; value: string }[],
    spent: Map<string, number>,
  ): Promise<void> {
    let patterns = [...spent.values()].reduce((a, b) => a + b, 0);
    let page: { id: number; value: string }[] = [];
    let at = 0;
    let done = false;
    /** Each text of the page: the lookups its SQL kept it for (null: SQL ruled none out). */
    let kept = new Map<number, Set<string>>();
    while (!done)
      await step(() => {
        let work = 0;
        while (work < TURN_WORK) {
          if (at >= page.length) {
            page = pages();
            at = 0;
            if (page.length === 0) {
              done = true;
              return;
            }
            const read = this.sqlKept(lookups, page);
            kept = read.kept;
            work += page.length + read.work;
          }
          const entry = page[at++] as { id: number; value: string };
          const sqlKept = kept.get(entry.id);
          for (const l of lookups) {
            if (l.where !== null && !sqlKept?.has(l.key)) continue;
            const result = l.test(entry.value);
            work += result.work;
            if (result.found) found.get(l.key)?.add(entry.id);
            if (l.pattern === undefined) continue;
            spent.set(l.key, (spent.get(l.key) ?? 0) + result.work);
            patterns += result.work;
            if (patterns > PATTERN_WORK) throw new TooCostly(costliest(lookups, spent));
          }
        }
      });
  }

  /** Which texts of a page each lookup's SQL condition keeps, and the work of finding out. */
  private sqlKept(lookups: Lookup[], page: { id: number; value: string }[]) {
    const kept = new Map<number, Set<string>>();
    let work = 0;
    const ids = JSON.stringify(page.map((e) => e.id));
    for (const l of lookups) {
      if (l.where === null) continue;
      const rows = this.db.rows<{ id: number }>(
        `SELECT id FROM dict WHERE id IN (SELECT value FROM json_each(?)) AND ${l.where.text}`,
        ids,
        ...l.where.params,
      );
      work += page.length * SQL_TEXT_WORK;
      for (const { id } of rows) {
        const keys = kept.get(id) ?? new Set<string>();
        keys.add(l.key);
        kept.set(id, keys);
      }
    }
    return { kept, work };
  }

  private forgetKey(key: string): void {
    const old = this.remembered.get(key);
    if (!old) return;
    this.rememberedIds -= old.ids.length;
    this.remembered.delete(key);
  }

  /** Remembers what a value found, forgetting the least recently used beyond the bound. */
  private remember(key: string, memo: Remembered): void {
    this.forgetKey(key);
    if (memo.ids.length > REMEMBERED_IDS) return;
    this.remembered.set(key, memo);
    this.rememberedIds += memo.ids.length;
    for (const [oldest, value] of this.remembered) {
      if (this.rememberedIds <= REMEMBERED_IDS && this.remembered.size <= REMEMBERED_VALUES) break;
      this.remembered.delete(oldest);
      this.rememberedIds -= value.ids.length;
    }
  }
}
