/**
 * Roles as a matrix (docs/ARCHITECTURE.md, "Members"): every route of the API and every
 * settings page that names a website, crossed with every kind of person.
 *
 * Owner O has website T (private) with a goal, a funnel, an import, a shared link and
 * members: admin D and viewer V. R was an admin of T and was removed; X is an admin of O's
 * other website U (another website's member); S is a stranger with a website of their own.
 *
 * - S, R and X get exactly what a website that never existed gets (the API's 404, the
 *   page's 404, v2's 401, the Sites API's "Site could not be found") and change nothing.
 * - A member whose role is below what the route needs gets a 403 and changes nothing.
 * - A member whose role suffices gets through (no 401, 403 or 404).
 *
 * Every route is one line of API_RULES or PAGE_RULES with the role it needs; the guards
 * fail when the app serves a route that names a website and has no rule here.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import {
  type Answer,
  type CallOptions,
  call,
  makeOwner,
  makeWebsite,
  oneOf,
} from '../../support/api.ts';
import {
  type Browser,
  csrfFrom,
  type PageResponse,
  signedIn,
} from '../../support/browser-session.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';

type Person = 'admin' | 'viewer' | 'removed' | 'otherMember' | 'stranger';
type Need = 'viewer' | 'admin' | 'owner';
type Owner = Awaited<ReturnType<typeof makeOwner>>;

const MISSING_ID = 987_654_321;
const MISSING_DOMAIN = 'never-registered.example.net';
const RANK: Record<Need, number> = { viewer: 1, admin: 2, owner: 3 };
const ROLE_OF: Partial<Record<Person, Need>> = { admin: 'admin', viewer: 'viewer' };

let box: ReturnType<typeof mailbox>;
const w = {} as {
  o: Owner;
  people: Record<Person, Owner>;
  browsers: Record<Person, Browser>;
  csrf: Record<Person, string>;
  t: { id: number; domain: string };
  u: { id: number; domain: string };
  /** T's standing objects, which refused requests name. */
  ids: {
    goal: number;
    funnel: number;
    import: number;
    link: number;
    member: number;
    segment: number;
    annotation: number;
    alert: number;
    recipient: number;
  };
};

/**
 * Objects of T made by its owner for one request that may delete or change them: those its
 * `path` names (`{goal_id}`, `{goal}`, …), the standing ones for the rest (without a path,
 * all are made). A website holds at most 100 of most kinds, so only what is needed is made.
 */
async function freshIds(path?: string) {
  const key = w.o.key;
  const tag = crypto.randomUUID().slice(0, 8);
  const needs = (name: keyof Ids) => path === undefined || path.includes(`{${name}`);
  const made = async (name: keyof Ids, plural: string, json: unknown) => {
    if (!needs(name)) return w.ids[name];
    const res = await call(`/api/v1/websites/${w.t.id}/${plural}`, {
      method: 'POST',
      key,
      body: { json },
    });
    expect(res.status, plural).toBe(201);
    return Number(oneOf(res).data.id);
  };
  const imported = async () => {
    if (!needs('import')) return w.ids.import;
    const res = await call(
      `/api/v1/websites/${w.t.id}/imports?source=plausible&file_name=imported_pages_20200101_20200101.csv`,
      {
        method: 'POST',
        key,
        body: { raw: 'date,page,pageviews\n2020-01-01,/x,1\n', type: 'text/csv' },
      },
    );
    expect(res.status).toBe(201);
    return Number(oneOf(res).data.id);
  };
  return {
    goal: await made('goal', 'goals', { event: `fresh-${tag}` }),
    funnel: await made('funnel', 'funnels', {
      name: `fresh-${tag}`,
      steps: [{ page: '/a' }, { page: '/b' }],
    }),
    import: await imported(),
    link: await made('link', 'shared-links', { name: `fresh-${tag}` }),
    member: await made('member', 'members', { email: `fresh-${tag}@example.com`, role: 'viewer' }),
    segment: await made('segment', 'segments', {
      name: `fresh-${tag}`,
      type: 'site',
      filters: [['is', 'event:page', ['/a']]],
    }),
    annotation: await made('annotation', 'annotations', {
      date: '2020-01-01',
      text: `fresh-${tag}`,
    }),
    alert: await made('alert', 'alerts', { kind: 'drop', email: `fresh-alert-${tag}@example.com` }),
    recipient: await made('recipient', 'report-recipients', {
      email: `fresh-report-${tag}@example.com`,
    }),
  };
}

