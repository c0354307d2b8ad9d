/**
 * What each step of a hit costs (docs/BENCHMARKS.md, "Ingestion throughput"): the steps of the
 * path of a hit (docs/ARCHITECTURE.md) run one at a time, in this process, over a day of the
 * benchmark's generated traffic — the same code the Worker and the website's object run, on
 * the same V8, without the platform between them. The object's write runs the real
 * `WebsiteLogCore` over Node's SQLite (./sqlite-log-storage.ts), in memory. Each figure is
 * the median of several passes, in microseconds of CPU a hit.
 */
import type { WebsiteRow } from '../../src/db/schema.ts';
import { fromEventBody } from '../../src/ingest/formats.ts';
import { type Hit, parseHit } from '../../src/ingest/payload.ts';
import { type HitRequest, prepareSiteHit } from '../../src/ingest/pipeline.ts';
import { botOf } from '../../src/ingest/steps/bots.ts';
import { fromDatacenter } from '../../src/ingest/steps/datacenters.ts';
import { capUserAgent, parseDevice } from '../../src/ingest/steps/device.ts';
import { geoFromCf } from '../../src/ingest/steps/geo.ts';
import { languageOf } from '../../src/ingest/steps/language.ts';
import { campaignOf, excludedParams, pagePath, utmOf } from '../../src/ingest/steps/page.ts';
import { externalReferrer } from '../../src/ingest/steps/referrer.ts';
import { acquisitionSource, channelOf } from '../../src/ingest/steps/source.ts';
import { localDateHour } from '../../src/lib/time/dates.ts';
import type { LogHit } from '../../src/website-log/events.ts';
import { WebsiteLogCore } from '../../src/website-log/object/core.ts';
import { type GeneratedHit, trafficDays } from '../lib/traffic.ts';
import { sqliteLogStorage } from './sqlite-log-storage.ts';

export type HitStep = { step: string; where: 'worker' | 'object'; microseconds: number };

/** The median of `passes` timings of `work` over every hit, in microseconds a hit. */
async function timed<T>(items: T[], passes: number, work: (item: T) => unknown): Promise<number> {
  const times: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    const started = performance.now();
    for (const item of items) {
      const out = work(item);
      if (out instanceof Promise) await out;
    }
    times.push(((performance.now() - started) * 1000) / items.length);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(times.length / 2)] as number) * 10) / 10;
}

const site = {
  id: 1,
  domain: 'bench.example',
  timezone: 'UTC',
  excludeBots: 1,
  excludeDatacenters: 1,
  excludeIps: '',
  excludeParams: '',
} as WebsiteRow;

/** The hits of one generated day, parsed, with the text their request carried. */
function dayOfHits(visitors: number): { text: string; hit: Hit; req: HitRequest }[] {
  const end = Date.UTC(2026, 0, 2);
  const [day] = trafficDays({
    seed: 7,
    domain: site.domain,
    days: 1,
    end,
    visitorsPerDay: visitors,
  });
  return (day as GeneratedHit[]).flatMap(({ body, req }) => {
    const translated = fromEventBody(body);
    if (translated.kind !== 'hits') return [];
    const parsed = parseHit(translated.hits[0]);
    return parsed.ok ? [{ text: JSON.stringify(body), hit: parsed.hit, req }] : [];
  });
}

/** Each step's microseconds a hit, in the order a hit meets them. */
export async function hitSteps(options: { visitors: number; passes: number }): Promise<HitStep[]> {
  const hits = dayOfHits(options.visitors);
  const { passes } = options;
  const params = excludedParams(site.excludeParams);
  const steps: HitStep[] = [];
  const add = async (step: string, work: (h: (typeof hits)[number]) => unknown) =>
    steps.push({ step, where: 'worker', microseconds: await timed(hits, passes, work) });
  await add('read the body and parse the hit', ({ text }) => {
    const translated = fromEventBody(JSON.parse(text));
    return translated.kind === 'hits' ? parseHit(translated.hits[0]) : null;
  });
  await add('bot: known crawlers, isbot, automation', ({ req }) =>
    botOf(capUserAgent(req.userAgent), req.headers),
  );
  await add("data centre: the network's ASN", ({ req }) =>
    fromDatacenter({ asn: 16_509 + (req.now % 2) * 3_000 }, req.ip),
  );
  await add('device: browser, OS, screen class', ({ req }) =>
    parseDevice(capUserAgent(req.userAgent), {
      platform: req.headers.get('sec-ch-ua-platform'),
      mobile: req.headers.get('sec-ch-ua-mobile'),
      brands: req.headers.get('sec-ch-ua'),
    }),
  );
  await add('page, UTM and campaign', ({ hit }) => [
    pagePath(hit.page, params, hit.hash),
    utmOf(hit.page),
    campaignOf(hit.page),
  ]);
  await add('referrer, source and channel', ({ hit }) => {
    const referrer = externalReferrer(hit.referrer, site.domain) ?? '';
    const a = { referrer, utmSource: null, utmMedium: null, utmCampaign: null };
    return [acquisitionSource(a), channelOf(a)];
  });
  await add('place, language, local date', ({ req }) => [
    geoFromCf(req.cf),
    languageOf(null, req.headers.get('accept-language')),
    localDateHour(req.now, site.timezone),
  ]);
  const prepared: LogHit[] = [];
  await add('every step of the Worker (drops and enrichment)', async ({ hit, req }) => {
    const out = await prepareSiteHit(site, hit, req);
    if (out.stored && prepared.length < hits.length) prepared.push(out.hit);
  });
  const log = new WebsiteLogCore(sqliteLogStorage(':memory:'), {
    DB: undefined as never,
    EVENT_RETENTION_DAYS: undefined,
  });
  steps.push({
    step: "the object's write: visitor hash, visit, too-fast check, row",
    where: 'object',
    // One pass: a hit is stored once (a second pass would find every visitor known).
    microseconds: await timed(prepared, 1, (hit) => log.record(hit)),
  });
  return steps;
}

/** The table of docs/BENCHMARKS.md's section 4 that says what each step costs. */
export function hitStepsSection(steps: HitStep[] | undefined, requestsPerSecond: number): string {
  if (!steps?.length) return '';
  const perRequest = Math.round(1_000_000 / Math.max(1, requestsPerSecond));
  return `### What each step of a hit costs

Each step of the path of a hit (docs/ARCHITECTURE.md) run alone over a day of the generated
traffic, in Node on the same V8 and the same cores (scripts/bench/hit-steps.ts;
\`throughput.steps\`, microseconds of CPU a hit, the median of five passes). The Worker's steps
are its own work; the object's write is the real log over Node's SQLite in memory, so its
figure holds the statements but not the disk.

| Step | Where | µs a hit |
|---|---|---|
${steps.map((s) => `| ${s.step} | ${s.where} | ${s.microseconds} |`).join('\n')}

At the hits' rate above, the machine spends some ${perRequest.toLocaleString('en')} µs a hit in all (its two cores shared
by the load generator, the Worker, the objects and the local D1): Sightline's own steps are a
small part of it, the object's statements the largest of them.
`;
}
