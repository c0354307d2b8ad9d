/**
 * The hit pipeline's steps for one parsed hit (docs/ARCHITECTURE.md, The path of a hit): find
 * the website → drops (typed reasons) → rate limit → enrich into the log's hit (`HIT_STEPS`).
 * `ingestCall` (./ingest.ts) parses before and stores after.
 * Each step is a small named function; a dropped hit carries the reason that tests assert
 * and that `POST /api/event` returns in `X-Drop-Reason`.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import { websites } from '../db/schema.ts';
import { localDateHour } from '../lib/time/dates.ts';
import type { LogHit } from '../website-log/events.ts';
import { cachedWebsite } from '../websites/cache.ts';
import { normalizeDomain, parentDomains } from '../websites/domain.ts';
import { eventLabel, type Hit } from './payload.ts';
import { botOf } from './steps/bots.ts';
import type { Crawler } from './steps/crawlers.ts';
import { type CfNetwork, fromDatacenter } from './steps/datacenters.ts';
import { capUserAgent, parseDevice } from './steps/device.ts';
import { isExcludedIp } from './steps/excluded-ip.ts';
import { type CfGeo, geoFromCf } from './steps/geo.ts';
import { languageOf } from './steps/language.ts';
import { campaignOf, excludedParams, hostnameOf, pagePath, utmOf } from './steps/page.ts';
import { externalReferrer, isSameSite } from './steps/referrer.ts';
import { acquisitionSource, channelOf } from './steps/source.ts';

export type DropReason =
  | 'unknown_site'
  | 'host_mismatch'
  | 'bot'
  /** A hit from a hosting or cloud network (`request.cf.asn`: src/ingest/steps/datacenters.ts). */
  | 'datacenter'
  | 'excluded_ip'
  | 'dnt'
  | 'not_counted'
  /** An engagement whose page view its visitor's visit under way does not hold. */
  | 'no_page_view'
  /**
   * An engagement all of whose time was cut — its page view has not existed that long — and
   * that brought no scroll (src/website-log/object/write/engagement.ts).
   */
  | 'engagement_cut'
  /**
   * A hit of a visitor who sent page views faster than a person can — more than 30 within
   * 60 seconds — from the page view that went over to the end of their day; decided by the
   * website's log (src/website-log/object/write/too-fast.ts).
   */
  | 'too_fast'
  /** Over the rate limit of its client IP and website: answered 429, not 202. */
  | 'rate_limited';

/** What the pipeline knows about the request that carried the hit. */
export type HitRequest = {
  /** `CF-Connecting-IP`: the only source of the client address (docs/ARCHITECTURE.md, The HTTP contract). */
  ip: string | null;
  userAgent: string;
  headers: { get(name: string): string | null };
  cf: (CfGeo & CfNetwork) | undefined;
  now: number;
  /** Counts the hit against the rate limit of its client and website; false when over it. */
  withinLimit?: (websiteId: number) => Promise<boolean>;
};

/** Candidate domains for a page host: itself without `www.`, then each parent domain. */
function domainCandidates(host: string): string[] {
  const normalized = normalizeDomain(host);
  return normalized.ok ? [normalized.domain, ...parentDomains(normalized.domain)] : [];
}

export async function findSiteById(db: Database, id: number): Promise<WebsiteRow | undefined> {
  return cachedWebsite(`id:${id}`, () =>
    db.select().from(websites).where(eq(websites.id, id)).get(),
  );
}

/** The website registered under `domain` exactly (as the tracker names it: normalised). */
export async function findSiteByDomain(
  db: Database,
  domain: string,
): Promise<WebsiteRow | undefined> {
  return cachedWebsite(`domain:${domain}`, () =>
    findByCandidates(db, domainCandidates(domain).slice(0, 1)),
  );
}

/** Step: the website named by id or `domain`, else the most specific one matching the page host. */
export async function findSite(db: Database, hit: Hit): Promise<WebsiteRow | undefined> {
  if (hit.websiteId !== undefined) return findSiteById(db, hit.websiteId);
  if (hit.domain) return findSiteByDomain(db, hit.domain);
  const host = hit.page.hostname;
  return cachedWebsite(`host:${host}`, () => findByCandidates(db, domainCandidates(host)));
}

/** The most specific (longest) of the candidate domains that a website is registered under. */
async function findByCandidates(
  db: Database,
  candidates: string[],
): Promise<WebsiteRow | undefined> {
  if (candidates.length === 0) return undefined;
  return db
    .select()
    .from(websites)
    .where(inArray(websites.domain, candidates))
    .orderBy(sql`length(${websites.domain}) DESC`)
    .limit(1)
    .get();
}

/** Step: the page must be on the website's domain or one of its subdomains. */
function hostMatches(site: WebsiteRow, hit: Hit): boolean {
  const host = normalizeDomain(hit.page.hostname);
  return host.ok && isSameSite(host.domain, site.domain);
}

/** Step: Do Not Track / Global Privacy Control, when the snippet asked for it. */
function wantsNoTracking(hit: Hit, headers: HitRequest['headers']): boolean {
  return hit.dnt && (headers.get('dnt') === '1' || headers.get('sec-gpc') === '1');
}

