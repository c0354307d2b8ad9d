/**
 * A website's event log as its callers reach it: the stub of its Durable Object
 * (./website-log.ts), named by the website's id. Apart from the object's class, so that code
 * run outside the Workers runtime (the command-line tools) can name it.
 */
import type { Env } from '../env.ts';
import type { WebsiteLog } from './website-log.ts';

/** The event log of a website: its Durable Object, named `website:<id>`. */
export function websiteLog(env: Env, websiteId: number) {
  // The binding's class is this folder's (./website-log.ts): src/env.ts, below every folder,
  // names none.
  const logs = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  return logs.get(logs.idFromName(`website:${websiteId}`));
}
