/**
 * The benchmark's bulk loader writes exactly what the Worker's ingestion writes: the same
 * generated traffic goes once hit by hit through the running Worker's ingestion entry point
 * (its replay route, under wrangler's dev server) and once through the loader (the same
 * entry point over Node's SQLite on the D1 file, split over processes), and the roll-up rows
 * must be identical.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { createBenchSite, d1File, loadDays, loadInParallel } from '../../scripts/bench/load.ts';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { generateTraffic, replayTraffic, type TrafficOptions } from '../../scripts/lib/traffic.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';

const DAY = 86_400_000;
const traffic: TrafficOptions = {
  seed: 99,
  domain: 'loader.example.com',
  days: 3,
  end: Math.floor(Date.parse('2026-10-01T00:00:00Z') / DAY) * DAY,
  visitorsPerDay: 30,
  pages: 200,
};

type Row = { name: string; date: string; value: string; count: number };
const ROLLUPS = 'SELECT name, date, value, count FROM stats ORDER BY name, date, value';

const dirs: string[] = [];
let migrated: Promise<string> | undefined;
/** A new local state directory holding a migrated, empty D1 (migrated once, then copied). */
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sightline-loader-'));
  dirs.push(dir);
  migrated ??= (async () => {
    const first = await mkdtemp(join(tmpdir(), 'sightline-loader-'));
    dirs.push(first);
    await withDatabase({ remote: false, persistTo: first }, async () => undefined);
    return first;
  })();
  await cp(await migrated, dir, { recursive: true });
  return dir;
};

function rollupsOf(file: string): Row[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(ROLLUPS).all() as Row[];
  } finally {
    db.close();
  }
}

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the benchmark loader', () => {
  let reference: Row[] = [];

  it('the reference: every hit through the ingestion entry point of the running Worker', async () => {
    const dir = await fresh();
    await withDatabase({ remote: false, persistTo: dir }, async (db) => {
      const owner = await createOwner(db, {
        email: 'bench@example.com',
        password: 'bench password',
      });
      await createWebsite(
        db,
        owner.id,
        { domain: traffic.domain, timezone: 'UTC', privacy: 0 },
        suffixesOnDisk,
      );
    });
    const worker = await startWorker(dir, 'src/index.ts', { REPLAY: 'on' });
    try {
      const loaded = await replayTraffic(
        `http://127.0.0.1:${worker.port}`,
        generateTraffic(traffic),
      );
      expect(loaded.stored).toBeGreaterThan(100);
    } finally {
      await worker.stop();
    }
    reference = rollupsOf(d1File(dir));
    expect(new Set(reference.map((r) => r.name)).size).toBeGreaterThanOrEqual(15);
  });

  it('in one process writes the same roll-up rows', async () => {
    const file = d1File(await fresh());
    await createBenchSite(file, traffic.domain);
    const counts = await loadDays(file, traffic, 0, 1);
    expect(counts.pageviews + counts.events).toBe(counts.stored);
    // Compared with the reference the first test made (run alone, there is none to compare).
    expect(reference.length).toBeGreaterThan(0);
    expect(rollupsOf(file)).toEqual(reference);
  });

  it('split over processes, merged, writes the same roll-up rows', async () => {
    const file = d1File(await fresh());
    await createBenchSite(file, traffic.domain);
    await loadInParallel(file, traffic, undefined, 2);
    expect(reference.length).toBeGreaterThan(0);
    expect(rollupsOf(file)).toEqual(reference);
  });
});
