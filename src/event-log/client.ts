/**
 * The Worker's side of the event log: the website's object, and read-your-writes — before a
 * reader sums roll-ups, the website's log rolls up whatever it holds (docs/ARCHITECTURE.md,
 * The path of a number).
 */
import type { Env } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { logError } from '../lib/log.ts';

/** The event log of a website: its Durable Object, named by the website's id. */
export function websiteLog(env: Env, websiteId: number) {
  return env.WEBSITE_LOG.get(env.WEBSITE_LOG.idFromName(`website:${websiteId}`));
}

/** Deletes everything a deleted website's log stores (the purge of its data). */
export async function destroyLog(env: Env, websiteId: number): Promise<void> {
  await websiteLog(env, websiteId).destroy();
}

/**
 * Rolls the website's log up into D1 before its statistics are read, so that every hit
 * answered 202 is in the answer. A log that cannot flush (D1 or the object unreachable) makes
 * the read a 503 with `Retry-After`: an answer without those hits would be wrong.
 */
export async function flushBeforeReading(env: Env, websiteId: number): Promise<void> {
  let ok = false;
  try {
    ok = (await websiteLog(env, websiteId).flush()).ok;
  } catch (err) {
    logError('event log not reached', { websiteId }, err);
  }
  if (!ok)
    throw new ApiError(503, 'The statistics are being updated; try again in a moment.', undefined, {
      'Retry-After': '5',
    });
}
