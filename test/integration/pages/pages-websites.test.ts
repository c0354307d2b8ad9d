/** `/websites`: adding, editing and deleting websites through the dashboard forms. */
import { describe, expect, it } from 'vitest';
import { createOwner } from '../../../src/accounts/owners.ts';
import { TRACKER_VERSION } from '../../../src/tracker/script.generated.ts';
import { call, db, errorOf, makeOwner, makeWebsite, snapshot } from '../../support/api.ts';
import {
  attr,
  type Browser,
  CROSS_SITE_ORIGIN,
  csrfFrom,
  escapeHtml,
  labelFor,
  newBrowser,
  signedIn,
  tags,
} from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { OWNER_PASSWORD } from '../../support/owner-password.ts';

const SNIPPET = `<script async src="https://sightline.test/js/script.js?v=${TRACKER_VERSION}"></script>`;

/** An owner with a signed-in browser. */
async function ownerSession(label = 'pages') {
  const owner = await makeOwner(label);
  return { owner, b: await signedIn(owner) };
}

/** The CSRF token of a signed-in browser, read from a page as a user would. */
const tokenOf = async (b: Browser, path = '/websites') => csrfFrom((await b.get(path)).text);

const apiWebsite = async (key: string, id: number) => call(`/api/v1/websites/${id}`, { key });

/** The `<input>` tag of the form's checkbox `name` ('' when the page has none). */
const checkbox = (html: string, name: string) =>
  tags(html, 'input').find((tag) => attr(tag, 'name') === name) ?? '';

