/**
 * The recipients of a website's e-mail reports (src/reports/recipients.ts): added through the
 * API, confirmed by their address's link, sent the report of each complete period of their
 * interval exactly once (also when two cron runs fire at once), sent a test on request, and
 * stopped by their own link, while the owner's reports and link go on as they were.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { addMember, mailbox } from '../../support/mailbox.ts';
import { headerOf } from '../../support/mime.ts';

const HOUR = 3_600_000;
/** Monday 2026-12-07, 10:00 UTC: the week of 2026-11-30 and the month of November are over. */
const MONDAY = Date.parse('2026-12-07T10:00:00Z');

let owner: Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;

beforeAll(async () => {
  owner = await makeOwner('recipients');
});
afterEach(() => box?.close());

const site = (label: string, fields: Record<string, string> = {}) =>
  makeWebsite(owner.key, {
    domain: `${label}-${crypto.randomUUID().slice(0, 6)}.example.com`,
    ...fields,
  });

const recipientsOf = (siteId: number) => `/api/v1/websites/${siteId}/report-recipients`;

function addRecipient(siteId: number, json: Record<string, unknown>, key = owner.key) {
  return call(recipientsOf(siteId), { method: 'POST', key, body: { json } });
}

/** The confirmation link's code (after `#`) in the newest e-mail to `to`. */
function codeTo(to: string): string {
  const codes = box.mails
    .filter((m) => m.to === to)
    .map((m) => m.text.match(/\/reports\/confirm#(\d+\.[0-9a-f]{32})/)?.[1]);
  const code = codes.filter(Boolean).at(-1);
  if (!code) throw new Error(`no confirmation to ${to}`);
  return code;
}

const confirm = (code: string) =>
  call('/reports/confirm', { method: 'POST', body: { form: { code } } });

/** A confirmed recipient of `siteId`; its id. */
async function confirmed(siteId: number, json: Record<string, unknown>): Promise<number> {
  const res = await addRecipient(siteId, json);
  expect(res.status, res.text).toBe(201);
  expect((await confirm(codeTo(String(json.email)))).status).toBe(200);
  return Number(oneOf(res).data.id);
}

/** The reports (not confirmations) e-mailed to `to`, of `domain`. */
const reportsTo = (to: string, domain: string) =>
  box.mails.filter(
    (m) => m.to === to && !m.text.includes('/reports/confirm#') && m.text.includes(domain),
  );

const subjectOf = (text: string) => headerOf(text, 'Subject');

/** The claims of a website's reports, by key. */
async function claimsOf(siteId: number): Promise<string[]> {
  const { results } = await env.DB.prepare(
    'SELECT period FROM report_sends WHERE website_id = ? ORDER BY period',
  )
    .bind(siteId)
    .all<{ period: string }>();
  return results.map((r) => r.period);
}

describe('recipients through the API', () => {
  it('adds one, e-mails its address a link, and sends it nothing before it confirms', async () => {
    box = mailbox();
    const s = await site('rcpt-api');
    const res = await addRecipient(s.id, { email: 'Team@Example.com.' });
    expect(res.status).toBe(201);
    const made = oneOf(res).data;
    // The address normalised; the server's interval (wrangler.toml: weekly) unless chosen.
    expect(made).toMatchObject({
      email: 'team@example.com',
      interval: 'weekly',
      confirmed_at: null,
    });
    const mail = box.mails.at(-1);
    expect(mail?.to).toBe('team@example.com');
    expect(mail?.text).toContain(`Subject: Confirm e-mail reports for ${s.domain}`);
    expect(mail?.text).toContain(
      `${owner.email} asks Sightline to e-mail this address ${s.domain}'s report of each week (Monday to Sunday)`,
    );
    expect(mail?.text).toMatch(/http:\/\/localhost:8787\/reports\/confirm#\d+\.[0-9a-f]{32}/);
    const listed = await call(recipientsOf(s.id), { key: owner.key });
    expect((listed.json as { data: unknown[] }).data).toEqual([made]);

    await runCron(MONDAY);
    expect(reportsTo('team@example.com', s.domain)).toHaveLength(0);
    expect(await claimsOf(s.id)).toEqual([]);

    const code = codeTo('team@example.com');
    expect((await confirm(code.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).status).toBe(404);
    const page = await confirm(code);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `team@example.com will get ${s.domain}&#39;s report of each week (Monday to Sunday)`,
    );
    const again = await call(`${recipientsOf(s.id)}/${made.id}/confirmation`, {
      method: 'POST',
      key: owner.key,
    });
    expect(again.status).toBe(409);

    await runCron(MONDAY + HOUR);
    const [report, ...more] = reportsTo('team@example.com', s.domain);
    expect(more).toEqual([]);
    expect(subjectOf(report?.text ?? '')).toBe(
      `${s.domain}: 0 visitors, 0 page views (week of 2026-11-30)`,
    );
    expect(report?.text).toContain(
      `You get this because team@example.com was added to the weekly reports of ${s.domain} and confirmed it.`,
    );
    // Its own links: one-click in the header, the page's with the secret after `#`.
    expect(headerOf(report?.text ?? '', 'List-Unsubscribe')).toMatch(
      new RegExp(`^<http://localhost:8787/reports/unsubscribe/r${made.id}/[0-9a-f]{32}>$`),
    );
    expect(report?.text).toMatch(
      new RegExp(`http://localhost:8787/reports/unsubscribe#r${made.id}\\.[0-9a-f]{32}`),
    );
    expect(await claimsOf(s.id)).toEqual([`weekly:2026-11-30:r${made.id}`]);
  });

  it('names every bad field, refuses an address twice, deletes', async () => {
    box = mailbox();
    const s = await site('rcpt-bad');
    const bad = await addRecipient(s.id, { email: 'not an address', interval: 'daily' });
    expect(bad.status).toBe(422);
    expect(Object.keys(errorOf(bad).errors).sort()).toEqual(['email', 'interval']);
    expect(box.mails).toHaveLength(0);
    const monthly = await addRecipient(s.id, { email: 'm@example.com', interval: 'monthly' });
    expect(oneOf(monthly).data.interval).toBe('monthly');
    const twice = await addRecipient(s.id, { email: 'M@example.com', interval: 'weekly' });
    expect(twice.status).toBe(422);
    expect(errorOf(twice).errors).toEqual({
      email: ["This address gets this website's reports already: delete it to change it."],
    });
    const id = oneOf(monthly).data.id;
    const gone = await call(`${recipientsOf(s.id)}/${id}`, { method: 'DELETE', key: owner.key });
    expect(gone.json).toEqual({ id, object: 'report_recipient', deleted: true, status: 200 });
    const twiceGone = await call(`${recipientsOf(s.id)}/${id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(twiceGone.status).toBe(404);
    expect((await call(recipientsOf(s.id), { key: owner.key })).json.data).toEqual([]);
  });

  it('keeps nothing when the e-mail cannot go out; one address gets three confirmations a day, alerts and reports together', async () => {
    const s = await site('rcpt-limit');
    box = mailbox();
    box.fail(true);
    expect((await addRecipient(s.id, { email: 'nomail@example.com' })).status).toBe(503);
    box.fail(false);
    expect((await call(recipientsOf(s.id), { key: owner.key })).json.data).toEqual([]);

    const alert = await call(`/api/v1/websites/${s.id}/alerts`, {
      method: 'POST',
      key: owner.key,
      body: { json: { kind: 'drop', email: 'limited@example.com' } },
    });
    expect(alert.status).toBe(201);
    const first = await addRecipient(s.id, { email: 'limited@example.com' });
    expect(first.status).toBe(201);
    const resend = () =>
      call(`${recipientsOf(s.id)}/${oneOf(first).data.id}/confirmation`, {
        method: 'POST',
        key: owner.key,
      });
    expect((await resend()).status).toBe(202);
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(errorOf(refused).message).toContain('three confirmations in the last day');
    const other = await site('rcpt-limit-2');
    expect((await addRecipient(other.id, { email: 'Limited@example.com.' })).status).toBe(429);
    expect(box.mails.filter((m) => m.to === 'limited@example.com')).toHaveLength(3);
  });

  it("another owner's website is the 404 of a missing one; a viewer is refused", async () => {
    box = mailbox();
    const s = await site('rcpt-roles');
    const id = await confirmed(s.id, { email: 'roles@example.com' });
    const stranger = await makeOwner('rcpt-stranger');
    const missing = await call(recipientsOf(987_654_321), { key: stranger.key });
    expect(missing.status).toBe(404);
    for (const [method, path] of [
      ['GET', recipientsOf(s.id)],
      ['POST', recipientsOf(s.id)],
      ['DELETE', `${recipientsOf(s.id)}/${id}`],
      ['POST', `${recipientsOf(s.id)}/${id}/test`],
    ] as const) {
      const res = await call(path, {
        method,
        key: stranger.key,
        body: method === 'POST' ? { json: { email: 'x@example.com' } } : undefined,
      });
      expect([res.status, res.text], `${method} ${path}`).toEqual([404, missing.text]);
    }
    // The recipient of one website through another of the same owner: no such recipient.
    const other = await site('rcpt-roles-2');
    const through = await call(`${recipientsOf(other.id)}/${id}/test`, {
      method: 'POST',
      key: owner.key,
    });
    expect(through.status).toBe(404);

    const viewer = await makeOwner('rcpt-viewer');
    await addMember(box, owner.key, s.id, viewer, 'viewer');
    for (const [method, path] of [
      ['GET', recipientsOf(s.id)],
      ['POST', recipientsOf(s.id)],
      ['DELETE', `${recipientsOf(s.id)}/${id}`],
      ['POST', `${recipientsOf(s.id)}/${id}/test`],
    ] as const) {
      const res = await call(path, {
        method,
        key: viewer.key,
        body: method === 'POST' ? { json: { email: 'v@example.com' } } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(reportsTo('roles@example.com', s.domain)).toHaveLength(0);
  });
});

describe('reports to recipients from the cron', () => {
  it('sends weekly and monthly recipients the report of their own period', async () => {
    box = mailbox();
    const s = await site('rcpt-periods');
    const weekly = await confirmed(s.id, { email: 'weekly@example.com' });
    const monthly = await confirmed(s.id, { email: 'monthly@example.com', interval: 'monthly' });
    await runCron(MONDAY);
    expect(reportsTo('weekly@example.com', s.domain).map((m) => subjectOf(m.text))).toEqual([
      `${s.domain}: 0 visitors, 0 page views (week of 2026-11-30)`,
    ]);
    expect(reportsTo('monthly@example.com', s.domain).map((m) => subjectOf(m.text))).toEqual([
      `${s.domain}: 0 visitors, 0 page views (2026-11)`,
    ]);
    // A week later: the next week's report; November's is not sent again.
    await runCron(MONDAY + 7 * 24 * HOUR);
    expect(reportsTo('weekly@example.com', s.domain)).toHaveLength(2);
    expect(reportsTo('monthly@example.com', s.domain)).toHaveLength(1);
    expect(await claimsOf(s.id)).toEqual(
      [
        `monthly:2026-11-01:r${monthly}`,
        `weekly:2026-11-30:r${weekly}`,
        `weekly:2026-12-07:r${weekly}`,
      ].sort(),
    );
  });

  it('sends one e-mail per confirmed recipient and period when the cron fires twice at once', async () => {
    box = mailbox();
    const s = await site('rcpt-race', { email: '1' });
    const emails = ['race-a@example.com', 'race-b@example.com', 'race-m@example.com'];
    await confirmed(s.id, { email: emails[0] });
    await confirmed(s.id, { email: emails[1] });
    await confirmed(s.id, { email: emails[2], interval: 'monthly' });
    expect((await addRecipient(s.id, { email: 'race-waiting@example.com' })).status).toBe(201);
    const at = MONDAY + 14 * 24 * HOUR;
    await Promise.all([runCron(at), runCron(at)]);
    // A retried run later in the hour sends nothing either.
    await runCron(at + 60_000);
    for (const to of [owner.email, ...emails]) expect(reportsTo(to, s.domain), to).toHaveLength(1);
    expect(reportsTo('race-waiting@example.com', s.domain)).toHaveLength(0);
    const claims = await claimsOf(s.id);
    // The owner's key is the period's alone, as it always was.
    expect(claims).toContain('weekly:2026-12-14');
    expect(claims).toHaveLength(4);
  });
});

describe('a test report', () => {
  it('sends the last complete period now, to a confirmed address, and the period is still sent', async () => {
    box = mailbox();
    const s = await site('rcpt-test');
    const waiting = oneOf(await addRecipient(s.id, { email: 'later@example.com' })).data.id;
    const test = (id: unknown) =>
      call(`${recipientsOf(s.id)}/${id}/test`, { method: 'POST', key: owner.key });
    const notYet = await test(waiting);
    expect(notYet.status).toBe(409);
    expect(errorOf(notYet).message).toContain('has not confirmed yet');

    const id = await confirmed(s.id, { email: 'tester@example.com', interval: 'monthly' });
    const res = await test(id);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ sent: true, status: 202 });
    const [mail, ...more] = reportsTo('tester@example.com', s.domain);
    expect(more).toEqual([]);
    expect(subjectOf(mail?.text ?? '')).toMatch(new RegExp(`^Test: ${s.domain}: 0 visitors`));
    expect(mail?.text).toContain('This is a test, sent on request');
    expect(mail?.text).toContain(`from=${res.json.from}&to=${res.json.to}`);
    expect(headerOf(mail?.text ?? '', 'List-Unsubscribe')).toMatch(
      /\/reports\/unsubscribe\/r\d+\//,
    );
    // Not the period's report: no claim, and the cron sends the period's own.
    expect(await claimsOf(s.id)).toEqual([]);
    await runCron(MONDAY);
    const sent = reportsTo('tester@example.com', s.domain);
    expect(sent).toHaveLength(2);
    expect(subjectOf(sent[1]?.text ?? '')).toBe(`${s.domain}: 0 visitors, 0 page views (2026-11)`);

    // Five tests an hour for a website, then a 429 that says when to try again.
    for (let i = 2; i <= 5; i++) expect((await test(id)).status).toBe(202);
    const limited = await test(id);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(errorOf(limited).message).toMatch(
      /5 tests in the last hour already\. Try again in \d+ minutes\./,
    );
    expect(reportsTo('tester@example.com', s.domain)).toHaveLength(6);
  });
});

describe('unsubscribing', () => {
  it("takes one recipient off by its own link; the owner's link still turns the owner's off", async () => {
    box = mailbox();
    const s = await site('rcpt-unsub', { email: '1' });
    const a = await confirmed(s.id, { email: 'unsub-a@example.com' });
    const b = await confirmed(s.id, { email: 'unsub-b@example.com' });
    await runCron(MONDAY);
    const [mailA] = reportsTo('unsub-a@example.com', s.domain);
    const [mailB] = reportsTo('unsub-b@example.com', s.domain);
    const [mailOwner] = reportsTo(owner.email, s.domain);
    const oneClick = (text: string | undefined) =>
      new URL(headerOf(text ?? '', 'List-Unsubscribe')?.slice(1, -1) ?? '').pathname;

    // A's one-click link, as a mail client posts it: A is gone, B and the owner are not.
    const pathA = oneClick(mailA?.text);
    expect((await call(pathA)).status).toBe(200);
    const res = await call(pathA, {
      method: 'POST',
      body: { form: { 'List-Unsubscribe': 'One-Click' } },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `No more reports of ${s.domain} will be sent to unsub-a@example.com.`,
    );
    expect((await call(pathA, { method: 'POST' })).status).toBe(404);
    const left = (await call(recipientsOf(s.id), { key: owner.key })).json.data as { id: number }[];
    expect(left.map((r) => r.id)).toEqual([b]);

    // Another recipient's token, or the confirmation's, opens nothing of B.
    const tokenA = pathA.split('/').at(-1);
    const [, confirmToken] = codeTo('unsub-b@example.com').split('.');
    for (const token of [tokenA, confirmToken]) {
      const wrong = await call('/reports/unsubscribe', {
        method: 'POST',
        body: { form: { code: `r${b}.${token}` } },
      });
      expect(wrong.status).toBe(404);
      expect(wrong.text).toContain('This link is not valid');
    }
    // B's own link on the page (the secret after `#`, posted by the page's form).
    const codeB = mailB?.text.match(/\/reports\/unsubscribe#(r\d+\.[0-9a-f]{32})/)?.[1] ?? '';
    expect(codeB).toMatch(new RegExp(`^r${b}\\.`));
    const page = await call('/reports/unsubscribe', {
      method: 'POST',
      body: { form: { code: codeB } },
    });
    expect(page.status).toBe(200);
    expect((await call(recipientsOf(s.id), { key: owner.key })).json.data).toEqual([]);
    expect(oneOf(await call(`/api/v1/websites/${s.id}`, { key: owner.key })).data.email).toBe(1);

    // The owner's link, as before: by website id.
    const ownerPath = oneClick(mailOwner?.text);
    expect(ownerPath).toMatch(new RegExp(`^/reports/unsubscribe/${s.id}/[0-9a-f]{32}$`));
    expect((await call(ownerPath, { method: 'POST' })).status).toBe(200);
    expect(oneOf(await call(`/api/v1/websites/${s.id}`, { key: owner.key })).data.email).toBe(0);

    // No one left: the next week sends nothing; a was never sent twice.
    await runCron(MONDAY + 7 * 24 * HOUR);
    expect(reportsTo('unsub-a@example.com', s.domain)).toHaveLength(1);
    expect(a).toBeGreaterThan(0);
  });
});
