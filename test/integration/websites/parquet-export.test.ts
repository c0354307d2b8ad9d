/**
 * The event log as Parquet through the API and the settings page (docs/ARCHITECTURE.md,
 * "Exports"): `format=events&as=parquet` answers the NDJSON export's events, a row each, typed;
 * `from` and `to` keep the events of those local dates (the NDJSON and CSV exports too); a range
 * without events, and a website without any, is a valid file of no rows; bad dates are a 422;
 * any member downloads it, another owner gets a 404 and no key a 401. Here the Parquet Worker
 * answers the `PARQUET` binding in Node (vitest.config.ts); DuckDB reads its files in
 * test/e2e/parquet.test.ts.
 */
import { strFromU8 } from 'fflate';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, errorOf, makeOwner, makeWebsite } from '../../support/api.ts';
import { signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';

const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04'];
let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };

/** A download of the API, its bytes. */
async function download(path: string, key: string | null = owner.key) {
  const { exports } = await import('cloudflare:workers');
  const res = await exports.default.fetch(
    new Request(`https://sightline.test/api/v1${path}`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    }),
  );
  return { res, bytes: await res.arrayBuffer() };
}

/** The rows of a Parquet file. */
const rowsOf = (file: ArrayBuffer) =>
  parquetReadObjects({ file, rowFormat: 'object' }) as Promise<Record<string, unknown>[]>;

