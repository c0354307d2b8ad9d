/**
 * Tenant isolation as a matrix (docs/ARCHITECTURE.md, The HTTP contract): every API route and every page, crossed
 * with every kind of credential.
 *
 * Owner B has websites of every privacy setting (public, private, password-protected) with
 * real traffic, e-mail reports on and sent, and one website B deleted. Owner A probes them
 * with A's own key, or A's signed-in session with A's valid form token; others probe them
 * with no credential, a wrong one, or one the route does not accept.
 *
 * - A against B's website: the API answers the very 404 of a website that never existed
 *   (body and headers); a dashboard page answers its own 404, identical to a missing id's.
 * - Without a credential: the API answers 401; a dashboard page the 303 to /login. The
 *   statistics pages need none: a public website's are open to anyone, a private one's are
 *   the 404 of a missing domain, a password-protected one's are the password form without
 *   a figure.
 * - After every single request the whole database is compared with the snapshot before it:
 *   nothing may differ except what that request legitimately changes — A's own rows after
 *   A's own account actions, and the failed-guess throttle row of the client that guessed a
 *   statistics password (keyed by website and client IP: it holds back that client only).
 *
 * The routes are data: a new route is one line in API_ROUTES, DASHBOARD_PAGES, STATS_PAGES
 * or UNSUBSCRIBE_PAGES. Two guards keep it complete: every operation of the OpenAPI
 * document, and every route the app serves, must be exercised here (or be listed in
 * OUT_OF_SCOPE with the reason).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import { STAT_NAMES } from '../../../src/counting/statistics.ts';
import { sha256Hex } from '../../../src/lib/crypto.ts';
import { sendReports, unsubscribeToken } from '../../../src/reports/send.ts';
import { compactMonths } from '../../../src/rollups/compaction.ts';
import {
  type CallOptions,
  call,
  db,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  oneOf,
  UNAUTHENTICATED,
} from '../../support/api.ts';
import {
  type Browser,
  csrfFrom,
  newBrowser,
  type PageResponse,
  type RequestOptions,
  signedIn,
} from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { flushLog } from '../../support/ingest-fixtures.ts';
import { mailbox } from '../../support/mailbox.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';
import { until } from '../../support/until.ts';

// ---------------------------------------------------------------------------------------
// The world: owners A and B, their websites, B's traffic, reports and sessions.
// ---------------------------------------------------------------------------------------

type Owner = Awaited<ReturnType<typeof makeOwner>>;
type Site = { id: number; domain: string };
/** B's websites as targets: one of each privacy setting, and one B deleted. */
type Target = 'public' | 'private' | 'password' | 'deleted';
const TARGETS: Target[] = ['public', 'private', 'password', 'deleted'];

const MISSING: Site = { id: 987_654_321, domain: 'never-registered.example.net' };
const SITE_PASSWORD = 'the statistics password';
const MADE_UP_TOKEN = '0'.repeat(32);

const w = {} as {
  a: Owner;
  b: Owner;
  aSites: Record<'public' | 'private' | 'password', Site>;
  bSites: Record<Target, Site>;
  /** A's signed-in session; replaced when A changes its password (which ends every session). */
  aCookies: Map<string, string>;
  aCsrf: string;
  bCookies: Map<string, string>;
  /** A session token of B's that B signed out of. */
  bEndedSession: string;
  /** B's key before B made a new one. */
  bOldKey: string;
  /** A's signed cookie for A's own password-protected statistics page. */
  aStatsCookie: string;
  /** The token of A's own unsubscribe link (from A's report e-mail). */
  aUnsubscribe: string;
  bUnsubscribe: string;
  /** B's websites as B's key reads them at the start. */
  bRecords: unknown[];
  /** A goal of B's private website. */
  bGoal: number;
  /** A funnel of B's private website. */
  bFunnel: number;
  /** A funnel of each of B's websites. */
  bFunnels: Partial<Record<Target, number>>;
  /** An import of B's private website. */
  bImport: number;
  /** A link A made to A's private website, and the cookie that holds it (`sl_share_{id}`). */
  aLink: { id: number; token: string; cookie: string };
  /** A link B made to B's public website. */
  bLinkId: number;
  /** The token of a link B made to B's private website, then revoked. */
  bRevokedToken: string;
  /** An invitation B sent to B's private website. */
  bMember: number;
  /** A site segment, an annotation and a traffic alert of B's private website. */
  bSegment: number;
  bAnnotation: number;
  bAlert: number;
  /** A recipient of the reports of B's private website. */
  bRecipient: number;
};

/** Website id → owner id (also for websites that were deleted), for attributing rows. */
const siteOwner = new Map<number, number>();

/** Strings that only the traffic of one of B's websites produced. */
const markers = (target: Target) => [
  `/b-only-${target}-page`,
  `b-only-${target}-campaign`,
  `b-only-${target}.referrer.example`,
  `b_only_${target}_event`,
];

