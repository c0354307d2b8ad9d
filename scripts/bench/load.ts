/**
 * Bulk-loading the benchmark site: a year of generated traffic goes through the one
 * ingestion entry point (`ingestCall`: every step, and the real `WebsiteLogCore` flushing the same
 * roll-up statements as the Worker's) into the local D1 database file, on Node's SQLite
 * instead of workerd's; the logs flush at the end of every day. Nothing forgets visitor
 * hashes or salts here (no alarms run). Each process's log of the benchmark site is kept in
 * a file (`logFiles`), from which the benchmark imports the events into the site's real
 * Durable Object for the filtered reads.
 *
 * Days are independent (visitor hashes are salted per day), so the days are split between
 * processes, one per core, each writing its own copy of the database; their roll-up rows
 * (disjoint: each day belongs to one process) are then copied into the D1 file.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { createOwner } from '../../src/accounts/owners.ts';
import { createDb } from '../../src/db/client.ts';
import type { Env } from '../../src/env.ts';
import { fromEventBody } from '../../src/ingest/formats.ts';
import { ingestCall } from '../../src/ingest/ingest.ts';
import type { LogEnv } from '../../src/website-log/answers.ts';
import { WebsiteLogCore } from '../../src/website-log/object/core.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { suffixesOnDisk } from '../lib/public-suffixes.ts';
import { type TrafficOptions, trafficDays } from '../lib/traffic.ts';
import { SqliteD1 } from './sqlite-d1.ts';
import { sqliteLogStorage } from './sqlite-log-storage.ts';
import type { ImportedEvent } from './worker.ts';

/** The local D1 database file wrangler keeps under a `--persist-to` directory. */
export function d1File(persistTo: string): string {
  const dir = join(persistTo, 'v3', 'd1', 'miniflare-D1DatabaseObject');
  const files = readdirSync(dir).filter((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  if (files.length !== 1)
    throw new Error(`expected one D1 database in ${dir}, found ${files.length}`);
  return join(dir, files[0] as string);
}

export type LoadCounts = {
  hits: number;
  pageviews: number;
  events: number;
  stored: number;
  dropped: number;
};

const zero = (): LoadCounts => ({ hits: 0, pageviews: 0, events: 0, stored: 0, dropped: 0 });

/** Creates the benchmark's owner and website through the real services: its id and the owner's API key. */
export async function createBenchSite(
  file: string,
  domain: string,
  email = 'bench@example.com',
): Promise<{ id: number; apiKey: string }> {
  const d1 = new SqliteD1(file);
  try {
    const db = createDb(d1.asBinding());
    const owner = await createOwner(db, { email, password: 'bench password' });
    // Public, so that the benchmark can fetch its statistics page as a visitor would.
    const site = await createWebsite(
      db,
      owner.id,
      { domain, timezone: 'UTC', privacy: 0 },
      suffixesOnDisk,
    );
    d1.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return { id: site.id, apiKey: owner.apiKey };
  } finally {
    d1.close();
  }
}

/**
 * Websites' event logs in this process: the real `WebsiteLogCore` over Node's SQLite, reached the
 * way the Worker reaches its Durable Objects (`WEBSITE_LOG.idFromName(…)`, `get(…)`); the
 * first website's log in the file `path`, any other in memory.
 */
function localLogs(env: LogEnv, path: string) {
  const logs = new Map<string, WebsiteLogCore>();
  const namespace = {
    idFromName: (name: string) => ({ name, toString: () => name }),
    get: (id: { name: string }) => {
      let log = logs.get(id.name);
      if (!log) {
        log = new WebsiteLogCore(sqliteLogStorage(logs.size === 0 ? path : ':memory:'), env);
        logs.set(id.name, log);
      }
      // The counters of dropped hits (src/website-log/object/dropped.ts) are the Durable
      // Object's: the loader keeps none (its roll-ups are what it loads).
      return Object.assign(log, { noteDropped: async () => ({ ok: true }) });
    },
  };
  return { namespace: namespace as unknown as Env['WEBSITE_LOG'], all: () => logs.values() };
}

/** Where the loader of the part `file` keeps its log of the benchmark site. */
const logFileOf = (file: string) => `${file}.log`;

/** Loads the days `day % parts === part` of the traffic into `file`. */
export async function loadDays(
  file: string,
  traffic: TrafficOptions,
  part: number,
  parts: number,
  onDay?: (counts: LoadCounts) => void,
): Promise<LoadCounts> {
  const d1 = new SqliteD1(file);
  try {
    const binding = d1.asBinding();
    const logs = localLogs({ DB: binding }, logFileOf(file));
    const env = { DB: binding, WEBSITE_LOG: logs.namespace } as Env;
    const out = zero();
    let day = -1;
    for (const hits of trafficDays(traffic)) {
      day++;
      if (day % parts !== part) continue;
      for (const { body, req } of hits) {
        const dropped = await ingestCall(env, fromEventBody(body), req);
        out.hits++;
        if (dropped === null) {
          out.stored++;
          if (body.event) out.events++;
          else out.pageviews++;
        } else out.dropped++;
      }
      // The day's events into the roll-ups, as the logs' alarms would.
      for (const log of logs.all()) {
        if (!(await log.flush()).ok) throw new Error('a log did not flush');
      }
      onDay?.(out);
    }
    d1.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return out;
  } finally {
    d1.close();
  }
}

/**
 * Loads all of `traffic` into the D1 file, in `parts` processes; `onProgress` gets the
 * hits loaded so far. `logFiles`: the SQLite files of the parts' logs of the site (its
 * `events` tables; the caller deletes them).
 */
export async function loadInParallel(
  file: string,
  traffic: TrafficOptions,
  onProgress?: (hits: number) => void,
  parts = Math.max(1, Math.min(4, cpus().length)),
): Promise<LoadCounts & { logFiles: string[] }> {
  const self = fileURLToPath(import.meta.url);
  const progress = new Array<number>(parts).fill(0);
  const results = await Promise.all(
    Array.from({ length: parts }, (_, part) => {
      const partFile = `${file}.part${part}`;
      copyFileSync(file, partFile);
      return new Promise<LoadCounts>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            '--no-warnings',
            '--import',
            'tsx',
            self,
            partFile,
            JSON.stringify(traffic),
            String(part),
            String(parts),
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let last = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          const lines = (last + chunk).split('\n');
          last = lines.pop() ?? '';
          for (const line of lines) {
            const counts = JSON.parse(line) as LoadCounts & { done?: boolean };
            progress[part] = counts.hits;
            onProgress?.(progress.reduce((a, b) => a + b, 0));
            if (counts.done) resolve(counts);
          }
        });
        child.on('exit', (code) => {
          if (code !== 0) reject(new Error(`loader ${part} exited with ${code}`));
        });
      });
    }),
  );
  const d1 = new SqliteD1(file);
  try {
    for (let part = 0; part < parts; part++) {
      d1.db.exec(`ATTACH DATABASE '${file}.part${part}' AS part`);
      d1.db.exec('INSERT INTO stats SELECT * FROM part.stats');
      d1.db.exec('DETACH DATABASE part');
      rmSync(`${file}.part${part}`, { force: true });
    }
    d1.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    d1.close();
  }
  const total = zero();
  for (const r of results)
    for (const k of Object.keys(total) as (keyof LoadCounts)[]) total[k] += r[k];
  const logFiles = Array.from({ length: parts }, (_, part) => logFileOf(`${file}.part${part}`));
  return { ...total, logFiles };
}

