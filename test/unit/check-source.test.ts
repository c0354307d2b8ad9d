/**
 * The lint's rules about the source tree (scripts/check-source.ts): a file of 401 lines
 * fails where one of 400 passes, a path a comment names must exist, and folders must not
 * import each other in a circle.
 */
import { describe, expect, it } from 'vitest';
import {
  cycles,
  folderGraph,
  lineCount,
  MAX_LINES,
  missingPaths,
  tooLong,
} from '../../scripts/check-source.ts';

const lines = (n: number) =>
  `${Array.from({ length: n }, (_, i) => `const x${i} = ${i};`).join('\n')}\n`;

describe('the source tree rules', () => {
  it('counts every line, and fails a file of src/ one line over the bound', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    expect(tooLong([{ path: 'src/a.ts', text: lines(MAX_LINES) }])).toEqual([]);
    expect(tooLong([{ path: 'src/a.ts', text: lines(MAX_LINES + 1) }])).toEqual([
      `src/a.ts: ${MAX_LINES + 1} lines (at most ${MAX_LINES})`,
    ]);
    // Generated files are left out.
    expect(tooLong([{ path: 'src/x.generated.ts', text: lines(MAX_LINES + 1) }])).toEqual([]);
  });

  it('finds the paths a text names that do not exist, relative ones in src/ too', () => {
    const files = [
      { path: 'src/lib/a.ts', text: '// see src/lib/dates.ts and src/lib/gone.ts, and ./nope.ts' },
    ];
    expect(missingPaths(process.cwd(), files)).toEqual([
      'src/lib/a.ts: names src/lib/gone.ts, which does not exist',
      'src/lib/a.ts: names src/lib/nope.ts, which does not exist',
    ]);
  });

  it('finds folders that import each other in a circle', () => {
    const graph = folderGraph([
      { path: 'src/a/x.ts', text: "import { y } from '../b/y.ts';" },
      { path: 'src/b/y.ts', text: "import { z } from '../c/z.ts';" },
      { path: 'src/c/z.ts', text: "import { x } from '../a/x.ts';" },
      { path: 'src/c/w.ts', text: "import { v } from '../lib/v.ts';" },
    ]);
    expect(cycles(graph)).toEqual(['a → b → c → a']);
    graph.get('c')?.delete('a');
    expect(cycles(graph)).toEqual([]);
  });
});
