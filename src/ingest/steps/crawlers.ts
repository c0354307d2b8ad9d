/**
 * What the known crawlers' list (./crawlers.generated.ts, written by `npm run build:crawlers`
 * from the crawler-user-agents package) says of a crawler besides its pattern: its kind and,
 * unless the list writes it, its name. ./bots.ts matches the list.
 */

/** What a crawler does (./crawlers.generated.ts lists the crawlers of each in this order). */
export const CRAWLER_KINDS = [
  'ai_training',
  'ai_search',
  'ai_agent',
  'search_engine',
  'seo',
  'monitor',
  'other',
] as const;
export type CrawlerKind = (typeof CRAWLER_KINDS)[number];

export type Crawler = { name: string; kind: CrawlerKind };

/**
 * The name a pattern of the list says literally: its text without anchors and escapes, a
 * character class as its first character (`[cC]laude` → `claude`), spaces and `/` trimmed. The
 * generated file writes a crawler's name only where its maker's differs from this.
 */
export function literalName(pattern: string): string {
  return pattern
    .replace(/\(\^\| \)|^\^|\$$/g, '')
    .replace(/\[(.)[^\]]*\]/g, '$1')
    .replace(/\\(.)/g, '$1')
    .replace(/^[\s(;+]+|[\s/;:(]+$/g, '');
}

/**
 * The generated list's crawlers, in its order, with their patterns: a line `# kind` starts a
 * kind's, then one a line, its pattern and, after a tab, its name unless `literalName` says it.
 */
export function parseCrawlerList(text: string): (Crawler & { pattern: string })[] {
  let kind: CrawlerKind = 'other';
  return text.split('\n').flatMap((line) => {
    const heading = /^# (\w+)$/.exec(line)?.[1];
    if (heading !== undefined) {
      kind = CRAWLER_KINDS.find((k) => k === heading) ?? 'other';
      return [];
    }
    const [pattern = '', name = literalName(pattern)] = line.split('\t');
    return [{ pattern, name, kind }];
  });
}

/** The shortest text a pattern's mark is looked up by (see `marksOf`). */
export const MARK_LENGTH = 3;

/**
 * Texts one of which a User-Agent holds when `pattern` matches it — the longest literal run of
 * each of its top-level alternatives — so that the list is looked up by them, not tried
 * pattern by pattern; null when an alternative has no run of `MARK_LENGTH` characters.
 */
export function marksOf(pattern: string): string[] | null {
  const marks: string[] = [];
  let runs: string[] = [];
  let run = '';
  const end = () => {
    runs.push(run);
    run = '';
  };
  const close = () => {
    end();
    const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
    marks.push(longest);
    runs = [];
  };
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    const next = pattern[i + 1];
    if (next === '?' || next === '*' || next === '{') {
      end(); // an optional character ends the run without joining it
      if (char === '\\') i += 1;
      continue;
    }
    if (char === '\\') {
      const escaped = pattern[i + 1] ?? '';
      i += 1;
      if (/[dDsSwWbB]/.test(escaped)) end();
      else run += escaped;
    } else if (char === '[') {
      end();
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
    } else if (char === '(') {
      end();
      for (let depth = 1; depth > 0 && i + 1 < pattern.length; ) {
        i += 1;
        if (pattern[i] === '\\') i += 1;
        else if (pattern[i] === '(') depth += 1;
        else if (pattern[i] === ')') depth -= 1;
      }
    } else if (char === '|') close();
    else if ('.^$+*?{})'.includes(char))
      end(); // after `+`, the character before is there
    else run += char;
  }
  close();
  return marks.every((mark) => mark.length >= MARK_LENGTH) ? marks : null;
}
