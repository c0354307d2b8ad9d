/** A small day of traffic whose every filtered number can be worked out by hand. */
import { expect } from 'vitest';
import { SAFARI_IPHONE, sendHit } from './hits.ts';
import { advance, freezeAt, MINUTE, site } from './ingest-fixtures.ts';

/** The day of `threeVisitors`. */
export const DAY = '2026-06-02';

/**
 * Three visitors on one day:
 * - Ann (Chrome, Windows), from www.google.com: /, /pricing (2 minutes later), then signs up;
 * - Bob (Safari, iPhone), no referrer: /blog — a bounce;
 * - Cy (Chrome, Windows), from news.example.org: /pricing; 40 minutes later, directly: /, /blog
 *   (a second visit of 5 minutes).
 */
export async function threeVisitors(fields: Record<string, string> = {}) {
  const s = await site('filters', fields);
  const hit = (ip: string, path: string, extra: Record<string, unknown> = {}, ua?: string) =>
    sendHit({ page: `https://${s.domain}${path}`, ...extra }, { ip, ...(ua ? { ua } : {}) }).then(
      (r) => expect(r.status, r.text).toBe(202),
    );
  freezeAt(`${DAY}T09:00:00Z`);
  await hit('198.51.100.1', '/', { referrer: 'https://www.google.com/' });
  await hit('198.51.100.2', '/blog', {}, SAFARI_IPHONE);
  await hit('198.51.100.3', '/pricing', { referrer: 'https://news.example.org/a' });
  advance(2 * MINUTE);
  await hit('198.51.100.1', '/pricing');
  await hit('198.51.100.1', '/pricing', { event: 'signup' });
  advance(40 * MINUTE);
  await hit('198.51.100.3', '/');
  advance(5 * MINUTE);
  await hit('198.51.100.3', '/blog');
  return s;
}
