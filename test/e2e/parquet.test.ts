/**
 * The event log as Parquet, read by a real engine: a running Sightline (its Worker and its
 * Parquet Worker under wrangler) with known traffic on two websites exports each one's date
 * range through the API (`format=events&as=parquet`), the files are written to disk, and
 * DuckDB's counts over them — page views, visitors per day and top pages of one website, and
 * page views of each over a glob of both files — equal Sightline's own answers (the Stats API
 * v2) for the same range.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { generateTraffic, replayTraffic } from '../../scripts/lib/traffic.ts';
import { startParquetWorker, startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { addDays, utcDate } from '../../src/lib/time/dates.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';

const DAY = 86_400_000;
const SITES = ['first.example.com', 'second.example.com'];

let state: string;
let files: string;
let parquetWorker: Unstable_DevWorker;
let worker: Unstable_DevWorker;
let base: string;
let key: string;
const ids: number[] = [];
let duck: DuckDBConnection;
const today = utcDate(Date.now());
const range = { from: addDays(today, -12), to: addDays(today, -3) };

/** The Stats API v2's results for one website over the range. */
async function v2(site: string, body: Record<string, unknown>) {
  const res = await fetch(`${base}/api/v2/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ site_id: site, date_range: [range.from, range.to], ...body }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { dimensions: string[]; metrics: number[] }[] }).results;
}

/** DuckDB's rows, numbers as numbers. */
async function rows(sql: string): Promise<Record<string, unknown>[]> {
  const read = await duck.runAndReadAll(sql);
  return read
    .getRowObjectsJson()
    .map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v,
        ]),
      ),
    );
}

describe('the event log as Parquet, read by DuckDB', () => {
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'sightline-parquet-state-'));
    files = await mkdtemp(join(tmpdir(), 'sightline-parquet-files-'));
    await withDatabase({ remote: false, persistTo: state }, async (db) => {
      const owner = await createOwner(db, {
        email: 'duck@example.com',
        password: 'quack quack quack',
      });
      key = owner.apiKey;
      for (const domain of SITES)
        ids.push((await createWebsite(db, owner.id, { domain }, suffixesOnDisk)).id);
    });
    parquetWorker = await startParquetWorker();
    worker = await startWorker(state, 'src/index.ts', { REPLAY: 'on' });
    base = `http://127.0.0.1:${worker.port}`;
    // The main Worker reloads once it finds the Parquet Worker in wrangler's registry: the
    // traffic waits until an export answers through it.
    const exported = (id: number) =>
      fetch(`${base}/api/v1/websites/${id}/export?format=events&as=parquet`, {
        headers: { authorization: `Bearer ${key}` },
      });
    await until('the Parquet Worker reached', async () => (await exported(ids[0] as number)).ok);
    const end = Date.parse(`${today}T00:00:00Z`) + DAY;
    for (const [i, domain] of SITES.entries()) {
      const hits = generateTraffic({ seed: 5 + i, domain, days: 16, end, visitorsPerDay: 25 });
      await replayTraffic(
        base,
        hits.filter((h) => h.req.now <= Date.now()),
        () => undefined,
      );
    }
    for (const [i, id] of ids.entries()) {
      const res = await fetch(
        `${base}/api/v1/websites/${id}/export?format=events&as=parquet&from=${range.from}&to=${range.to}`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      await writeFile(join(files, `site-${i}.parquet`), new Uint8Array(await res.arrayBuffer()));
    }
    duck = await (await DuckDBInstance.create(':memory:')).connect();
  });

  afterAll(async () => {
    duck?.closeSync();
    await worker?.stop();
    await parquetWorker?.stop();
    await rm(state, { recursive: true, force: true });
    await rm(files, { recursive: true, force: true });
  });

  const first = () => `'${join(files, 'site-0.parquet')}'`;

  it("counts one website's page views as Sightline does", async () => {
    const [total] = await v2(SITES[0] as string, { metrics: ['pageviews'] });
    const [duckTotal] = await rows(
      `SELECT count(*) AS n, min(date)::VARCHAR AS first, max(date)::VARCHAR AS last FROM ${first()} WHERE kind = 'pageview'`,
    );
    expect(total?.metrics[0]).toBeGreaterThan(0);
    expect(duckTotal).toEqual({ n: total?.metrics[0], first: range.from, last: range.to });
  });

  it('counts its visitors of each day as Sightline does', async () => {
    const days = await v2(SITES[0] as string, { metrics: ['visitors'], dimensions: ['time:day'] });
    const duckDays = await rows(
      `SELECT date::VARCHAR AS day, count(DISTINCT visitor) AS visitors FROM ${first()}
      WHERE kind = 'pageview' GROUP BY date ORDER BY date`,
    );
    expect(duckDays).toEqual(days.map((d) => ({ day: d.dimensions[0], visitors: d.metrics[0] })));
  });

  it('ranks its top pages as Sightline does', async () => {
    const pages = await v2(SITES[0] as string, {
      metrics: ['pageviews'],
      dimensions: ['event:page'],
      order_by: [
        ['pageviews', 'desc'],
        ['event:page', 'asc'],
      ],
      pagination: { limit: 10 },
    });
    const duckPages = await rows(
      `SELECT page, count(*) AS pageviews FROM ${first()} WHERE kind = 'pageview'
      GROUP BY page ORDER BY pageviews DESC, page ASC LIMIT 10`,
    );
    expect(duckPages.length).toBeGreaterThan(1);
    expect(duckPages).toEqual(
      pages.map((p) => ({ page: p.dimensions[0], pageviews: p.metrics[0] })),
    );
  });

  it('reads both websites over a glob, each counted as Sightline counts it', async () => {
    const glob = `'${join(files, '*.parquet')}'`;
    const bySite = await rows(
      `SELECT regexp_extract(filename, 'site-(\\d)', 1)::INTEGER AS site, count(*) AS n
      FROM read_parquet(${glob}, filename = true) WHERE kind = 'pageview' GROUP BY site ORDER BY site`,
    );
    const expected = [];
    for (const [i, domain] of SITES.entries()) {
      const [total] = await v2(domain, { metrics: ['pageviews'] });
      expected.push({ site: i, n: total?.metrics[0] });
    }
    expect(bySite).toEqual(expected);
  });
});