type Ids = typeof w.ids;
const fill = (path: string, id: number, ids: Ids) =>
  path
    .replace('{id}', String(id))
    .replace('{goal_id}', String(ids.goal))
    .replace('{funnel_id}', String(ids.funnel))
    .replace('{import_id}', String(ids.import))
    .replace('{link_id}', String(ids.link))
    .replace('{member_id}', String(ids.member))
    .replace('{segment_id}', String(ids.segment))
    .replace('{annotation_id}', String(ids.annotation))
    .replace('{alert_id}', String(ids.alert))
    .replace('{recipient_id}', String(ids.recipient));

// ---------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------

type ApiRule = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As the OpenAPI document names it. */
  path: string;
  need: Need;
  query?: string;
  body?: () => CallOptions['body'];
};

const unique = () => crypto.randomUUID().slice(0, 8);
const API_RULES: ApiRule[] = [
  { method: 'GET', path: '/websites/{id}', need: 'viewer' },
  { method: 'PUT', path: '/websites/{id}', need: 'admin', body: () => ({ json: { email: 0 } }) },
  { method: 'PATCH', path: '/websites/{id}', need: 'admin', body: () => ({ json: { email: 0 } }) },
  { method: 'DELETE', path: '/websites/{id}', need: 'owner' },
  { method: 'GET', path: '/websites/{id}/storage', need: 'viewer' },
  {
    method: 'GET',
    path: '/websites/{id}/filtered',
    need: 'viewer',
    query: 'from=2026-01-01&to=2026-12-31',
  },
  ...['pageviews', 'browser', 'page'].map(
    (name): ApiRule => ({
      method: 'GET',
      path: '/stats/{id}',
      need: 'viewer',
      query: `name=${name}&from=2020-01-01&to=2020-01-31`,
    }),
  ),
  {
    method: 'GET',
    path: '/stats/{id}/summary',
    need: 'viewer',
    query: 'from=2020-01-01&to=2020-01-31',
  },
  {
    method: 'GET',
    path: '/stats/{id}/funnels/{funnel_id}',
    need: 'viewer',
    query: 'from=2020-01-01&to=2020-01-31',
  },
  {
    method: 'GET',
    path: '/stats/{id}/journeys',
    need: 'viewer',
    query: 'page=/&from=2020-01-01&to=2020-01-31',
  },
  { method: 'GET', path: '/websites/{id}/goals', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/goals',
    need: 'admin',
    body: () => ({ json: { event: `goal-${unique()}` } }),
  },
  { method: 'DELETE', path: '/websites/{id}/goals/{goal_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/funnels', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/funnels',
    need: 'admin',
    body: () => ({ json: { name: `funnel-${unique()}`, steps: [{ page: '/a' }, { page: '/c' }] } }),
  },
  { method: 'GET', path: '/websites/{id}/funnels/{funnel_id}', need: 'viewer' },
  {
    method: 'PUT',
    path: '/websites/{id}/funnels/{funnel_id}',
    need: 'admin',
    body: () => ({ json: { name: `funnel-${unique()}`, steps: [{ page: '/a' }, { page: '/d' }] } }),
  },
  { method: 'DELETE', path: '/websites/{id}/funnels/{funnel_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/imports', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/imports',
    need: 'admin',
    query: 'source=plausible&file_name=imported_pages_20200102_20200102.csv',
    body: () => ({ raw: 'date,page,pageviews\n2020-01-02,/y,1\n', type: 'text/csv' }),
  },
  { method: 'DELETE', path: '/websites/{id}/imports/{import_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/export', need: 'viewer', query: 'format=plausible' },
  {
    method: 'POST',
    path: '/websites/{id}/archive',
    need: 'admin',
    query: 'from=2020-01-01&to=2020-01-02',
  },
  { method: 'GET', path: '/websites/{id}/shared-links', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/shared-links',
    need: 'admin',
    body: () => ({ json: { name: 'Client' } }),
  },
  { method: 'DELETE', path: '/websites/{id}/shared-links/{link_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/members', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/members',
    need: 'admin',
    body: () => ({ json: { email: `invited-${unique()}@example.com`, role: 'viewer' } }),
  },
  {
    method: 'PATCH',
    path: '/websites/{id}/members/{member_id}',
    need: 'admin',
    body: () => ({ json: { role: 'admin' } }),
  },
  { method: 'DELETE', path: '/websites/{id}/members/{member_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/segments', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/segments',
    need: 'viewer',
    body: () => ({
      json: { name: 'Mine', type: 'personal', filters: [['is', 'event:page', ['/b']]] },
    }),
  },
  {
    method: 'POST',
    path: '/websites/{id}/segments',
    need: 'admin',
    body: () => ({ json: { name: 'Ours', type: 'site', filters: [['is', 'event:page', ['/b']]] } }),
  },
  { method: 'GET', path: '/websites/{id}/segments/{segment_id}', need: 'viewer' },
  {
    method: 'PATCH',
    path: '/websites/{id}/segments/{segment_id}',
    need: 'admin',
    body: () => ({ json: { name: `segment-${unique()}` } }),
  },
  { method: 'DELETE', path: '/websites/{id}/segments/{segment_id}', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/annotations', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/annotations',
    need: 'admin',
    body: () => ({ json: { date: '2020-01-02', text: `note-${unique()}` } }),
  },
  {
    method: 'PATCH',
    path: '/websites/{id}/annotations/{annotation_id}',
    need: 'admin',
    body: () => ({ json: { text: `note-${unique()}` } }),
  },
  { method: 'DELETE', path: '/websites/{id}/annotations/{annotation_id}', need: 'admin' },
  // Alerts: the list holds others' addresses, so even reading it is an admin's.
  { method: 'GET', path: '/websites/{id}/alerts', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/alerts',
    need: 'admin',
    body: () => ({ json: { kind: 'spike', email: `alert-${unique()}@example.com`, threshold: 9 } }),
  },
  { method: 'GET', path: '/websites/{id}/alerts/{alert_id}', need: 'admin' },
  {
    method: 'PATCH',
    path: '/websites/{id}/alerts/{alert_id}',
    need: 'admin',
    body: () => ({ json: { threshold: 3 } }),
  },
  { method: 'DELETE', path: '/websites/{id}/alerts/{alert_id}', need: 'admin' },
  { method: 'POST', path: '/websites/{id}/alerts/{alert_id}/confirmation', need: 'admin' },
  // Report recipients: the list holds others' addresses too.
  { method: 'GET', path: '/websites/{id}/report-recipients', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/report-recipients',
    need: 'admin',
    body: () => ({ json: { email: `report-${unique()}@example.com`, interval: 'monthly' } }),
  },
  { method: 'DELETE', path: '/websites/{id}/report-recipients/{recipient_id}', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/report-recipients/{recipient_id}/confirmation',
    need: 'admin',
  },
  { method: 'POST', path: '/websites/{id}/report-recipients/{recipient_id}/test', need: 'admin' },
];

