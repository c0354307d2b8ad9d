/** The cron handler (wrangler.toml `[triggers]`): hourly maintenance and periodic reports. */
import { EmailMessage } from 'cloudflare:email';
import { createDb } from '../db/client.ts';
import type { Env } from '../env.ts';
import { intervalOf } from '../reports/period.ts';
import { sendReports } from '../reports/send.ts';
import { purgeDeletedWebsites } from './purge.ts';
import { forgetOldVisitors } from './visitors.ts';

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const forgotten = await forgetOldVisitors(db, controller.scheduledTime);
  const purged = await purgeDeletedWebsites(db);
  console.log('maintenance', { cron: controller.cron, ...forgotten, ...purged });

  const email = env.EMAIL;
  if (!email || !env.MAIL_FROM || !env.PUBLIC_URL) {
    console.log('reports skipped: set the EMAIL binding, MAIL_FROM and PUBLIC_URL to send them');
    return;
  }
  const reports = await sendReports(
    db,
    {
      send: async ({ from, to, raw }) => {
        await email.send(new EmailMessage(from, to, raw));
      },
    },
    {
      from: env.MAIL_FROM,
      publicUrl: env.PUBLIC_URL.replace(/\/+$/, ''),
      interval: intervalOf(env.REPORT_INTERVAL),
    },
    controller.scheduledTime,
  );
  console.log('reports', reports);
}
