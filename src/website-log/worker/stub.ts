/**
 * A website's event log as its callers reach it: the stub of a Durable Object
 * (../object/durable-object.ts) holding one partition of the log (docs/ARCHITECTURE.md, "When a website
 * outgrows one object"), named by the website's id and the partition's number. Apart from
 * the object's class, so that code run outside the Workers runtime (the command-line tools)
 * can name it.
 */
import type { Env } from '../../env.ts';
import type { WebsiteLog } from '../object/durable-object.ts';
import { logName } from '../object/partition.ts';

/** The object of a partition of a website's log (named by `logName`, ../object/partition.ts). */
export function websiteLog(env: Env, websiteId: number, partition = 0) {
  // The binding's class is this folder's (../object/durable-object.ts): src/env.ts, below every folder,
  // names none.
  const logs = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  return logs.get(logs.idFromName(logName(websiteId, partition)));
}