function callRule(rule: ApiRule, key: string, id: number, ids: Ids): Promise<Answer> {
  const path = fill(rule.path, id, ids);
  return call(`/api/v1${path}${rule.query ? `?${rule.query}` : ''}`, {
    method: rule.method,
    key,
    body: rule.body?.(),
  });
}

/** Plausible's APIs name a website by its domain. */
type DomainRule = {
  name: string;
  need: Need;
  send: (key: string, domain: string, ids: Ids) => Promise<Answer>;
};
const DOMAIN_RULES: DomainRule[] = [
  {
    name: 'POST /api/v2/query',
    need: 'viewer',
    send: (key, domain) =>
      call('/api/v2/query', {
        method: 'POST',
        key,
        body: { json: { site_id: domain, metrics: ['visitors'], date_range: 'all' } },
      }),
  },
  {
    name: 'GET /api/v1/sites/goals',
    need: 'viewer',
    send: (key, domain) => call(`/api/v1/sites/goals?site_id=${domain}`, { key }),
  },
  {
    name: 'PUT /api/v1/sites/goals',
    need: 'admin',
    send: (key, domain) =>
      call('/api/v1/sites/goals', {
        method: 'PUT',
        key,
        body: { json: { site_id: domain, goal_type: 'event', event_name: `e-${unique()}` } },
      }),
  },
  {
    name: 'DELETE /api/v1/sites/goals/{goal_id}',
    need: 'admin',
    send: (key, domain, ids) =>
      call(`/api/v1/sites/goals/${ids.goal}`, {
        method: 'DELETE',
        key,
        body: { json: { site_id: domain } },
      }),
  },
];

