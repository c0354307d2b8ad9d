/**
 * `npm run build:suffixes`: writes the Public Suffix List (https://publicsuffix.org, ICANN and
 * private sections) as static/public-suffixes.txt, one rule a line in the list's own syntax
 * (`co.uk`, `*.ck`, `!www.ck`), from the list the pinned `tldts` carries. The Worker reads that
 * file as a static asset when a website is added (src/websites/public-suffixes.ts), so the
 * list's 9,800 rules are not part of its bundle. Run it after updating `tldts`.
 *
 * `--check` rebuilds in memory and exits 1 if the committed file differs (a test runs it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SUFFIXES_FILE } from './lib/public-suffixes.ts';

/** tldts's flat trie: nodes, their edges (labels, right to left) and a flag where a rule ends. */
type Trie = {
  nodeFlags: Uint8Array;
  edgeStart: Uint16Array | Uint32Array;
  edgeLength: Uint8Array;
  edgeChild: Uint16Array | Uint32Array;
  labelText: string;
  rulesRoot: number;
  exceptionsRoot: number;
};

async function tldtsTrie(): Promise<{ trie: Trie; version: string }> {
  const manifest = createRequire(import.meta.url).resolve('tldts/package.json');
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const file = join(dirname(manifest), 'dist/es6/src/data/trie.js');
  return { trie: (await import(pathToFileURL(file).href)) as Trie, version };
}

/** Every rule under `root`, as the list writes it (labels left to right). */
function rulesUnder(trie: Trie, root: number): string[] {
  const offsets: number[] = [];
  for (let edge = 0, offset = 0; edge < trie.edgeLength.length; edge += 1) {
    offsets.push(offset);
    offset += trie.edgeLength[edge] ?? 0;
  }
  const rules: string[] = [];
  const visit = (node: number, labels: string[]) => {
    if (labels.length > 0 && (trie.nodeFlags[node] ?? 0) !== 0) rules.push(labels.join('.'));
    for (let edge = trie.edgeStart[node] ?? 0; edge < (trie.edgeStart[node + 1] ?? 0); edge += 1) {
      const start = offsets[edge] ?? 0;
      const label = trie.labelText.slice(start, start + (trie.edgeLength[edge] ?? 0));
      visit(trie.edgeChild[edge] ?? 0, [label, ...labels]);
    }
  };
  visit(root, []);
  return rules;
}

/** The file's text: a header, then the rules and the exceptions (`!`), sorted. */
export async function suffixesText(): Promise<string> {
  const { trie, version } = await tldtsTrie();
  const rules = [
    ...rulesUnder(trie, trie.rulesRoot),
    ...rulesUnder(trie, trie.exceptionsRoot).map((rule) => `!${rule}`),
  ].sort();
  return [
    `// The Public Suffix List (https://publicsuffix.org, MPL-2.0): ICANN and private sections,`,
    `// ${rules.length} rules, from tldts ${version}. Written by \`npm run build:suffixes\`; do not edit.`,
    ...rules,
    '',
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await suffixesText();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(SUFFIXES_FILE, 'utf8');
    if (committed !== text) {
      console.error('static/public-suffixes.txt is out of date: run `npm run build:suffixes`.');
      process.exit(1);
    }
    console.log('static/public-suffixes.txt is up to date.');
  } else {
    writeFileSync(SUFFIXES_FILE, text);
    const rules = text.split('\n').filter((line) => line !== '' && !line.startsWith('//'));
    console.log(`Wrote static/public-suffixes.txt (${rules.length} rules).`);
  }
}