async function bTraffic(target: Target, site: Site) {
  const hits = [
    {
      page: `https://${site.domain}/b-only-${target}-page?utm_campaign=b-only-${target}-campaign`,
      referrer: `https://b-only-${target}.referrer.example/`,
      screen_resolution: '1920x1080',
      language: 'de-DE',
    },
    {
      page: `https://${site.domain}/b-only-${target}-page`,
      referrer: `https://${site.domain}/`,
      event: { name: `b_only_${target}_event` },
    },
    // A second page view of the visit, so that it has a duration and is no bounce.
    { page: `https://${site.domain}/b-only-${target}-page`, referrer: `https://${site.domain}/` },
  ];
  // And a visit of one page by another visitor: a bounce.
  const bounce = { page: `https://${site.domain}/b-only-${target}-page` };
  // Ten seconds between hits (the Worker runs in this isolate and reads this clock).
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  try {
    for (const hit of hits) {
      const res = await sendHit(hit, { ip: '203.0.113.77' });
      expect([res.status, res.dropReason]).toEqual([202, null]);
      vi.setSystemTime(Date.now() + 10_000);
    }
    const res = await sendHit(bounce, { ip: '203.0.113.78' });
    expect([res.status, res.dropReason]).toEqual([202, null]);
    // And a bot, kept out: counted in its website's filtered traffic (`dropped_hits`).
    const bot = await sendHit(bounce, { ip: '203.0.113.79', ua: 'Googlebot/2.1' });
    expect([bot.status, bot.dropReason]).toEqual([202, 'bot']);
  } finally {
    vi.useRealTimers();
  }
  // Into D1's roll-ups now, so that the snapshots hold B's rows (a reader would flush too);
  // the bot's counter once its log has it (it is counted after the answer).
  await until(`the dropped hit of ${site.domain} counted`, async () => {
    await flushLog(site.id);
    const row = env.DB.prepare('SELECT 1 FROM dropped_hits WHERE website_id = ?').bind(site.id);
    return (await row.first()) !== null;
  });
  // And a date of its daily archive, as the hourly maintenance records one it wrote into a
  // bucket (the tests' Worker has none: src/archive/archive.ts).
  const key = `sightline/site=${site.domain}/date=2026-01-01/events.parquet`;
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO archive_sites (website_id, domain, from_date, next_date) VALUES (?, ?, '2026-01-01', '2026-01-02')`,
    ).bind(site.id, site.domain),
    env.DB.prepare(
      `INSERT INTO archive_dates (website_id, date, key, claimed_at, written_at, rows, bytes, sha256) VALUES (?, '2026-01-01', ?, 0, 0, 0, 0, '')`,
    ).bind(site.id, key),
  ]);
}

/** A fresh browser (its own client IP) with the given cookies. */
function browserWith(cookies: Iterable<[string, string]>): Browser {
  const b = newBrowser();
  for (const [name, value] of cookies) b.cookies.set(name, value);
  return b;
}
const asA = () => browserWith(w.aCookies);

beforeAll(async () => {
  w.a = await makeOwner('iso-a');
  w.b = await makeOwner('iso-b');
  const site = async (owner: Owner, prefix: string, fields: Record<string, string>) => {
    const made = await makeWebsite(owner.key, {
      domain: `${prefix}-${crypto.randomUUID().slice(0, 8)}.example.com`,
      ...fields,
    });
    siteOwner.set(made.id, owner.id);
    return { id: made.id, domain: made.domain };
  };
  const withPassword = { privacy: '2', password: SITE_PASSWORD };
  w.aSites = {
    public: await site(w.a, 'a-public', { privacy: '0' }),
    private: await site(w.a, 'a-private', { privacy: '1', email: '1' }),
    password: await site(w.a, 'a-password', withPassword),
  };
  w.bSites = {
    public: await site(w.b, 'b-public', { privacy: '0', email: '1' }),
    private: await site(w.b, 'b-private', { privacy: '1', email: '1' }),
    password: await site(w.b, 'b-password', { ...withPassword, email: '1' }),
    deleted: await site(w.b, 'b-deleted', { privacy: '1', email: '1' }),
  };
  w.bFunnels = {};
  for (const target of TARGETS) {
    await bTraffic(target, w.bSites[target]);
    const goal = await call(`/api/v1/websites/${w.bSites[target].id}/goals`, {
      method: 'POST',
      key: w.b.key,
      body: { json: { event: `b_only_${target}_event`, display_name: `b-only-${target}-goal` } },
    });
    expect(goal.status).toBe(201);
    if (target === 'private') w.bGoal = (goal.json as { data: { id: number } }).data.id;
    const funnel = await call(`/api/v1/websites/${w.bSites[target].id}/funnels`, {
      method: 'POST',
      key: w.b.key,
      body: {
        json: {
          name: `b-only-${target}-funnel`,
          steps: [{ page: `/b-only-${target}-page` }, { event: `b_only_${target}_event` }],
        },
      },
    });
    expect(funnel.status).toBe(201);
    w.bFunnels[target] = (funnel.json as { data: { id: number } }).data.id;
    if (target === 'private') w.bFunnel = w.bFunnels[target];
    const imported = await call(
      `/api/v1/websites/${w.bSites[target].id}/imports?source=plausible&file_name=imported_pages_20200101_20200101.csv`,
      {
        method: 'POST',
        key: w.b.key,
        body: {
          raw: `date,page,pageviews\n2020-01-01,/b-only-${target}-page,3\n`,
          type: 'text/csv',
        },
      },
    );
    expect(imported.status).toBe(201);
    if (target === 'private') w.bImport = (imported.json as { data: { id: number } }).data.id;
  }
  const linkOf = async (owner: Owner, siteId: number) => {
    const res = await call(`/api/v1/websites/${siteId}/shared-links`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'link' } },
    });
    expect(res.status).toBe(201);
    const data = (res.json as { data: { id: number; url: string } }).data;
    return { id: data.id, token: data.url.split('#')[1] as string };
  };
  const aLink = await linkOf(w.a, w.aSites.private.id);
  const holder = newBrowser();
  expect((await holder.post('/share', { code: aLink.token })).status).toBe(303);
  w.aLink = { ...aLink, cookie: holder.cookies.get(`sl_share_${aLink.id}`) ?? '' };
  // B invites someone to B's private website: a member row of B's.
  const box = mailbox();
  try {
    const invited = await call(`/api/v1/websites/${w.bSites.private.id}/members`, {
      method: 'POST',
      key: w.b.key,
      body: { json: { email: 'b-only-invitee@example.com', role: 'admin' } },
    });
    expect(invited.status).toBe(201);
    w.bMember = (invited.json as { data: { id: number } }).data.id;
    const alert = await call(`/api/v1/websites/${w.bSites.private.id}/alerts`, {
      method: 'POST',
      key: w.b.key,
      body: { json: { kind: 'drop', email: 'b-only-alerts@example.com' } },
    });
    expect(alert.status).toBe(201);
    w.bAlert = (alert.json as { data: { id: number } }).data.id;
    const recipient = await call(`/api/v1/websites/${w.bSites.private.id}/report-recipients`, {
      method: 'POST',
      key: w.b.key,
      body: { json: { email: 'b-only-reports@example.com' } },
    });
    expect(recipient.status).toBe(201);
    w.bRecipient = (recipient.json as { data: { id: number } }).data.id;
  } finally {
    box.close();
  }
  const bPrivate = `/api/v1/websites/${w.bSites.private.id}`;
  const segment = await call(`${bPrivate}/segments`, {
    method: 'POST',
    key: w.b.key,
    body: {
      json: { name: 'b-only-segment', type: 'site', filters: [['is', 'event:page', ['/']]] },
    },
  });
  expect(segment.status).toBe(201);
  w.bSegment = (segment.json as { data: { id: number } }).data.id;
  const annotation = await call(`${bPrivate}/annotations`, {
    method: 'POST',
    key: w.b.key,
    body: { json: { date: '2026-01-01', text: 'b-only-annotation' } },
  });
  expect(annotation.status).toBe(201);
  w.bAnnotation = (annotation.json as { data: { id: number } }).data.id;
  w.bLinkId = (await linkOf(w.b, w.bSites.public.id)).id; // B's links are B's rows too
  const revoked = await linkOf(w.b, w.bSites.private.id);
  w.bRevokedToken = revoked.token;
  const revoke = await call(`/api/v1/websites/${w.bSites.private.id}/shared-links/${revoked.id}`, {
    method: 'DELETE',
    key: w.b.key,
  });
  expect(revoke.status).toBe(200);
  // B deletes one website: its tombstone and not yet purged roll-ups are B's data too.
  const deleted = await call(`/api/v1/websites/${w.bSites.deleted.id}`, {
    method: 'DELETE',
    key: w.b.key,
  });
  expect(deleted.status).toBe(200);
  // The reports of the last complete period go out (claims in report_sends).
  const sent: string[] = [];
  await sendReports(
    db(),
    { send: async (message) => void sent.push(message.to) },
    { from: 'reports@sightline.test', publicUrl: 'https://sightline.test', interval: 'weekly' },
  );
  expect(sent.filter((to) => to === w.b.email)).toHaveLength(3);
  // The months of that traffic are over and compacted (month and year roll-ups).
  await compactMonths(db(), Date.now() + 40 * 86_400_000);
  w.aUnsubscribe = await unsubscribeToken(db(), w.aSites.private.id);
  w.bUnsubscribe = await unsubscribeToken(db(), w.bSites.private.id);

  // B: a live session, one that B signed out of, and a key that B replaced.
  const bBrowser = await signedIn(w.b);
  w.bCookies = bBrowser.cookies;
  const ended = await signedIn(w.b);
  w.bEndedSession = ended.cookies.get('sl_session') ?? '';
  const logout = await ended.post('/logout', {
    _csrf: csrfFrom((await ended.get('/account')).text),
  });
  expect([logout.status, logout.location]).toEqual([303, '/login']);
  await bBrowser.post('/account/api-key', {
    _csrf: csrfFrom((await bBrowser.get('/account')).text),
    confirm: '1',
  });
  const rotated = await bBrowser.get('/account?key=new');
  w.bOldKey = w.b.key;
  w.b.key = rotated.text.match(/<pre id="api-key">(sl_[\w-]+)<\/pre>/)?.[1] ?? '';
  expect(w.b.key).toMatch(/^sl_/);

  // A: a session, and the cookie of A's own password-protected statistics page.
  const aBrowser = await signedIn(w.a);
  w.aCookies = aBrowser.cookies;
  w.aCsrf = csrfFrom((await aBrowser.get('/account')).text);
  const opened = await newBrowser().post(`/stats/${w.aSites.password.domain}/password`, {
    password: SITE_PASSWORD,
  });
  expect(opened.status).toBe(303);
  const cookie = opened.headers
    .getSetCookie()
    .find((c) => c.startsWith(`sl_site_${w.aSites.password.id}=`));
  w.aStatsCookie = cookie?.split(';', 1)[0]?.split('=')[1] ?? '';
  expect(w.aStatsCookie).not.toBe('');

  w.bRecords = listOf(await call('/api/v1/websites?per_page=100', { key: w.b.key })).data;
  expect(w.bRecords).toHaveLength(3);
  baseline = await snapshotAll();
});

// ---------------------------------------------------------------------------------------
// Snapshots of the whole database, and what a request may change in it.
// ---------------------------------------------------------------------------------------

type Row = Record<string, unknown>;
type Allow = (table: string, row: Row) => boolean;

const bySite = (row: Row) => siteOwner.get(Number(row.website_id)) ?? null;
/**
 * Every table, and whose its rows are (null: no owner's). A new table must be added here
 * (a guard test checks it), which decides whether the matrix may ever see it change.
 */
const OWNER_OF: Record<string, (row: Row) => number | null> = {
  owners: (row) => Number(row.id),
  api_keys: (row) => Number(row.owner_id),
  sessions: (row) => Number(row.owner_id),
  websites: (row) => Number(row.owner_id),
  stats: bySite,
  stats_months: bySite,
  stats_years: bySite,
  compacted_months: bySite,
  dropped_hits: bySite,
  archive_sites: bySite,
  archive_dates: bySite,
  report_sends: bySite,
  log_positions: bySite,
  website_purges: bySite,
  goals: bySite,
  funnels: bySite,
  imports: bySite,
  imported_stats: bySite,
  shared_links: bySite,
  members: bySite,
  segments: bySite,
  annotations: bySite,
  alerts: bySite,
  report_recipients: bySite,
  secrets: () => null,
  throttles: () => null,
};
const TABLES = Object.keys(OWNER_OF);

type Snapshot = Map<string, string[]>;
let baseline: Snapshot;

let snapshotSql: string[] | undefined;

/** Every row of every table as JSON, sorted (one statement per table, in one batch). */
async function snapshotAll(): Promise<Snapshot> {
  if (!snapshotSql) {
    snapshotSql = [];
    for (const table of TABLES) {
      const { results } = await env.DB.prepare(`PRAGMA table_info(${table})`).all<{
        name: string;
      }>();
      const row = `json_object(${results.map(({ name }) => `'${name}', "${name}"`).join(', ')})`;
      snapshotSql.push(
        `SELECT json_group_array(json(row)) AS rows FROM (SELECT ${row} AS row FROM "${table}" ORDER BY row)`,
      );
    }
  }
  const results = await env.DB.batch<{ rows: string }>(
    snapshotSql.map((sql) => env.DB.prepare(sql)),
  );
  return new Map(
    TABLES.map((table, i) => [
      table,
      (JSON.parse(results[i]?.results[0]?.rows ?? '[]') as Row[]).map((r) => JSON.stringify(r)),
    ]),
  );
}

/** The rows of `rows` that are not in `minus` (as multisets). */
function difference(rows: string[], minus: string[]): Row[] {
  const left = new Map<string, number>();
  for (const row of minus) left.set(row, (left.get(row) ?? 0) + 1);
  return rows
    .filter((row) => {
      const n = left.get(row) ?? 0;
      left.set(row, n - 1);
      return n <= 0;
    })
    .map((row) => JSON.parse(row) as Row);
}

const NOTHING: Allow = () => false;
/** Rows of A's: A's own account, key, sessions and websites (after A's own actions). */
const aOwnRows: Allow = (table, row) => OWNER_OF[table]?.(row) === w.a.id;
/** The failed-guess counters with these keys. */
const throttles =
  (keys: string[]): Allow =>
  (table, row) =>
    table === 'throttles' && keys.includes(String(row.key));
/** The key of a throttle counter, as src/accounts/throttle.ts derives it. */
const throttleKey = (...parts: string[]) => sha256Hex(`throttle\u0000${parts.join('\u0000')}`);

/** Sends one request, then checks that it changed nothing but what `allow` admits. */
async function attempt<T>(send: () => Promise<T>, allow: Allow = NOTHING): Promise<T> {
  const res = await send();
  const before = baseline;
  baseline = await snapshotAll();
  const unexpected: Record<string, { added: Row[]; removed: Row[] }> = {};
  for (const table of TABLES) {
    const was = before.get(table) ?? [];
    const now = baseline.get(table) ?? [];
    if (was.length === now.length && was.every((row, i) => row === now[i])) continue;
    const added = difference(now, was).filter((row) => !allow(table, row));
    const removed = difference(was, now).filter((row) => !allow(table, row));
    if (added.length + removed.length > 0) unexpected[table] = { added, removed };
  }
  expect(unexpected, 'rows this request must not change').toEqual({});
  return res;
}

/** Takes the current database as the baseline (after a test's own setup). */
async function rebaseline() {
  baseline = await snapshotAll();
}

type Answer = { status: number; headers: Headers; text: string };
/** The same answer: status, every header and the body. */
function expectSame(res: Answer, expected: Answer, label: string) {
  expect(res.status, label).toBe(expected.status);
  expect([...res.headers], label).toEqual([...expected.headers]);
  expect(res.text, label).toBe(expected.text);
}

describe('controls', () => {
  it("the targets are real: B's credentials open what A's get a 404 for", async () => {
    for (const target of ['public', 'private', 'password'] as const) {
      const { id, domain } = w.bSites[target];
      expect((await call(`/api/v1/websites/${id}`, { key: w.b.key })).status, target).toBe(200);
      const stats = await call(`/api/v1/stats/${id}?name=page&from=2020-01-01&to=2029-12-31`, {
        key: w.b.key,
      });
      expect(JSON.stringify(stats.json.data), target).toContain(markers(target)[0]);
      const b = browserWith(w.bCookies);
      expect((await b.get(`/websites/${id}`)).status, target).toBe(200);
      expect((await b.get(`/stats/${domain}`)).text, target).toContain(markers(target)[0]);
    }
    const link = await newBrowser().get(
      `/reports/unsubscribe/${w.bSites.private.id}/${w.bUnsubscribe}`,
    );
    expect(link.status).toBe(200);
    const deleted = await call(`/api/v1/websites/${w.bSites.deleted.id}`, { key: w.b.key });
    expect(deleted.json).toEqual(NOT_FOUND);
    await rebaseline();
  });

  it("the snapshot holds B's rows in every table that has owners", () => {
    const ownerless = ['secrets', 'throttles'];
    for (const table of TABLES.filter((t) => !ownerless.includes(t))) {
      const rows = (baseline.get(table) ?? []).map((row) => JSON.parse(row) as Row);
      expect(
        rows.some((row) => OWNER_OF[table]?.(row) === w.b.id),
        table,
      ).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------
// API v1
// ---------------------------------------------------------------------------------------

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type ApiRoute = {
  method: Method;
  /** As the OpenAPI document names it. */
  path:
    | '/websites'
    | '/websites/{id}'
    | '/stats/{id}'
    | '/stats/{id}/summary'
    | '/stats/{id}/funnels/{funnel_id}'
    | '/stats/{id}/journeys'
    | '/websites/{id}/goals'
    | '/websites/{id}/goals/{goal_id}'
    | '/websites/{id}/funnels'
    | '/websites/{id}/funnels/{funnel_id}'
    | '/websites/{id}/imports'
    | '/websites/{id}/imports/{import_id}'
    | '/websites/{id}/export'
    | '/websites/{id}/shared-links'
    | '/websites/{id}/shared-links/{link_id}'
    | '/websites/{id}/members'
    | '/websites/{id}/members/{member_id}'
    | '/websites/{id}/storage'
    | '/websites/{id}/filtered'
    | '/websites/{id}/archive'
    | '/websites/{id}/segments'
    | '/websites/{id}/segments/{segment_id}'
    | '/websites/{id}/annotations'
    | '/websites/{id}/annotations/{annotation_id}'
    | '/websites/{id}/alerts'
    | '/websites/{id}/alerts/{alert_id}'
    | '/websites/{id}/alerts/{alert_id}/confirmation'
    | '/websites/{id}/report-recipients'
    | '/websites/{id}/report-recipients/{recipient_id}'
    | '/websites/{id}/report-recipients/{recipient_id}/confirmation'
    | '/websites/{id}/report-recipients/{recipient_id}/test'
    | '/sites/goals'
    | '/sites/goals/{goal_id}';
  query?: string;
  form?: () => Record<string, string>;
  /** Routes without a website id: what A's key may see and do there instead. */
  asA?: () => Promise<void>;
};

/** Fields that would hand a website to A, or open it up, were they ever applied. */
const takeover = () => ({
  privacy: '0',
  password: 'a takeover password',
  email: '0',
  exclude_bots: '0',
  exclude_ips: '0.0.0.0/0',
  timezone: 'Pacific/Kiritimati',
  owner_id: String(w.a.id),
});

/** A funnel of A's, were it ever saved (a form sends its steps as JSON text). */
const funnelFields = () => ({
  name: 'A was here',
  steps: JSON.stringify([{ page: '/a-was-here' }, { event: 'A was here' }]),
});

const API_ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/websites', query: 'per_page=100', asA: apiListShowsOnlyA },
  {
    method: 'POST',
    path: '/websites',
    form: () => ({ domain: 'x.example.com' }),
    asA: apiCreateForA,
  },
  { method: 'GET', path: '/websites/{id}' },
  { method: 'PUT', path: '/websites/{id}', form: takeover },
  { method: 'PATCH', path: '/websites/{id}', form: takeover },
  { method: 'DELETE', path: '/websites/{id}' },
  { method: 'GET', path: '/websites/{id}/storage' },
  ...STAT_NAMES.map(
    (name): ApiRoute => ({
      method: 'GET',
      path: '/stats/{id}',
      query: `name=${name}&from=2020-01-01&to=2029-12-31`,
    }),
  ),
  { method: 'GET', path: '/stats/{id}/summary', query: 'from=2020-01-01&to=2029-12-31' },
  {
    method: 'GET',
    path: '/stats/{id}/funnels/{funnel_id}',
    query: 'from=2020-01-01&to=2029-12-31',
  },
  { method: 'GET', path: '/stats/{id}/journeys', query: 'page=/&from=2020-01-01&to=2029-12-31' },
  { method: 'GET', path: '/websites/{id}/goals' },
  { method: 'POST', path: '/websites/{id}/goals', form: () => ({ event: 'A was here' }) },
  { method: 'DELETE', path: '/websites/{id}/goals/{goal_id}' },
  { method: 'GET', path: '/websites/{id}/funnels', query: 'per_page=100' },
  { method: 'POST', path: '/websites/{id}/funnels', form: funnelFields },
  { method: 'GET', path: '/websites/{id}/funnels/{funnel_id}' },
  { method: 'PUT', path: '/websites/{id}/funnels/{funnel_id}', form: funnelFields },
  { method: 'DELETE', path: '/websites/{id}/funnels/{funnel_id}' },
  { method: 'GET', path: '/websites/{id}/imports', query: 'per_page=100' },
  { method: 'POST', path: '/websites/{id}/imports', query: 'source=plausible' },
  { method: 'DELETE', path: '/websites/{id}/imports/{import_id}' },
  { method: 'GET', path: '/websites/{id}/export', query: 'format=plausible' },
  { method: 'GET', path: '/websites/{id}/export', query: 'format=events&as=csv' },
  {
    method: 'GET',
    path: '/websites/{id}/export',
    query: 'format=events&as=parquet&from=2026-01-01&to=2026-12-31',
  },
  { method: 'GET', path: '/websites/{id}/filtered', query: 'from=2026-01-01&to=2026-12-31' },
  { method: 'POST', path: '/websites/{id}/archive', query: 'from=2026-01-01&to=2026-01-07' },
  { method: 'GET', path: '/websites/{id}/shared-links', query: 'per_page=100' },
  { method: 'POST', path: '/websites/{id}/shared-links', form: () => ({ name: 'A was here' }) },
  { method: 'DELETE', path: '/websites/{id}/shared-links/{link_id}' },
  { method: 'GET', path: '/websites/{id}/members', query: 'per_page=100' },
  {
    method: 'POST',
    path: '/websites/{id}/members',
    form: () => ({ email: w.a.email, role: 'admin' }),
  },
  { method: 'PATCH', path: '/websites/{id}/members/{member_id}', form: () => ({ role: 'admin' }) },
  { method: 'DELETE', path: '/websites/{id}/members/{member_id}' },
  { method: 'GET', path: '/websites/{id}/segments' },
  {
    method: 'POST',
    path: '/websites/{id}/segments',
    form: () => ({ name: 'A was here', type: 'site', filters: '[["is","event:page",["/"]]]' }),
  },
  { method: 'GET', path: '/websites/{id}/segments/{segment_id}' },
  { method: 'PATCH', path: '/websites/{id}/segments/{segment_id}', form: () => ({ name: 'A' }) },
  { method: 'DELETE', path: '/websites/{id}/segments/{segment_id}' },
  { method: 'GET', path: '/websites/{id}/annotations' },
  {
    method: 'POST',
    path: '/websites/{id}/annotations',
    form: () => ({ date: '2026-01-01', text: 'A was here' }),
  },
  {
    method: 'PATCH',
    path: '/websites/{id}/annotations/{annotation_id}',
    form: () => ({ text: 'A' }),
  },
  { method: 'DELETE', path: '/websites/{id}/annotations/{annotation_id}' },
  { method: 'GET', path: '/websites/{id}/alerts' },
  {
    method: 'POST',
    path: '/websites/{id}/alerts',
    form: () => ({ kind: 'spike', email: w.a.email, threshold: '1' }),
  },
  { method: 'GET', path: '/websites/{id}/alerts/{alert_id}' },
  { method: 'PATCH', path: '/websites/{id}/alerts/{alert_id}', form: () => ({ threshold: '2' }) },
  { method: 'DELETE', path: '/websites/{id}/alerts/{alert_id}' },
  { method: 'POST', path: '/websites/{id}/alerts/{alert_id}/confirmation' },
  { method: 'GET', path: '/websites/{id}/report-recipients' },
  {
    method: 'POST',
    path: '/websites/{id}/report-recipients',
    form: () => ({ email: w.a.email, interval: 'weekly' }),
  },
  { method: 'DELETE', path: '/websites/{id}/report-recipients/{recipient_id}' },
  { method: 'POST', path: '/websites/{id}/report-recipients/{recipient_id}/confirmation' },
  { method: 'POST', path: '/websites/{id}/report-recipients/{recipient_id}/test' },
  { method: 'GET', path: '/sites/goals', asA: () => sitesGoalsAsA('GET') },
  { method: 'PUT', path: '/sites/goals', asA: () => sitesGoalsAsA('PUT') },
  { method: 'DELETE', path: '/sites/goals/{goal_id}', asA: () => sitesGoalsAsA('DELETE') },
];

/**
 * Plausible's Sites API names a website by its domain: with A's key, each of B's domains
 * answers as one never registered, and B's goal is not found through A's own website.
 */
async function sitesGoalsAsA(method: 'GET' | 'PUT' | 'DELETE') {
  const ask = (domain: string) =>
    attempt(() =>
      call(
        `/api/v1/sites/goals${method === 'DELETE' ? `/${w.bGoal}` : ''}${method === 'GET' ? `?site_id=${domain}` : ''}`,
        {
          method,
          key: w.a.key,
          ...(method === 'GET'
            ? {}
            : {
                body: { json: { site_id: domain, goal_type: 'event', event_name: 'A was here' } },
              }),
        },
      ),
    );
  const missing = await ask(MISSING.domain);
  expect(missing.json).toEqual({ error: 'Site could not be found' });
  for (const target of TARGETS) expectSame(await ask(w.bSites[target].domain), missing, target);
  if (method === 'DELETE') {
    const own = await ask(w.aSites.private.domain);
    expect([own.status, own.json]).toEqual([404, { error: 'Goal could not be found' }]);
  }
}
const hasId = (route: ApiRoute) => route.path.includes('{id}');
/** A route as a test case, named `METHOD path?query`. */
const apiCase = (route: ApiRoute) =>
  [`${route.method} ${route.path}${route.query ? `?${route.query}` : ''}`, route] as const;

function callApi(
  route: ApiRoute,
  id: number,
  options: CallOptions & { query?: string; funnel?: number } = {},
) {
  const { query: extra, funnel = w.bFunnel, ...rest } = options;
  const query = [route.query, extra].filter(Boolean).join('&');
  const path = route.path
    .replace('{id}', String(id))
    .replace('{goal_id}', String(w.bGoal))
    .replace('{funnel_id}', String(funnel))
    .replace('{import_id}', String(w.bImport))
    .replace('{link_id}', '1')
    .replace('{member_id}', String(w.bMember))
    .replace('{segment_id}', String(w.bSegment))
    .replace('{annotation_id}', String(w.bAnnotation))
    .replace('{alert_id}', String(w.bAlert))
    .replace('{recipient_id}', String(w.bRecipient));
  return call(`/api/v1${path}${query ? `?${query}` : ''}`, {
    method: route.method,
    body: route.form ? { form: route.form() } : undefined,
    ...rest,
  });
}

async function apiListShowsOnlyA() {
  const res = await attempt(() => call('/api/v1/websites?per_page=100', { key: w.a.key }));
  expect(res.status).toBe(200);
  const ids = (res.json.data as Site[]).map((site) => site.id);
  expect(ids.length).toBeGreaterThanOrEqual(3);
  for (const id of ids) expect(siteOwner.get(id)).toBe(w.a.id);
  expect(listOf(res).meta.total).toBe(ids.length);
  for (const target of TARGETS) {
    const search = await attempt(() =>
      call(`/api/v1/websites?search=${w.bSites[target].domain}`, { key: w.a.key }),
    );
    expect([search.json.data, listOf(search).meta.total], target).toEqual([[], 0]);
  }
}

async function apiCreateForA() {
  // B's domain is taken (domains are unique across owners by design, docs/ARCHITECTURE.md).
  const taken = await attempt(() =>
    call('/api/v1/websites', {
      method: 'POST',
      key: w.a.key,
      body: { form: { domain: `WWW.${w.bSites.private.domain.toUpperCase()}` } },
    }),
  );
  expect(taken.status).toBe(422);
  expect(errorOf(taken).errors).toEqual({ domain: ['The domain has already been taken.'] });
  // Naming B as the owner of a new website does nothing: it is A's.
  const domain = `a-made-${crypto.randomUUID().slice(0, 8)}.example.com`;
  const made = await attempt(
    () =>
      call('/api/v1/websites', {
        method: 'POST',
        key: w.a.key,
        body: { form: { domain, owner_id: String(w.b.id), ownerId: String(w.b.id) } },
      }),
    aOwnRows,
  );
  expect(made.status).toBe(201);
  siteOwner.set(Number(oneOf(made).data.id), w.a.id);
  expect((await call(`/api/v1/websites/${oneOf(made).data.id}`, { key: w.b.key })).json).toEqual(
    NOT_FOUND,
  );
}

/** Requests without a usable API key. */
const NO_KEY: { kind: string; options: () => CallOptions & { query?: string } }[] = [
  { kind: 'no Authorization header', options: () => ({}) },
  { kind: 'an empty Bearer token', options: () => ({ headers: { authorization: 'Bearer ' } }) },
  { kind: 'an unknown key', options: () => ({ key: `sl_${'A'.repeat(43)}` }) },
  { kind: "B's replaced key", options: () => ({ key: w.bOldKey }) },
  {
    kind: "A's key under another scheme",
    options: () => ({ headers: { authorization: `Basic ${btoa(`${w.a.key}:`)}` } }),
  },
  {
    kind: "A's key in the query string",
    options: () => ({ query: `api_key=${w.a.key}&key=${w.a.key}&token=${w.a.key}` }),
  },
  {
    kind: "B's session cookie",
    options: () => ({ headers: { cookie: `sl_session=${w.bCookies.get('sl_session')}` } }),
  },
];

describe("API v1 with A's key", () => {
  it.each(API_ROUTES.filter(hasId).map(apiCase))(
    "%s: B's websites are the 404 of a missing one",
    async (_, route) => {
      const missing = await attempt(() => callApi(route, MISSING.id, { key: w.a.key }));
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual(NOT_FOUND);
      for (const target of TARGETS) {
        const res = await attempt(() => callApi(route, w.bSites[target].id, { key: w.a.key }));
        expectSame(res, missing, target);
      }
    },
  );

  it.each(API_ROUTES.filter((route) => !hasId(route)))(
    "$method $path: only A's own websites",
    async (route) => {
      if (!route.asA) throw new Error(`${route.method} ${route.path} needs an asA check`);
      await route.asA();
    },
  );
});

describe("B's funnel through A's own website", () => {
  it.each(API_ROUTES.filter((route) => route.path.includes('{funnel_id}')).map(apiCase))(
    '%s: the 404 of a missing funnel',
    async (_, route) => {
      const own = w.aSites.private.id;
      const missing = await attempt(() =>
        callApi(route, own, { key: w.a.key, funnel: MISSING.id }),
      );
      expect(missing.json).toEqual(NOT_FOUND);
      expectSame(await attempt(() => callApi(route, own, { key: w.a.key })), missing, 'funnel');
    },
  );

  it("POST /websites/{id}/funnels/{funnel}/delete: the page's 404 of a missing funnel", async () => {
    const path = (funnel: number) => `/websites/${w.aSites.private.id}/funnels/${funnel}/delete`;
    const missing = await attempt(() => asA().post(path(MISSING.id), { _csrf: w.aCsrf }));
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no such funnel.');
    expectSame(
      await attempt(() => asA().post(path(w.bFunnel), { _csrf: w.aCsrf })),
      missing,
      'funnel',
    );
  });
});

describe("B's import through A's own website", () => {
  it('DELETE /websites/{id}/imports/{import_id}: the 404 of a missing import', async () => {
    const path = (id: number) => `/api/v1/websites/${w.aSites.private.id}/imports/${id}`;
    const missing = await attempt(() => call(path(MISSING.id), { method: 'DELETE', key: w.a.key }));
    expect(missing.json).toEqual(NOT_FOUND);
    expectSame(
      await attempt(() => call(path(w.bImport), { method: 'DELETE', key: w.a.key })),
      missing,
      'import',
    );
  });

  it("POST /websites/{id}/imports/{import}/delete: the page's 404 of a missing import", async () => {
    const path = (id: number) => `/websites/${w.aSites.private.id}/imports/${id}/delete`;
    const missing = await attempt(() => asA().post(path(MISSING.id), { _csrf: w.aCsrf }));
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no such import.');
    expectSame(
      await attempt(() => asA().post(path(w.bImport), { _csrf: w.aCsrf })),
      missing,
      'import',
    );
  });
});

describe.each(NO_KEY)('API v1 with $kind', ({ options }) => {
  it.each(API_ROUTES.map(apiCase))('%s is the 401', async (_, route) => {
    // The key is checked before anything is looked up: B's website id is not even read.
    const res = await attempt(() => callApi(route, w.bSites.private.id, options()));
    expect(res.status).toBe(401);
    // Plausible's Sites API says it as Plausible's do.
    expect(res.json).toEqual(
      route.path.startsWith('/sites/') ? { error: UNAUTHENTICATED.message } : UNAUTHENTICATED,
    );
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

// ---------------------------------------------------------------------------------------
// Stats API v2
// ---------------------------------------------------------------------------------------

/** Questions of every kind: an aggregate, breakdowns, filters, every date range form. */
const V2_QUESTIONS: Record<string, unknown>[] = [
  { metrics: ['visitors', 'pageviews'], date_range: 'all' },
  { metrics: ['visitors'], date_range: ['2020-01-01', '2029-12-31'], dimensions: ['event:page'] },
  {
    metrics: ['visits', 'bounce_rate'],
    date_range: '12mo',
    dimensions: ['visit:source', 'time:month'],
    filters: [['contains', 'event:page', ['/']]],
  },
  {
    metrics: ['visitors'],
    date_range: 'day',
    filters: [['has_done', ['is', 'event:name', ['x']]]],
  },
];

const askV2 = (domain: string, question: Record<string, unknown>, options: CallOptions) =>
  call('/api/v2/query', {
    method: 'POST',
    ...options,
    body: { json: { site_id: domain, ...question } },
  });

describe("Stats API v2 with A's key", () => {
  it.each(V2_QUESTIONS.map((q) => [JSON.stringify(q), q] as const))(
    "%s: B's domains answer as an unknown one",
    async (_, question) => {
      const missing = await attempt(() => askV2(MISSING.domain, question, { key: w.a.key }));
      expect(missing.status).toBe(401);
      for (const target of TARGETS) {
        const res = await attempt(() => askV2(w.bSites[target].domain, question, { key: w.a.key }));
        expectSame(res, missing, target);
      }
    },
  );

  it.each(NO_KEY.map((k) => [k.kind, k] as const))('%s is the 401', async (_, { options }) => {
    const res = await attempt(() =>
      askV2(w.bSites.private.domain, V2_QUESTIONS[0] as Record<string, unknown>, options()),
    );
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.json)).not.toContain(w.bSites.private.domain);
  });
});

// ---------------------------------------------------------------------------------------
// The MCP server
// ---------------------------------------------------------------------------------------

/** Each tool that names a website, with arguments of every kind it takes. */
const MCP_CALLS: [tool: string, args: Record<string, unknown>][] = [
  ['query', { metrics: ['visitors'], date_range: 'all', dimensions: ['event:page'] }],
  ['list_goals', {}],
  ['list_segments', {}],
  ['list_funnels', {}],
  ['funnel', { funnel_id: 1, date_range: ['2020-01-01', '2029-12-31'] }],
  ['journeys', { page: '/', date_range: ['2020-01-01', '2029-12-31'] }],
  ['realtime', {}],
];

const mcp = (body: unknown, options: CallOptions) =>
  call('/mcp', { method: 'POST', ...options, body: { json: body } });
const mcpTool = (tool: string, args: Record<string, unknown>, options: CallOptions) =>
  mcp(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
    options,
  );

describe("the MCP server with A's key", () => {
  it.each(MCP_CALLS.map(([tool, args]) => [tool, args] as const))(
    "%s: B's domains answer as an unknown one",
    async (tool, args) => {
      const missing = await attempt(() =>
        mcpTool(tool, { site_id: MISSING.domain, ...args }, { key: w.a.key }),
      );
      expect(missing.status).toBe(200);
      expect(missing.text).toContain('"isError":true');
      for (const target of TARGETS) {
        const res = await attempt(() =>
          mcpTool(tool, { site_id: w.bSites[target].domain, ...args }, { key: w.a.key }),
        );
        expectSame(res, missing, target);
      }
    },
  );

  it("lists only A's websites", async () => {
    const res = await attempt(() => mcpTool('list_websites', {}, { key: w.a.key }));
    for (const target of TARGETS) expect(res.text).not.toContain(w.bSites[target].domain);
    for (const site of Object.values(w.aSites)) expect(res.text).toContain(site.domain);
  });

  it.each(NO_KEY.map((k) => [k.kind, k] as const))('%s is the 401', async (_, { options }) => {
    const res = await attempt(() => mcpTool('list_websites', {}, options()));
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(w.bSites.private.domain);
  });
});

// ---------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------

/** `funnel`: a funnel of the website (else B's private one's); `page`: a page it has. */
/** `held`: what follows a shared link's mount (a token, or a link id). */
type Vars = Site & { token?: string; held?: string; funnel?: number; page?: string };
type PageRoute = {
  method: 'GET' | 'POST';
  /** `{id}`, `{domain}`, `{token}` and `{held}` are filled in per request. */
  path: string;
  fields?: (vars: Vars) => Record<string, string>;
  /** Dashboard routes without a website in the path: what A's session may see and do there. */
  asA?: () => Promise<void>;
};

const fill = (path: string, vars: Vars) =>
  path
    .replace('{id}', String(vars.id))
    .replace('{domain}', vars.domain)
    .replace('{token}', vars.token ?? MADE_UP_TOKEN)
    .replace('{held}', vars.held ?? MADE_UP_TOKEN)
    .replace('{goal}', String(w.bGoal))
    .replace('{funnel}', String(vars.funnel ?? w.bFunnel))
    .replace('{import}', String(w.bImport))
    .replace('{link}', '1')
    .replace('{member}', String(w.bMember))
    .replace('{annotation}', String(w.bAnnotation))
    .replace('{segment}', String(w.bSegment))
    .replace('{alert}', String(w.bAlert))
    .replace('{recipient}', String(w.bRecipient))
    .replace('{page}', encodeURIComponent(vars.page ?? '/'));

function sendPage(
  b: Browser,
  route: PageRoute,
  vars: Vars,
  extra: Record<string, string> = {},
  options: RequestOptions = {},
): Promise<PageResponse> {
  const path = fill(route.path, vars);
  return route.method === 'GET'
    ? b.get(path, options)
    : b.post(path, { ...route.fields?.(vars), ...extra }, options);
}

/** A page of A's must name none of B's websites, nor B. */
function expectNothingOfB(text: string) {
  for (const target of TARGETS) {
    expect(text, target).not.toContain(w.bSites[target].domain);
    expect(text, target).not.toContain(`/websites/${w.bSites[target].id}`);
  }
  expect(text).not.toContain(w.b.email);
}

async function pageShowsNothingOfB(path: string) {
  const res = await attempt(() => asA().get(path));
  expect(res.status).toBe(200);
  expectNothingOfB(res.text);
  return res;
}

const DASHBOARD_PAGES: PageRoute[] = [
  {
    method: 'GET',
    path: '/websites',
    asA: async () => {
      const res = await pageShowsNothingOfB('/websites');
      expect(res.text).toContain(w.aSites.public.domain);
    },
  },
  {
    method: 'GET',
    path: '/websites/new',
    asA: async () => void pageShowsNothingOfB('/websites/new'),
  },
  {
    method: 'POST',
    path: '/websites',
    fields: (vars) => ({ ...takeover(), domain: vars.domain }),
    asA: async () => {
      const res = await attempt(() =>
        asA().post('/websites', {
          _csrf: w.aCsrf,
          domain: w.bSites.password.domain,
          privacy: '0',
          owner_id: String(w.b.id),
        }),
      );
      expect(res.status).toBe(422);
      expect(res.text).toContain('The domain has already been taken.');
    },
  },
  { method: 'GET', path: '/websites/{id}' },
  {
    method: 'POST',
    path: '/websites/{id}',
    fields: (vars) => ({ ...takeover(), domain: vars.domain }),
  },
  { method: 'GET', path: '/websites/{id}/received.json' },
  { method: 'GET', path: '/websites/{id}/goals' },
  { method: 'GET', path: '/websites/{id}/funnels' },
  { method: 'GET', path: '/websites/{id}/segments' },
  { method: 'GET', path: '/websites/{id}/alerts' },
  { method: 'GET', path: '/websites/{id}/sharing' },
  { method: 'GET', path: '/websites/{id}/members' },
  { method: 'GET', path: '/websites/{id}/imports' },
  { method: 'GET', path: '/websites/{id}/filtered' },
  { method: 'GET', path: '/websites/{id}/storage' },
  { method: 'GET', path: '/websites/{id}/danger' },
  { method: 'GET', path: '/websites/{id}/delete' },
  { method: 'POST', path: '/websites/{id}/delete' },
  {
    method: 'POST',
    path: '/websites/{id}/goals',
    fields: () => ({ kind: 'event', event: 'A was here' }),
  },
  { method: 'POST', path: '/websites/{id}/goals/{goal}/delete' },
  {
    method: 'POST',
    path: '/websites/{id}/funnels',
    fields: () => ({ name: 'A was here', steps: '/a-was-here\nevent:A was here' }),
  },
  { method: 'GET', path: '/websites/{id}/funnels/preview.json?steps=[{"page":"/"},{"page":"/a"}]' },
  { method: 'POST', path: '/websites/{id}/funnels/{funnel}/delete' },
  { method: 'POST', path: '/websites/{id}/imports', fields: () => ({ source: 'plausible' }) },
  { method: 'POST', path: '/websites/{id}/imports/{import}/delete' },
  { method: 'GET', path: '/websites/{id}/export?format=plausible' },
  { method: 'GET', path: '/websites/{id}/export?format=events' },
  { method: 'GET', path: '/websites/{id}/export?format=events&as=parquet' },
  { method: 'POST', path: '/websites/{id}/shared-links', fields: () => ({ name: 'A was here' }) },
  { method: 'POST', path: '/websites/{id}/shared-links/{link}/delete' },
  {
    method: 'POST',
    path: '/websites/{id}/members',
    fields: () => ({ email: w.a.email, role: 'admin' }),
  },
  {
    method: 'POST',
    path: '/websites/{id}/members/{member}/role',
    fields: () => ({ role: 'admin' }),
  },
  { method: 'POST', path: '/websites/{id}/members/{member}/delete' },
  { method: 'POST', path: '/websites/{id}/leave' },
  {
    method: 'POST',
    path: '/websites/{id}/alerts',
    fields: () => ({ kind: 'spike', email: w.a.email, threshold: '1' }),
  },
  { method: 'POST', path: '/websites/{id}/alerts/{alert}/confirmation' },
  { method: 'POST', path: '/websites/{id}/alerts/{alert}/delete' },
  {
    method: 'POST',
    path: '/websites/{id}/reports',
    fields: () => ({ email: 'a-was-here@example.com', interval: 'weekly' }),
  },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/confirmation' },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/test' },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/delete' },
  {
    method: 'POST',
    path: '/websites/{id}/segments/{segment}',
    fields: () => ({ name: 'A was here', type: 'site' }),
  },
  { method: 'POST', path: '/websites/{id}/segments/{segment}/delete' },
  {
    method: 'GET',
    path: '/account',
    asA: async () => {
      const res = await pageShowsNothingOfB('/account');
      expect(res.text).toContain(`Signed in as ${w.a.email}.`);
    },
  },
  {
    method: 'GET',
    path: '/account/api-key',
    asA: async () => {
      const res = await pageShowsNothingOfB('/account/api-key');
      expect(res.text).toContain('Your current API key stops working at once');
    },
  },
  {
    method: 'POST',
    path: '/account/api-key',
    fields: () => ({ owner_id: String(w.b.id), email: w.b.email }),
    asA: async () => {
      const oldKey = w.a.key;
      const a = asA();
      const made = await attempt(
        () =>
          a.post('/account/api-key', {
            _csrf: w.aCsrf,
            confirm: '1',
            owner_id: String(w.b.id),
          }),
        aOwnRows,
      );
      expect(made.status).toBe(303);
      const res = await a.get('/account?key=new');
      w.a.key = res.text.match(/<pre id="api-key">(sl_[\w-]+)<\/pre>/)?.[1] ?? '';
      expect((await call('/api/v1/websites', { key: w.a.key })).status).toBe(200);
      expect((await call('/api/v1/websites', { key: oldKey })).status).toBe(401);
      expect((await call('/api/v1/websites', { key: w.b.key })).status).toBe(200);
    },
  },
  {
    method: 'POST',
    path: '/account/password',
    fields: () => ({
      current_password: OWNER_PASSWORD,
      password: 'a takeover password',
      password_confirmation: 'a takeover password',
    }),
    asA: async () => {
      const b = asA();
      const res = await attempt(
        () =>
          b.post('/account/password', {
            _csrf: w.aCsrf,
            current_password: OWNER_PASSWORD,
            password: OWNER_PASSWORD,
            password_confirmation: OWNER_PASSWORD,
            email: w.b.email,
            owner_id: String(w.b.id),
          }),
        aOwnRows,
      );
      expect([res.status, res.location]).toEqual([303, '/account?saved=1']);
      // Every session of A's ended; this browser has A's new one. B's session lives on.
      expect((await asA().get('/account')).status).toBe(303);
      w.aCookies = b.cookies;
      w.aCsrf = csrfFrom((await asA().get('/account')).text);
      expect((await browserWith(w.bCookies).get('/account')).status).toBe(200);
    },
  },
  {
    method: 'POST',
    path: '/logout',
    fields: () => ({ token: w.bCookies.get('sl_session') ?? '' }),
    asA: async () => {
      // Signing out ends the session it is sent with: a session of A's made for it.
      const b = await signedIn(w.a);
      const csrf = csrfFrom((await b.get('/account')).text);
      await rebaseline();
      const res = await attempt(
        () => b.post('/logout', { _csrf: csrf, token: w.bCookies.get('sl_session') ?? '' }),
        aOwnRows,
      );
      expect([res.status, res.location]).toEqual([303, '/login']);
      expect((await browserWith(w.bCookies).get('/account')).status).toBe(200);
      expect((await asA().get('/account')).status).toBe(200);
    },
  },
];

/** Page requests of someone not signed in. */
const SIGNED_OUT: { kind: string; browser: () => Browser; options?: () => RequestOptions }[] = [
  { kind: 'no session', browser: () => newBrowser() },
  {
    kind: 'an unknown session cookie',
    browser: () => browserWith([['sl_session', 'A'.repeat(43)]]),
  },
  {
    kind: "B's ended session",
    browser: () => browserWith([['sl_session', w.bEndedSession]]),
  },
  {
    kind: "A's API key (pages take none)",
    browser: () => newBrowser(),
    options: () => ({ headers: { authorization: `Bearer ${w.a.key}` } }),
  },
];

describe("dashboard pages signed in as A, with A's form token", () => {
  it.each(DASHBOARD_PAGES.filter((route) => route.path.includes('{id}')))(
    "$method $path: B's websites are the 404 of a missing one",
    async (route) => {
      const b = asA();
      const missing = await attempt(() => sendPage(b, route, MISSING, { _csrf: w.aCsrf }));
      expect(missing.status).toBe(404);
      expect(missing.text).toContain('There is no such website.');
      for (const target of TARGETS) {
        const res = await attempt(() => sendPage(b, route, w.bSites[target], { _csrf: w.aCsrf }));
        expectSame(res, missing, target);
      }
    },
  );

  it.each(DASHBOARD_PAGES.filter((route) => !route.path.includes('{id}')))(
    "$method $path: only A's own account and websites",
    async (route) => {
      if (!route.asA) throw new Error(`${route.method} ${route.path} needs an asA check`);
      await route.asA();
    },
  );
});

describe.each(SIGNED_OUT)('dashboard pages with $kind', ({ browser, options }) => {
  it.each(DASHBOARD_PAGES)('$method $path is the 303 to /login', async (route) => {
    const b = browser();
    const sites = route.path.includes('{id}')
      ? [w.bSites.private, w.aSites.private, MISSING]
      : [w.bSites.private];
    const answers = [];
    for (const site of sites) {
      answers.push(
        await attempt(() => sendPage(b, route, site, { _csrf: w.aCsrf }, options?.() ?? {})),
      );
    }
    const [first] = answers as [PageResponse];
    expect([first.status, first.location]).toEqual([303, '/login']);
    for (const [i, res] of answers.entries()) expectSame(res, first, `website ${sites[i]?.id}`);
  });
});

// Statistics pages: open by the website's privacy, not by an account.

const STATS_PAGES: PageRoute[] = [
  { method: 'GET', path: '/stats/{domain}' },
  { method: 'GET', path: '/stats/{domain}/live.json' },
  ...STAT_NAMES.flatMap((name): PageRoute[] => [
    { method: 'GET', path: `/stats/{domain}/${name}` },
    { method: 'GET', path: `/stats/{domain}/${name}.csv` },
  ]),
  // The Sources card's listings of the log, and the filter menu's suggestions.
  { method: 'GET', path: '/stats/{domain}/channel' },
  { method: 'GET', path: '/stats/{domain}/utm_source.csv' },
  { method: 'GET', path: '/stats/{domain}/page.json' },
  { method: 'GET', path: '/stats/{domain}/channel.json?search=e' },
  { method: 'GET', path: '/stats/{domain}/goal.json' },
  { method: 'GET', path: '/stats/{domain}/funnels/{funnel}' },
  { method: 'GET', path: '/stats/{domain}/funnels/{funnel}.csv' },
  { method: 'GET', path: '/stats/{domain}/journeys?page={page}' },
  { method: 'GET', path: '/stats/{domain}/journeys.csv?page={page}' },
  { method: 'POST', path: '/stats/{domain}/password', fields: () => ({ password: 'a guess' }) },
  {
    method: 'POST',
    path: '/stats/{domain}/segments',
    fields: () => ({ name: 'A was here', type: 'site', 'filter[page]': '/' }),
  },
  {
    method: 'POST',
    path: '/stats/{domain}/annotations',
    fields: () => ({ date: '2026-01-01', text: 'A was here' }),
  },
  { method: 'POST', path: '/stats/{domain}/annotations/{annotation}/delete' },
  { method: 'POST', path: '/stats/{domain}/segments/{segment}/delete' },
];

/**
 * A shared link's pages: the statistics pages under a link's own address (`/share/{link}`,
 * `/embed/{link}`, read with the cookie that holds the link), and under a token in the path
 * (the old form of a link's address, traded for that cookie).
 */
const SHARED_PAGES: PageRoute[] = ['share', 'embed'].flatMap((mount) =>
  STATS_PAGES.map((r) => ({ ...r, path: r.path.replace('/stats/{domain}', `/${mount}/{held}`) })),
);

describe('shared links', () => {
  const tokens = [
    { kind: 'a made-up token', token: () => 'A'.repeat(43) },
    { kind: "B's revoked link", token: () => w.bRevokedToken },
  ];
  describe.each(tokens)('$kind', ({ token }) => {
    it.each(SHARED_PAGES)('$method $path: the 404, nothing of B', async (route) => {
      const res = await attempt(() =>
        sendPage(newBrowser(), route, { ...MISSING, held: token(), funnel: w.bFunnel }),
      );
      expect(res.status).toBe(404);
      expectNothingOfB(res.text);
    });
    it.each(['/share', '/embed'])('POST %s: the 404, no cookie', async (path) => {
      const res = await attempt(() => newBrowser().post(path, { code: token() }));
      expect([res.status, res.headers.getSetCookie()]).toEqual([404, []]);
    });
  });

  const holders = [
    { kind: 'without a cookie', browser: () => newBrowser() },
    {
      kind: "with A's link cookie under B's link's name",
      browser: () => browserWith([[`sl_share_${w.bLinkId}`, w.aLink.cookie]]),
    },
  ];
  describe.each(holders)("B's link's own address, $kind", ({ browser }) => {
    it.each(SHARED_PAGES)('$method $path: the 404, nothing of B', async (route) => {
      const res = await attempt(() =>
        sendPage(browser(), route, { ...MISSING, held: String(w.bLinkId), funnel: w.bFunnel }),
      );
      expect(res.status).toBe(404);
      expectNothingOfB(res.text);
    });
  });

  it.each(SHARED_PAGES.filter((r) => r.method === 'GET'))(
    "$method $path: A's own link shows A's website and nothing of B's (B's funnel is missing)",
    async (route) => {
      const b = browserWith([[`sl_share_${w.aLink.id}`, w.aLink.cookie]]);
      const res = await attempt(() =>
        sendPage(b, route, {
          ...w.aSites.private,
          held: String(w.aLink.id),
          funnel: w.bFunnel,
          page: '/',
        }),
      );
      expect(res.status).toBe(route.path.includes('{funnel}') ? 404 : 200);
      expectNothingOfB(res.text);
      for (const marker of markers('private')) expect(res.text).not.toContain(marker);
    },
  );
});

/** A browser holding A's statistics cookie under the name of every one of B's websites. */
function forgedStatsCookies(): Browser {
  return browserWith([
    [`sl_site_${w.aSites.password.id}`, w.aStatsCookie],
    ...TARGETS.map((t): [string, string] => [`sl_site_${w.bSites[t].id}`, w.aStatsCookie]),
  ]);
}

const STATS_VISITORS: { kind: string; browser: () => Browser }[] = [
  { kind: 'signed in as A', browser: asA },
  { kind: 'signed out', browser: () => newBrowser() },
  { kind: "A's statistics cookie presented for B's websites", browser: forgedStatsCookies },
];

function expectStatsAnswer(route: PageRoute, target: Target, res: Answer, missing: Answer) {
  const site = w.bSites[target];
  const post = route.method === 'POST';
  const live = route.path.endsWith('/live.json');
  if (
    target === 'private' ||
    target === 'deleted' ||
    (target === 'public' && post) ||
    (target === 'password' && (live || (post && !route.path.endsWith('/password'))))
  ) {
    // (The realtime figure of a password-protected website without its cookie: no figure;
    // what only its owner and members post — segments, annotations — the 404 of a missing one.)
    expectSame(res, missing, target);
  } else if (live) {
    expect([res.status, typeof JSON.parse(res.text).visitors]).toEqual([200, 'number']);
  } else if (target === 'password') {
    expect(res.status).toBe(post ? 422 : 200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.text).toContain(`action="/stats/${site.domain}/password"`);
    if (post) expect(res.text).toContain('The password is incorrect.');
    for (const marker of markers(target)) expect(res.text).not.toContain(marker);
    expect(res.text).not.toContain('<table');
    expect(res.text).not.toContain('in the last 5');
  } else if (route.path.endsWith('.csv')) {
    // Public: anyone may read it.
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    // (the log's listings: its header at least, the range may hold no tagged visit)
    expect(res.text.split('\r\n').filter(Boolean).length).toBeGreaterThan(
      route.path.includes('/utm_') ? 0 : 1,
    );
  } else if (/\.json(\?|$)/.test(route.path)) {
    expect(res.status).toBe(200);
    expect(Array.isArray(JSON.parse(res.text).values)).toBe(true);
  } else {
    expect(res.status).toBe(200);
    if (route.path === '/stats/{domain}') {
      expect(res.text).toContain(markers('public')[0]);
      expect(res.text).toMatch(
        /<strong>[1-9]\d*<\/strong> <span data-unit(?:="[^"]*")?>visitors?<\/span> in the last 5\s+minutes/,
      );
    } else {
      expect(res.text).not.toContain('Nothing found.');
    }
  }
}

describe.each(STATS_VISITORS)('statistics pages, $kind', ({ browser }) => {
  it.each(STATS_PAGES)('$method $path', async (route) => {
    const b = browser();
    const missing = await attempt(() => sendPage(b, route, MISSING));
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There are no statistics here.');
    for (const target of TARGETS) {
      const site = w.bSites[target];
      // A wrong password counts against this client (address) and the website's password,
      // and against that password's total from all addresses: nothing else.
      const guessed =
        route.method === 'POST' && target === 'password'
          ? [
              await throttleKey('stats', 'site', String(site.id), b.ip),
              await throttleKey('stats-all', 'site', String(site.id)),
            ]
          : [];
      const vars = { ...site, funnel: w.bFunnels[target], page: `/b-only-${target}-page` };
      const res = await attempt(() => sendPage(b, route, vars), throttles(guessed));
      expectStatsAnswer(route, target, res, missing);
    }
  });
});

// One-click unsubscribe: the signed link is the credential; A holds only links of A's own.

const UNSUBSCRIBE_PAGES: PageRoute[] = [
  { method: 'GET', path: '/reports/unsubscribe/{id}/{token}' },
  {
    method: 'POST',
    path: '/reports/unsubscribe/{id}/{token}',
    fields: () => ({ 'List-Unsubscribe': 'One-Click' }),
  },
  {
    method: 'POST',
    path: '/reports/unsubscribe',
    fields: (vars) => ({ code: `${vars.id}.${vars.token}` }),
  },
];

const UNSUBSCRIBERS: {
  kind: string;
  browser: () => Browser;
  token: () => string;
  options?: RequestOptions;
}[] = [
  {
    kind: "A's own link's token, from a mail client",
    browser: () => newBrowser(),
    token: () => w.aUnsubscribe,
    options: { origin: null },
  },
  { kind: "A's own link's token, signed in as A", browser: asA, token: () => w.aUnsubscribe },
  { kind: 'a made-up token', browser: () => newBrowser(), token: () => MADE_UP_TOKEN },
];

describe.each(UNSUBSCRIBERS)('unsubscribe links with $kind', ({ browser, token, options }) => {
  it.each(UNSUBSCRIBE_PAGES)("$method $path: B's websites are not valid links", async (route) => {
    const b = browser();
    const missing = await attempt(() =>
      sendPage(b, route, { ...MISSING, token: token() }, {}, options),
    );
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('This link is not valid');
    for (const target of TARGETS) {
      const res = await attempt(() =>
        sendPage(b, route, { ...w.bSites[target], token: token() }, {}, options),
      );
      expectSame(res, missing, target);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Guards: nothing slips past the matrix
// ---------------------------------------------------------------------------------------

describe('guards', () => {
  it('every operation of the OpenAPI document is in the API matrix', async () => {
    const doc = (await call('/api/v1/openapi.json')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThanOrEqual(6);
    const matrix = new Set(API_ROUTES.map((route) => `${route.method} ${route.path}`));
    for (const operation of operations) expect(matrix, operation).toContain(operation);
    // Every statistic the API serves has its own line.
    const statsQuery = API_ROUTES.filter((r) => r.path === '/stats/{id}').map((r) => r.query);
    for (const name of STAT_NAMES) {
      expect(statsQuery.some((q) => q?.startsWith(`name=${name}&`))).toBe(true);
    }
  });

  it('every route the app serves is in the matrix or out of scope for a reason', () => {
    const examples = [
      ...API_ROUTES.map((r) => [r.method, `/api/v1${fill(r.path, { id: 1, domain: '' })}`]),
      ...[...DASHBOARD_PAGES, ...STATS_PAGES, ...SHARED_PAGES, ...UNSUBSCRIBE_PAGES].map((r) => [
        r.method,
        fill(r.path, { id: 1, domain: 'example.com', token: 'f'.repeat(32) }).split('?')[0],
      ]),
      ...OUT_OF_SCOPE.map(([method, path]) => [method, path]),
      ['POST', '/api/v2/query'],
    ];
    const served = new Set(
      createApp()
        .routes.filter((route) => route.method !== 'ALL')
        .map((route) => `${route.method} ${route.path}`),
    );
    expect(served.size).toBeGreaterThan(30);
    for (const route of served) {
      const [method, pattern = ''] = route.split(' ');
      const re = routeRegExp(pattern);
      expect(
        examples.some(([m, path]) => m === method && re.test(path ?? '')),
        `${route} is neither in the matrix nor in OUT_OF_SCOPE`,
      ).toBe(true);
    }
    // …and the out-of-scope list names only routes that exist.
    for (const [method, path] of OUT_OF_SCOPE) {
      const exists = [...served].some((route) => {
        const [m, pattern = ''] = route.split(' ');
        return m === method && routeRegExp(pattern).test(path);
      });
      expect(exists, `${method} ${path}`).toBe(true);
    }
  });

  it('every table is classified by owner', async () => {
    const { results } = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'd1_migrations' ORDER BY name",
    ).all<{ name: string }>();
    expect(results.map((r) => r.name)).toEqual([...TABLES].sort());
  });
});

describe('afterwards', () => {
  it("B's websites, key and session are as they were", async () => {
    const list = await call('/api/v1/websites?per_page=100', { key: w.b.key });
    expect(list.json.data).toEqual(w.bRecords);
    expect((await browserWith(w.bCookies).get('/websites')).status).toBe(200);
  });
});

/** Routes that name no owner's object and take no owner's credential. */
const OUT_OF_SCOPE: [Method, string, string][] = [
  ['GET', '/js/script.js', 'the tracker: one public file'],
  ['GET', '/js/script.full.js', 'the tracker with tracking without code: one public file'],
  ['GET', '/health', 'a liveness check: names no owner and no website'],
  ['GET', '/assets/app.0123456789ab.css', 'static assets'],
  ['GET', '/assets/app.0123456789ab.js', 'static assets'],
  ['GET', '/assets/htmx.0123456789ab.js', 'static assets'],
  ['GET', '/assets/icon.svg', 'static assets: the favicon'],
  ['GET', '/favicon.ico', 'a redirect to the favicon'],
  ['POST', '/api/event', 'hits: open to any origin by design (see ingest-isolation.test.ts)'],
  ['POST', '/api/send', 'hits in the format of Umami: as /api/event'],
  [
    'POST',
    '/__replay',
    'local development only: off unless REPLAY=on, localhost only (replay.test.ts)',
  ],
  ['GET', '/api/v1/openapi.json', 'the public API description'],
  ['GET', '/api/v1/docs', 'the public API reference'],
  ['GET', '/', 'a redirect by whether a session exists'],
  ['GET', '/login', 'signing in: no website or owner in it'],
  ['POST', '/login', 'signing in (pages-auth.test.ts)'],
  ['GET', '/register', 'signing up: closed once an owner exists'],
  [
    'GET',
    '/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    "an invitation's link: opened by its token alone (members.test.ts: made-up, used, expired)",
  ],
  ['GET', '/invitations', "an invitation's link: a page that posts the token after its #"],
  ['POST', '/invitations', 'opening and accepting it by its token alone (members.test.ts)'],
  ['GET', '/share', "a shared link's first page: shows nothing, posts the token after its #"],
  ['GET', '/embed', "a shared link's first page, to be framed: as /share"],
  ['POST', '/share', "trading a link's token for its cookie (the 'shared links' lines above)"],
  ['POST', '/embed', "trading a link's token for its cookie (the 'shared links' lines above)"],
  ['GET', '/reports/unsubscribe', 'a page that takes the secret after its #: shows nothing'],
  ['GET', '/alerts/confirm', "an alert's confirmation: a page that posts the secret after its #"],
  [
    'POST',
    '/alerts/confirm',
    "confirming an alert by its alert-bound token alone (alerts.test.ts: a wrong code, another alert's)",
  ],
  ['GET', '/alerts/unsubscribe', 'a page that takes the secret after its #: shows nothing'],
  [
    'GET',
    '/reports/confirm',
    "a report recipient's confirmation: a page that posts the secret after its #",
  ],
  [
    'POST',
    '/reports/confirm',
    'confirming a report recipient by its recipient-bound token alone (report-recipients.test.ts)',
  ],
  [
    'POST',
    '/alerts/unsubscribe',
    'stopping an alert by its alert-bound token alone (alerts.test.ts)',
  ],
  [
    'GET',
    `/alerts/unsubscribe/1/${'0'.repeat(32)}`,
    "an alert's one-click link: its token alone (alerts.test.ts: a made-up one)",
  ],
  [
    'POST',
    `/alerts/unsubscribe/1/${'0'.repeat(32)}`,
    "an alert's one-click unsubscribe: its token alone (alerts.test.ts: a made-up one)",
  ],
  ['POST', '/register', 'signing up (pages-register.test.ts)'],
];

/** A Hono route pattern (`/a/:id`, `/a/:name{re}`, `/a/*`) as a regular expression. */
function routeRegExp(pattern: string): RegExp {
  const parts = pattern
    .split('/')
    .slice(1)
    .map((part) => {
      const param = /^:\w+(?:\{(.+)\})?$/.exec(part);
      if (param) return param[1] ? `(?:${param[1]})` : '[^/]+';
      if (part === '*') return '.*';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    });
  return new RegExp(`^/${parts.join('/')}$`);
}
