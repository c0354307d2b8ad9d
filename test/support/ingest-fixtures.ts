/** Helpers for the `POST /api/event` integration tests: sites, frozen time, raw table reads. */
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import { visitorHash } from '../../src/event-log/events.ts';
import { makeOwner, makeWebsite } from './api.ts';

let owner: Promise<Awaited<ReturnType<typeof makeOwner>>> | undefined;

/** A new website of one shared owner; `label` makes the generated domain readable. */
export async function site(label: string, fields: Record<string, string> = {}) {
  owner ??= makeOwner('ingest');
  const { key } = await owner;
  const domain = fields.domain ?? `${label}-${crypto.randomUUID().slice(0, 8)}.example.com`;
  return makeWebsite(key, { ...fields, domain });
}

/** Freezes `Date` (only) at an instant; the Worker runs in this isolate and sees it too. */
export function freezeAt(instant: string | number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(instant));
}

/** Moves the frozen clock forward. */
export function advance(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

export const MINUTE = 60_000;

/** Number of stats rows of one website (every date and statistic). */
export async function statRows(websiteId: number): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM stats WHERE website_id = ?')
    .bind(websiteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Total number of stats rows in this file's database. */
export async function allStatRows(): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM stats').first<{ n: number }>();
  return row?.n ?? 0;
}

/** Stats rows of one website as `date|name|value → count`, to check which date each row is on. */
export async function datedRows(websiteId: number): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    'SELECT name, date, value, count FROM stats WHERE website_id = ? ORDER BY date, name, value',
  )
    .bind(websiteId)
    .all<{ name: string; date: string; value: string; count: number }>();
  return Object.fromEntries(results.map((r) => [`${r.date}|${r.name}|${r.value}`, r.count]));
}

/**
 * The `visitors` row of a visitor of a website on a local date, or null. The hash is
 * recomputed from that date's salt exactly as the pipeline computes it.
 */
export async function visitorRow(websiteId: number, date: string, ip: string, userAgent: string) {
  const salt = await env.DB.prepare('SELECT salt FROM salts WHERE date = ?')
    .bind(date)
    .first<{ salt: string }>();
  // Without that date's salt the question cannot be answered: fail rather than say "none".
  if (!salt) throw new Error(`no salt stored for ${date}`);
  const hash = await visitorHash(salt.salt, websiteId, ip, userAgent);
  return env.DB.prepare('SELECT hash, last_seen_at FROM visitors WHERE hash = ?')
    .bind(hash)
    .first<{ hash: string; last_seen_at: number }>();
}
