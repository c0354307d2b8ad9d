/**
 * `GET /api/v1/websites/{id}/storage` (docs/API.md, "Storage"): what a website's log keeps —
 * its events, bytes and dates, as partitions — counted exactly, in turns of the read lane,
 * for its owner and members only.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../../../src/query/present/readable.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import {
  call,
  errorOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  oneOf,
  UNAUTHENTICATED,
} from '../../support/api.ts';
import { signedIn } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';

type Storage = {
  events: number;
  bytes: number;
  partitions: { from: string; to: string; events: number; bytes: number; closed: boolean }[];
};

const storageOf = async (id: number, key: string) => {
  const res = await call(`/api/v1/websites/${id}/storage`, { key });
  expect(res.status).toBe(200);
  return oneOf(res).data as unknown as Storage;
};

afterAll(() => {
  // Leaves the real clock to the next file.
  freezeAt(Date.now());
});

describe('a website’s storage', () => {
  it('is empty before the first hit', async () => {
    const { id, key } = await site('storage-empty');
    expect(await storageOf(id, key)).toEqual({ events: 0, bytes: 0, partitions: [] });
  });

  it('counts every page view and custom event, with the dates and bytes of its partition', async () => {
    freezeAt('2026-03-09T23:30:00Z');
    const { id, key, domain } = await site('storage-hits', { timezone: 'Europe/Berlin' });
    const page = (path: string) => ({ page: `https://${domain}${path}` });
    expect((await sendHit(page('/a'))).status).toBe(202);
    expect((await sendHit({ ...page('/a'), event: { name: 'signup' } })).status).toBe(202);
    freezeAt('2026-03-11T08:00:00Z');
    expect((await sendHit(page('/b'), { ip: '198.51.100.77' })).status).toBe(202);
    const storage = await storageOf(id, key);
    expect(storage.events).toBe(3);
    expect(storage.bytes).toBeGreaterThan(0);
    // Local dates: 23:30 UTC is already the 10th in Berlin.
    expect(storage.partitions).toEqual([
      { from: '2026-03-10', to: '2026-03-11', events: 3, bytes: storage.bytes, closed: false },
    ]);
  });

  it('counts a big log exactly, a range of ids per turn of the read lane', async () => {
    freezeAt('2026-04-01T12:00:00Z');
    const { id, key, domain } = await site('storage-big');
    expect((await sendHit({ page: `https://${domain}/` })).status).toBe(202);
    // 450,000 more rows of the same date, written straight into the log's table: more ids
    // than two turns count, and one more than a multiple of a turn.
    await runInDurableObject(websiteLog(env, id), async (_, state) => {
      state.storage.sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 450000)
        INSERT INTO log (id, kind, time, day, hour, visitor, visit, firsts)
        SELECT (SELECT max(id) FROM log) + i, 1, 0, (SELECT day FROM log LIMIT 1), 12, 1, 1, 0
        FROM n`,
      );
    });
    const read = await websiteLog(env, id).storage();
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.events).toBe(450_001);
    // Three turns count the ids (200,000 each), one reads their span, one the dates.
    expect(read.chunks).toBe(5);
    expect(read.rowsRead).toBeGreaterThanOrEqual(450_001);
    expect((await storageOf(id, key)).events).toBe(450_001);
  });

  it('is on the settings page, as the API says it', async () => {
    freezeAt('2026-05-02T10:00:00Z');
    const owner = await makeOwner('storage-page');
    const { id, domain } = await makeWebsite(owner.key, {
      domain: `storage-page-${crypto.randomUUID().slice(0, 8)}.example.com`,
    });
    const b = await signedIn(owner);
    expect((await b.get(`/websites/${id}/storage`)).text).toContain(
      'The event log holds nothing yet',
    );
    expect((await sendHit({ page: `https://${domain}/` })).status).toBe(202);
    const page = (await b.get(`/websites/${id}/storage`)).text;
    const { bytes } = await storageOf(id, owner.key);
    expect(page).toContain('<h2 id="storage">Storage</h2>');
    expect(page).toContain(
      `The event log holds 1 event (page views and custom events) in ${formatBytes(bytes)}`,
    );
    expect(page).toContain('2026-05-02 – 2026-05-02');
  });

  it('is shown to members and to no one else', async () => {
    const { id, key } = await site('storage-access');
    const box = mailbox();
    const viewer = await makeOwner('storage-viewer');
    await addMember(box, key, id, viewer, 'viewer');
    expect((await storageOf(id, viewer.key)).events).toBe(0);
    const stranger = await makeOwner('storage-stranger');
    const refused = await call(`/api/v1/websites/${id}/storage`, { key: stranger.key });
    expect(refused.status).toBe(404);
    expect(errorOf(refused)).toMatchObject(NOT_FOUND);
    const anonymous = await call(`/api/v1/websites/${id}/storage`);
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous)).toMatchObject(UNAUTHENTICATED);
  });
});
