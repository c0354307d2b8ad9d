/**
 * Deterministic sample traffic. A seeded generator produces realistic hits (Zipf-distributed
 * pages, weekly rhythm and a daily curve, multi-page and returning visits, search and social
 * referrers, campaigns, devices, countries, custom events and some bots), and
 * `replayTraffic` sends each one through the one ingestion entry point of a running Worker,
 * so the roll-ups are exactly what real visitors would have produced.
 */
import type { HitRequest } from '../../src/ingest/pipeline.ts';
import type { ReplayedHit, ReplayResult } from '../../src/ingest/replay.ts';

export type GeneratedHit = { body: Record<string, unknown>; req: HitRequest };

/** mulberry32: a small, fast, seedable PRNG (deterministic across runs and machines). */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Weighted<T> = [T, number][];

/** Draws from a weighted table: a binary search over the cumulative weights. */
function picker<T>(random: () => number, table: Weighted<T>): () => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const [, weight] of table) {
    total += weight;
    cumulative.push(total);
  }
  return () => {
    const r = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return (table[lo] as [T, number])[0];
  };
}

const PATHS = [
  '/',
  '/pricing',
  '/features',
  '/blog',
  '/docs',
  '/docs/getting-started',
  '/blog/cookieless-analytics',
  '/about',
  '/docs/api',
  '/blog/edge-computing',
  '/contact',
  '/changelog',
  '/docs/tracker',
  '/blog/privacy-by-design',
  '/careers',
  '/docs/self-hosting',
  '/blog/d1-rollups',
  '/legal/privacy',
  '/integrations',
  '/blog/spa-tracking',
];

const DEVICES: Weighted<{ ua: string; resolutions: string[]; hints?: Record<string, string> }> = [
  [
    {
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      resolutions: ['1920x1080', '1536x864', '2560x1440', '1366x768'],
      hints: {
        'sec-ch-ua': '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
        'sec-ch-ua-platform': '"Windows"',
        'sec-ch-ua-mobile': '?0',
      },
    },
    30,
  ],
  [
    {
      ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      resolutions: ['390x844', '393x852', '430x932'],
    },
    20,
  ],
  [
    {
      ua: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      resolutions: ['412x915', '360x800', '384x854'],
      hints: { 'sec-ch-ua-platform': '"Android"', 'sec-ch-ua-mobile': '?1' },
    },
    14,
  ],
  [
    {
      ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      resolutions: ['1440x900', '1512x982', '1728x1117'],
    },
    11,
  ],
  [
    {
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      resolutions: ['1920x1080', '1280x720'],
    },
    8,
  ],
  [
    {
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      resolutions: ['1920x1080', '2560x1440'],
    },
    6,
  ],
  [
    {
      ua: 'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
      resolutions: ['384x832'],
    },
    4,
  ],
  [
    {
      ua: 'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
      resolutions: ['820x1180', '1024x1366'],
    },
    3,
  ],
  [
    {
      ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      resolutions: ['1920x1080'],
    },
    2,
  ],
  [
    {
      ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      resolutions: ['1024x768'],
    },
    2,
  ],
];