describe('signed out', () => {
  it.each([
    ['GET', '/websites'],
    ['GET', '/websites/new'],
    ['GET', '/websites/1'],
    ['GET', '/websites/1/delete'],
    ['GET', '/account'],
    ['POST', '/websites'],
    ['POST', '/websites/1'],
    ['POST', '/websites/1/delete'],
    ['POST', '/account/api-key'],
    ['POST', '/account/password'],
  ])('%s %s redirects to /login', async (method, path) => {
    const before = await snapshot('websites');
    const b = newBrowser();
    const res =
      method === 'GET'
        ? await b.get(path)
        : await b.post(path, { domain: 'signed-out.example.com', _csrf: '' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login');
    expect(await snapshot('websites')).toEqual(before);
  });
});

describe('adding a website', () => {
  it('creates it from the form: 303 to its page, which shows the snippet', async () => {
    const { owner, b } = await ownerSession();
    const form = await b.get('/websites/new');
    expect(form.status).toBe(200);
    // The browser's time zone fills the field, and the password shows for a password-protected
    // page only (both by the page's script: test/e2e/page-script.test.ts).
    expect(labelFor(form.text, 'timezone')).toContain('data-browser-zone="1"');
    expect(form.text).toContain('<label for="password" data-shown-if="privacy=2">');
    const res = await b.post('/websites', {
      _csrf: csrfFrom(form.text),
      domain: 'https://www.Form-Made.example.com/blog',
      privacy: '2',
      password: 'stats password',
      timezone: 'Europe/Berlin',
      exclude_ips: '# office\n203.0.113.7\r\n2001:db8::/32',
      exclude_params: 'utm_source\nfbclid',
      email: '1',
      exclude_bots: '1',
      exclude_datacenters: '1',
    });
    expect(res.status).toBe(303);
    const id = Number(res.location?.match(/^\/websites\/(\d+)\?created=1$/)?.[1]);
    expect(id).toBeGreaterThan(0);

    const page = await b.get(res.location as string);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Website added.');
    expect(page.text).toContain(`<pre id="snippet">${escapeHtml(SNIPPET)}</pre>`);
    expect(page.text).not.toContain(SNIPPET);
    // Nothing received yet: the page says it waits, and the script asks until it has.
    expect(page.text).toContain(`data-received="/websites/${id}/received.json"`);
    expect((await b.get(`/websites/${id}/received.json`)).text).toBe('{"received":false}');
    const hit = await sendHit({ page: 'https://form-made.example.com/' });
    expect(hit.status).toBe(202);
    expect((await b.get(`/websites/${id}/received.json`)).text).toBe('{"received":true}');
    expect((await b.get(`/websites/${id}`)).text).toContain('Receiving page views.');

    const api = await apiWebsite(owner.key, id);
    expect(api.status).toBe(200);
    expect(api.json.data).toMatchObject({
      id,
      domain: 'form-made.example.com',
      privacy: 2,
      password: true,
      email: 1,
      exclude_bots: 1,
      exclude_datacenters: 1,
      exclude_ips: '# office\n203.0.113.7\n2001:db8::/32',
      exclude_params: 'utm_source\nfbclid',
      timezone: 'Europe/Berlin',
    });

    // The form shows the stored values, and the list names the website.
    expect(labelFor(page.text, 'timezone')).toContain('value="Europe/Berlin"');
    expect(labelFor(page.text, 'privacy')).toContain('<option value="2" selected="">');
    expect(page.text).toContain(escapeHtml('# office\n203.0.113.7\n2001:db8::/32'));
    const list = await b.get('/websites');
    expect(list.text).toContain('<a href="/stats/form-made.example.com">form-made.example.com</a>');
    expect(list.text).toContain(`href="/websites/${id}"`);
  });

  it('unchecked boxes are 0 and an empty form gets the defaults', async () => {
    const { owner, b } = await ownerSession();
    const res = await b.post('/websites', {
      _csrf: await tokenOf(b, '/websites/new'),
      domain: 'defaults-form.example.com',
      privacy: '1',
      password: '',
      timezone: 'UTC',
      exclude_ips: '',
      exclude_params: '',
    });
    expect(res.status).toBe(303);
    const id = Number(res.location?.match(/\/websites\/(\d+)/)?.[1]);
    expect((await apiWebsite(owner.key, id)).json.data).toMatchObject({
      privacy: 1,
      password: false,
      email: 0,
      exclude_bots: 0,
      exclude_datacenters: 0,
      timezone: 'UTC',
    });
  });

  it('answers invalid input with 422, the API messages next to the fields, nothing written', async () => {
    const { owner, b } = await ownerSession();
    const bad = {
      domain: 'exa mple.com',
      privacy: '1',
      timezone: 'Mars/Base',
      exclude_ips: '10.0.0.1\n1.2.3.4/33',
      exclude_params: 'ok',
    };
    const api = await call('/api/v1/websites', {
      method: 'POST',
      key: owner.key,
      body: { form: bad },
    });
    expect(api.status).toBe(422);
    const messages = errorOf(api).errors as Record<string, string[]>;
    expect(Object.keys(messages).sort()).toEqual(['domain', 'exclude_ips', 'timezone']);

    const before = await snapshot('websites');
    const res = await b.post('/websites', { _csrf: await tokenOf(b, '/websites/new'), ...bad });
    expect(res.status).toBe(422);
    for (const [field, [message]] of Object.entries(messages)) {
      expect(labelFor(res.text, field), field).toContain(escapeHtml(message as string));
    }
    expect(labelFor(res.text, 'exclude_params')).not.toContain('class="error"');
    // What was typed is kept.
    expect(labelFor(res.text, 'domain')).toContain('value="exa mple.com"');
    expect(labelFor(res.text, 'timezone')).toContain('value="Mars/Base"');
    expect(res.text).toContain('10.0.0.1\n1.2.3.4/33</textarea>');
    expect(await snapshot('websites')).toEqual(before);
  });

  it('refuses a domain that is already taken', async () => {
    const { owner, b } = await ownerSession();
    const other = await makeOwner('taken');
    const site = await makeWebsite(other.key);
    const before = await snapshot('websites');
    const res = await b.post('/websites', {
      _csrf: await tokenOf(b, '/websites/new'),
      domain: site.domain,
      timezone: 'UTC',
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'domain')).toContain('The domain has already been taken.');
    expect(await snapshot('websites')).toEqual(before);
    expect((await call('/api/v1/websites', { key: owner.key })).json.data).toEqual([]);
  });

  it('refuses a form over 64 KB with 413 and writes nothing', async () => {
    const { b } = await ownerSession();
    const before = await snapshot('websites');
    const res = await b.post('/websites', {
      _csrf: await tokenOf(b, '/websites/new'),
      domain: 'huge-form.example.com',
      exclude_params: 'p\n'.repeat(40_000),
    });
    expect(res.status).toBe(413);
    expect(await snapshot('websites')).toEqual(before);
  });
});

describe('editing a website', () => {
  it('changes the time zone; the domain field is read-only', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key, { timezone: 'UTC', email: '1' });
    const page = await b.get(`/websites/${site.id}`);
    expect(page.status).toBe(200);
    const domainInput = tags(labelFor(page.text, 'domain') ?? '', 'input')[0] ?? '';
    expect(attr(domainInput, 'readonly')).toBeDefined();
    expect(attr(domainInput, 'value')).toBe(site.domain);
    // The time zone is chosen from the runtime's list of zones (typing filters it).
    const zoneInput = tags(labelFor(page.text, 'timezone') ?? '', 'input')[0] ?? '';
    expect(attr(zoneInput, 'list')).toBe('timezones');
    const zones = [
      ...(page.text.match(/<datalist id="timezones">([\s\S]*?)<\/datalist>/)?.[1] ?? '').matchAll(
        /<option value="([^"]+)"/g,
      ),
    ].map((m) => m[1]);
    expect(zones[0]).toBe('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(zones).toContain('America/New_York');
    expect(zones.length).toBeGreaterThan(300);

    const res = await b.post(`/websites/${site.id}`, {
      _csrf: csrfFrom(page.text),
      domain: site.domain,
      privacy: '1',
      password: '',
      timezone: 'America/New_York',
      exclude_ips: '',
      exclude_params: '',
      email: '1',
      exclude_bots: '1',
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/websites/${site.id}?saved=1`);
    expect((await b.get(res.location as string)).text).toContain('Saved.');
    expect((await apiWebsite(owner.key, site.id)).json.data).toMatchObject({
      domain: site.domain,
      timezone: 'America/New_York',
      email: 1,
      exclude_bots: 1,
    });
  });

  it('refuses a different domain with 422 and the API message, changing nothing', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key);
    const before = await snapshot('websites');
    const res = await b.post(`/websites/${site.id}`, {
      _csrf: await tokenOf(b, `/websites/${site.id}`),
      domain: 'somewhere-else.example.com',
      privacy: '1',
      timezone: 'Asia/Tokyo',
      exclude_bots: '1',
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'domain')).toContain(
      'The domain of an existing website cannot be changed.',
    );
    expect(await snapshot('websites')).toEqual(before);
  });

  it('shows validation messages next to the fields and changes nothing', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key);
    const before = await snapshot('websites');
    const res = await b.post(`/websites/${site.id}`, {
      _csrf: await tokenOf(b, `/websites/${site.id}`),
      domain: site.domain,
      privacy: '2',
      password: '',
      timezone: 'Mars/Base',
    });
    expect(res.status).toBe(422);
    expect(labelFor(res.text, 'password')).toContain(
      'The password field is required when privacy is 2.',
    );
    expect(labelFor(res.text, 'timezone')).toContain('valid IANA time zone');
    expect(await snapshot('websites')).toEqual(before);
  });

  it('unchecking a box sets 0; an empty password keeps the stored one', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key, {
      email: '1',
      exclude_bots: '1',
      privacy: '2',
      password: 'keep me please',
    });
    const page = await b.get(`/websites/${site.id}`);
    expect(page.text).toContain('A password is set; leave empty to keep it.');
    // The data-centre rule is on by default, and its box ticked.
    expect(attr(checkbox(page.text, 'exclude_datacenters'), 'checked')).toBe('');
    const res = await b.post(`/websites/${site.id}`, {
      _csrf: csrfFrom(page.text),
      domain: site.domain,
      privacy: '2',
      password: '',
      timezone: 'UTC',
      exclude_ips: '',
      exclude_params: '',
    });
    expect(res.status).toBe(303);
    expect((await apiWebsite(owner.key, site.id)).json.data).toMatchObject({
      email: 0,
      exclude_bots: 0,
      exclude_datacenters: 0,
      privacy: 2,
      password: true,
    });
    const saved = await b.get(`/websites/${site.id}`);
    expect(checkbox(saved.text, 'exclude_datacenters')).toContain('type="checkbox"');
    expect(attr(checkbox(saved.text, 'exclude_datacenters'), 'checked')).toBeUndefined();
  });
});

describe("a website's goals on its settings page", () => {
  it('adds event and page goals, shows them, refuses a bad one with its message, deletes one', async () => {
    const { owner, b } = await ownerSession('pages-goals');
    const site = await makeWebsite(owner.key);
    const add = async (fields: Record<string, string>) =>
      b.post(`/websites/${site.id}/goals`, {
        _csrf: await tokenOf(b, `/websites/${site.id}`),
        ...fields,
      });
    const added = await add({ kind: 'event', event: 'Signup', currency: 'eur' });
    expect([added.status, added.location]).toEqual([303, `/websites/${site.id}/goals?goal=added`]);
    expect(
      (await add({ kind: 'page', page: '/blog/**', display_name: 'Blog readers' })).status,
    ).toBe(303);
    const page = (await b.get(`/websites/${site.id}/goals?goal=added`)).text;
    expect(page).toContain('Goal added.');
    expect(page).toContain(
      '<td>Signup</td><td data-label="Counts">Event Signup</td><td data-label="Currency">EUR</td>',
    );
    expect(page).toContain('<td>Blog readers</td><td data-label="Counts">Page /blog/**</td>');
    const bad = await add({ kind: 'page', page: 'blog', currency: 'EUR' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The page field must be a path starting with /');
    const goals = (await call(`/api/v1/websites/${site.id}/goals`, { key: owner.key })).json as {
      data: { id: number; display_name: string }[];
    };
    expect(goals.data.map((g) => g.display_name)).toEqual(['Signup', 'Blog readers']);
    const first = goals.data[0]?.id;
    const deleted = await b.post(`/websites/${site.id}/goals/${first}/delete`, {
      _csrf: await tokenOf(b, `/websites/${site.id}`),
    });
    expect(deleted.status).toBe(303);
    const after = (await call(`/api/v1/websites/${site.id}/goals`, { key: owner.key })).json as {
      data: unknown[];
    };
    expect(after.data).toHaveLength(1);
  });
});

describe('statistics page passwords on the form', () => {
  it('refuses a new password under 8 characters, next to the field, and writes nothing', async () => {
    const { b } = await ownerSession();
    const form = await b.get('/websites/new');
    const before = await snapshot('websites');
    const res = await b.post('/websites', {
      _csrf: csrfFrom(form.text),
      domain: 'short-form-pw.example.com',
      privacy: '2',
      password: 'short',
      timezone: 'UTC',
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain('The password field must be at least 8 characters.');
    expect(await snapshot('websites')).toEqual(before);
  });
});

describe('deleting a website', () => {
  it('asks first, then deletes: 303 to /websites?deleted=1, gone from the API', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key);
    const confirm = await b.get(`/websites/${site.id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`action="/websites/${site.id}/delete"`);
    expect((await apiWebsite(owner.key, site.id)).status).toBe(200);

    const res = await b.post(`/websites/${site.id}/delete`, { _csrf: csrfFrom(confirm.text) });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/websites?deleted=1');
    expect((await apiWebsite(owner.key, site.id)).status).toBe(404);
    const list = await b.get(res.location as string);
    expect(list.text).toContain('The website was deleted, with everything recorded for it.');
    expect(list.text).not.toContain(`<td>${site.domain}</td>`);
    expect((await b.get(`/websites/${site.id}`)).status).toBe(404);
  });
});

describe('forged form posts', () => {
  type Attempt = [string, (id: number) => string, Record<string, string>];
  const posts: Attempt[] = [
    ['create', () => '/websites', { domain: 'forged.example.com', timezone: 'UTC' }],
    ['edit', (id) => `/websites/${id}`, { privacy: '0', timezone: 'Asia/Tokyo', email: '1' }],
    ['delete', (id) => `/websites/${id}/delete`, {}],
  ];

  it.each(posts)(
    '%s without, with an empty or with a wrong _csrf is 403 and changes nothing',
    async (_, path, fields) => {
      const { owner, b } = await ownerSession();
      const site = await makeWebsite(owner.key);
      const stranger = await ownerSession('stranger');
      const strangersToken = await tokenOf(stranger.b);
      const ownToken = await tokenOf(b);
      const before = await snapshot('websites');
      for (const token of [undefined, '', 'x'.repeat(32), strangersToken, `${ownToken}0`]) {
        const body = token === undefined ? { ...fields } : { ...fields, _csrf: token };
        const res = await b.post(path(site.id), { domain: site.domain, ...body });
        expect(res.status, String(token)).toBe(403);
      }
      expect(await snapshot('websites')).toEqual(before);
    },
  );

  it.each(posts)(
    '%s from another site (Origin) is 403 and changes nothing',
    async (_, path, fields) => {
      const { owner, b } = await ownerSession();
      const site = await makeWebsite(owner.key);
      const token = await tokenOf(b);
      const before = await snapshot('websites');
      for (const origin of [CROSS_SITE_ORIGIN, 'null', 'http://sightline.test', null]) {
        const res = await b.post(
          path(site.id),
          { domain: site.domain, ...fields, _csrf: token },
          { origin, headers: { 'sec-fetch-site': 'cross-site' } },
        );
        expect(res.status, String(origin)).toBe(403);
      }
      expect(await snapshot('websites')).toEqual(before);
    },
  );
});

describe("another owner's website", () => {
  it('is 404 for GET/POST edit and GET/POST delete, and stays unchanged', async () => {
    const { b } = await ownerSession('intruder');
    const victim = await makeOwner('victim');
    const site = await makeWebsite(victim.key, { timezone: 'UTC' });
    const token = await tokenOf(b);
    const before = await snapshot('websites');

    const edit = await b.get(`/websites/${site.id}`);
    expect(edit.status).toBe(404);
    expect((await b.get(`/websites/${site.id}/received.json`)).status).toBe(404);
    expect(edit.text).toContain('There is no such website.');
    expect(edit.text).not.toContain(site.domain);
    const save = await b.post(`/websites/${site.id}`, {
      _csrf: token,
      domain: site.domain,
      timezone: 'Asia/Tokyo',
      privacy: '0',
    });
    expect(save.status).toBe(404);
    const confirm = await b.get(`/websites/${site.id}/delete`);
    expect(confirm.status).toBe(404);
    expect(confirm.text).not.toContain(site.domain);
    const del = await b.post(`/websites/${site.id}/delete`, { _csrf: token });
    expect(del.status).toBe(404);

    expect(await snapshot('websites')).toEqual(before);
    expect((await apiWebsite(victim.key, site.id)).json.data).toMatchObject({
      timezone: 'UTC',
      privacy: 1,
    });
    // Its own list does not show it either.
    expect((await b.get('/websites')).text).not.toContain(site.domain);
  });

  it('unknown and malformed ids are 404 too', async () => {
    const { b } = await ownerSession();
    for (const id of ['999999', '0', '-1', '1e3', 'abc', '01', '99999999999999999999']) {
      expect((await b.get(`/websites/${id}`)).status, id).toBe(404);
      expect((await b.get(`/websites/${id}/delete`)).status, id).toBe(404);
    }
  });
});

describe('hostile data is escaped', () => {
  it("an e-mail with ' and & is shown escaped", async () => {
    const email = `o'brien&co-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const owner = await createOwner(db(), { email, password: OWNER_PASSWORD });
    const b = await signedIn(owner);
    const account = await b.get('/account');
    expect(account.status).toBe(200);
    expect(account.text).toContain(`Signed in as ${escapeHtml(email)}.`);
    expect(account.text).not.toContain(email);

    // Wrong password: the e-mail goes back into the value attribute, escaped.
    const failed = await newBrowser().post('/login', { email, password: 'wrong password' });
    expect(failed.status).toBe(422);
    expect(failed.text).toContain(`value="${escapeHtml(email)}"`);
    const quoted = `x"><script>alert(1)</script>@example.com`;
    const injected = await newBrowser().post('/login', { email: quoted, password: 'wrong' });
    expect(injected.text).not.toContain('<script>alert(1)');
    expect(injected.text).toContain(`value="${escapeHtml(quoted)}"`);
  });

  it('website fields with markup are shown as text', async () => {
    const { owner, b } = await ownerSession();
    const site = await makeWebsite(owner.key, {
      exclude_params: '<script>alert(1)</script>',
      exclude_ips: '# </textarea><script>alert(2)</script>\n203.0.113.1',
    });
    const page = await b.get(`/websites/${site.id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script>alert/);
    expect(page.text).not.toContain('</textarea><script>');
    expect(page.text).toContain(escapeHtml('<script>alert(1)</script>'));
    expect(page.text).toContain(escapeHtml('# </textarea><script>alert(2)</script>'));

    // Error messages that quote the input are escaped as well.
    const res = await b.post(`/websites/${site.id}`, {
      _csrf: csrfFrom(page.text),
      domain: site.domain,
      exclude_ips: '<img src=x onerror=alert(3)>',
    });
    expect(res.status).toBe(422);
    expect(res.text).not.toContain('<img src=x');
    expect(labelFor(res.text, 'exclude_ips')).toContain(escapeHtml('<img src=x onerror=alert(3)>'));
  });

  it('the ?deleted= notice shows no text from the URL', async () => {
    const { b } = await ownerSession();
    for (const text of ['<script>alert(4)</script>', 'Your account is suspended. Call +1 555']) {
      const res = await b.get(`/websites?deleted=${encodeURIComponent(text)}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('alert(4)');
      expect(res.text).not.toContain('suspended');
      expect(res.text).not.toContain('role="status"');
    }
  });
});

describe("a website's settings page as one moves around it", () => {
  it('is an area of short pages with one navigation; a link made shows at the top; the statistics are one click away', async () => {
    const { owner, b } = await ownerSession('pages-sections');
    const site = await makeWebsite(owner.key, { domain: 'sections.example.com' });
    const page = await b.get(`/websites/${site.id}`);
    const navOf = (html: string) =>
      html.match(/<nav class="settings-nav"[^>]*>([\s\S]*?)<\/nav>/)?.[1] ?? '';
    const targets = [...navOf(page.text).matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? '');
    const base = `/websites/${site.id}`;
    expect(targets).toEqual(
      ['', '/goals', '/funnels', '/segments', '/alerts', '/sharing', '/members', '/imports']
        .concat(['/filtered', '/storage', '/danger'])
        .map((path) => `${base}${path}`),
    );
    const headings: Record<string, string> = {
      [base]: 'id="snippet-title"',
      [`${base}/goals`]: '<h2 id="goals">',
      [`${base}/funnels`]: '<h2 id="funnels">',
      [`${base}/alerts`]: '<h2 id="alerts">',
      [`${base}/sharing`]: '<h2 id="sharing">',
      [`${base}/members`]: '<h2 id="members">',
      [`${base}/imports`]: '<h2 id="imports">',
      [`${base}/filtered`]: '<h2 id="filtered">',
      [`${base}/storage`]: '<h2 id="storage">',
      [`${base}/danger`]: '<h2 id="danger">',
    };
    for (const target of targets) {
      const shown = await b.get(target);
      expect(shown.status, target).toBe(200);
      expect(navOf(shown.text), target).toContain(`href="${target}" aria-current="page"`);
      if (headings[target]) expect(shown.text, target).toContain(headings[target]);
      // Each page holds its own subject only.
      const others = Object.entries(headings).filter(([path]) => path !== target);
      for (const [, heading] of others) expect(shown.text, target).not.toContain(heading);
    }
    expect(page.text).toContain(`href="/stats/sections.example.com"`);
    expect((await b.get(`${base}/danger`)).text).toContain(`href="${base}/delete"`);
    const made = await b.post(`${base}/shared-links`, {
      _csrf: csrfFrom(page.text),
      name: 'Board',
    });
    expect(made.status).toBe(200);
    const url = made.text.indexOf('id="shared-link-url"');
    expect(url).toBeGreaterThan(0);
    expect(url).toBeLessThan(made.text.indexOf('class="settings-nav"'));
    expect(navOf(made.text)).toContain(`href="${base}/sharing" aria-current="page"`);
  });
});

describe("one click between a website's statistics and settings, and between websites", () => {
  it('links the statistics to the settings for the owner, lists the other websites, and shows nothing of it to others', async () => {
    const { owner, b } = await ownerSession('pages-switch');
    const one = await makeWebsite(owner.key, { domain: 'switch-one.example.com', privacy: '0' });
    const two = await makeWebsite(owner.key, { domain: 'switch-two.example.com' });
    const stats = (await b.get('/stats/switch-one.example.com')).text;
    const links = stats.match(/<nav class="website-links"[^>]*>([\s\S]*?)<\/nav>/)?.[1] ?? '';
    expect(links).toContain(`href="/websites/${one.id}"`);
    expect(links).toContain('href="/stats/switch-two.example.com?range=30d"');
    expect(links).not.toContain('href="/stats/switch-one.example.com"');
    expect(stats).toContain(`href="/websites/${one.id}/funnels"`);
    const settings = (await b.get(`/websites/${one.id}`)).text;
    expect(settings).toContain(`href="/websites/${two.id}"`);
    // A stranger reading the public page: no settings, no other website.
    const anonymous = (await newBrowser().get('/stats/switch-one.example.com')).text;
    expect(anonymous).not.toContain('class="website-links"');
    expect(anonymous).not.toContain('switch-two');
  });
});
