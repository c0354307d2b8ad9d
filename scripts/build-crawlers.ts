/**
 * `npm run build:crawlers`: writes src/ingest/steps/crawlers.generated.ts, the known crawlers
 * the bot step names (src/ingest/steps/bots.ts, `crawlerOf`), from the list of the pinned
 * `crawler-user-agents` package (Martin Monperrus and contributors, MIT): its patterns as they
 * are, each named as the crawler's own User-Agent writes it (the part of the list's first
 * example that the pattern matches), grouped by kind. The kinds are
 * Sightline's: `KINDS` below for the crawlers reports name most, then the list's own tags
 * (`search-engine`); the others (`other`) are left out, to keep the Worker small. Run it after updating the package.
 *
 * `--check` rebuilds in memory and exits 1 if the committed file differs (a test runs it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRAWLER_KINDS, type CrawlerKind, literalName } from '../src/ingest/steps/crawlers.ts';

export const CRAWLERS_FILE = fileURLToPath(
  new URL('../src/ingest/steps/crawlers.generated.ts', import.meta.url),
);

type Kind = CrawlerKind;

/**
 * The kinds of the crawlers reports name most, by their makers' documentation: AI training
 * (collects pages to train models), AI search (indexes pages for an assistant's answers), AI
 * agent (fetches a page because a person asked an assistant to), search engine, SEO, monitor.
 * A row names the crawler as its maker writes it and finds the list's entry by that name (any
 * case) or, where the list's pattern is not the name, by the pattern itself. The build fails
 * when a row finds nothing, so that a crawler the list drops or renames is noticed.
 */
const KINDS: { name: string; kind: Kind; pattern?: string }[] = [
  // AI training.
  { name: 'GPTBot', kind: 'ai_training' },
  { name: 'ClaudeBot', kind: 'ai_training' },
  { name: 'anthropic-ai', kind: 'ai_training' },
  { name: 'Google-Extended', kind: 'ai_training' },
  { name: 'Bytespider', kind: 'ai_training' },
  { name: 'CCBot', kind: 'ai_training' },
  { name: 'Amazonbot', kind: 'ai_training' },
  { name: 'meta-externalagent', kind: 'ai_training' },
  { name: 'FacebookBot', kind: 'ai_training' },
  { name: 'cohere-training-data-crawler', kind: 'ai_training' },
  { name: 'AI2Bot', kind: 'ai_training' },
  { name: 'PanguBot', kind: 'ai_training' },
  { name: 'img2dataset', kind: 'ai_training' },
  { name: 'laion-huggingface-processor', kind: 'ai_training' },
  // AI search.
  { name: 'OAI-SearchBot', kind: 'ai_search' },
  { name: 'Claude-SearchBot', kind: 'ai_search' },
  { name: 'PerplexityBot', kind: 'ai_search' },
  { name: 'DuckAssistBot', kind: 'ai_search' },
  { name: 'Amzn-SearchBot', kind: 'ai_search' },
  { name: 'AzureAI-SearchBot', kind: 'ai_search' },
  { name: 'meta-webindexer', kind: 'ai_search' },
  { name: 'YouBot', kind: 'ai_search' },
  { name: 'PhindBot', kind: 'ai_search' },
  { name: 'TavilyBot', kind: 'ai_search' },
  // AI agents.
  { name: 'ChatGPT-User', kind: 'ai_agent' },
  { name: 'Claude-User', kind: 'ai_agent' },
  { name: 'Claude-Web', kind: 'ai_agent' },
  { name: 'Perplexity-User', kind: 'ai_agent' },
  { name: 'MistralAI-User', kind: 'ai_agent' },
  { name: 'Gemini-Deep-Research', kind: 'ai_agent' },
  { name: 'Google-NotebookLM', kind: 'ai_agent' },
  { name: 'Amzn-User', kind: 'ai_agent' },
  { name: 'Manus-User', kind: 'ai_agent' },
  { name: 'meta-externalfetcher', kind: 'ai_agent' },
  { name: 'cohere-ai', kind: 'ai_agent' },
  { name: 'kagi-fetcher', kind: 'ai_agent' },
  // Search engines.
  { name: 'Googlebot', kind: 'search_engine' },
  { name: 'Bingbot', kind: 'search_engine' },
  { name: 'Applebot', kind: 'search_engine' },
  { name: 'DuckDuckBot', kind: 'search_engine' },
  { name: 'YandexBot', kind: 'search_engine', pattern: 'yandex\\.com\\/bots' },
  { name: 'Baiduspider', kind: 'search_engine' },
  { name: 'SeznamBot', kind: 'search_engine' },
  { name: 'PetalBot', kind: 'search_engine' },
  { name: 'Qwantbot', kind: 'search_engine' },
  { name: 'MojeekBot', kind: 'search_engine' },
  // SEO.
  { name: 'AhrefsBot', kind: 'seo', pattern: 'Ahrefs(Bot|SiteAudit)' },
  { name: 'SemrushBot', kind: 'seo' },
  { name: 'MJ12bot', kind: 'seo' },
  { name: 'DotBot', kind: 'seo' },
  { name: 'rogerbot', kind: 'seo' },
  { name: 'BLEXBot', kind: 'seo' },
  { name: 'DataForSeoBot', kind: 'seo' },
  { name: 'serpstatbot', kind: 'seo' },
  { name: 'Screaming Frog SEO Spider', kind: 'seo' },
  // Monitors.
  { name: 'UptimeRobot', kind: 'monitor' },
  { name: 'Pingdom', kind: 'monitor' },
  { name: 'StatusCake', kind: 'monitor' },
  { name: 'DatadogSynthetics', kind: 'monitor' },
  { name: 'NewRelicSynthetics', kind: 'monitor' },
  { name: 'Checkly', kind: 'monitor' },
  { name: 'Better Uptime Bot', kind: 'monitor' },
];

