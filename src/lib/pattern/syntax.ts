/**
 * The parser of patterns in RE2's syntax (./pattern.ts): a pattern's text into a tree of
 * character sets, sequences, alternatives, repetitions and assertions, refusing what it does
 * not take with a `PatternError` that says what.
 */

/** A pattern that cannot be compiled, and why. */
export class PatternError extends Error {}

type Flags = { i: boolean; s: boolean; m: boolean };
export type Assertion = 'bot' | 'eot' | 'bol' | 'eol' | 'word' | 'nonword';
export type CharSet = { ranges: [number, number][]; negate: boolean; fold: boolean };
export type Node =
  | { t: 'set'; set: CharSet }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'assert'; kind: Assertion };

const MAX_REPEAT = 1000;
const MAX_CODE_POINT = 0x10ffff;

const DIGITS: [number, number][] = [[48, 57]];
const WORD: [number, number][] = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: [number, number][] = [
  [9, 10],
  [12, 13],
  [32, 32],
];
const POSIX: Record<string, [number, number][]> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  ascii: [[0, 127]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: DIGITS,
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  word: WORD,
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
};

/** The complement of sorted, disjoint ranges. */
function complement(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  for (const [lo, hi] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (lo > from) out.push([from, lo - 1]);
    from = Math.max(from, hi + 1);
  }
  if (from <= MAX_CODE_POINT) out.push([from, MAX_CODE_POINT]);
  return out;
}

const one = (c: number): [number, number][] => [[c, c]];
const set = (ranges: [number, number][], flags: Flags, negate = false): Node => ({
  t: 'set',
  set: { ranges, negate, fold: flags.i },
});

const ESCAPED_CLASSES: Record<string, [number, number][]> = {
  d: DIGITS,
  D: complement(DIGITS),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };

