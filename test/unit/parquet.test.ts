/**
 * The event log as Parquet (src/parquet/): the NDJSON export's columns in its order, typed
 * (docs/GUIDE.md, "Take your data"), read back by DuckDB value for value — an empty export
 * too — in row groups of `ROW_GROUP` events, the texts of few values dictionary-encoded and
 * every column compressed; and the memory an encoding takes stays that of a row group.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { PARQUET_COLUMNS } from '../../src/parquet/parquet-schema.ts';
import { parquetStream, ROW_GROUP } from '../../src/parquet/parquet-stream.ts';
import { EVENT_COLUMNS } from '../../src/website-log/object/read/event-lines.ts';

const dir = mkdtempSync(join(tmpdir(), 'sightline-parquet-'));

/** An event as the NDJSON export writes it: `i` decides its values. */
function event(i: number): Record<string, unknown> {
  const view = i % 7 !== 0;
  return {
    id: i + 1,
    time: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    date: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().slice(0, 10),
    hour: Math.floor(i / 60) % 24,
    kind: view ? 'pageview' : 'event',
    name: view ? 'pageview' : 'Signup',
    label: null,
    page: `/page-${i % 50}`,
    hostname: 'example.com',
    visitor: (i % 300) + 1,
    visit: (i % 400) + 1,
    new_visitor: i % 3 === 0 ? 1 : 0,
    new_visit: i % 2,
    visit_views: view ? (i % 5) + 1 : null,
    visit_seconds: i % 90,
    entry_page: '/',
    referrer: i % 4 === 0 ? `https://ref-${i % 9}.example/é` : null,
    source: i % 4 === 0 ? 'Google' : 'Direct / None',
    channel: 'Direct',
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_content: null,
    utm_term: null,
    country: 'DE',
    region: 'DE-BE',
    city: 'Berlin',
    continent: 'EU',
    language: 'de',
    browser: ['Firefox', 'Chrome', 'Safari'][i % 3],
    browser_version: '120',
    os: 'Linux',
    os_version: '6',
    device: 'Desktop',
    screen: 'Desktop',
    props: view ? null : { plan: `p${i % 3}`, naïve: 'ü' },
    revenue: view ? null : 12.5,
    currency: view ? null : 'EUR',
    engaged_ms: view ? i * 10 : null,
    scroll: view ? i % 101 : null,
  };
}

/** The NDJSON of events `0…n-1`, in pieces as the object streams them. */
function ndjson(n: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      let text = '';
      for (const end = Math.min(n, at + 5_000); at < end; at++)
        text += `${JSON.stringify(event(at))}\n`;
      if (text) controller.enqueue(encoder.encode(text));
      if (at >= n) controller.close();
    },
  });
}

/** The Parquet file of `n` events, written to disk; its path. */
async function written(n: number, name: string): Promise<string> {
  const bytes = new Uint8Array(await new Response(parquetStream(ndjson(n))).arrayBuffer());
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

async function duck() {
  return (await DuckDBInstance.create(':memory:')).connect();
}

describe('the event log as Parquet', () => {
  it('has the NDJSON export’s columns, in its order', () => {
    expect(PARQUET_COLUMNS.map(([name]) => name)).toEqual([...EVENT_COLUMNS]);
  });

  it('is read back by DuckDB, typed, value for value', async () => {
    const n = ROW_GROUP * 2 + 123;
    const path = await written(n, 'events.parquet');
    const db = await duck();
    const types = (await db.runAndReadAll(`DESCRIBE SELECT * FROM '${path}'`)).getRowObjects();
    const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.column_type]));
    expect(Object.keys(typeOf)).toEqual([...EVENT_COLUMNS]);
    expect(typeOf).toMatchObject({
      id: 'BIGINT',
      time: 'TIMESTAMP WITH TIME ZONE',
      date: 'DATE',
      hour: 'INTEGER',
      kind: 'VARCHAR',
      visitor: 'INTEGER',
      props: 'JSON',
      revenue: 'DOUBLE',
      engaged_ms: 'BIGINT',
    });
    const rows = (
      await db.runAndReadAll(
        `SELECT id, epoch_ms(time) AS ms, strftime(date, '%Y-%m-%d') AS date, hour, kind, page, referrer, browser,
          visit_views, props::VARCHAR AS props, revenue, engaged_ms::INTEGER AS engaged_ms
        FROM '${path}' ORDER BY id`,
      )
    ).getRowObjectsJson();
    expect(rows).toHaveLength(n);
    for (const i of [0, 1, 7, ROW_GROUP - 1, ROW_GROUP, n - 1]) {
      const e = event(i);
      expect(rows[i]).toEqual({
        id: String(e.id),
        ms: String(Date.parse(e.time as string)),
        date: e.date,
        hour: e.hour,
        kind: e.kind,
        page: e.page,
        referrer: e.referrer,
        browser: e.browser,
        visit_views: e.visit_views,
        props: e.props === null ? null : JSON.stringify(e.props),
        revenue: e.revenue,
        engaged_ms: e.engaged_ms,
      });
    }
    const groups = (
      await db.runAndReadAll(
        `SELECT row_group_id, any_value(row_group_num_rows) AS rows,
          bool_and(compression = 'SNAPPY') AS compressed,
          bool_and(path_in_schema NOT IN ('kind', 'browser', 'country', 'device') OR encodings LIKE '%DICTIONARY%') AS dictionaries
        FROM parquet_metadata('${path}') GROUP BY row_group_id ORDER BY row_group_id`,
      )
    ).getRowObjectsJson();
    expect(groups.map((g) => Number(g.rows))).toEqual([ROW_GROUP, ROW_GROUP, 123]);
    expect(groups.every((g) => g.compressed && g.dictionaries)).toBe(true);
  });

  it('of no events is a file with the columns and no row', async () => {
    const path = await written(0, 'empty.parquet');
    const db = await duck();
    const count = (
      await db.runAndReadAll(`SELECT count(*) AS n FROM '${path}'`)
    ).getRowObjectsJson();
    expect(count).toEqual([{ n: '0' }]);
    const columns = (await db.runAndReadAll(`DESCRIBE SELECT * FROM '${path}'`)).getRowObjects();
    expect(columns.map((c) => c.column_name)).toEqual([...EVENT_COLUMNS]);
  });

  it('holds a row group in memory, never the file', async () => {
    const heap = () => {
      globalThis.gc?.();
      return process.memoryUsage().heapUsed;
    };
    /** The most heap an encoding of `n` events took above where it started. */
    const peak = async (n: number) => {
      const start = heap();
      let most = 0;
      const reader = parquetStream(ndjson(n)).getReader();
      for (;;) {
        const { done } = await reader.read();
        most = Math.max(most, process.memoryUsage().heapUsed - start);
        if (done) return most;
      }
    };
    const small = await peak(ROW_GROUP * 3);
    const large = await peak(ROW_GROUP * 12);
    // Four times the events, about the same memory (a garbage collector's slack aside).
    expect(large).toBeLessThan(Math.max(small * 2, 64 * 2 ** 20));
  });
});