/**
 * The list's tags that say a kind, for the entries `KINDS` does not name: search engines only
 * (its hundreds of SEO tools and monitors beyond those `KINDS` names would cost the Worker
 * more than they tell).
 */
const TAG_KINDS: Record<string, Kind> = {
  'search-engine': 'search_engine',
};

type Entry = { pattern: string; instances: string[]; tags?: string[] };

function crawlerList(): { entries: Entry[]; version: string; license: string } {
  const require = createRequire(import.meta.url);
  // The package exports its list only (crawler-user-agents.json), beside its package.json.
  const file = require.resolve('crawler-user-agents');
  const manifest = join(dirname(file), 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; license: string };
  const entries = JSON.parse(readFileSync(file, 'utf8')) as Entry[];
  return { entries, version: pkg.version, license: pkg.license };
}

/** A pattern's crawler as its User-Agent writes it: what it matches of an example, trimmed. */
function derivedName(entry: Entry): string {
  const regex = new RegExp(entry.pattern);
  const matched = entry.instances.map((instance) => regex.exec(instance)?.[0]).find(Boolean);
  // A pattern with a gap or a version in it (`ContextualBot[\s\S]*outcomes\.net`) says its
  // name better than what it matches (`ContextualBot/1.0; +http://outcomes.net`).
  if (matched === undefined || /\[\\s\\S\]|\\d/.test(entry.pattern))
    return literalName(entry.pattern.replace(/\[\\s\\S\]\*/g, ' ').replace(/\\\/\\d.*?\+/g, ''));
  return literalName(escaped(matched));
}

/** Text as a pattern that matches it literally (so that `literalName` gives it back). */
function escaped(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** The generated file's text. */
export function crawlersText(): string {
  const { entries, version, license } = crawlerList();
  const rows = new Map<Entry, { name: string; kind: Kind }>();
  for (const row of KINDS) {
    const found = entries.filter((entry) =>
      row.pattern
        ? entry.pattern === row.pattern
        : derivedName(entry).toLowerCase() === row.name.toLowerCase(),
    );
    if (found.length === 0) throw new Error(`crawler-user-agents has no entry for ${row.name}`);
    for (const entry of found) rows.set(entry, { name: row.name, kind: row.kind });
  }
  const crawlers = entries.map((entry) => {
    const known = rows.get(entry);
    if (known) return known;
    const tag = (entry.tags ?? []).find((t) => TAG_KINDS[t] !== undefined);
    return { name: derivedName(entry), kind: tag ? (TAG_KINDS[tag] as Kind) : 'other' };
  });
  const patterns = entries.map((entry) => entry.pattern);
  const dates = entries.flatMap((entry) => {
    const date = (entry as { addition_date?: string }).addition_date;
    return date ? [date.replaceAll('/', '-')] : [];
  });
  const newest = dates.sort().at(-1) ?? 'unknown';
  // A crawler of no kind but `other` is left out (isbot still drops it, unnamed): the list
  // ships inside the Worker, whose size is bounded (docs/DEVELOPING.md).
  const lines = CRAWLER_KINDS.filter((kind) => kind !== 'other').flatMap((kind) => [
    `# ${kind}`,
    ...patterns
      .flatMap((pattern, i) => {
        const crawler = crawlers[i] as { name: string; kind: Kind };
        if (crawler.kind !== kind) return [];
        return [crawler.name === literalName(pattern) ? pattern : `${pattern}\t${crawler.name}`];
      })
      .sort(),
  ]);
  const kept = crawlers.filter((c) => c.kind !== 'other').length;
  return [
    `// Known crawlers: the ${kept} of the ${entries.length} patterns of crawler-user-agents ${version} (${license},`,
    `// https://github.com/monperrus/crawler-user-agents, copyright Martin Monperrus; its newest`,
    `// entry added ${newest}), with Sightline's names and kinds (scripts/build-crawlers.ts).`,
    '// Written by `npm run build:crawlers`; do not edit.',
    '/**',
    ' * The crawlers of each kind (`# kind` starts them; sorted, which packs best), one a line:',
    ' * its pattern (case-sensitive, as the list writes it) and, after a tab, its name where',
    " * it is not the pattern's literal text (`literalName`).",
    ' */',
    `export const CRAWLER_LIST = String.raw\`${lines.join('\n')}\`;`,
    '',
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = crawlersText();
  if (process.argv.includes('--check')) {
    if (readFileSync(CRAWLERS_FILE, 'utf8') !== text) {
      console.error(
        'src/ingest/steps/crawlers.generated.ts is out of date: run `npm run build:crawlers`.',
      );
      process.exit(1);
    }
    console.log('src/ingest/steps/crawlers.generated.ts is up to date.');
  } else {
    writeFileSync(CRAWLERS_FILE, text);
    console.log(`Wrote src/ingest/steps/crawlers.generated.ts (${text.length} bytes).`);
  }
}
