/**
 * Traffic alerts (src/alerts/): made through the API, confirmed by the address's link, checked
 * by the hourly cron against the event log's last hours, e-mailed at most once per alert in
 * its `every_hours` (a retried run, two runs at once), stopped by the e-mail's link.
 */
import { env } from 'cloudflare:workers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkAlerts } from '../../../src/alerts/check.ts';
import { trafficOf } from '../../../src/alerts/traffic.ts';
import { QueryBudget } from '../../../src/db/query-budget.ts';
import type { Mailer } from '../../../src/lib/mail.ts';
import { call, db, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';
import { csrfFrom, signedIn } from '../../support/browser-session.ts';
import { runCron } from '../../support/cron.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';
import { mailbox } from '../../support/mailbox.ts';
import { headerOf } from '../../support/mime.ts';

const HOUR = 3_600_000;
/** Sunday 2026-11-29, 11:00 UTC: the cron's hour; the window of a 1-hour alert is 10:00–10:59. */
const AT = Date.parse('2026-11-29T11:00:00Z');

let owner: Awaited<ReturnType<typeof makeOwner>>;
let box: ReturnType<typeof mailbox>;

beforeAll(async () => {
  owner = await makeOwner('alerts');
});
afterEach(() => box?.close());
afterAll(() => freezeAt(Date.now()));

const site = (label: string) =>
  makeWebsite(owner.key, { domain: `${label}-${crypto.randomUUID().slice(0, 6)}.example.com` });

function addAlert(siteId: number, json: Record<string, unknown>) {
  return call(`/api/v1/websites/${siteId}/alerts`, {
    method: 'POST',
    key: owner.key,
    body: { json },
  });
}

/** The confirmation link's code (after `#`) in the newest e-mail to `to`. */
function codeTo(to: string): string {
  const mail = box.mails.filter((m) => m.to === to).at(-1);
  const code = mail?.text.match(/\/alerts\/confirm#(\d+\.[0-9a-f]{32})/)?.[1];
  if (!code) throw new Error(`no confirmation to ${to}`);
  return code;
}

const confirm = (code: string) =>
  call('/alerts/confirm', { method: 'POST', body: { form: { code } } });

/** A confirmed alert of `siteId`; its id. */
async function confirmedAlert(siteId: number, json: Record<string, unknown>): Promise<number> {
  const res = await addAlert(siteId, json);
  expect(res.status).toBe(201);
  expect((await confirm(codeTo(String(json.email)))).status).toBe(200);
  return Number(oneOf(res).data.id);
}

let visitorSeq = 0;

/** `n` new visitors (each its own address) on `page` from `referrer`, at `at`. */
async function visitors(domain: string, at: number, n: number, page = '/', referrer = '') {
  freezeAt(at);
  for (let i = 0; i < n; i++) {
    visitorSeq++;
    const res = await sendHit(
      { name: 'pageview', url: `https://${domain}${page}`, referrer },
      { ip: `198.51.${Math.floor(visitorSeq / 250)}.${(visitorSeq % 250) + 1}` },
    );
    expect([res.status, res.dropReason]).toEqual([202, null]);
  }
}

/** The alert e-mails (not confirmations) to `to`. */
const alertsTo = (to: string) =>
  box.mails.filter((m) => m.to === to && !m.text.includes('/alerts/confirm#'));

describe('alerts through the API', () => {
  it('adds an alert, e-mails its address a link, and sends nothing before it confirms', async () => {
    box = mailbox();
    const s = await site('alert-api');
    const res = await addAlert(s.id, { kind: 'spike', email: 'Ops@Example.com', threshold: 50 });
    expect(res.status).toBe(201);
    const made = oneOf(res).data;
    expect(made).toMatchObject({
      kind: 'spike',
      email: 'ops@example.com',
      threshold: 50,
      hours: 1,
      every_hours: 12,
      confirmed_at: null,
    });
    const mail = box.mails.at(-1);
    expect(mail?.to).toBe('ops@example.com');
    expect(mail?.text).toContain(
      `when ${s.domain} has a traffic spike: 50 or more visitors in an hour`,
    );
    // The secret is after `#`: no request log ever holds it.
    expect(mail?.text).toMatch(/http:\/\/localhost:8787\/alerts\/confirm#\d+\.[0-9a-f]{32}/);

    const listed = await call(`/api/v1/websites/${s.id}/alerts`, { key: owner.key });
    expect((listed.json as { data: unknown[] }).data).toEqual([made]);

    // A wrong code, then the right one; confirming twice keeps the first time.
    const code = codeTo('ops@example.com');
    expect((await confirm(code.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).status).toBe(404);
    const page = await confirm(code);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `ops@example.com will get an e-mail when ${s.domain} has 50 or more visitors`,
    );
    const one = await call(`/api/v1/websites/${s.id}/alerts/${made.id}`, { key: owner.key });
    const confirmedAt = oneOf(one).data.confirmed_at;
    expect(confirmedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    await confirm(code);
    const again = await call(`/api/v1/websites/${s.id}/alerts/${made.id}`, { key: owner.key });
    expect(oneOf(again).data.confirmed_at).toBe(confirmedAt);
    // Confirmed: sending the confirmation again is a conflict.
    const resend = await call(`/api/v1/websites/${s.id}/alerts/${made.id}/confirmation`, {
      method: 'POST',
      key: owner.key,
    });
    expect(resend.status).toBe(409);
  });

  it('names every bad field, refuses a second alert of a kind to an address, and keeps kind and address', async () => {
    box = mailbox();
    const s = await site('alert-bad');
    const bad = await addAlert(s.id, { kind: 'surge', email: 'not an address', hours: 0 });
    expect(bad.status).toBe(422);
    expect(Object.keys((bad.json as { errors: object }).errors).sort()).toEqual([
      'email',
      'hours',
      'kind',
    ]);
    const noThreshold = await addAlert(s.id, { kind: 'spike', email: 'a@example.com' });
    expect((noThreshold.json as { errors: object }).errors).toEqual({
      threshold: ['The threshold field is required.'],
    });
    const tooMany = await addAlert(s.id, {
      kind: 'drop',
      email: 'a@example.com',
      every_hours: 721,
      threshold: 1.5,
    });
    expect((tooMany.json as { errors: object }).errors).toEqual({
      threshold: ['The threshold must be a whole number from 1 to 100,000,000.'],
      every_hours: ['The every_hours must be a whole number from 1 to 720.'],
    });
    expect(box.mails).toHaveLength(0);

    const drop = await addAlert(s.id, { kind: 'drop', email: 'a@example.com' });
    expect(oneOf(drop).data).toMatchObject({ threshold: 1, hours: 12, every_hours: 24 });
    const twice = await addAlert(s.id, { kind: 'drop', email: 'A@example.com', threshold: 3 });
    expect(twice.status).toBe(422);
    expect((twice.json as { errors: object }).errors).toEqual({
      email: ['This address has a drop alert for this website already.'],
    });
    const id = oneOf(drop).data.id;
    const path = `/api/v1/websites/${s.id}/alerts/${id}`;
    const kind = await call(path, {
      method: 'PATCH',
      key: owner.key,
      body: { json: { kind: 'spike', email: 'b@example.com' } },
    });
    expect(kind.status).toBe(422);
    expect(Object.keys((kind.json as { errors: object }).errors).sort()).toEqual(['email', 'kind']);
    const changed = await call(path, {
      method: 'PATCH',
      key: owner.key,
      body: { json: { hours: 24 } },
    });
    expect(oneOf(changed).data).toMatchObject({ kind: 'drop', hours: 24, threshold: 1 });
    const gone = await call(path, { method: 'DELETE', key: owner.key });
    expect(gone.json).toEqual({ id, object: 'alert', deleted: true, status: 200 });
    expect((await call(path, { key: owner.key })).status).toBe(404);
  });

  it('keeps nothing when the e-mail cannot go out, and sends one address three confirmations a day', async () => {
    const s = await site('alert-mail');
    const bindings = env as { EMAIL?: unknown };
    const original = bindings.EMAIL;
    bindings.EMAIL = undefined;
    try {
      const res = await addAlert(s.id, { kind: 'drop', email: 'nomail@example.com' });
      expect(res.status).toBe(503);
      expect(res.text).toContain('set the EMAIL binding and MAIL_FROM');
    } finally {
      bindings.EMAIL = original;
    }
    box = mailbox();
    box.fail(true);
    expect((await addAlert(s.id, { kind: 'drop', email: 'nomail@example.com' })).status).toBe(503);
    box.fail(false);
    const none = await call(`/api/v1/websites/${s.id}/alerts`, { key: owner.key });
    expect((none.json as { data: unknown[] }).data).toEqual([]);

    // Three go out to the address in a day; the fourth is refused.
    const first = await addAlert(s.id, { kind: 'drop', email: 'stranger@example.com' });
    expect(first.status).toBe(201);
    const id = oneOf(first).data.id;
    const resend = () =>
      call(`/api/v1/websites/${s.id}/alerts/${id}/confirmation`, {
        method: 'POST',
        key: owner.key,
      });
    expect((await resend()).status).toBe(202);
    expect((await resend()).status).toBe(202);
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another website's alert to the same address is refused too: no one can make Sightline a mailer.
    const other = await site('alert-mail-2');
    expect(
      (await addAlert(other.id, { kind: 'spike', email: 'stranger@example.com', threshold: 5 }))
        .status,
    ).toBe(429);
    // One inbox is one address: its spellings share the limit (a trailing dot, capitals, IDNA).
    for (const email of ['stranger@example.com.', 'Stranger@EXAMPLE.com..']) {
      const spelled = await addAlert(other.id, { kind: 'spike', email, threshold: 5 });
      expect(spelled.status, email).toBe(429);
    }
    expect(box.mails.filter((m) => m.to === 'stranger@example.com')).toHaveLength(3);
  });
});

describe("alerts' links", () => {
  it("open only by their own token: not a made-up one, not another alert's, not the other purpose's", async () => {
    box = mailbox();
    const s = await site('alert-links');
    const first = oneOf(await addAlert(s.id, { kind: 'drop', email: 'one@example.com' })).data;
    await addAlert(s.id, { kind: 'drop', email: 'two@example.com' });
    const [, token] = codeTo('two@example.com').split('.');
    // Another alert's token, with this alert's id: the 404, and still unconfirmed.
    expect((await confirm(`${first.id}.${token}`)).status).toBe(404);
    const madeUp = `${first.id}/${'0'.repeat(32)}`;
    expect((await call(`/alerts/unsubscribe/${madeUp}`)).status).toBe(404);
    expect((await call(`/alerts/unsubscribe/${madeUp}`, { method: 'POST' })).status).toBe(404);
    const page = await call('/alerts/unsubscribe', {
      method: 'POST',
      body: { form: { code: `${first.id}.${'0'.repeat(32)}` } },
    });
    expect(page.status).toBe(404);
    // The confirmation's token does not unsubscribe.
    const [, own] = codeTo('one@example.com').split('.');
    expect((await call(`/alerts/unsubscribe/${first.id}/${own}`, { method: 'POST' })).status).toBe(
      404,
    );
    const list = await call(`/api/v1/websites/${s.id}/alerts`, { key: owner.key });
    expect(
      (list.json as { data: { confirmed_at: null }[] }).data.map((a) => a.confirmed_at),
    ).toEqual([null, null]);
  });
});

describe('alerts from the cron', () => {
  it('e-mails a spike once, with its top pages and sources, and not again within every_hours', async () => {
    box = mailbox();
    const s = await site('alert-spike');
    await confirmedAlert(s.id, { kind: 'spike', email: 'spike@example.com', threshold: 5 });
    await confirmedAlert(s.id, { kind: 'spike', email: 'high@example.com', threshold: 50 });
    await visitors(s.domain, AT - HOUR + 60_000, 4, '/launch', 'https://news.ycombinator.com/item');
    await visitors(s.domain, AT - HOUR + 120_000, 2, '/pricing');
    // Outside the window: a visitor before it, one in the cron's own hour.
    await visitors(s.domain, AT - 2 * HOUR + 60_000, 1, '/old');
    await visitors(s.domain, AT + 60_000, 1, '/new');

    await runCron(AT);
    await runCron(AT); // a retried run: no second e-mail
    const sent = alertsTo('spike@example.com');
    expect(sent).toHaveLength(1);
    expect(alertsTo('high@example.com')).toHaveLength(0);
    const text = sent[0]?.text ?? '';
    expect(text).toContain(`Subject: Traffic spike on ${s.domain}: 6 visitors in the last hour`);
    expect(text).toContain(
      `${s.domain} had 6 visitors from 2026-11-29 10:00 to 2026-11-29 11:00 (UTC); the same hours a week before, 0.`,
    );
    expect(text).toMatch(/Top pages:\r?\n {2}\/launch — 4\r?\n {2}\/pricing — 2/);
    expect(text).toMatch(/Top sources:\r?\n {2}Hacker News — 4\r?\n {2}Direct \/ None — 2/);
    expect(text).toContain(`http://localhost:8787/stats/${s.domain}?range=today`);
    expect(text).toMatch(
      /Stop them: http:\/\/localhost:8787\/alerts\/unsubscribe#\d+\.[0-9a-f]{32}/,
    );
    expect(headerOf(text, 'List-Unsubscribe')).toMatch(
      /^<http:\/\/localhost:8787\/alerts\/unsubscribe\/\d+\/[0-9a-f]{32}>$/,
    );

    // The next hour has a spike too, but the alert sent one 1 hour ago (every 12 hours).
    await visitors(s.domain, AT + 120_000, 8, '/again');
    await runCron(AT + HOUR);
    expect(alertsTo('spike@example.com')).toHaveLength(1);
    // Twelve hours after the first: sent again.
    await visitors(s.domain, AT + 11 * HOUR + 60_000, 5, '/later');
    await runCron(AT + 12 * HOUR);
    expect(alertsTo('spike@example.com')).toHaveLength(2);
  });

  it('e-mails a drop when the same hours a week before had the traffic, and stops at the e-mail’s link', async () => {
    box = mailbox();
    const dropped = await site('alert-drop');
    const quiet = await site('alert-quiet');
    for (const s of [dropped, quiet])
      await confirmedAlert(s.id, {
        kind: 'drop',
        email: `drop@${s.domain}`,
        threshold: 3,
        hours: 6,
      });
    // A week before the window: 4 visitors on `dropped`; now 1. `quiet` had nothing then either.
    await visitors(dropped.domain, AT - 7 * 24 * HOUR - 3 * HOUR, 4);
    await visitors(dropped.domain, AT - 2 * HOUR, 1);
    await visitors(quiet.domain, AT - 2 * HOUR, 1);

    await runCron(AT);
    expect(alertsTo(`drop@${quiet.domain}`)).toHaveLength(0);
    const [mail] = alertsTo(`drop@${dropped.domain}`);
    expect(mail?.text).toContain(
      `Subject: Traffic drop on ${dropped.domain}: 1 visitor in the last 6 hours`,
    );
    expect(mail?.text).toContain('the same hours a week before, 4.');
    expect(mail?.text).toContain('check that its pages still carry the tracking snippet');

    // One click in the mail client: the alert is gone, and no later run sends it.
    const oneClick = headerOf(mail?.text ?? '', 'List-Unsubscribe')?.slice(1, -1) ?? '';
    const res = await call(new URL(oneClick).pathname, {
      method: 'POST',
      body: { form: { 'List-Unsubscribe': 'One-Click' } },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`No more drop alerts for ${dropped.domain}`);
    const list = await call(`/api/v1/websites/${dropped.id}/alerts`, { key: owner.key });
    expect((list.json as { data: unknown[] }).data).toEqual([]);
    expect((await call(new URL(oneClick).pathname, { method: 'POST' })).status).toBe(404);
    await runCron(AT + 48 * HOUR);
    expect(alertsTo(`drop@${dropped.domain}`)).toHaveLength(1);
  });

  it('sends once when two runs check at once, and once within every_hours across hours', async () => {
    const s = await site('alert-race');
    box = mailbox();
    const alertId = await confirmedAlert(s.id, {
      kind: 'spike',
      email: 'race@example.com',
      threshold: 1,
      every_hours: 3,
    });
    await visitors(s.domain, AT - 30 * 60_000, 2);
    const sends: string[] = [];
    const mailer: Mailer = { send: async ({ to }) => void sends.push(to) };
    const config = { from: 'alerts@sightline.test', publicUrl: 'https://sightline.test' };
    const check = (now: number) =>
      checkAlerts(db(), mailer, config, now, {
        queries: new QueryBudget(100),
        trafficOf: (site, hours, end) => trafficOf(env, db(), site, hours, end),
      });
    const runs = await Promise.all([check(AT), check(AT), check(AT + HOUR)]);
    expect(sends).toEqual(['race@example.com']);
    expect(runs.map((r) => r.sent).reduce((a, b) => a + b)).toBe(1);
    // One claim: the first hour's.
    const { results } = await env.DB.prepare('SELECT period FROM report_sends WHERE period LIKE ?')
      .bind(`alert:${alertId}:%`)
      .all<{ period: string }>();
    expect(results).toHaveLength(1);
  });

  it("retries a send that failed, in the next run; says the hours in the website's time zone", async () => {
    const s = await makeWebsite(owner.key, {
      domain: `alert-retry-${crypto.randomUUID().slice(0, 6)}.example.com`,
      timezone: 'Asia/Kolkata',
    });
    box = mailbox();
    await confirmedAlert(s.id, { kind: 'spike', email: 'retry@example.com', threshold: 1 });
    await visitors(s.domain, AT - 30 * 60_000, 1);
    box.fail(true);
    await runCron(AT);
    box.fail(false);
    expect(alertsTo('retry@example.com')).toHaveLength(0);
    await runCron(AT);
    const [mail] = alertsTo('retry@example.com');
    // 10:00–11:00 UTC is 15:30–16:30 in India.
    expect(mail?.text).toContain('from 2026-11-29 15:30 to 2026-11-29 16:30 (Asia/Kolkata)');
  });
});

describe('alerts on the settings page', () => {
  it('adds an alert with the form, shows it waiting, sends the confirmation again, deletes it', async () => {
    box = mailbox();
    const person = await makeOwner('alerts-page');
    const s = await makeWebsite(person.key, {
      domain: `alert-page-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    const b = await signedIn(person);
    const csrf = csrfFrom((await b.get(`/websites/${s.id}`)).text);
    const bad = await b.post(`/websites/${s.id}/alerts`, {
      _csrf: csrf,
      kind: 'spike',
      email: 'page@example.com',
      threshold: '',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The threshold field is required.');
    expect(bad.text).toContain('value="page@example.com"');
    const added = await b.post(`/websites/${s.id}/alerts`, {
      _csrf: csrf,
      kind: 'drop',
      email: 'page@example.com',
      threshold: '',
      hours: '6',
      every_hours: '',
    });
    expect([added.status, added.location]).toEqual([303, `/websites/${s.id}/alerts?alert=added`]);
    const page = await b.get(added.location as string);
    expect(page.text).toContain('Alert added: its address has been sent a link to confirm it.');
    expect(page.text).toContain(
      'Drop: no visitors in 6 hours, where the same hours a week before had some',
    );
    expect(page.text).toContain('waiting for the address to confirm');
    const listed = await call(`/api/v1/websites/${s.id}/alerts`, { key: person.key });
    const alertId = (listed.json as { data: { id: number }[] }).data[0]?.id;
    const resent = await b.post(`/websites/${s.id}/alerts/${alertId}/confirmation`, {
      _csrf: csrf,
    });
    expect(resent.location).toBe(`/websites/${s.id}/alerts?alert=resent`);
    expect(box.mails.filter((m) => m.to === 'page@example.com')).toHaveLength(2);
    await confirm(codeTo('page@example.com'));
    expect((await b.get(`/websites/${s.id}/alerts`)).text).toContain(
      '<td data-label="Status">confirmed</td>',
    );
    const deleted = await b.post(`/websites/${s.id}/alerts/${alertId}/delete`, { _csrf: csrf });
    expect(deleted.location).toBe(`/websites/${s.id}/alerts?alert=deleted`);
    expect((await b.get(`/websites/${s.id}/alerts`)).text).toContain('No alerts yet.');
    // Another website's alert through this one's address: the 404 of a missing one.
    const other = await makeWebsite(owner.key, {
      domain: `alert-other-${crypto.randomUUID().slice(0, 6)}.example.com`,
    });
    const theirs = await addAlert(other.id, { kind: 'drop', email: 'theirs@example.com' });
    const foreign = oneOf(theirs).data.id;
    expect(
      (await b.post(`/websites/${s.id}/alerts/${foreign}/delete`, { _csrf: csrf })).status,
    ).toBe(404);
  });
});
