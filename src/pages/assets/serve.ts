/**
 * The dashboard's stylesheet, its small script and htmx (the statistics pages' in-place
 * updates), served by the Worker itself (no CDN) under content-hashed URLs, so they can be
 * cached for a year; and its icon. Inline styles and scripts are not used at all: the
 * Content-Security-Policy allows only these files. Their sources are ./style.css (with the
 * parts it imports), ./page-script.ts and htmx's own build, written by `npm run build:assets`
 * into the Worker's static assets (static/assets/, read through the `ASSETS` binding, so they
 * weigh nothing in the Worker's bundle), their versions into ./app.generated.ts.
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../../env.ts';
import { APP_CSS_VERSION, APP_JS_VERSION, HTMX_VERSION } from './app.generated.ts';

/** URLs of the current assets, for the layout. */
export async function assetUrls() {
  return {
    css: `/assets/app.${APP_CSS_VERSION}.css`,
    js: `/assets/app.${APP_JS_VERSION}.js`,
    htmx: `/assets/htmx.${HTMX_VERSION}.js`,
  };
}

/** The site's icon: a line chart in the accent colour, as an SVG (no request for a PNG). */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fd1"/><polyline points="6,22 12,14 18,18 26,8" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>';

export function createAssetRoutes() {
  const assets = new Hono<AppEnv>();
  const serve = (file: string, type: string) => async (c: Context<AppEnv>) => {
    const res = await c.env.ASSETS.fetch(new Request(`https://assets.invalid/assets/${file}`));
    if (!res.ok) throw new Error(`The dashboard's ${file} is missing (${res.status}).`);
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(await res.text());
  };
  assets.get('/:name{app\\.[0-9a-f]{12}\\.css}', serve('app.css', 'text/css; charset=utf-8'));
  assets.get('/:name{app\\.[0-9a-f]{12}\\.js}', serve('app.js', 'text/javascript; charset=utf-8'));
  assets.get(
    '/:name{htmx\\.[0-9a-f]{12}\\.js}',
    serve('htmx.js', 'text/javascript; charset=utf-8'),
  );
  assets.get('/icon.svg', (c) => {
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(ICON, 200, { 'Content-Type': 'image/svg+xml' });
  });
  return assets;
}
