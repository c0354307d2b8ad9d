/**
 * `GET /js/script.js`: the tracker (and `/js/script.full.js`, with tracking without code). Cached for a day and revalidated with an ETag; a URL
 * carrying the current version (`/js/script.js?v=<TRACKER_VERSION>`, shown on the snippet
 * page) is immutable for a year, and a new build changes the version, which busts it.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import {
  TRACKER_FULL,
  TRACKER_FULL_VERSION,
  TRACKER_SCRIPT,
  TRACKER_VERSION,
} from './script.generated.ts';

/** A script served as the tracker is: by its version, revalidated, or immutable when named so. */
function serveScript(tracker: Hono<AppEnv>, path: string, body: string, version: string) {
  const etag = `"${version}"`;
  tracker.get(path, (c) => {
    const versioned = c.req.query('v') === version;
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header(
      'Cache-Control',
      versioned
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=86400, stale-while-revalidate=604800',
    );
    c.header('ETag', etag);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Access-Control-Allow-Origin', '*');
    const match = c.req.header('if-none-match');
    if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
      return c.body(null, 304);
    return c.body(body);
  });
}

export function createTrackerRoutes() {
  const tracker = new Hono<AppEnv>();
  serveScript(tracker, '/script.js', TRACKER_SCRIPT, TRACKER_VERSION);
  // With tracking without code, for a tag that asks for it.
  serveScript(tracker, '/script.full.js', TRACKER_FULL, TRACKER_FULL_VERSION);
  return tracker;
}
