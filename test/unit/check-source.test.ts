/**
 * The lint's rules about the source tree (scripts/check-source.ts): a file of 401 lines
 * fails where one of 400 passes, a path a comment names must exist, and folders must not
 * import each other in a circle.
 */
import { describe, expect, it } from 'vitest';
import {
  allowedNames,
  crowded,
  cycles,
  folderGraph,
  lineCount,
  MAX_FILES,
  MAX_LINES,
  missingPaths,
  sharedNames,
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
      {
        path: 'src/lib/a.ts',
        text: '// see src/lib/time/dates.ts and src/lib/gone.ts, and ./nope.ts',
      },
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

  it('fails a folder of more source files than the bound, generated ones aside', () => {
    const files = (n: number, folder = 'src/a') =>
      Array.from({ length: n }, (_, i) => `${folder}/f${i}.ts`);
    expect(crowded([...files(MAX_FILES), 'src/a/x.generated.ts', 'src/a/s.css'])).toEqual([]);
    expect(crowded([...files(MAX_FILES + 1), ...files(3, 'src/a/b')])).toEqual([
      `src/a/: ${MAX_FILES + 1} source files (at most ${MAX_FILES}: make folders)`,
    ]);
  });

  it('names a module name used twice, unless the architecture says why', () => {
    const doc = "### Names used more than once\n\n- `routes.ts`: each feature's routes.\n## Next";
    const paths = ['src/a/routes.ts', 'src/b/routes.ts', 'src/a/reads.ts', 'src/b/reads.tsx'];
    expect(sharedNames(paths, allowedNames(doc))).toEqual([
      'reads: the name of 2 modules (src/a/reads.ts, src/b/reads.tsx)',
    ]);
    expect(sharedNames(paths, allowedNames('no such section'))).toHaveLength(2);
  });
});
