/** The cron handler (wrangler.toml `[triggers]`): hourly maintenance. */
import { createDb } from '../db/client.ts';
import type { Env } from '../env.ts';
import { purgeDeletedWebsites } from './purge.ts';
import { forgetOldVisitors } from './visitors.ts';

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const forgotten = await forgetOldVisitors(db, controller.scheduledTime);
  const purged = await purgeDeletedWebsites(db);
  console.log('maintenance', { cron: controller.cron, ...forgotten, ...purged });
}
