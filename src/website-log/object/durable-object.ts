/**
 * The Durable Object that holds a website's event log, one per website, named
 * `website:<id>` (docs/ARCHITECTURE.md, The event log). Its storage is SQLite
 * (`new_sqlite_classes` in wrangler.toml); the log itself is `WebsiteLogCore` (./core.ts).
 * The methods that store or flush answer a failure (`{ok: false}`) rather than throw: an
 * exception would cross the RPC boundary as an uncaught error of the object.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env.ts';
import type { FlushCost } from '../../rollups/increments.ts';
import type { LogHit } from '../events.ts';
import { WebsiteLogCore } from './core.ts';
import { type DroppedHit, DroppedWriter } from './dropped.ts';
import { logName } from './partition.ts';
import type { LogReads } from './read/methods.ts';

/**
 * The log over an object's storage, read afresh as after a restart: what it keeps in memory
 * (the next id, the visits under way) comes from its tables.
 */
export function logOver(ctx: DurableObjectState, env: Env): WebsiteLogCore {
  // The other logs, for a staged call whose leader is another website's (its partition).
  const logs = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  return new WebsiteLogCore(ctx.storage, env, (id, partition) =>
    logs.get(logs.idFromName(logName(id, partition))),
  );
}

export class WebsiteLog extends DurableObject<Env> {
  /** The log this object holds (./core.ts); the benchmark's loader opens it again. */
  protected log: WebsiteLogCore;
  /** The counters of its website's dropped hits, in memory until written to D1 (./dropped.ts). */
  private readonly drops: DroppedWriter;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.log = logOver(ctx, env);
    this.drops = new DroppedWriter(env.DB);
  }

  async record(hit: LogHit) {
    const answer = await this.log.record(hit);
    if (answer.ok && 'dropped' in answer) this.countTooFast(hit);
    return answer;
  }

  async engage(hit: LogHit) {
    const answer = await this.log.engage(hit);
    if (answer.ok && 'tooFast' in answer && answer.tooFast) this.countTooFast(hit);
    return answer;
  }

  /** Counts a hit its website's pipeline dropped (the hit's one call of its log: ./dropped.ts). */
  noteDropped(hit: DroppedHit): { ok: boolean } {
    this.drops.note(hit);
    return { ok: true };
  }

  /** Writes the counters of dropped hits to D1 now; answers D1's rows (a failure: none). */
  flushDropped(): Promise<FlushCost> {
    return this.drops.flush();
  }

  /** A hit its log dropped (its visitor too fast), counted as the pipeline's drops are. */
  private countTooFast(hit: LogHit): void {
    this.drops.note({
      websiteId: hit.websiteId,
      date: hit.date,
      reason: 'too_fast',
      name: '',
      kind: '',
    });
  }

  stage(token: string, hit: LogHit, leader: number) {
    return this.log.stage(token, hit, leader);
  }

  commit(token: string) {
    return this.log.commit(token);
  }

  settle(token: string) {
    return this.log.settle(token);
  }

  abort(token: string) {
    this.log.abort(token);
  }

  /** Rolls up the events, and writes the counters of dropped hits with them. */
  async flush() {
    const [outcome] = await Promise.all([this.log.flush(), this.drops.flush()]);
    return outcome;
  }

  realtime(now: number) {
    return this.log.realtime(now);
  }

  query(q: Parameters<LogReads['query']>[0]) {
    return this.log.reads.query(q);
  }

  groupReads(q: Parameters<LogReads['groupReads']>[0]) {
    return this.log.reads.groupReads(q);
  }

  overClosed(...args: Parameters<LogReads['overClosed']>) {
    return this.log.reads.overClosed(...args);
  }

  keepClosed(...args: Parameters<LogReads['keepClosed']>) {
    this.log.reads.keepClosed(...args);
  }

  journeysOverClosed(...args: Parameters<LogReads['journeysOverClosed']>) {
    return this.log.reads.journeysOverClosed(...args);
  }

  keepClosedJourneys(...args: Parameters<LogReads['keepClosedJourneys']>) {
    this.log.reads.keepClosedJourneys(...args);
  }

  epoch() {
    return this.log.reads.epoch();
  }

  funnel(q: Parameters<LogReads['funnel']>[0]) {
    return this.log.reads.funnel(q);
  }

  journeys(q: Parameters<LogReads['journeys']>[0]) {
    return this.log.reads.journeys(q);
  }

  propertyNames(q: Parameters<LogReads['propertyNames']>[0]) {
    return this.log.reads.propertyNames(q);
  }

  storage() {
    return this.log.reads.storage();
  }

  exportEvents(...args: Parameters<LogReads['exportEvents']>) {
    return this.log.reads.exportEvents(...args);
  }

  destroy() {
    this.drops.clear();
    return this.log.destroy();
  }

  override alarm() {
    return this.log.alarm();
  }
}
