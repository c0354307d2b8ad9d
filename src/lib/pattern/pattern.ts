/**
 * Patterns in RE2's syntax, matched in time linear in the text: the `matches` filters' and the
 * page goals' (docs/ARCHITECTURE.md, "Filters"). A pattern is parsed into a tree, compiled
 * into the program of a Thompson automaton, and run over the text with every state at once
 * (Pike's way, without captures): nothing backtracks, so a text costs its length times the
 * program's, whatever the pattern says, and `test` finds a match anywhere in it (RE2's
 * `find`). It takes literals and escapes (`\.`, `\n`, `\x41`, `\x{263A}`), `.`, classes
 * (`[a-z]`, `[^/?]`, `\d \w \s` and their negations, POSIX `[[:alpha:]]`), anchors (`^ $ \A \z
 * \b \B`), groups (`(…)`, `(?:…)`, `(?P<name>…)`), flags (`(?i)`, `(?s)`, `(?m)`, `(?U)`, and
 * as groups `(?i:…)`), alternation and repetition (`* + ? {n} {n,} {n,m}`, greedy or lazy,
 * counts up to 1,000). It refuses, saying what, what RE2 refuses (look-arounds,
 * back-references) and the rarer forms of RE2 it does not take (Unicode classes `\pL`,
 * `\Q…\E`, `\C`). `test/unit/pattern.test.ts` holds it to RE2's own answers.
 */
import { type Assertion, type CharSet, type Node, Parser, PatternError } from './syntax.ts';

export { PatternError };

/** Instructions of the program: a character of a set, a fork, an assertion, the match. */
type Inst =
  | { op: 'set'; set: CharSet; next: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'assert'; kind: Assertion; next: number }
  | { op: 'match' };

/**
 * The program's size at most: a pattern's repetitions multiply what it repeats. A text costs
 * at most some three steps a state a character (`Pattern.steps`), so this bounds one text's
 * work (2,048 characters: at most some 4 million steps, 20 ms here); real patterns — a page
 * goal, a few alternatives, a class repeated a hundred times — take tens to hundreds of states.
 */
export const MAX_PROGRAM = 1_000;
/** Compiles a tree backwards: each part's program goes on to `next`. */
function compile(root: Node): { prog: Inst[]; start: number } {
  const prog: Inst[] = [];
  const push = (inst: Inst) => {
    if (prog.length >= MAX_PROGRAM)
      throw new PatternError(
        `pattern too large (more than ${MAX_PROGRAM.toLocaleString('en-US')} states: repetitions multiply what they repeat)`,
      );
    prog.push(inst);
    return prog.length - 1;
  };
  const emit = (node: Node, next: number): number => {
    switch (node.t) {
      case 'set':
        return push({ op: 'set', set: node.set, next });
      case 'assert':
        return push({ op: 'assert', kind: node.kind, next });
      case 'cat':
        return node.items.reduceRight((to, item) => emit(item, to), next);
      case 'alt': {
        const starts = node.items.map((item) => emit(item, next));
        return starts.reduceRight((rest, s) => push({ op: 'split', x: s, y: rest }));
      }
      case 'rep': {
        let s = next;
        if (node.max === -1) {
          const loop = push({ op: 'split', x: -1, y: next });
          (prog[loop] as { x: number }).x = emit(node.node, loop);
          s = loop;
        } else
          for (let k = node.min; k < node.max; k++)
            s = push({ op: 'split', x: emit(node.node, s), y: next });
        for (let k = 0; k < node.min; k++) s = emit(node.node, s);
        return s;
      }
    }
  };
  const match = push({ op: 'match' });
  return { prog, start: emit(root, match) };
}

const isWord = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 95 || (c >= 97 && c <= 122);

function inRanges(ranges: [number, number][], c: number): boolean {
  for (const [lo, hi] of ranges) if (c >= lo && c <= hi) return true;
  return false;
}

/** Whether a character is in a set, in any case when the set folds case. */
function contains(s: CharSet, c: number): boolean {
  let found = inRanges(s.ranges, c);
  if (!found && s.fold) {
    const ch = String.fromCodePoint(c);
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    for (const other of [lower, upper, upper.toLowerCase()])
      if (
        other.length <= 2 &&
        [...other].length === 1 &&
        inRanges(s.ranges, other.codePointAt(0) as number)
      ) {
        found = true;
        break;
      }
  }
  return found !== s.negate;
}

/** Whether a pattern can match only from the text's start (`^…` without `(?m)`, `\A…`). */
function anchored(node: Node): boolean {
  if (node.t === 'assert') return node.kind === 'bot';
  if (node.t === 'cat') return node.items.length > 0 && anchored(node.items[0] as Node);
  if (node.t === 'alt') return node.items.every(anchored);
  return false;
}