// ---------------------------------------------------------------------------------------
// The pages
// ---------------------------------------------------------------------------------------

type PageRule = {
  method: 'GET' | 'POST';
  /** `{id}`, `{goal}`, `{funnel}`, `{import}`, `{link}`, `{member}` filled in per request. */
  path: string;
  need: Need;
  fields?: () => Record<string, string>;
  /** Leaving takes the person out of the website: checked in members.test.ts instead. */
  noAllowedCase?: boolean;
};

const PAGE_RULES: PageRule[] = [
  { method: 'GET', path: '/websites/{id}', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}',
    need: 'admin',
    fields: () => ({ privacy: '1', timezone: 'UTC' }),
  },
  { method: 'GET', path: '/websites/{id}/received.json', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/goals', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/funnels', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/segments', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/alerts', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/sharing', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/members', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/imports', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/filtered', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/storage', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/danger', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/delete', need: 'owner' },
  { method: 'POST', path: '/websites/{id}/delete', need: 'owner' },
  {
    method: 'POST',
    path: '/websites/{id}/goals',
    need: 'admin',
    fields: () => ({ kind: 'event', event: `page-goal-${unique()}` }),
  },
  { method: 'POST', path: '/websites/{id}/goals/{goal}/delete', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/funnels',
    need: 'admin',
    fields: () => ({ name: `page-funnel-${unique()}`, steps: '/a\n/e' }),
  },
  {
    method: 'GET',
    path: '/websites/{id}/funnels/preview.json?steps=[{"page":"/"},{"page":"/a"}]',
    need: 'admin',
  },
  { method: 'POST', path: '/websites/{id}/funnels/{funnel}/delete', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/imports',
    need: 'admin',
    fields: () => ({ source: 'plausible' }),
  },
  { method: 'POST', path: '/websites/{id}/imports/{import}/delete', need: 'admin' },
  { method: 'GET', path: '/websites/{id}/export?format=plausible', need: 'viewer' },
  {
    method: 'POST',
    path: '/websites/{id}/shared-links',
    need: 'admin',
    fields: () => ({ name: 'Client' }),
  },
  { method: 'POST', path: '/websites/{id}/shared-links/{link}/delete', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/members',
    need: 'admin',
    fields: () => ({ email: `paged-${unique()}@example.com`, role: 'viewer' }),
  },
  {
    method: 'POST',
    path: '/websites/{id}/members/{member}/role',
    need: 'admin',
    fields: () => ({ role: 'admin' }),
  },
  { method: 'POST', path: '/websites/{id}/members/{member}/delete', need: 'admin' },
  { method: 'POST', path: '/websites/{id}/leave', need: 'viewer', noAllowedCase: true },
  {
    method: 'POST',
    path: '/websites/{id}/alerts',
    need: 'admin',
    fields: () => ({ kind: 'spike', email: `paged-alert-${unique()}@example.com`, threshold: '9' }),
  },
  { method: 'POST', path: '/websites/{id}/alerts/{alert}/confirmation', need: 'admin' },
  { method: 'POST', path: '/websites/{id}/alerts/{alert}/delete', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/reports',
    need: 'admin',
    fields: () => ({ email: `paged-report-${unique()}@example.com`, interval: 'weekly' }),
  },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/confirmation', need: 'admin' },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/test', need: 'admin' },
  { method: 'POST', path: '/websites/{id}/reports/{recipient}/delete', need: 'admin' },
  {
    method: 'POST',
    path: '/websites/{id}/segments/{segment}',
    need: 'admin',
    fields: () => ({ name: `paged-segment-${unique()}`, type: 'site' }),
  },
  { method: 'POST', path: '/websites/{id}/segments/{segment}/delete', need: 'admin' },
];

const fillPage = (path: string, id: number, ids: Ids) =>
  fill(
    path
      .replace('{goal}', '{goal_id}')
      .replace('{funnel}', '{funnel_id}')
      .replace('{import}', '{import_id}')
      .replace('{link}', '{link_id}')
      .replace('{alert}', '{alert_id}')
      .replace('{recipient}', '{recipient_id}')
      .replace('{segment}', '{segment_id}')
      .replace('{member}', '{member_id}'),
    id,
    ids,
  );

