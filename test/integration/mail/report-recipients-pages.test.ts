/**
 * The e-mail reports' section of the "Alerts and reports" settings page
 * (src/pages/settings/reports-section.tsx): its forms add, confirm again, test and delete a
 * recipient, each back to the page with its notice, through the session and its form token.

 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { type Browser, csrfFrom, signedIn } from '../../support/browser-session.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';

/** A request of `b`'s session: a GET, or a form's POST. */
const send = (b: Browser, path: string, fields?: Record<string, string>) =>
  fields ? b.post(path, fields) : b.get(path);

let box: ReturnType<typeof mailbox>;
beforeAll(() => {
  box = mailbox();
});
afterAll(() => box.close());

describe('the reports section of the settings', () => {
  let person: Awaited<ReturnType<typeof makeOwner>>;
  let b: Browser;
  let csrf: string;
  let site: { id: number; domain: string };

  beforeAll(async () => {
    person = await makeOwner('reports-page');
    site = await makeWebsite(person.key, {
      domain: `reports-page-${crypto.randomUUID().slice(0, 6)}.example.com`,
      email: '1',
    });
    b = await signedIn(person);
    csrf = csrfFrom((await b.get('/account')).text);
  });

  it('adds a recipient with the form, sends the confirmation again, tests and deletes it', async () => {
    const empty = await send(b, `/websites/${site.id}/alerts`);
    expect(empty.status).toBe(200);
    // The owner's row, while the General page's box is on.
    expect(empty.text).toContain(person.email);
    expect(empty.text).toContain('the owner (set under General)');

    const bad = await send(b, `/websites/${site.id}/reports`, {
      _csrf: csrf,
      email: 'not an address',
      interval: 'monthly',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The email field must be a valid email address.');
    expect(bad.text).toContain('value="not an address"');
    expect(bad.text).toMatch(/<option value="monthly" selected/);

    const added = await send(b, `/websites/${site.id}/reports`, {
      _csrf: csrf,
      email: 'page@example.com',
      interval: 'monthly',
    });
    expect([added.status, added.location]).toEqual([
      303,
      `/websites/${site.id}/alerts?report=added`,
    ]);
    const listed = await call(`/api/v1/websites/${site.id}/report-recipients`, { key: person.key });
    const [recipient] = listed.json.data as { id: number; interval: string }[];
    expect(recipient?.interval).toBe('monthly');
    const waiting = await send(b, `/websites/${site.id}/alerts`);
    expect(waiting.text).toContain('waiting for the address to confirm');
    expect(waiting.text).toContain('every month');
    expect(waiting.text).not.toContain('Send a test');

    const base = `/websites/${site.id}/reports/${recipient?.id}`;
    // A test before the address confirms: the page says why.
    const early = await send(b, `${base}/test`, { _csrf: csrf });
    expect(early.status).toBe(409);
    expect(early.text).toContain('has not confirmed yet');

    const resent = await send(b, `${base}/confirmation`, { _csrf: csrf });
    expect(resent.location).toBe(`/websites/${site.id}/alerts?report=resent`);
    const mails = box.mails.filter((m) => m.to === 'page@example.com');
    expect(mails).toHaveLength(2);
    const code = mails[1]?.text.match(/\/reports\/confirm#(\d+\.[0-9a-f]{32})/)?.[1] ?? '';
    expect(
      (await call('/reports/confirm', { method: 'POST', body: { form: { code } } })).status,
    ).toBe(200);
    const ready = await send(b, `/websites/${site.id}/alerts`);
    expect(ready.text).toContain('<td data-label="Status">confirmed</td>');
    expect(ready.text).toContain('Send a test');

    const tested = await send(b, `${base}/test`, { _csrf: csrf });
    expect(tested.location).toBe(`/websites/${site.id}/alerts?report=tested`);
    const test = box.mails.filter((m) => m.to === 'page@example.com').at(-1);
    expect(test?.text).toContain(`Subject: Test: ${site.domain}`);

    const deleted = await send(b, `${base}/delete`, { _csrf: csrf });
    expect(deleted.location).toBe(`/websites/${site.id}/alerts?report=deleted`);
    expect(
      (await call(`/api/v1/websites/${site.id}/report-recipients`, { key: person.key })).json.data,
    ).toEqual([]);
  });

  it("refuses a form without its token, another owner's recipient, and a viewer", async () => {
    const noToken = await send(b, `/websites/${site.id}/reports`, { email: 'x@example.com' });
    expect(noToken.status).toBe(403);

    const stranger = await makeOwner('reports-page-other');
    const theirs = await makeWebsite(stranger.key);
    const made = await call(`/api/v1/websites/${theirs.id}/report-recipients`, {
      method: 'POST',
      key: stranger.key,
      body: { json: { email: 'theirs@example.com' } },
    });
    const foreign = (made.json.data as { id: number }).id;
    const through = await send(b, `/websites/${site.id}/reports/${foreign}/delete`, {
      _csrf: csrf,
    });
    expect(through.status).toBe(404);
    const other = await send(b, `/websites/${theirs.id}/reports`, {
      _csrf: csrf,
      email: 'mine@example.com',
    });
    expect(other.status).toBe(404);
    expect(other.text).toContain('There is no such website.');

    const viewer = await makeOwner('reports-page-viewer');
    await addMember(box, person.key, site.id, viewer, 'viewer');
    const vb = await signedIn(viewer);
    const viewerCsrf = csrfFrom((await vb.get('/account')).text);
    const refused = await send(vb, `/websites/${site.id}/reports`, {
      _csrf: viewerCsrf,
      email: 'viewer-adds@example.com',
    });
    expect(refused.status).toBe(403);
    expect((await send(vb, `/websites/${site.id}/alerts`)).status).toBe(403);
    expect(box.mails.filter((m) => m.to === 'viewer-adds@example.com')).toEqual([]);
  });
});