/** The NDJSON export's events (`query` added to its address). */
async function ndjson(query = '') {
  const { bytes } = await download(`/websites/${site.id}/export?format=events${query}`);
  const text = strFromU8(new Uint8Array(bytes)).trimEnd();
  return text ? text.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

beforeAll(async () => {
  owner = await makeOwner('parquet-export');
  site = await makeWebsite(owner.key, { domain: 'parquet.example.com', privacy: '0' });
  for (const [d, day] of DAYS.entries())
    for (let who = 0; who < 3 + d; who++) {
      freezeAt(`${day}T1${who}:00:00Z`);
      const page = `https://${site.domain}/p${who % 2}?utm_source=news`;
      const ip = `198.51.100.${who + 1}`;
      expect((await sendHit({ page }, { ip, ua: CHROME_WINDOWS })).status).toBe(202);
      if (who === 1) {
        const signup = {
          page,
          event: 'Signup',
          props: { plan: 'pro' },
          revenue: { amount: 9.5, currency: 'EUR' },
        };
        expect((await sendHit(signup, { ip, ua: CHROME_WINDOWS })).status).toBe(202);
      }
    }
  vi.useRealTimers();
});

afterAll(() => {
  vi.useRealTimers();
});

describe('the event log as Parquet', () => {
  it("answers the NDJSON export's events, a row each, with its columns typed", async () => {
    const { res, bytes } = await download(`/websites/${site.id}/export?format=events&as=parquet`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(res.headers.get('content-disposition')).toMatch(
      /parquet_example_com_events_\d{8}\.parquet/,
    );
    const rows = await rowsOf(bytes);
    const lines = await ndjson();
    expect(rows).toHaveLength(lines.length);
    expect(lines.length).toBe(3 + 4 + 5 + 6 + 4);
    for (const [i, line] of lines.entries()) {
      const row = rows[i] as Record<string, unknown>;
      expect(Object.keys(row)).toEqual(Object.keys(line));
      expect({
        ...row,
        id: Number(row.id),
        time: (row.time as Date).toISOString(),
        date: (row.date as Date).toISOString().slice(0, 10),
        engaged_ms: row.engaged_ms === null ? null : Number(row.engaged_ms),
      }).toEqual(line);
    }
    const signup = rows.find((r) => r.kind === 'event') as Record<string, unknown>;
    expect(signup).toMatchObject({
      name: 'Signup',
      props: { plan: 'pro' },
      revenue: 9.5,
      currency: 'EUR',
    });
  });

  it('keeps the events of the dates from and to, inclusive, as NDJSON and CSV do', async () => {
    const range = `&from=${DAYS[1]}&to=${DAYS[2]}`;
    const { res, bytes } = await download(
      `/websites/${site.id}/export?format=events&as=parquet${range}`,
    );
    expect(res.headers.get('content-disposition')).toContain('_events_20260502_20260503.parquet');
    const rows = await rowsOf(bytes);
    const all = await ndjson();
    const inRange = all.filter((e) => e.date === DAYS[1] || e.date === DAYS[2]);
    expect(rows.map((r) => Number(r.id))).toEqual(inRange.map((e) => e.id));
    expect(await ndjson(range)).toEqual(inRange);
    const csv = await download(`/websites/${site.id}/export?format=events&as=csv${range}`);
    expect(strFromU8(new Uint8Array(csv.bytes)).trimEnd().split('\r\n')).toHaveLength(
      inRange.length + 1,
    );
    // Either date alone: from the first, or up to the last.
    expect((await ndjson(`&from=${DAYS[3]}`)).every((e) => e.date === DAYS[3])).toBe(true);
    expect((await ndjson(`&to=${DAYS[0]}`)).map((e) => e.id)).toEqual(
      all.filter((e) => e.date === DAYS[0]).map((e) => e.id),
    );
  });

  it('of a range without events, or a website without any, is a file of no rows', async () => {
    const empty = await makeWebsite(owner.key, { domain: 'parquet-empty.example.com' });
    for (const path of [
      `/websites/${site.id}/export?format=events&as=parquet&from=2020-01-01&to=2020-12-31`,
      `/websites/${empty.id}/export?format=events&as=parquet`,
      `/websites/${empty.id}/export?format=events&as=parquet&from=${DAYS[0]}&to=${DAYS[3]}`,
    ]) {
      const { res, bytes } = await download(path);
      expect(res.status).toBe(200);
      const meta = parquetMetadata(bytes);
      expect(meta.num_rows).toBe(0n);
      expect(meta.schema.slice(1).map((c) => c.name)).toContain('visit_seconds');
      expect(await rowsOf(bytes)).toEqual([]);
    }
  });

  it('refuses bad dates, a range the wrong way round and dates of the Plausible format: 422', async () => {
    const base = `/websites/${site.id}/export?format=events&as=parquet`;
    for (const [query, field] of [
      ['&from=2026-02-30&to=2026-03-01', 'from'],
      ['&from=2026-05-01&to=yesterday', 'to'],
      [`&from=${DAYS[2]}&to=${DAYS[1]}`, 'to'],
    ] as const) {
      const res = await call(`/api/v1${base}${query}`, { key: owner.key });
      expect(res.status).toBe(422);
      expect(Object.keys(errorOf(res).errors)).toEqual([field]);
    }
    const plausible = await call(
      `/api/v1/websites/${site.id}/export?format=plausible&from=${DAYS[0]}`,
      {
        key: owner.key,
      },
    );
    expect(plausible.status).toBe(422);
    expect(
      (await call(`/api/v1${base.replace('parquet', 'xlsx')}`, { key: owner.key })).status,
    ).toBe(422);
  });

  it("is any member's, another owner's 404 and without a key a 401", async () => {
    const path = `/websites/${site.id}/export?format=events&as=parquet&from=${DAYS[0]}&to=${DAYS[0]}`;
    const viewer = await makeOwner('parquet-viewer');
    await addMember(mailbox(), owner.key, site.id, viewer, 'viewer');
    const seen = await download(path, viewer.key);
    expect(seen.res.status).toBe(200);
    expect(await rowsOf(seen.bytes)).toHaveLength(4);
    const stranger = await makeOwner('parquet-stranger');
    expect((await download(path, stranger.key)).res.status).toBe(404);
    expect((await download(path, null)).res.status).toBe(401);
  });

  it('is downloaded from the settings page, with its dates', async () => {
    const b = await signedIn(owner);
    const page = await b.get(`/websites/${site.id}/imports`);
    expect(page.text).toContain('<option value="parquet">Parquet</option>');
    const file = await b.get(
      `/websites/${site.id}/export?format=events&as=parquet&from=${DAYS[3]}&to=`,
    );
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    const all = await b.get(`/websites/${site.id}/export?format=events&as=csv&from=&to=`);
    expect(all.text.trimEnd().split('\r\n')).toHaveLength((await ndjson()).length + 1);
    expect(
      (await b.get(`/websites/${site.id}/export?format=events&from=2026-05-04&to=2026-05-01`))
        .status,
    ).toBe(422);
  });
});