const PLACES: Weighted<{
  country: string;
  continent: string;
  city: string;
  regionCode: string;
  language: string;
}> = [
  [{ country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX', language: 'en-US' }, 14],
  [{ country: 'US', continent: 'NA', city: 'New York', regionCode: 'NY', language: 'en-US' }, 12],
  [
    { country: 'US', continent: 'NA', city: 'San Francisco', regionCode: 'CA', language: 'en-US' },
    9,
  ],
  [{ country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE', language: 'de-DE' }, 9],
  [{ country: 'GB', continent: 'EU', city: 'London', regionCode: 'ENG', language: 'en-GB' }, 9],
  [{ country: 'FR', continent: 'EU', city: 'Paris', regionCode: 'IDF', language: 'fr-FR' }, 6],
  [{ country: 'IN', continent: 'AS', city: 'Bengaluru', regionCode: 'KA', language: 'en-IN' }, 7],
  [{ country: 'JP', continent: 'AS', city: 'Tokyo', regionCode: '13', language: 'ja-JP' }, 5],
  [{ country: 'BR', continent: 'SA', city: 'São Paulo', regionCode: 'SP', language: 'pt-BR' }, 5],
  [{ country: 'CA', continent: 'NA', city: 'Toronto', regionCode: 'ON', language: 'en-CA' }, 4],
  [{ country: 'AU', continent: 'OC', city: 'Sydney', regionCode: 'NSW', language: 'en-AU' }, 3],
  [{ country: 'NL', continent: 'EU', city: 'Amsterdam', regionCode: 'NH', language: 'nl-NL' }, 3],
  [{ country: 'NG', continent: 'AF', city: 'Lagos', regionCode: 'LA', language: 'en-NG' }, 2],
];

const REFERRERS: Weighted<string | null> = [
  [null, 42],
  ['https://www.google.com/', 26],
  ['https://duckduckgo.com/', 7],
  ['https://www.bing.com/', 4],
  ['https://news.ycombinator.com/', 5],
  ['https://t.co/abc123', 4],
  ['https://www.reddit.com/r/webdev/', 3],
  ['https://github.com/sightline', 5],
  ['https://www.linkedin.com/', 2],
  ['https://lobste.rs/', 2],
];

const CAMPAIGNS: Weighted<string | null> = [
  [null, 92],
  ['newsletter', 4],
  ['launch', 2],
  ['spring-sale', 2],
];

const EVENTS: Weighted<Record<string, unknown>> = [
  [{ name: 'signup' }, 5],
  [{ name: 'download', value: 'pdf' }, 3],
  [{ name: 'purchase', value: 49, unit: 'usd' }, 1],
  [{ name: 'purchase', value: 99, unit: 'usd' }, 1],
];

/** Relative traffic by UTC hour: quiet nights, busy afternoons. */
const HOURLY = [2, 1, 1, 1, 1, 2, 3, 5, 7, 8, 9, 9, 9, 9, 9, 9, 8, 8, 7, 6, 5, 4, 3, 2];

export type TrafficOptions = {
  seed: number;
  domain: string;
  days: number;
  /** The last generated day (UTC midnight, epoch ms); traffic stops at `end`. */
  end: number;
  visitorsPerDay: number;
  /**
   * Distinct pages of the site (default: the 20 of a small product site). More pages add
   * generated article paths after those 20; popularity is Zipf-like (weight 1/rank).
   */
  pages?: number;
};

/** The site's paths, most popular first. */
function sitePaths(count = PATHS.length): string[] {
  const paths = PATHS.slice(0, count);
  for (let i = paths.length; i < count; i++) {
    const section = ['blog', 'docs', 'guides', 'changelog'][i % 4];
    paths.push(`/${section}/article-${i}`);
  }
  return paths;
}

/**
 * Generates the hits of `days` days before `end`, one day at a time (each day's hits in
 * time order), so that a year of traffic never has to fit in memory at once.
 */
export function* trafficDays(options: TrafficOptions): Generator<GeneratedHit[]> {
  const random = rng(options.seed);
  const device = picker(random, DEVICES);
  const place = picker(random, PLACES);
  const referrerOf = picker(random, REFERRERS);
  const campaignOf = picker(random, CAMPAIGNS);
  const eventOf = picker(random, EVENTS);
  const hourOf = picker(
    random,
    HOURLY.map((w, h): [number, number] => [h, w]),
  );
  // Zipf-like page popularity: weight 1/rank.
  const pathOf = picker(
    random,
    sitePaths(options.pages).map((p, i): [string, number] => [p, 1 / (i + 1)]),
  );
  const DAY = 86_400_000;
  const start = options.end - options.days * DAY;

  for (let day = 0; day < options.days; day++) {
    const hits: GeneratedHit[] = [];
    const dayStart = start + day * DAY;
    const weekday = new Date(dayStart).getUTCDay();
    const weekly = weekday === 0 || weekday === 6 ? 0.6 : 1;
    const growth = 0.7 + (0.6 * day) / Math.max(1, options.days - 1);
    const visitors = Math.round(options.visitorsPerDay * weekly * growth * (0.8 + 0.4 * random()));
    for (let v = 0; v < visitors; v++) {
      const d = device();
      const p = place();
      const ip = `${[203, 198, 192][v % 3]}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
      const resolution = d.resolutions[Math.floor(random() * d.resolutions.length)] as string;
      let t = dayStart + hourOf() * 3_600_000 + Math.floor(random() * 3_600_000);
      // Most visitors come once a day; some come back after a break (a second visit).
      const visits = random() < 0.12 ? 2 : 1;
      for (let visit = 0; visit < visits; visit++) {
        let referrer = referrerOf();
        const campaign = campaignOf();
        let pages = 1;
        while (pages < 8 && random() < 0.45) pages++;
        for (let n = 0; n < pages && t < dayStart + DAY && t < options.end; n++) {
          const path = n === 0 && random() < 0.35 ? '/' : pathOf();
          const query = n === 0 && campaign ? `?utm_source=mail&utm_campaign=${campaign}` : '';
          const page = `https://${options.domain}${path}${query}`;
          const req: HitRequest = {
            ip,
            userAgent: d.ua,
            headers: new Headers({ 'accept-language': p.language, ...d.hints }),
            cf: p,
            now: t,
          };
          hits.push({
            body: { page, referrer, screen_resolution: resolution, language: p.language },
            req,
          });
          if (random() < 0.08) {
            hits.push({
              body: { page, referrer, screen_resolution: resolution, event: eventOf() },
              req: { ...req, now: t + 5_000 },
            });
          }
          referrer = page;
          t += 20_000 + Math.floor(random() * 240_000);
        }
        t += 45 * 60_000 + Math.floor(random() * 3 * 3_600_000);
      }
    }
    yield hits.sort((a, b) => a.req.now - b.req.now);
  }
}

/** Generates the hits of `days` days before `end`, in time order. */
export function generateTraffic(options: TrafficOptions): GeneratedHit[] {
  return [...trafficDays(options)].flat();
}

/** Hits sent to the replay route per request. */
const REPLAY_CHUNK = 500;

/**
 * Sends generated hits through the one ingestion entry point of a running Worker (its
 * `POST /__replay`, src/ingest/replay.ts), in time order; returns how many were stored and
 * dropped, and the drops by reason. `base` is the Worker's origin, e.g. `http://localhost:8787`.
 */
export async function replayTraffic(
  base: string,
  hits: GeneratedHit[],
  onProgress?: (done: number) => void,
) {
  let stored = 0;
  let dropped = 0;
  const reasons: Record<string, number> = {};
  for (let i = 0; i < hits.length; i += REPLAY_CHUNK) {
    const chunk: ReplayedHit[] = hits.slice(i, i + REPLAY_CHUNK).map(({ body, req }) => ({
      body,
      ip: req.ip ?? '',
      userAgent: req.userAgent,
      headers: Object.fromEntries(req.headers as unknown as Iterable<[string, string]>),
      ...(req.cf ? { cf: req.cf } : {}),
      now: req.now,
    }));
    const res = await fetch(`${base}/__replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chunk),
    });
    if (!res.ok) throw new Error(`replay failed: ${res.status} ${await res.text()}`);
    const result = (await res.json()) as ReplayResult;
    stored += result.stored;
    for (const [reason, count] of Object.entries(result.dropped)) {
      dropped += count;
      reasons[reason] = (reasons[reason] ?? 0) + count;
    }
    onProgress?.(Math.min(i + REPLAY_CHUNK, hits.length));
  }
  return { stored, dropped, reasons };
}
