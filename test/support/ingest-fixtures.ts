/** Helpers for the `POST /api/event` integration tests: sites, frozen time, raw table reads. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import { visitorHash } from '../../src/website-log/events.ts';
import type { WebsiteLog } from '../../src/website-log/object/durable-object.ts';
import { websiteLog } from '../../src/website-log/worker/partitions.ts';
import { makeOwner, makeWebsite } from './api.ts';

let owner: Promise<Awaited<ReturnType<typeof makeOwner>>> | undefined;

/**
 * A new website of one shared owner, with that owner's API `key`; `label` makes the
 * generated domain readable.
 */
export async function site(label: string, fields: Record<string, string> = {}) {
  owner ??= makeOwner('ingest');
  const { key } = await owner;
  const domain = fields.domain ?? `${label}-${crypto.randomUUID().slice(0, 8)}.example.com`;
  return { key, ...(await makeWebsite(key, { ...fields, domain })) };
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

/**
 * Rolls a website's event log up into D1 first, as every reader does (read-your-writes), so
 * that D1's `stats` hold every hit answered 202.
 */
export async function flushLog(websiteId: number): Promise<void> {
  const outcome = await websiteLog(env, websiteId).flush();
  if (!outcome.ok) throw new Error(`the log of website ${websiteId} did not flush`);
}

/** Number of stats rows of one website (every date and statistic). */
export async function statRows(websiteId: number): Promise<number> {
  await flushLog(websiteId);
  const row = await env.DB.prepare('SELECT count(*) AS n FROM stats WHERE website_id = ?')
    .bind(websiteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Stats rows of one website as `date|name|value → count`, to check which date each row is on. */
export async function datedRows(websiteId: number): Promise<Record<string, number>> {
  await flushLog(websiteId);
  const { results } = await env.DB.prepare(
    'SELECT name, date, value, count FROM stats WHERE website_id = ? ORDER BY date, name, value',
  )
    .bind(websiteId)
    .all<{ name: string; date: string; value: string; count: number }>();
  return Object.fromEntries(results.map((r) => [`${r.date}|${r.name}|${r.value}`, r.count]));
}

/**
 * The visitor of a website on a local date as its event log keeps it (`hash`, `last_seen_at`),
 * or null. The hash is recomputed from that date's salt exactly as the log computes it.
 */
export async function visitorRow(websiteId: number, date: string, ip: string, userAgent: string) {
  const log = websiteLog(env, websiteId);
  const salt = await runInDurableObject(log, (_: WebsiteLog, state) => {
    const tables = state.storage.sql
      .exec("SELECT 1 FROM sqlite_master WHERE name = 'salts'")
      .toArray();
    return tables.length
      ? (state.storage.sql.exec('SELECT salt FROM salts WHERE date = ?', date).toArray()[0]?.salt as
          | string
          | undefined)
      : undefined;
  });
  // Without that date's salt the question cannot be answered: fail rather than say "none".
  if (!salt) throw new Error(`no salt stored for ${date}`);
  const hash = await visitorHash(salt, websiteId, ip, userAgent);
  return runInDurableObject(log, (_: WebsiteLog, state) => {
    const row = state.storage.sql
      .exec('SELECT hash, last_seen FROM visitors WHERE hash = ?', hash)
      .toArray()[0];
    return row ? { hash: row.hash as string, last_seen_at: row.last_seen as number } : null;
  });
}
