/**
 * The Worker's scheduled handler as the hourly cron fires it, its work awaited to the end.
 * The handler hands its work to `waitUntil`; cloudflare:test's `waitOnExecutionContext`
 * abandons such work after 30 seconds (a busy machine can take longer), so the work is
 * collected here and awaited however long it takes: the test's timeout is the only guard.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { Env } from '../../src/env.ts';
import worker from '../../src/index.ts';

export async function runCron(scheduledTime = Date.now(), bindings: Env = env): Promise<void> {
  const work: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (promise: Promise<unknown>) => void work.push(promise),
    passThroughOnException: () => undefined,
    props: {},
  } as unknown as ExecutionContext;
  await worker.scheduled(
    createScheduledController({ cron: '0 * * * *', scheduledTime }),
    bindings,
    ctx,
  );
  while (work.length > 0) await Promise.all(work.splice(0));
}
