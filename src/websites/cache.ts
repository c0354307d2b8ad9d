/**
 * Websites as the hit endpoints look them up, kept in the isolate for `WEBSITE_CACHE_MS`
 * (docs/ARCHITECTURE.md, The path of a hit): a busy website's hits then read nothing from D1,
 * so a hit costs one write to its event log and no database read.
 *
 * What this trades: a change to a website — its domain, exclusions, time zone, its deletion —
 * reaches hits counted by other isolates within `WEBSITE_CACHE_MS`. The isolate that makes
 * the change forgets every entry at once (`afterChange`, around every statement of
 * src/websites/queries.ts that inserts, updates or deletes websites), which is every isolate under `wrangler dev` and in
 * the tests. A website that is not found is not kept: a new website counts from its first
 * hit. A deleted website's log refuses to roll up once D1 no longer has the website
 * (src/rollups/increments.ts), so hits that reach it from a stale entry are never counted.
 */
import type { WebsiteRow } from '../db/schema.ts';

/** How long a website found for a hit is used without looking again. */
const WEBSITE_CACHE_MS = 30_000;

/** Entries at most; past it the oldest go first. */
const MAX_ENTRIES = 10_000;

const entries = new Map<string, { site: WebsiteRow; until: number }>();

/**
 * The website kept under `key` (how the hit named it), or what `find` answers — kept when it
 * is a website.
 */
export async function cachedWebsite(
  key: string,
  find: () => Promise<WebsiteRow | undefined>,
): Promise<WebsiteRow | undefined> {
  const now = Date.now();
  const kept = entries.get(key);
  if (kept && kept.until > now) return kept.site;
  entries.delete(key);
  const site = await find();
  if (site) {
    if (entries.size >= MAX_ENTRIES) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(key, { site, until: now + WEBSITE_CACHE_MS });
  }
  return site;
}

/**
 * Runs a statement that inserts, updates or deletes websites, then forgets every kept website
 * (one of them changed, or a new one may now match a host) — after the write, so that no
 * lookup made while it ran keeps the old row.
 */
export async function afterChange<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    entries.clear();
  }
}