/**
 * The loaded events of the benchmark site, in date order (a date's events are all in one
 * loader's log, in arrival order by id), their texts as texts: each loader's log has a
 * dictionary of its own, and the object the events go into encodes them with its own.
 */
export function* loadedEvents(logFiles: string[]): Generator<ImportedEvent> {
  const textOf = (table: string, column: string) =>
    `(SELECT value FROM ${table}.dict WHERE id = l.${column})`;
  const text = (table: string, column: string) => `${textOf(table, column)} AS ${column}`;
  const selectPart = (part: string) => `SELECT l.id AS seq, l.kind, l.time, l.day, l.hour,
      l.visitor, l.visit, l.firsts, ${text(part, 'page')}, ${text(part, 'event')}, l.visit_views,
      ${text(part, 'previous_page')}, l.visit_seconds, l.visit_hour, ${text(part, 'landing')},
      coalesce(${textOf(part, 'referrer')}, '') AS referrer, ${text(part, 'campaign')},
      l.visitor_hour, ${['country', 'continent', 'city', 'language', 'browser', 'os', 'device', 'resolution', 'hostname', 'name', 'landing_host', 'source', 'channel', 'utm_source', 'utm_medium', 'utm_content', 'utm_term', 'browser_version', 'os_version', 'region'].map((c) => text(part, c)).join(', ')}
    FROM ${part}.log l`;
  const db = new DatabaseSync(':memory:');
  try {
    logFiles.forEach((f, i) => {
      db.exec(`ATTACH DATABASE '${f}' AS p${i}`);
    });
    const union = logFiles.map((_, i) => selectPart(`p${i}`)).join(' UNION ALL ');
    const rows = db.prepare(`SELECT * FROM (${union}) ORDER BY day, seq`).iterate();
    for (const row of rows as Iterable<ImportedEvent & { seq: number }>) {
      const { seq: _seq, ...event } = row;
      yield { ...event };
    }
  } finally {
    db.close();
  }
}

// A loader process: `load.ts <file> <traffic json> <part> <parts>`; reports JSON lines.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, traffic, part, parts] = process.argv.slice(2) as [string, string, string, string];
  const counts = await loadDays(file, JSON.parse(traffic), Number(part), Number(parts), (c) =>
    process.stdout.write(`${JSON.stringify(c)}\n`),
  );
  process.stdout.write(`${JSON.stringify({ ...counts, done: true })}\n`);
}