/**
 * A compiled pattern: `test` says whether it matches anywhere in a text, and `steps` what the
 * last test cost — the states it visited (some 170 million a second here), at most some three
 * times the text's length times the program's size.
 * Its states are kept in typed arrays reused from text to text, and a set answers an ASCII
 * character from a table.
 */
export class Pattern {
  private readonly prog: Inst[];
  private readonly start: number;
  private readonly anchored: boolean;
  /** Per set instruction, its answer for each ASCII character. */
  private readonly ascii: (Uint8Array | null)[];
  private readonly marks: Uint32Array;
  private readonly stack: Int32Array;
  private now: Int32Array;
  private next: Int32Array;
  private generation = 0;
  private matched = false;
  /** The states the last `test` visited: its work, whatever the pattern. */
  steps = 0;
  private text = '';
  private length = 0;

  constructor(source: string) {
    const root = new Parser(source).parse();
    ({ prog: this.prog, start: this.start } = compile(root));
    this.anchored = anchored(root);
    const n = this.prog.length;
    this.ascii = this.prog.map((inst) => {
      if (inst.op !== 'set') return null;
      const table = new Uint8Array(128);
      for (let c = 0; c < 128; c++) table[c] = contains(inst.set, c) ? 1 : 0;
      return table;
    });
    this.marks = new Uint32Array(n);
    this.stack = new Int32Array(2 * n + 2);
    this.now = new Int32Array(n);
    this.next = new Int32Array(n);
  }

  /** The character at UTF-16 index `at` (a code point), and -1 past the end. */
  private charAt(at: number): number {
    if (at >= this.length) return -1;
    return this.text.codePointAt(at) as number;
  }

  /** The character before UTF-16 index `at`, -1 at the start. */
  private charBefore(at: number): number {
    if (at <= 0) return -1;
    const low = this.text.charCodeAt(at - 1);
    if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
      const high = this.text.charCodeAt(at - 2);
      if (high >= 0xd800 && high <= 0xdbff) return this.text.codePointAt(at - 2) as number;
    }
    return low;
  }

  private holds(kind: Assertion, at: number): boolean {
    switch (kind) {
      case 'bot':
        return at === 0;
      case 'eot':
        return at === this.length;
      case 'bol':
        return at === 0 || this.charBefore(at) === 10;
      case 'eol':
        return at === this.length || this.charAt(at) === 10;
      case 'word':
        return isWord(this.charBefore(at)) !== isWord(this.charAt(at));
      case 'nonword':
        return isWord(this.charBefore(at)) === isWord(this.charAt(at));
    }
  }

  /** Adds state `pc` and every state it reaches without reading, at index `at`, to `list`. */
  private add(list: Int32Array, count: number, pc: number, at: number): number {
    const { stack, marks, prog, generation } = this;
    let top = 0;
    stack[top++] = pc;
    while (top > 0) {
      const i = stack[--top] as number;
      this.steps++;
      if (marks[i] === generation) continue;
      marks[i] = generation;
      const inst = prog[i] as Inst;
      if (inst.op === 'split') {
        stack[top++] = inst.y;
        stack[top++] = inst.x;
      } else if (inst.op === 'assert') {
        if (this.holds(inst.kind, at)) stack[top++] = inst.next;
      } else if (inst.op === 'match') this.matched = true;
      else list[count++] = i;
    }
    return count;
  }

  /** A new mark for the states of a position (the marks start again before they overflow). */
  private nextGeneration(): void {
    if (++this.generation >= 0xffffffff) {
      this.marks.fill(0);
      this.generation = 1;
    }
  }

  test(text: string): boolean {
    this.text = text;
    this.length = text.length;
    this.matched = false;
    this.steps = 0;
    this.nextGeneration();
    let count = this.add(this.now, 0, this.start, 0);
    for (let at = 0; !this.matched && at < this.length; ) {
      if (count === 0 && this.anchored) return false;
      const c = text.codePointAt(at) as number;
      const after = at + (c > 0xffff ? 2 : 1);
      this.nextGeneration();
      let found = 0;
      this.steps += count;
      for (let k = 0; k < count; k++) {
        const pc = this.now[k] as number;
        const inst = this.prog[pc] as Extract<Inst, { op: 'set' }>;
        const table = this.ascii[pc];
        if (c < 128 ? (table as Uint8Array)[c] === 1 : contains(inst.set, c))
          found = this.add(this.next, found, inst.next, after);
      }
      // A match may start at any position (only at the first for an anchored pattern).
      if (!this.anchored) found = this.add(this.next, found, this.start, after);
      [this.now, this.next] = [this.next, this.now];
      count = found;
      at = after;
    }
    return this.matched;
  }
}
