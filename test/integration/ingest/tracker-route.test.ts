import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  TRACKER_FULL,
  TRACKER_FULL_VERSION,
  TRACKER_SCRIPT,
  TRACKER_VERSION,
} from '../../../src/tracker/script.generated.ts';

const get = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`https://sightline.test${path}`, { headers }));

describe('GET /js/script.js', () => {
  it('serves the built tracker as JavaScript, cached for a day with an ETag', async () => {
    const res = await get('/js/script.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe(
      'public, max-age=86400, stale-while-revalidate=604800',
    );
    expect(res.headers.get('etag')).toBe(`"${TRACKER_VERSION}"`);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.text()).toBe(TRACKER_SCRIPT);
  });

  it('is immutable under the current version and busted by a new one', async () => {
    const current = await get(`/js/script.js?v=${TRACKER_VERSION}`);
    expect(current.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const stale = await get('/js/script.js?v=000000000000');
    expect(stale.headers.get('cache-control')).toContain('max-age=86400');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const res = await get('/js/script.js', { 'if-none-match': `W/"${TRACKER_VERSION}"` });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
  });
});

describe('GET /js/script.full.js', () => {
  it('serves the tracker with tracking without code, by its own version', async () => {
    const res = await get('/js/script.full.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${TRACKER_FULL_VERSION}"`);
    expect(await res.text()).toBe(TRACKER_FULL);
    expect(TRACKER_FULL).toContain('Outbound Link: Click');
    const current = await get(`/js/script.full.js?v=${TRACKER_FULL_VERSION}`);
    expect(current.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});