function sendPage(rule: PageRule, person: Person, id: number, ids: Ids): Promise<PageResponse> {
  const b = w.browsers[person];
  const path = fillPage(rule.path, id, ids);
  return rule.method === 'GET'
    ? b.get(path)
    : b.post(path, { _csrf: w.csrf[person], ...rule.fields?.() });
}

// ---------------------------------------------------------------------------------------
// The world, and what a refused request may change (nothing)
// ---------------------------------------------------------------------------------------

beforeAll(async () => {
  box = mailbox();
  w.o = await makeOwner('roles-owner');
  w.t = await makeWebsite(w.o.key, { privacy: '1' });
  w.u = await makeWebsite(w.o.key, { privacy: '1' });
  const people = {} as Record<Person, Owner>;
  for (const person of ['admin', 'viewer', 'removed', 'otherMember', 'stranger'] as Person[])
    people[person] = await makeOwner(`roles-${person}`);
  w.people = people;
  await addMember(box, w.o.key, w.t.id, people.admin, 'admin');
  await addMember(box, w.o.key, w.t.id, people.viewer, 'viewer');
  const removed = await addMember(box, w.o.key, w.t.id, people.removed, 'admin');
  await addMember(box, w.o.key, w.u.id, people.otherMember, 'admin');
  await makeWebsite(people.stranger.key);
  w.ids = await freshIds();
  w.browsers = {} as Record<Person, Browser>;
  w.csrf = {} as Record<Person, string>;
  for (const person of Object.keys(people) as Person[]) {
    w.browsers[person] = await signedIn(people[person]);
    w.csrf[person] = csrfFrom((await w.browsers[person].get('/account')).text);
  }
  // R is removed after signing in: the session and the key outlive the membership.
  const out = await call(`/api/v1/websites/${w.t.id}/members/${removed}`, {
    method: 'DELETE',
    key: w.o.key,
  });
  expect(out.status).toBe(200);
});
afterAll(() => box.close());

/** Every row of every table, as JSON. */
async function snapshot(): Promise<string> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const tables = await env.DB.batch(
    results.map(({ name }) => env.DB.prepare(`SELECT * FROM "${name}" ORDER BY 1`)),
  );
  return JSON.stringify(tables.map((t) => t.results));
}

/** Sends a request that must change nothing. */
async function unchanged<T>(send: () => Promise<T>): Promise<T> {
  const before = await snapshot();
  const res = await send();
  expect(await snapshot(), 'a refused request changed the database').toBe(before);
  return res;
}

const outsiders: Person[] = ['removed', 'otherMember', 'stranger'];
const members: Person[] = ['admin', 'viewer'];
const ruleName = (r: { method: string; path: string; query?: string }) =>
  `${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`;

describe.each(API_RULES.map((r) => [ruleName(r), r] as const))('API %s', (_, rule) => {
  it.each(outsiders)('%s: the answer of a website that never existed', async (person) => {
    const key = w.people[person].key;
    const missing = await unchanged(() => callRule(rule, key, MISSING_ID, w.ids));
    expect(missing.status).toBe(404);
    const res = await unchanged(() => callRule(rule, key, w.t.id, w.ids));
    expect([res.status, res.text]).toEqual([missing.status, missing.text]);
  });

  it.each(members)('%s', async (person) => {
    const key = w.people[person].key;
    const role = ROLE_OF[person] as Need;
    if (RANK[role] < RANK[rule.need]) {
      const res = await unchanged(() => callRule(rule, key, w.t.id, w.ids));
      expect(res.status).toBe(403);
      expect(res.json.status).toBe(403);
    } else {
      const res = await callRule(rule, key, w.t.id, await freshIds(rule.path));
      expect([401, 403, 404], res.text).not.toContain(res.status);
    }
  });
});

