/**
 * The daily archive into the owner's bucket (src/archive/, docs/ARCHIVE.md): each closed local
 * date of each website written once, as Hive-laid-out Parquet with a manifest; runs at once
 * and runs that fail midway; nothing without a bucket; deleted websites and retention.
 */
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { archiveClosedDates } from '../../../src/archive/archive.ts';
import { parquetRows } from '../../../src/archive/parquet-rows.ts';
import type { Env } from '../../../src/env.ts';
import worker from '../../../src/index.ts';
import parquetWorker from '../../../src/parquet/parquet-worker.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call, ORIGIN, readResponse } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

/** The Parquet Worker, in this isolate (as the `PARQUET` service binding reaches it). */
const parquet = {
  fetch: (input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(parquetWorker.fetch(new Request(input, init))),
} as unknown as Fetcher;

/** Every object put, by key; `failOn` makes the puts of keys containing it throw. */
function watched(bucket: R2Bucket) {
  const puts: string[] = [];
  const state = { failOn: null as string | null };
  const proxy = new Proxy(bucket, {
    get(target, prop) {
      if (prop === 'put')
        return async (key: string, ...rest: unknown[]) => {
          if (state.failOn && key.includes(state.failOn)) throw new Error('R2 is down');
          const put = await (target.put as (...a: unknown[]) => Promise<R2Object | null>)(
            key,
            ...rest,
          );
          if (put) puts.push(key);
          return put;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { bucket: proxy, puts, state };
}

let archive: ReturnType<typeof watched>;
const bindings = (more: Partial<Env> = {}): Env => ({
  ...env,
  ARCHIVE: archive.bucket,
  PARQUET: parquet,
  ...more,
});

beforeEach(async () => {
  const listed = await env.TEST_ARCHIVE.list();
  if (listed.objects.length > 0) await env.TEST_ARCHIVE.delete(listed.objects.map((o) => o.key));
  archive = watched(env.TEST_ARCHIVE);
});

/** `n` page views of the website on a UTC date, at noon. */
async function events(websiteId: number, date: string, n: number) {
  const log = websiteLog(env, websiteId);
  for (let i = 0; i < n; i++)
    await record(
      log,
      logHit(websiteId, {
        time: at(`${date}T12:00:00Z`) + i * 1000,
        date,
        hour: '12',
        ip: `203.0.113.${i + 1}`,
        page: `/p${i}`,
      }),
    );
}

/** A website seen by the archive on 2026-03-09 (its first date), with events on the next three. */
async function archivedSite(label: string) {
  const website = await site(label);
  await runCron(at('2026-03-10T12:00:00Z'), bindings());
  await events(website.id, '2026-03-10', 2);
  await events(website.id, '2026-03-11', 3);
  await events(website.id, '2026-03-12', 1);
  return website;
}

const keyOf = (domain: string, date: string) =>
  `sightline/site=${domain}/date=${date}/events.parquet`;

type Manifest = {
  site: string;
  dates: {
    date: string;
    file: string | null;
    rows: number;
    sha256: string | null;
    expired_at: string | null;
  }[];
};
async function manifestOf(domain: string): Promise<Manifest> {
  const object = await env.TEST_ARCHIVE.get(`sightline/site=${domain}/_manifest.json`);
  if (!object) throw new Error(`no manifest for ${domain}`);
  return object.json<Manifest>();
}

const sha256 = async (bytes: ArrayBuffer) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');

describe('the daily archive', () => {
  it('writes nothing without a bucket', async () => {
    const website = await site('no-bucket');
    await events(website.id, '2026-03-10', 1);
    await runCron(at('2026-03-12T12:00:00Z'), { ...env, PARQUET: parquet });
    expect((await env.TEST_ARCHIVE.list()).objects).toEqual([]);
    const known = await env.DB.prepare('SELECT count(*) AS n FROM archive_sites').first<{
      n: number;
    }>();
    expect(known?.n).toBe(0);
  });

  it('writes each closed date as Hive-laid-out Parquet, with its rows and checksum in the manifest', async () => {
    const website = await archivedSite('hive');
    await runCron(at('2026-03-13T12:00:00Z'), bindings());
    const prefix = `sightline/site=${website.domain}/`;
    const listed = (await env.TEST_ARCHIVE.list({ prefix })).objects.map((o) => o.key);
    expect(listed.sort()).toEqual([
      `sightline/site=${website.domain}/_manifest.json`,
      keyOf(website.domain, '2026-03-10'),
      keyOf(website.domain, '2026-03-11'),
      keyOf(website.domain, '2026-03-12'),
    ]);
    const manifest = await manifestOf(website.domain);
    expect(manifest.site).toBe(website.domain);
    expect(manifest.dates.map((d) => [d.date, d.file, d.rows])).toEqual([
      ['2026-03-09', null, 0],
      ['2026-03-10', 'date=2026-03-10/events.parquet', 2],
      ['2026-03-11', 'date=2026-03-11/events.parquet', 3],
      ['2026-03-12', 'date=2026-03-12/events.parquet', 1],
    ]);
    for (const entry of manifest.dates.slice(1)) {
      const object = await env.TEST_ARCHIVE.get(keyOf(website.domain, entry.date));
      const bytes = await (object as R2ObjectBody).arrayBuffer();
      expect(await sha256(bytes)).toBe(entry.sha256);
      expect(parquetRows(new Uint8Array(bytes))).toBe(entry.rows);
    }
    // Today (the 13th) is not closed: the next day's run writes it.
    expect(listed.some((k) => k.includes('2026-03-13'))).toBe(false);
  });

  it('writes each date once with the cron fired twice at once, and again later', async () => {
    const website = await archivedSite('twice');
    const now = at('2026-03-13T12:00:00Z');
    await Promise.all([runCron(now, bindings()), runCron(now, bindings())]);
    await runCron(now + HOUR, bindings());
    const files = archive.puts.filter((k) => k.endsWith('.parquet'));
    expect(files.sort()).toEqual(
      ['2026-03-10', '2026-03-11', '2026-03-12'].map((d) => keyOf(website.domain, d)),
    );
    expect((await manifestOf(website.domain)).dates.map((d) => d.rows)).toEqual([0, 2, 3, 1]);
  });

  it('writes at most its cap of dates a run, and the next run goes on', async () => {
    const website = await archivedSite('capped');
    const now = at('2026-03-13T12:00:00Z');
    expect(await archiveClosedDates(bindings(), now, { dates: 2 })).toMatchObject({
      archiveDatesWritten: 2,
    });
    expect(await archiveClosedDates(bindings(), now + HOUR, { dates: 2 })).toMatchObject({
      archiveDatesWritten: 1,
    });
    expect(archive.puts.filter((k) => k.endsWith('.parquet'))).toEqual(
      ['2026-03-10', '2026-03-11', '2026-03-12'].map((d) => keyOf(website.domain, d)),
    );
  });

  it('resumes after a failure in the middle from the first date not written', async () => {
    const website = await archivedSite('resume');
    archive.state.failOn = 'date=2026-03-11';
    await runCron(at('2026-03-13T12:00:00Z'), bindings());
    expect(archive.puts.filter((k) => k.endsWith('.parquet'))).toEqual([
      keyOf(website.domain, '2026-03-10'),
    ]);
    expect((await manifestOf(website.domain)).dates.map((d) => d.date)).toEqual([
      '2026-03-09',
      '2026-03-10',
    ]);
    archive.state.failOn = null;
    await runCron(at('2026-03-13T13:00:00Z'), bindings());
    expect(archive.puts.filter((k) => k.endsWith('.parquet'))).toEqual(
      ['2026-03-10', '2026-03-11', '2026-03-12'].map((d) => keyOf(website.domain, d)),
    );
    expect((await manifestOf(website.domain)).dates.map((d) => d.rows)).toEqual([0, 2, 3, 1]);
  });

  it('takes a file a failed run wrote before its manifest entry, without writing it again', async () => {
    const website = await archivedSite('adopt');
    await runCron(at('2026-03-13T12:00:00Z'), bindings());
    // The run's note of 03-11 lost (as if it failed right after the put): the next run claims
    // the date again and finds the file there.
    await env.DB.prepare(
      "UPDATE archive_dates SET written_at = NULL, rows = NULL WHERE website_id = ? AND date = '2026-03-11'",
    )
      .bind(website.id)
      .run();
    await env.DB.prepare("UPDATE archive_sites SET next_date = '2026-03-11' WHERE website_id = ?")
      .bind(website.id)
      .run();
    await runCron(at('2026-03-13T13:00:00Z'), bindings());
    expect(archive.puts.filter((k) => k.includes('2026-03-11'))).toHaveLength(1);
    expect((await manifestOf(website.domain)).dates.map((d) => d.rows)).toEqual([0, 2, 3, 1]);
  });

  it("deletes a deleted website's files and manifest", async () => {
    const website = await archivedSite('deleted');
    const kept = await archivedSite('kept');
    await runCron(at('2026-03-13T12:00:00Z'), bindings());
    const res = await call(`/api/v1/websites/${website.id}`, {
      method: 'DELETE',
      key: website.key,
    });
    expect(res.status).toBe(200);
    await runCron(at('2026-03-13T13:00:00Z'), bindings());
    const left = (await env.TEST_ARCHIVE.list({ prefix: 'sightline/' })).objects.map((o) => o.key);
    expect(left.filter((k) => k.includes(website.domain))).toEqual([]);
    expect(left.filter((k) => k.includes(kept.domain))).toHaveLength(4);
    const rows = await env.DB.prepare(
      'SELECT (SELECT count(*) FROM archive_dates WHERE website_id = ?1) + (SELECT count(*) FROM archive_sites WHERE website_id = ?1) AS n',
    )
      .bind(website.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it('deletes the files of the dates past EVENT_RETENTION_DAYS, marking them expired', async () => {
    const website = await archivedSite('retention');
    await runCron(at('2026-03-13T12:00:00Z'), bindings());
    // 2026-04-11 minus 30 days is 03-12: the dates before it expire.
    const later = at('2026-04-11T12:00:00Z');
    await runCron(later, bindings({ EVENT_RETENTION_DAYS: '30' }));
    await runCron(later + HOUR, bindings({ EVENT_RETENTION_DAYS: '30' }));
    const left = (await env.TEST_ARCHIVE.list({ prefix: `sightline/site=${website.domain}/` }))
      .objects;
    const dates = left.map((o) => o.key).filter((k) => k.endsWith('.parquet'));
    expect(dates).not.toContain(keyOf(website.domain, '2026-03-10'));
    expect(dates).not.toContain(keyOf(website.domain, '2026-03-11'));
    expect(dates).toContain(keyOf(website.domain, '2026-03-12'));
    const manifest = await manifestOf(website.domain);
    const expired = manifest.dates.filter((d) => d.expired_at !== null).map((d) => d.date);
    expect(expired).toEqual(['2026-03-09', '2026-03-10', '2026-03-11']);
  });

  it('backfills the dates before the first, a few a request, each once', async () => {
    const website = await archivedSite('backfill');
    await events(website.id, '2026-03-05', 4);
    const backfill = async (from: string, to: string, withBucket = true) =>
      readResponse(
        await worker.fetch(
          new Request(`${ORIGIN}/api/v1/websites/${website.id}/archive?from=${from}&to=${to}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${website.key}` },
          }),
          withBucket ? bindings() : { ...env, PARQUET: parquet },
          { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} },
        ),
      );
    expect((await backfill('2026-03-01', '2026-03-08', false)).status).toBe(409);
    const first = await backfill('2026-03-01', '2026-03-08');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      data: { written_before: 0, busy: [], next: '2026-03-08' },
    });
    const second = await backfill('2026-03-08', '2026-03-10');
    // 03-09 was the hourly run's first date, written then.
    expect(second.json).toMatchObject({
      data: { written: ['2026-03-08', '2026-03-10'], written_before: 1, next: null },
    });
    const again = await backfill('2026-03-01', '2026-03-10');
    expect(again.json).toMatchObject({ data: { written: [], written_before: 10, next: null } });
    expect(archive.puts.filter((k) => k.endsWith('.parquet'))).toEqual([
      keyOf(website.domain, '2026-03-05'),
      keyOf(website.domain, '2026-03-10'),
    ]);
    const manifest = await manifestOf(website.domain);
    expect(manifest.dates.map((d) => d.date)).toHaveLength(10);
    expect(manifest.dates.find((d) => d.date === '2026-03-05')?.rows).toBe(4);
  });
});
