/**
 * Section 4's goals: the benchmark's website, its dictionary grown to 35,000 texts, given 300
 * page goals (exact pages, wildcards within a segment and across segments, patterns with a
 * wildcard after their first slash), then a hit's latency while four clients keep loading
 * the statistics page under a goal filter — the filter's patterns matched against the
 * website's dictionary (docs/ARCHITECTURE.md, "Reads that never stall hits").
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { hitsWhileReading } from './under-load.ts';

/** The goals' page paths: 300 of them, of every kind a goal may be. */
function goalPaths(): string[] {
  const paths: string[] = [];
  for (let i = 0; i < 200; i++) paths.push(`/docs/article-${100 + i * 7}`);
  for (let i = 0; i < 60; i++) paths.push(`/blog/article-${i + 1}*`);
  for (let i = 0; i < 20; i++) paths.push(`/guides/**/article-${i}`);
  for (let i = 0; i < 20; i++) paths.push(`/**/article-${i + 40}`);
  return paths;
}

/** The texts of the largest dictionary among the Durable Objects `wrangler dev` keeps in `state`. */
export function dictionaryTexts(state: string): number {
  const root = join(state, 'v3', 'do');
  let most = 0;
  for (const namespace of readdirSync(root)) {
    for (const file of readdirSync(join(root, namespace))) {
      if (!file.endsWith('.sqlite')) continue;
      const db = new DatabaseSync(join(root, namespace, file), { readOnly: true });
      try {
        const table = db
          .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'dict'")
          .get();
        if (table) {
          const { n } = db.prepare('SELECT count(*) AS n FROM dict').get() as { n: number };
          most = Math.max(most, n);
        }
      } finally {
        db.close();
      }
    }
  }
  return most;
}

/**
 * The dictionary's texts the goals' and the patterns' questions are matched against: 35,000 in
 * the default run (issue #46), 2,000 in a quick one, whose minutes it would otherwise take.
 */
export const dictionarySize = (quick: boolean) => (quick ? 2_000 : 35_000);

/**
 * Grows the website's dictionary to `texts` texts: page views of pages seen nowhere else
 * (`/catalog/item-<n>`: no goal's pattern matches them), `concurrency` at a time, through
 * `send` (a hit of the page's path). Returns the page views sent.
 */
export async function widenDictionary(
  state: string,
  texts: number,
  send: (i: number, path: string) => Promise<Response>,
  concurrency = 8,
): Promise<number> {
  let sent = 0;
  // A hit of the pool may be dropped (a bot's), so the dictionary is counted again until full.
  for (let missing = texts - dictionaryTexts(state); missing > 0; ) {
    const until = sent + missing;
    const worker = async () => {
      while (sent < until) {
        const i = sent++;
        const res = await send(i, `/catalog/item-${i}`);
        if (res.status !== 202) throw new Error(`a page view of a new page: ${res.status}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    missing = texts - dictionaryTexts(state);
  }
  return sent;
}

/**
 * Adds the goals to the website, then measures hits while four clients load its statistics
 * page (the last 30 days) under a goal filter: one naming the 200 exact-page goals
 * (`contains`), one a single goal, one the goals that start with a wildcard.
 */
export async function hitsUnderGoals(options: {
  base: string;
  siteId: number;
  domain: string;
  apiKey: string;
  seconds: number;
  hit: (i: number) => Promise<Response>;
}) {
  const paths = goalPaths();
  for (const path of paths) {
    const res = await fetch(`${options.base}/api/v1/websites/${options.siteId}/goals`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        'cf-connecting-ip': '172.16.1.1',
      },
      body: JSON.stringify({ page: path }),
    });
    if (res.status !== 201) throw new Error(`adding the goal ${path}: ${res.status}`);
  }
  const page = (filter: string, reader: number) => () =>
    fetch(`${options.base}/stats/${options.domain}?${filter}`, {
      headers: { 'cf-connecting-ip': `172.16.2.${reader + 1}` },
    });
  const questions = [
    page(`filter[goal][contains]=${encodeURIComponent('Visit /docs/')}`, 0),
    page(`filter[goal]=${encodeURIComponent('Visit /blog/article-1*')}`, 1),
    page(`filter[goal][contains]=${encodeURIComponent('Visit /**')}`, 2),
    page(`range=today&filter[goal][contains]=${encodeURIComponent('Visit /')}`, 3),
  ];
  const measured = await hitsWhileReading({
    seconds: options.seconds,
    readers: 4,
    hit: options.hit,
    questions,
  });
  return { goals: paths.length, readers: 4, seconds: options.seconds, ...measured };
}