export class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  fail(what: string): never {
    throw new PatternError(`${what}: \`${this.src}\``);
  }

  private peek(): number | undefined {
    return this.src.codePointAt(this.at);
  }

  private take(): number {
    const c = this.src.codePointAt(this.at);
    if (c === undefined) this.fail('unexpected end');
    this.at += c > 0xffff ? 2 : 1;
    return c;
  }

  private eat(text: string): boolean {
    if (!this.src.startsWith(text, this.at)) return false;
    this.at += text.length;
    return true;
  }

  parse(): Node {
    const node = this.alternation({ i: false, s: false, m: false }, 0);
    if (this.at < this.src.length) this.fail('unexpected )');
    return node;
  }

  /** Alternatives up to a `)` or the end; `(?i)` among them changes the rest of the group. */
  private alternation(flags: Flags, depth: number): Node {
    if (depth > 100) this.fail('nesting too deep');
    const items: Node[] = [this.sequence(flags, depth)];
    while (this.eat('|')) items.push(this.sequence(flags, depth));
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  }

  private sequence(flags: Flags, depth: number): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c /* | */ || c === 0x29 /* ) */) break;
      if (c === 0x2a || c === 0x2b || c === 0x3f || (c === 0x7b && this.repeatAhead())) {
        const last = items.pop();
        if (!last) this.fail('missing argument to repetition operator');
        items.push(this.repetition(last));
        continue;
      }
      const item = this.atom(flags, depth);
      if (item) items.push(item);
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  }

  /** Whether a `{` here starts a repetition (`{2}`, `{2,}`, `{2,5}`), else it is literal. */
  private repeatAhead(): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.src.slice(this.at, this.at + 12));
  }

  private repetition(node: Node): Node {
    const c = this.take();
    let min = 0;
    let max = -1;
    if (c === 0x2b) min = 1;
    else if (c === 0x3f) max = 1;
    else if (c === 0x7b) {
      const m = /^(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at)) as RegExpExecArray;
      this.at += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min))
        this.fail('invalid repeat count');
    }
    this.eat('?');
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || (next === 0x7b && this.repeatAhead()))
      this.fail('invalid nested repetition operator');
    return { t: 'rep', node, min, max };
  }

  /** One item of a sequence; null for a flag group (`(?i)`), which changes `flags`. */
  private atom(flags: Flags, depth: number): Node | null {
    const c = this.take();
    switch (c) {
      case 0x28 /* ( */:
        return this.group(flags, depth);
      case 0x2e /* . */:
        return flags.s ? set([[0, MAX_CODE_POINT]], flags) : set([[10, 10]], flags, true);
      case 0x5e /* ^ */:
        return { t: 'assert', kind: flags.m ? 'bol' : 'bot' };
      case 0x24 /* $ */:
        return { t: 'assert', kind: flags.m ? 'eol' : 'eot' };
      case 0x5b /* [ */:
        return this.charClass(flags);
      case 0x5c /* \ */:
        return this.escape(flags);
      default:
        return set(one(c), flags);
    }
  }

  private group(flags: Flags, depth: number): Node | null {
    let inner = { ...flags };
    if (this.eat('?')) {
      if (this.eat('P<') || this.eat('<')) {
        if (/^[=!]/.test(this.src.slice(this.at))) this.fail('look-arounds are not supported');
        const name = /^[A-Za-z0-9_]+>/.exec(this.src.slice(this.at));
        if (!name) this.fail('invalid named capture');
        this.at += name[0].length;
      } else if (/^[=!]/.test(this.src.slice(this.at))) {
        this.fail('look-arounds are not supported');
      } else {
        const m = /^([imsU]*)(-([imsU]+))?([:)])/.exec(this.src.slice(this.at));
        if (!m || (m[1] === '' && m[2] === undefined && m[4] === ')'))
          this.fail('invalid or unsupported Perl syntax');
        this.at += m[0].length;
        const changed = { ...flags };
        for (const f of m[1] ?? '') if (f !== 'U') changed[f as keyof Flags] = true;
        for (const f of m[3] ?? '') if (f !== 'U') changed[f as keyof Flags] = false;
        // `(?i)`: the rest of the enclosing group; `(?i:…)`: this group.
        if (m[4] === ')') {
          Object.assign(flags, changed);
          return null;
        }
        inner = changed;
      }
    }
    const node = this.alternation(inner, depth + 1);
    if (!this.eat(')')) this.fail('missing closing )');
    return node;
  }

  private escape(flags: Flags): Node {
    const c = String.fromCodePoint(this.take());
    if (c === 'A') return { t: 'assert', kind: 'bot' };
    if (c === 'z') return { t: 'assert', kind: 'eot' };
    if (c === 'b') return { t: 'assert', kind: 'word' };
    if (c === 'B') return { t: 'assert', kind: 'nonword' };
    const ranges = ESCAPED_CLASSES[c];
    if (ranges) return set(ranges, flags);
    return set(one(this.escapedChar(c)), flags);
  }

  /** The character an escape other than a class or an assertion stands for. */
  private escapedChar(c: string): number {
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return control;
    if (c === 'x') {
      const m = /^(\{([0-9A-Fa-f]{1,6})\}|[0-9A-Fa-f]{2})/.exec(this.src.slice(this.at));
      if (!m) this.fail('invalid escape sequence');
      this.at += m[0].length;
      const code = Number.parseInt(m[2] ?? m[1] ?? '', 16);
      if (code > MAX_CODE_POINT) this.fail('invalid escape sequence');
      return code;
    }
    if (c === '0') {
      const m = /^[0-7]{0,2}/.exec(this.src.slice(this.at)) as RegExpExecArray;
      this.at += m[0].length;
      return Number.parseInt(`0${m[0]}`, 8);
    }
    if (c === 'p' || c === 'P') this.fail('Unicode classes are not supported');
    if (/[0-9A-Za-z]/.test(c)) this.fail('invalid escape sequence');
    return c.codePointAt(0) as number;
  }

  private charClass(flags: Flags): Node {
    const negate = this.eat('^');
    const ranges: [number, number][] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('missing closing ]');
      if (c === 0x5d /* ] */ && !first) {
        this.at++;
        break;
      }
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.at));
      if (posix) {
        const named = POSIX[posix[2] as string];
        if (!named) this.fail('invalid character class range');
        ranges.push(...(posix[1] ? complement(named) : named));
        this.at += posix[0].length;
        continue;
      }
      const lo = this.classChar(ranges);
      if (lo === null) continue;
      if (
        this.src[this.at] === '-' &&
        this.src[this.at + 1] !== ']' &&
        this.at + 1 < this.src.length
      ) {
        this.at++;
        const hi = this.classChar(ranges);
        if (hi === null || hi < lo) this.fail('invalid character class range');
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    return set(ranges, flags, negate);
  }

  /** A character of a class; null for an escaped class (`\d`), whose ranges are added. */
  private classChar(ranges: [number, number][]): number | null {
    const c = this.take();
    if (c !== 0x5c) return c;
    const e = String.fromCodePoint(this.take());
    const escaped = ESCAPED_CLASSES[e];
    if (escaped) {
      ranges.push(...escaped);
      return null;
    }
    return this.escapedChar(e);
  }
}
