/**
 * The Sightline Worker's HTTP app. Each area of the product is its own router, mounted here;
 * errors from all of them go through the one `onError`.
 */
import { Hono } from 'hono';
import { createApi } from './api/index.tsx';
import type { AppEnv } from './env.ts';
import { createIngestRoutes } from './ingest/routes.ts';
import { ApiError, handleError } from './lib/errors.ts';
import { createTrackerRoutes } from './tracker/routes.ts';

export function createApp() {
  const app = new Hono<AppEnv>();
  app.route('/js', createTrackerRoutes());
  app.route('/api', createIngestRoutes());
  app.route('/api/v1', createApi());
  app.get('/', (c) =>
    c.text('Sightline: privacy-first web analytics. API reference: /api/v1/docs\n'),
  );
  app.notFound(() => {
    throw new ApiError(404, 'Not found.');
  });
  app.onError(handleError);
  return app;
}
