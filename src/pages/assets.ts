/**
 * The dashboard's stylesheet and its one small script, served by the Worker itself (no CDN)
 * under content-hashed URLs, so they can be cached for a year. Inline styles and scripts are
 * not used at all: the Content-Security-Policy allows only these files. Their sources are
 * ./assets/style.css (with the parts it imports) and ./assets/page.ts, minified by
 * `npm run build:assets` into ./assets/app.generated.ts with their versions.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { APP_CSS, APP_CSS_VERSION, APP_JS, APP_JS_VERSION } from './assets/app.generated.ts';

/** URLs of the current assets, for the layout. */
export async function assetUrls() {
  return { css: `/assets/app.${APP_CSS_VERSION}.css`, js: `/assets/app.${APP_JS_VERSION}.js` };
}

export function createAssetRoutes() {
  const assets = new Hono<AppEnv>();
  const serve =
    (body: string, type: string) =>
    (c: { body: (b: string) => Response; header: (k: string, v: string) => void }) => {
      c.header('Content-Type', type);
      c.header('Cache-Control', 'public, max-age=31536000, immutable');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(body);
    };
  assets.get('/:name{app\\.[0-9a-f]{12}\\.css}', serve(APP_CSS, 'text/css; charset=utf-8'));
  assets.get('/:name{app\\.[0-9a-f]{12}\\.js}', serve(APP_JS, 'text/javascript; charset=utf-8'));
  return assets;
}
