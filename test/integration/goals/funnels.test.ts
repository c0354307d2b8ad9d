/**
 * Funnels (src/flows/): saved per website through `…/websites/{id}/funnels` and on the
 * website's settings page — 2 to 8 steps, each a page, a custom event or a goal; bad fields
 * a 422 naming each (`steps.2.page`, steps counted from 1); another owner's website or
 * funnel the same 404 as a missing one.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { funnels } from '../../../src/db/schema.ts';
import {
  type Answer,
  call,
  db,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
} from '../../support/api.ts';
import { csrfFrom, signedIn } from '../../support/browser-session.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
type Funnel = { id: number; name: string; steps: unknown[]; created_at: string };

let owner: Owner;
let site: { id: number; domain: string };

beforeAll(async () => {
  owner = await makeOwner('funnels');
  site = await makeWebsite(owner.key, { domain: 'funnels.example.com' });
});

const api = (
  websiteId: number,
  path = '',
  init: { method?: string; json?: unknown; form?: Record<string, string>; key?: string } = {},
) =>
  call(`/api/v1/websites/${websiteId}/funnels${path}`, {
    method: init.method ?? 'GET',
    key: init.key ?? owner.key,
    ...(init.json !== undefined ? { body: { json: init.json } } : {}),
    ...(init.form ? { body: { form: init.form } } : {}),
  });
const post = (json: unknown, websiteId = site.id) => api(websiteId, '', { method: 'POST', json });
const dataOf = (res: Answer) => (res.json as { data: Funnel }).data;
const errorsOf = (res: Answer) => errorOf(res).errors;
/** How many funnels a website has in D1. */
const stored = async (websiteId: number) =>
  (
    await env.DB.prepare('SELECT count(*) AS n FROM funnels WHERE website_id = ?')
      .bind(websiteId)
      .first<{ n: number }>()
  )?.n;

const SIGNUP = [{ page: '/pricing' }, { page: '/signup/**' }, { event: 'Signup' }];

