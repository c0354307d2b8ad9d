/** Worker entry: HTTP requests go to the Hono app, cron triggers to the maintenance jobs. */
import { createApp } from './app/app.tsx';
import type { Env } from './env.ts';
import { runScheduled } from './maintenance/scheduled.ts';

export { WebsiteLog } from './website-log/object/durable-object.ts';

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env));
  },
} satisfies ExportedHandler<Env>;