/**
 * A hit that passed every step, enriched as the event log keeps it; or why it was dropped —
 * with, for a bot, the crawler it is or `'unnamed'` (its counter's: docs/ARCHITECTURE.md,
 * "Filtered traffic").
 */
export type PreparedHit =
  | { stored: true; hit: LogHit }
  | { stored: false; reason: DropReason; bot?: Crawler | 'unnamed' };

/**
 * What the drop steps look at: the website, the hit, its request and its capped User-Agent;
 * and the bot the bot step found.
 */
type StepInput = {
  site: WebsiteRow;
  hit: Hit;
  req: HitRequest;
  userAgent: string;
  bot?: Crawler | 'unnamed' | null;
};

/** Step: no bot, when the website excludes them; the bot found is kept for its counter. */
function notBot(s: StepInput): boolean {
  if (s.site.excludeBots !== 1) return true;
  s.bot = botOf(s.userAgent, s.req.headers);
  return s.bot === null;
}

/**
 * The steps of a hit whose website was found, in the order they run — the one list the code
 * runs and docs/ARCHITECTURE.md ("The path of a hit") quotes (a test compares the two): each
 * keeps the hit or drops it with its reason. The drops come first, so that bots, excluded
 * addresses and hits a website does not want never spend its rate limit; the rate limit
 * last (a limited hit answers 429, not 202).
 */
const HIT_STEPS: { drop: DropReason; keeps: (s: StepInput) => boolean | Promise<boolean> }[] = [
  { drop: 'host_mismatch', keeps: (s) => hostMatches(s.site, s.hit) },
  { drop: 'bot', keeps: notBot },
  {
    drop: 'datacenter',
    keeps: (s) => s.site.excludeDatacenters !== 1 || !fromDatacenter(s.req.cf, s.req.ip),
  },
  { drop: 'excluded_ip', keeps: (s) => !isExcludedIp(s.req.ip, s.site.excludeIps) },
  { drop: 'dnt', keeps: (s) => !wantsNoTracking(s.hit, s.req.headers) },
  { drop: 'rate_limited', keeps: (s) => s.req.withinLimit?.(s.site.id) ?? true },
];

/** The reasons of the steps, in the order they run (docs/ARCHITECTURE.md quotes them). */
export const HIT_STEP_ORDER: readonly DropReason[] = HIT_STEPS.map((step) => step.drop);

/**
 * Every step of a hit whose website was found, up to the write: the drops and the rate limit
 * (`HIT_STEPS`), then the enrichment. The write is left to the caller, so that the hits of
 * one tracker call (Plausible's `d: "a.com,b.com"`) are stored together (`storeInLogs`).
 */
export async function prepareSiteHit(
  site: WebsiteRow,
  hit: Hit,
  req: HitRequest,
): Promise<PreparedHit> {
  // Only the first characters of the User-Agent are read, by every step (the bot check, the
  // device and the visitor hash): a long one costs no more than a real one.
  const input: StepInput = { site, hit, req, userAgent: capUserAgent(req.userAgent) };
  for (const step of HIT_STEPS)
    if (!(await step.keeps(input)))
      return step.drop === 'bot' && input.bot
        ? { stored: false, reason: step.drop, bot: input.bot }
        : { stored: false, reason: step.drop };
  return { stored: true, hit: enriched(input) };
}

/** Enrich: the hit as the event log keeps it (`src/ingest/steps/`, one file a step). */
function enriched({ site, hit, req, userAgent }: StepInput): LogHit {
  const { date, hour } = localDateHour(req.now, site.timezone);
  const device = parseDevice(userAgent, {
    platform: req.headers.get('sec-ch-ua-platform'),
    mobile: req.headers.get('sec-ch-ua-mobile'),
    brands: req.headers.get('sec-ch-ua'),
  });
  const geo = geoFromCf(req.cf);
  const page = pagePath(hit.page, excludedParams(site.excludeParams), hit.hash);
  const referrer = externalReferrer(hit.referrer, site.domain) ?? '';
  const campaign = campaignOf(hit.page);
  const utm = utmOf(hit.page);
  const acquisition = {
    referrer,
    utmSource: utm.utmSource,
    utmMedium: utm.utmMedium,
    utmCampaign: campaign,
  };
  return {
    websiteId: site.id,
    kind: hit.engagement ? 'engagement' : hit.event ? 'event' : 'pageview',
    time: req.now,
    date,
    hour,
    ip: req.ip ?? '',
    userAgent,
    page,
    hostname: hostnameOf(hit.page),
    referrer,
    campaign,
    ...utm,
    source: acquisitionSource(acquisition),
    channel: channelOf(acquisition),
    ...geo,
    language: languageOf(hit.language, req.headers.get('accept-language')),
    ...device,
    resolution: hit.resolution,
    event: hit.event ? eventLabel(hit.event) : null,
    name: hit.event ? hit.event.name : 'pageview',
    // A 404 names its page (as Plausible's does when the page did not).
    props:
      hit.event?.name === '404' && !hit.props.some(([name]) => name === 'path')
        ? [...hit.props, ['path', page]]
        : hit.props,
    revenue: hit.revenue,
    ...(hit.engagement ? { engagement: hit.engagement } : {}),
  };
}