describe('the funnel API', () => {
  it('adds a funnel: 201 with its id, name, steps (trimmed) and creation time', async () => {
    const res = await post({
      name: ' Signup ',
      steps: [{ page: ' /pricing' }, { page: '/signup/**' }, { event: 'Signup ' }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      data: {
        id: expect.any(Number),
        name: 'Signup',
        steps: SIGNUP,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
      status: 201,
    });
    const { id } = dataOf(res);
    expect((await api(site.id, `/${id}`)).json).toEqual({ data: dataOf(res), status: 200 });
  });

  it('takes a form whose steps are JSON text', async () => {
    const res = await api(site.id, '', {
      method: 'POST',
      form: { name: 'From a form', steps: JSON.stringify([{ page: '/' }, { event: 'Buy' }]) },
    });
    expect(res.status, res.text).toBe(201);
    expect(dataOf(res).steps).toEqual([{ page: '/' }, { event: 'Buy' }]);
  });

  it('replaces the name and steps with PUT, checked as a new funnel', async () => {
    const made = dataOf(await post({ name: 'Before', steps: SIGNUP }));
    const put = (json: unknown) => api(site.id, `/${made.id}`, { method: 'PUT', json });
    const steps = [{ page: '/docs/*' }, { event: 'Download' }];
    const res = await put({ name: 'After', steps });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      data: { id: made.id, name: 'After', steps, created_at: made.created_at },
      status: 200,
    });
    // Its own name is not another funnel's; another's is.
    expect((await put({ name: 'After', steps: SIGNUP })).status).toBe(200);
    const taken = await put({ name: 'Signup', steps: SIGNUP });
    expect([taken.status, Object.keys(errorsOf(taken))]).toEqual([422, ['name']]);
    const bad = await put({ name: 'After', steps: [{ page: '/a' }, { page: 'b' }] });
    expect([bad.status, Object.keys(errorsOf(bad))]).toEqual([422, ['steps.2.page']]);
    expect(dataOf(await api(site.id, `/${made.id}`))).toEqual({
      id: made.id,
      name: 'After',
      steps: SIGNUP,
      created_at: made.created_at,
    });
  });

  it('deletes a funnel as a goal is deleted; then it is not found', async () => {
    const { id } = dataOf(await post({ name: 'Short-lived', steps: SIGNUP }));
    const res = await api(site.id, `/${id}`, { method: 'DELETE' });
    expect(res.json).toEqual({ id, object: 'funnel', deleted: true, status: 200 });
    for (const method of ['GET', 'DELETE']) {
      expect((await api(site.id, `/${id}`, { method })).json).toEqual(NOT_FOUND);
    }
    const put = await api(site.id, `/${id}`, { method: 'PUT', json: { name: 'x', steps: SIGNUP } });
    expect([put.status, put.json]).toEqual([404, NOT_FOUND]);
  });

  it('lists the funnels oldest first, paged as the website list is', async () => {
    const { id } = await makeWebsite(owner.key, { domain: 'funnels-paged.example.com' });
    for (let i = 1; i <= 11; i++) {
      expect((await post({ name: `Funnel ${i}`, steps: SIGNUP }, id)).status).toBe(201);
    }
    const first = await api(id, '?per_page=10');
    expect(first.status).toBe(200);
    const page = listOf<Funnel>(first);
    expect(page.data.map((f) => f.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Funnel ${i + 1}`),
    );
    const base = `https://sightline.test/api/v1/websites/${id}/funnels`;
    expect(page.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 2,
      path: base,
      per_page: 10,
      to: 10,
      total: 11,
    });
    expect(page.links).toEqual({
      first: `${base}?per_page=10&page=1`,
      last: `${base}?per_page=10&page=2`,
      prev: null,
      next: `${base}?per_page=10&page=2`,
    });
    const second = listOf<Funnel>(await api(id, '?per_page=10&page=2'));
    expect(second.data.map((f) => f.name)).toEqual(['Funnel 11']);
    expect(second.meta).toMatchObject({ current_page: 2, from: 11, to: 11, total: 11 });
    expect(listOf(await api(id, '?page=3&per_page=10')).meta).toMatchObject({
      from: null,
      to: null,
    });
    expect(listOf(await api(id)).meta).toMatchObject({ per_page: 25, total: 11 });
    // The same checks of page and per_page, with the same messages, as the website list.
    const bad = '?per_page=7&page=0';
    const funnelErrors = errorsOf(await api(id, bad));
    expect(Object.keys(funnelErrors)).toEqual(['per_page', 'page']);
    expect(funnelErrors).toEqual(
      errorsOf(await call(`/api/v1/websites${bad}`, { key: owner.key })),
    );
  });

  it('refuses more than 100 funnels a website', async () => {
    const { id } = await makeWebsite(owner.key, { domain: 'funnels-full.example.com' });
    const steps = JSON.stringify(SIGNUP);
    const rows = Array.from({ length: 100 }, (_, i) => ({
      websiteId: id,
      name: `F${i}`,
      steps,
      createdAt: Date.now(),
    }));
    for (let i = 0; i < rows.length; i += 10) {
      await db()
        .insert(funnels)
        .values(rows.slice(i, i + 10))
        .run();
    }
    const res = await post({ name: 'One too many', steps: SIGNUP }, id);
    expect([res.status, errorsOf(res)]).toEqual([
      422,
      { name: ['A website has at most 100 funnels.'] },
    ]);
    expect(await stored(id)).toBe(100);
    await api(id, `/${listOf<Funnel>(await api(id, '?per_page=10')).data[0]?.id}`, {
      method: 'DELETE',
    });
    expect((await post({ name: 'One too many', steps: SIGNUP }, id)).status).toBe(201);
  });
});

describe('bad funnels', () => {
  const page = (path: unknown) => [{ page: '/pricing' }, { page: path }];
  const event = (name: unknown) => [{ page: '/a' }, { page: '/b' }, { event: name }];
  const first = (step: unknown) => [step, { page: '/b' }];
  const cases: [string, Record<string, unknown>, string][] = [
    ['no steps', { name: 'x' }, 'steps'],
    ['steps not a list', { name: 'x', steps: { page: '/a' } }, 'steps'],
    ['steps as text', { name: 'x', steps: '/a' }, 'steps'],
    ['one step', { name: 'x', steps: [{ page: '/a' }] }, 'steps'],
    ['nine steps', { name: 'x', steps: Array(9).fill({ page: '/a' }) }, 'steps'],
    ['an empty page', { name: 'x', steps: page('') }, 'steps.2.page'],
    ['a blank page', { name: 'x', steps: page('  ') }, 'steps.2.page'],
    ['a page without /', { name: 'x', steps: page('pricing') }, 'steps.2.page'],
    ['three stars', { name: 'x', steps: page('/a/***') }, 'steps.2.page'],
    ['four stars', { name: 'x', steps: page('/****/b') }, 'steps.2.page'],
    ['a space in a page', { name: 'x', steps: page('/a b') }, 'steps.2.page'],
    ['a control character', { name: 'x', steps: page('/a\u0007') }, 'steps.2.page'],
    ['a page too long', { name: 'x', steps: page(`/${'a'.repeat(255)}`) }, 'steps.2.page'],
    ['a page not text', { name: 'x', steps: page(7) }, 'steps.2.page'],
    ['an empty event', { name: 'x', steps: event('') }, 'steps.3.event'],
    ['pageview', { name: 'x', steps: event('pageview') }, 'steps.3.event'],
    ['an event too long', { name: 'x', steps: event('e'.repeat(121)) }, 'steps.3.event'],
    ['an event with a line break', { name: 'x', steps: event('a\nb') }, 'steps.3.event'],
    ['a page and an event', { name: 'x', steps: first({ page: '/a', event: 'b' }) }, 'steps.1'],
    ['an empty step', { name: 'x', steps: first({}) }, 'steps.1'],
    ['an unknown key', { name: 'x', steps: first({ path: '/a' }) }, 'steps.1'],
    ['a key too many', { name: 'x', steps: first({ page: '/a', label: 'A' }) }, 'steps.1'],
    ['a step as text', { name: 'x', steps: first('/a') }, 'steps.1'],
    ['a null step', { name: 'x', steps: first(null) }, 'steps.1'],
    ['a list as a step', { name: 'x', steps: first([{ page: '/a' }]) }, 'steps.1'],
    ['an unknown goal', { name: 'x', steps: [{ page: '/a' }, { goal: 'Nope' }] }, 'steps.2.goal'],
    ['no name', { steps: SIGNUP }, 'name'],
    ['an empty name', { name: '', steps: SIGNUP }, 'name'],
    ['a blank name', { name: '   ', steps: SIGNUP }, 'name'],
    ['a name too long', { name: 'n'.repeat(121), steps: SIGNUP }, 'name'],
    ['a name with a tab', { name: 'a\tb', steps: SIGNUP }, 'name'],
    ['a name not text', { name: 12, steps: SIGNUP }, 'name'],
  ];

  it.each(cases)('%s: a 422 naming the field, nothing stored', async (label, body, field) => {
    const before = await stored(site.id);
    // A name of its own, so that a case wrongly stored does not fail the next ones by name.
    const res = await post(body.name === 'x' ? { ...body, name: `Bad: ${label}` } : body);
    expect(res.status, res.text).toBe(422);
    expect(Object.keys(errorsOf(res))).toEqual([field]);
    expect(errorOf(res).message).toBe(errorsOf(res)[field]?.[0]);
    expect(await stored(site.id)).toBe(before);
  });

  it('names every bad field at once, with these messages', async () => {
    const res = await post({
      steps: [{ page: '/a', event: 'b' }, { page: '/a/***' }, { event: 'pageview' }],
    });
    expect(errorsOf(res)).toEqual({
      name: ['The name field is required.'],
      'steps.1': ['A step has either a page, an event or a goal.'],
      'steps.2.page': [
        'A page pattern has * (within a segment) or ** (across segments), never three stars in a row.',
      ],
      'steps.3.event': ['A page view is not a custom event: make a page step of its page.'],
    });
  });

  it("refuses a name another funnel of the website has; another website's is free", async () => {
    expect((await post({ name: 'Twice', steps: SIGNUP })).status).toBe(201);
    const again = await post({ name: 'Twice', steps: SIGNUP });
    expect(errorsOf(again)).toEqual({ name: ['Another funnel of the website has this name.'] });
    const other = await makeWebsite(owner.key);
    expect((await post({ name: 'Twice', steps: SIGNUP }, other.id)).status).toBe(201);
  });

  it("takes a goal step by one of the website's goals' display names, exactly", async () => {
    const goal = await call(`/api/v1/websites/${site.id}/goals`, {
      method: 'POST',
      key: owner.key,
      body: { json: { event: 'Signup', display_name: 'Sign-ups' } },
    });
    expect(goal.status).toBe(201);
    const steps = [{ page: '/pricing' }, { goal: 'Sign-ups' }];
    const res = await post({ name: 'To a goal', steps });
    expect(res.status, res.text).toBe(201);
    expect(dataOf(res).steps).toEqual(steps);
    for (const name of ['sign-ups', 'Signup', '']) {
      const bad = await post({ name: 'Not a goal', steps: [{ page: '/a' }, { goal: name }] });
      expect(errorsOf(bad), name).toEqual({
        'steps.2.goal': ['The website has no goal of this name.'],
      });
    }
    // A goal of another website of the same owner is not this website's.
    const other = await makeWebsite(owner.key);
    expect(errorsOf(await post({ name: 'Elsewhere', steps }, other.id))).toHaveProperty(
      'steps.2.goal',
    );
  });
});

describe("another owner's website or funnel", () => {
  let theirs: { id: number; domain: string };
  let theirFunnel: number;
  let mine: number;
  const MISSING_SITE = 987_654_321;

  beforeAll(async () => {
    const other = await makeOwner('funnels-other');
    theirs = await makeWebsite(other.key, { domain: 'funnels-theirs.example.com' });
    const made = await api(theirs.id, '', {
      method: 'POST',
      json: { name: 'Theirs', steps: SIGNUP },
      key: other.key,
    });
    theirFunnel = dataOf(made).id;
    mine = dataOf(await post({ name: 'Mine', steps: SIGNUP })).id;
  });

  const body = { name: 'Taken over', steps: SIGNUP };
  const requests: [string, string, unknown][] = [
    ['GET', '', undefined],
    ['POST', '', body],
    ['GET', '/{f}', undefined],
    ['PUT', '/{f}', body],
    ['DELETE', '/{f}', undefined],
  ];

  it.each(requests)('%s …/funnels%s: the 404 of a missing website', async (method, path, json) => {
    const send = (websiteId: number, f: number) =>
      api(websiteId, path.replace('{f}', String(f)), { method, json });
    const missing = await send(MISSING_SITE, theirFunnel);
    expect([missing.status, missing.json]).toEqual([404, NOT_FOUND]);
    for (const f of [theirFunnel, mine]) {
      const res = await send(theirs.id, f);
      expect([res.status, res.text]).toEqual([missing.status, missing.text]);
    }
  });

  it.each(requests.filter(([, path]) => path !== ''))(
    "%s …/funnels%s: another website's funnel or a bad id is a missing funnel",
    async (method, path, json) => {
      const send = (f: string) => api(site.id, path.replace('{f}', f), { method, json });
      const missing = await send('987654321');
      expect([missing.status, missing.json]).toEqual([404, NOT_FOUND]);
      for (const f of [String(theirFunnel), 'abc', '0', '01', '-1', '1.5', `${theirFunnel}x`]) {
        const res = await send(f);
        expect([res.status, res.text], f).toEqual([missing.status, missing.text]);
      }
    },
  );

  it('leaves their funnel as it was', async () => {
    const row = await env.DB.prepare('SELECT website_id, name FROM funnels WHERE id = ?')
      .bind(theirFunnel)
      .first();
    expect(row).toEqual({ website_id: theirs.id, name: 'Theirs' });
  });
});

describe("a website's deletion", () => {
  it('deletes its funnels', async () => {
    const { id } = await makeWebsite(owner.key);
    expect((await post({ name: 'Gone', steps: SIGNUP }, id)).status).toBe(201);
    expect(await stored(id)).toBe(1);
    expect(
      (await call(`/api/v1/websites/${id}`, { method: 'DELETE', key: owner.key })).status,
    ).toBe(200);
    expect(await stored(id)).toBe(0);
  });
});

describe("a website's funnels on its settings page", () => {
  it('adds a funnel from the form, lists it with a link to it, and deletes it', async () => {
    const b = await signedIn(owner);
    const { id, domain } = await makeWebsite(owner.key, { domain: 'funnels-page.example.com' });
    const settings = `/websites/${id}`;
    const empty = await b.get(`${settings}/funnels`);
    expect(empty.text).toContain('<h2 id="funnels">Funnels</h2>');
    expect(empty.text).toContain('No funnels yet.');
    const add = async (fields: Record<string, string>) =>
      b.post(`${settings}/funnels`, { _csrf: csrfFrom((await b.get(settings)).text), ...fields });

    const added = await add({
      name: 'Signup',
      steps: '/pricing\r\n\r\n  /signup/**  \r\nevent: Signup\r\n',
    });
    expect([added.status, added.location]).toEqual([303, `${settings}/funnels?funnel=added`]);
    const list = listOf<Funnel>(await api(id));
    expect(list.data.map((f) => [f.name, f.steps])).toEqual([['Signup', SIGNUP]]);
    const funnelId = list.data[0]?.id;
    const page = (await b.get(`${settings}/funnels?funnel=added`)).text;
    expect(page).toContain('Funnel added.');
    expect(page).toContain(
      '<td>Signup</td><td data-label="Steps">/pricing → /signup/** → event Signup</td>',
    );
    expect(page).toContain(`href="/stats/${domain}/funnels/${funnelId}"`);
    expect(page).toContain(`action="${settings}/funnels/${funnelId}/delete"`);

    const deleted = await b.post(`${settings}/funnels/${funnelId}/delete`, {
      _csrf: csrfFrom(page),
    });
    expect([deleted.status, deleted.location]).toEqual([303, `${settings}/funnels?funnel=deleted`]);
    expect(listOf(await api(id)).data).toEqual([]);
    expect((await b.get(`${settings}/funnels?funnel=deleted`)).text).toContain('Funnel deleted.');
  });

  it('shows the messages by the fields, with what was sent, and stores nothing', async () => {
    const b = await signedIn(owner);
    const { id } = await makeWebsite(owner.key);
    const settings = `/websites/${id}`;
    const add = async (fields: Record<string, string>) =>
      b.post(`${settings}/funnels`, { _csrf: csrfFrom((await b.get(settings)).text), ...fields });

    const bad = await add({ name: '', steps: '/pricing\npricing\n/a/***\ngoal:Nope' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The name field is required.</span>');
    expect(bad.text).toContain(
      '<p class="error">Step 2: &quot;pricing&quot; is not a step: start it with / for a page, event: for a custom event or goal: for a goal.</p>',
    );
    expect(bad.text).toContain('<p class="error">Step 3: A page pattern has');
    expect(bad.text).toContain(
      '<p class="error">Step 4: The website has no goal of this name.</p>',
    );
    expect(bad.text).toMatch(
      /<textarea[^>]*>\/pricing\npricing\n\/a\/\*\*\*\ngoal:Nope<\/textarea>/,
    );
    const short = await add({ name: 'Short', steps: '/pricing' });
    expect(short.status).toBe(422);
    expect(short.text).toContain(
      '<p class="error">The steps field must be a list of 2 to 8 steps.</p>',
    );
    expect(short.text).toContain('value="Short"');
    expect(await stored(id)).toBe(0);
  });

  it("needs the form token, and deletes no other website's funnel", async () => {
    const b = await signedIn(owner);
    const { id } = await makeWebsite(owner.key);
    const { id: otherId } = await makeWebsite(owner.key);
    const funnelId = dataOf(await post({ name: 'Kept', steps: SIGNUP }, otherId)).id;
    const token = csrfFrom((await b.get(`/websites/${id}`)).text);
    const forged = await b.post(`/websites/${otherId}/funnels/${funnelId}/delete`, {
      _csrf: '0'.repeat(32),
    });
    expect(forged.status).toBe(403);
    const elsewhere = await b.post(`/websites/${id}/funnels/${funnelId}/delete`, { _csrf: token });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain('There is no such funnel.');
    const forgedAdd = await b.post(`/websites/${id}/funnels`, {
      _csrf: '',
      name: 'Forged',
      steps: '/a\n/b',
    });
    expect(forgedAdd.status).toBe(403);
    expect([await stored(id), await stored(otherId)]).toEqual([0, 1]);
  });
});