describe.each(DOMAIN_RULES.map((r) => [r.name, r] as const))('API %s', (_, rule) => {
  it.each(outsiders)('%s: the answer of a domain never registered', async (person) => {
    const key = w.people[person].key;
    const missing = await unchanged(() => rule.send(key, MISSING_DOMAIN, w.ids));
    expect([401, 404]).toContain(missing.status);
    const res = await unchanged(() => rule.send(key, w.t.domain, w.ids));
    expect([res.status, res.text]).toEqual([missing.status, missing.text]);
  });

  it.each(members)('%s', async (person) => {
    const key = w.people[person].key;
    const role = ROLE_OF[person] as Need;
    if (RANK[role] < RANK[rule.need]) {
      const res = await unchanged(() => rule.send(key, w.t.domain, w.ids));
      expect(res.status).toBe(403);
    } else {
      const res = await rule.send(key, w.t.domain, await freshIds(rule.name));
      expect([401, 403, 404], res.text).not.toContain(res.status);
    }
  });
});

describe.each(PAGE_RULES.map((r) => [ruleName(r), r] as const))('page %s', (_, rule) => {
  it.each(outsiders)('%s: the page of a website that never existed', async (person) => {
    const missing = await unchanged(() => sendPage(rule, person, MISSING_ID, w.ids));
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no such website.');
    const res = await unchanged(() => sendPage(rule, person, w.t.id, w.ids));
    expect([res.status, res.text]).toEqual([missing.status, missing.text]);
  });

  it.each(members)('%s', async (person) => {
    const role = ROLE_OF[person] as Need;
    if (RANK[role] < RANK[rule.need]) {
      const res = await unchanged(() => sendPage(rule, person, w.t.id, w.ids));
      expect(res.status).toBe(403);
    } else if (!rule.noAllowedCase) {
      const res = await sendPage(rule, person, w.t.id, await freshIds(rule.path));
      expect([401, 403, 404], res.text.slice(0, 2000)).not.toContain(res.status);
    }
  });
});

describe('statistics pages of a private website', () => {
  it.each(members)('%s reads them with their session', async (person) => {
    const res = await w.browsers[person].get(`/stats/${w.t.domain}`);
    expect(res.status).toBe(200);
    expect((await w.browsers[person].get(`/stats/${w.t.domain}/page.csv`)).status).toBe(200);
  });

  it.each(outsiders)('%s gets the 404 of a missing domain', async (person) => {
    const b = w.browsers[person];
    const missing = await b.get(`/stats/${MISSING_DOMAIN}`);
    const res = await b.get(`/stats/${w.t.domain}`);
    expect([res.status, res.text]).toEqual([404, missing.text]);
  });
});

describe('websites lists', () => {
  it('each person lists the websites they may read, with their role', async () => {
    const roles = async (person: Person) =>
      Object.fromEntries(
        (
          (await call('/api/v1/websites?per_page=100', { key: w.people[person].key })).json
            .data as { id: number; role: string }[]
        ).map((site) => [site.id, site.role]),
      );
    expect((await roles('admin'))[w.t.id]).toBe('admin');
    expect((await roles('viewer'))[w.t.id]).toBe('viewer');
    expect((await roles('otherMember'))[w.u.id]).toBe('admin');
    for (const person of outsiders) expect((await roles(person))[w.t.id], person).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------
// Guards: a route that names a website has a rule
// ---------------------------------------------------------------------------------------

/** A Hono route pattern as a regular expression. */
const routeRegExp = (pattern: string) =>
  new RegExp(`^${pattern.replace(/:\w+(\{[^}]+\})?/g, '[^/]+').replace(/\*/g, '.*')}$`);

describe('guards', () => {
  it('every operation of the OpenAPI document that names a website has a rule', async () => {
    const doc = (await call('/api/v1/openapi.json')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const withId = Object.entries(doc.paths)
      .filter(([path]) => path.includes('{id}'))
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(withId.length).toBeGreaterThan(20);
    const rules = new Set(API_RULES.map((r) => `${r.method} ${r.path}`));
    for (const operation of withId) expect(rules, operation).toContain(operation);
  });

  it('every page that names a website has a rule', () => {
    const served = createApp()
      .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/websites/:id'))
      .map((r) => `${r.method} ${r.path}`);
    expect(served.length).toBeGreaterThan(10);
    for (const route of served) {
      const [method, pattern = ''] = route.split(' ');
      const ruled = PAGE_RULES.some(
        (r) =>
          r.method === method &&
          routeRegExp(pattern).test(fillPage(r.path, 1, w.ids).split('?')[0] ?? ''),
      );
      expect(ruled, `${route} has no rule`).toBe(true);
    }
  });
});
