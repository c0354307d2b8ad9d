/**
 * `GET /js/script.js`: the tracker. Cached for a day and revalidated with an ETag; a URL
 * carrying the current version (`/js/script.js?v=<TRACKER_VERSION>`, shown on the snippet
 * page) is immutable for a year, and a new build changes the version, which busts it.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { TRACKER_SCRIPT, TRACKER_VERSION } from './script.generated.ts';

const ETAG = `"${TRACKER_VERSION}"`;

export function createTrackerRoutes() {
  const tracker = new Hono<AppEnv>();
  tracker.get('/script.js', (c) => {
    const versioned = c.req.query('v') === TRACKER_VERSION;
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header(
      'Cache-Control',
      versioned
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=86400, stale-while-revalidate=604800',
    );
    c.header('ETag', ETAG);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Access-Control-Allow-Origin', '*');
    const match = c.req.header('if-none-match');
    if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === ETAG))
      return c.body(null, 304);
    return c.body(TRACKER_SCRIPT);
  });
  return tracker;
}
