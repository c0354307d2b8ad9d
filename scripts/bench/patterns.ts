/**
 * Section 4's patterns: a hit's latency while four clients keep asking the Stats API v2 the
 * costliest patterns there are — programs near the largest a pattern may compile to, that visit
 * hundreds of states a character, and one too large to compile — over the benchmark website's
 * dictionary (docs/SECURITY.md, "No pattern holds a website's log"). Each question must be
 * answered, or refused with a 400 that names its pattern, within 2 s.
 */
import { spread } from './under-load.ts';

/** Pathological patterns: `matches` filters of the page that cost most per character. */
const PATHOLOGICAL = ['(.*){400}x', '(?:a?){300}a{300}', '[a-z/-]{1,300}#', '(?:a?){999}a{999}'];

/**
 * One client sends hits, one after another, for `seconds`, while four clients ask the v2
 * question of each pathological pattern in turn: the hits' latencies, the questions', and how
 * many were answered or refused (a refusal that does not name its pattern is an error).
 */
export async function hitsUnderPatterns(options: {
  base: string;
  domain: string;
  apiKey: string;
  seconds: number;
  hit: (i: number) => Promise<Response>;
}) {
  const readers = 4;
  let done = false;
  const questions: number[] = [];
  let answered = 0;
  let refused = 0;
  const ask = async (pattern: string, reader: number) => {
    const s = performance.now();
    const res = await fetch(`${options.base}/api/v2/query`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        'cf-connecting-ip': `172.16.3.${reader + 1}`,
      },
      body: JSON.stringify({
        site_id: options.domain,
        date_range: '30d',
        metrics: ['visitors'],
        filters: [['matches', 'event:page', [pattern]]],
      }),
    });
    const text = await res.text();
    questions.push(performance.now() - s);
    if (res.status === 200) answered++;
    else if (res.status === 400 && text.includes(JSON.stringify(pattern).slice(1, -1))) refused++;
    else throw new Error(`a pattern's question answered ${res.status}: ${text.slice(0, 200)}`);
  };
  const askers = Array.from({ length: readers }, async (_, r) => {
    for (let i = r; !done; i++) await ask(PATHOLOGICAL[i % PATHOLOGICAL.length] as string, r);
  });
  const hits: number[] = [];
  const deadline = performance.now() + options.seconds * 1000;
  for (let i = 0; performance.now() < deadline; i++) {
    const s = performance.now();
    const res = await options.hit(i);
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`a hit answered ${res.status}`);
    hits.push(performance.now() - s);
  }
  done = true;
  await Promise.all(askers);
  return {
    patterns: PATHOLOGICAL,
    readers,
    seconds: options.seconds,
    hits: spread(hits),
    questions: { ...spread(questions), answered, refused },
  };
}
