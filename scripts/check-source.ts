/**
 * `npm run lint`'s rules about the source tree that Biome has no rule for
 * (docs/DEVELOPING.md, "Checks"):
 *
 * - no file in src/ over `MAX_LINES` lines, every line counted (generated files aside);
 * - no `src/…` path named in the source, the tests, the scripts or the docs that does not
 *   exist, nor a `./…` or `../…` file a source file's comment names;
 * - no cycle between src/'s folders: the imports run one way (docs/ARCHITECTURE.md, "The
 *   pieces"), which the layer rules of biome.json keep from each side;
 * - no folder of src/ with more than `MAX_FILES` source files: a file that outgrows the
 *   line bound moves down into a folder of its own, not sideways into a prefix;
 * - no base name of a module in src/ used twice, but those docs/ARCHITECTURE.md lists under
 *   "Names used more than once", each with why.
 *
 * Run: `npx tsx scripts/check-source.ts` (exits 1 naming each problem).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_LINES = 400;
/** Source files (`.ts`, `.tsx`; generated ones aside) a folder of src/ holds at most. */
export const MAX_FILES = 12;

/** Files under `dir` (relative to `root`) whose names end with one of `endings`. */
function filesUnder(root: string, dir: string, endings: string[]): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(join(root, at))) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(at, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (endings.some((e) => name.endsWith(e))) out.push(path.split(sep).join('/'));
    }
  };
  if (existsSync(join(root, dir))) walk(dir);
  return out.sort();
}

/** The lines of a text, as an editor numbers them (a last line without a break counts). */
export const lineCount = (text: string) =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Files of src/ longer than `MAX_LINES`, with their lengths. */
export function tooLong(files: { path: string; text: string }[]): string[] {
  return files
    .filter((f) => !f.path.includes('.generated.') && lineCount(f.text) > MAX_LINES)
    .map((f) => `${f.path}: ${lineCount(f.text)} lines (at most ${MAX_LINES})`);
}

/** The `src/…` paths a text names (ending in a file's extension or a folder's slash). */
export function namedPaths(text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(/(?<![\w./-])src\/[\w./-]*[\w/]/g)].map((m) =>
        (m[0] as string).replace(/[.]$/, ''),
      ),
    ),
  ];
}

/** The `./…` and `../…` files a text names, as paths from its own folder. */
export function relativePaths(path: string, text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(/(?<![\w./-])\.{1,2}\/[\w./-]*\.(?:tsx?|css)\b/g)].map((m) =>
        normalize(join(dirname(path), m[0] as string))
          .split(sep)
          .join('/'),
      ),
    ),
  ];
}

/** Paths named in `files` that do not exist under `root` (relative ones in src/ only). */
export function missingPaths(root: string, files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const named = [
      ...namedPaths(f.text),
      ...(f.path.startsWith('src/') ? relativePaths(f.path, f.text) : []),
    ];
    for (const path of named) {
      // A glob or a pattern of names (`src/**`, `src/{a,b}`) names no one file.
      if (/[*{]/.test(path)) continue;
      if (!existsSync(join(root, path))) out.push(`${f.path}: names ${path}, which does not exist`);
    }
  }
  return out;
}

/** Folders of src/ with more than `MAX_FILES` source files, with their counts. */
export function crowded(paths: string[]): string[] {
  const counts = new Map<string, number>();
  for (const path of paths) {
    if (!/\.tsx?$/.test(path) || path.includes('.generated.')) continue;
    const folder = path.slice(0, path.lastIndexOf('/'));
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, n]) => n > MAX_FILES)
    .map(([folder, n]) => `${folder}/: ${n} source files (at most ${MAX_FILES}: make folders)`);
}

/** A module's base name: `src/query/parse/v1.ts` → `v1`. */
const baseName = (path: string) => (path.split('/').at(-1) as string).replace(/\.tsx?$/, '');

/**
 * Base names of src/'s modules used more than once and not among `allowed` (the names
 * docs/ARCHITECTURE.md justifies), each with its files.
 */
export function sharedNames(paths: string[], allowed: Set<string>): string[] {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    if (!/\.tsx?$/.test(path) || path.includes('.generated.')) continue;
    const name = baseName(path);
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  return [...byName]
    .filter(([name, files]) => files.length > 1 && !allowed.has(name))
    .map(([name, files]) => `${name}: the name of ${files.length} modules (${files.join(', ')})`);
}

/**
 * The base names docs/ARCHITECTURE.md allows more than once: those its section "Names used
 * more than once" names in backticks as files (`routes.ts`).
 */
export function allowedNames(architecture: string): Set<string> {
  const start = architecture.indexOf('### Names used more than once');
  if (start < 0) return new Set();
  const end = architecture.indexOf('\n#', start + 4);
  const section = architecture.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/`([\w-]+)\.tsx?`/g)].map((m) => m[1] as string));
}

/** The folder (or root file) of src/ a file belongs to: that of `src/query/parse/v2/…` is `stats`. */
const folderOf = (path: string) => path.split('/')[1] as string;

/** Each src/ folder's imports of other src/ folders. */
export function folderGraph(files: { path: string; text: string }[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const f of files) {
    const from = folderOf(f.path);
    const to = graph.get(from) ?? new Set<string>();
    graph.set(from, to);
    for (const m of f.text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(f.path), m[1] as string))
        .split(sep)
        .join('/');
      if (!target.startsWith('src/')) continue;
      const folder = folderOf(target);
      if (folder !== from) to.add(folder);
    }
  }
  return graph;
}

/** The cycles of a graph, each once, as paths `a → b → a`. */
export function cycles(graph: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const visit = (node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        // One spelling of each loop: from its least member.
        const start = loop.indexOf([...loop].sort()[0] as string);
        const canonical = [...loop.slice(start), ...loop.slice(0, start)];
        found.add([...canonical, canonical[0]].join(' → '));
      } else if (path.length < 12) visit(next, [...path, next]);
    }
  };
  for (const node of graph.keys()) visit(node, [node]);
  return [...found].sort();
}

function main(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const read = (path: string) => ({ path, text: readFileSync(join(root, path), 'utf8') });
  const source = filesUnder(root, 'src', ['.ts', '.tsx', '.css']).map(read);
  const texts = [
    ...source,
    ...filesUnder(root, 'scripts', ['.ts']).map(read),
    // The rules' own test names made-up files.
    ...filesUnder(root, 'test', ['.ts', '.tsx'])
      .filter((path) => path !== 'test/unit/check-source.test.ts')
      .map(read),
    // BENCHMARKS.md quotes other projects' files (its section 7, from scripts/bench/).
    ...filesUnder(root, 'docs', ['.md'])
      .filter((path) => path !== 'docs/BENCHMARKS.md')
      .map(read),
    read('README.md'),
  ];
  const modules = source.map((f) => f.path);
  const allowed = allowedNames(read('docs/ARCHITECTURE.md').text);
  const problems = [
    ...tooLong(source),
    ...crowded(modules),
    ...sharedNames(modules, allowed).map((s) => `a module name used for different jobs: ${s}`),
    ...missingPaths(root, texts),
    ...cycles(folderGraph(source.filter((f) => !f.path.endsWith('.css')))).map(
      (loop) => `src/'s folders import each other: ${loop}`,
    ),
  ];
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s) in the source tree`);
    process.exit(1);
  }
  console.log(`source tree: ${source.length} files checked`);
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') main();
